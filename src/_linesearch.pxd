# SPDX-License-Identifier: BSD-3-Clause
"""Exact line search on the piecewise-quadratic L2-SVM objective."""

from cython cimport floating
from libc.stdlib cimport qsort

ctypedef struct Event:
    double delta      # step at which one loss term enters or leaves
    double dL         # change of the slope's constant part
    double dR         # change of the slope's linear part
    Py_ssize_t key    # unique tie-break (MFN: 2 row + term; LapSVM, TSVM: row)

# The one break-point order and scan of the compiled line searches (MFN's in
# _linesearch.pyx, LapSVM's in _lapsvm.pyx) and of TSVM's switching sort
# (_ssl.pyx): defined here, inline, so that every user compiles the same code.

cdef inline int cmp_event(const void *a, const void *b) noexcept nogil:
    """qsort order of break points: ascending delta, ties by ascending key."""
    cdef const Event *ea = <const Event *> a
    cdef const Event *eb = <const Event *> b
    if ea.delta < eb.delta:
        return -1
    if ea.delta > eb.delta:
        return 1
    return (ea.key > eb.key) - (ea.key < eb.key)


cdef inline void sort_events(Event *events, Py_ssize_t m) noexcept nogil:
    """Sort events[0:m] by :func:`cmp_event` (a total order: keys are unique)."""
    qsort(events, m, sizeof(Event), cmp_event)


cdef inline double sorted_root(Event *events, Py_ssize_t m, double L,
                               double R) noexcept nogil:
    """Root of a convex piecewise-linear slope along delta >= 0.

    The slope is L + delta R (L < 0, R > 0) until the first of the m break
    points ``events`` (any order on entry; sorted here), where it changes by
    (dL, dR). Returns the delta where the slope reaches 0: on the last piece
    if the root lies past every break point, or the break point itself when
    the slope's linear part vanishes there (R <= 0: no term left, lam = 0).
    """
    cdef Py_ssize_t j
    cdef double root
    sort_events(events, m)
    # invariant: on [events[j-1].delta, events[j].delta] the slope is L + delta R
    root = -L / R
    for j in range(m):
        if events[j].delta >= root:
            break
        L += events[j].dL
        R += events[j].dR
        if R <= 0:
            return events[j].delta
        root = -L / R
    return root


cdef double line_search(Py_ssize_t D, double lam, const floating *w,
                        const floating *wbar, Py_ssize_t n,
                        const floating *o, const floating *obar,
                        const floating *cpos, const floating *cneg,
                        Event *events) noexcept nogil

cdef Py_ssize_t collect_events(Py_ssize_t n, const floating *o,
                               const floating *obar, const floating *cpos,
                               const floating *cneg, Event *events,
                               double *L_out, double *R_out) noexcept nogil
