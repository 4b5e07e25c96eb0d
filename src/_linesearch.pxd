# SPDX-License-Identifier: BSD-3-Clause
"""Exact line search on the piecewise-quadratic L2-SVM objective."""

from cython cimport floating

from semisvm._core._typedefs cimport MAX_CHUNKS, ROW_CHUNK, row_chunks

ctypedef struct Event:
    double delta      # step at which one loss term enters or leaves
    double dL         # change of the slope's constant part
    double dR         # change of the slope's linear part
    Py_ssize_t key    # unique tie-break (MFN: 2 row + term; LapSVM, TSVM: row)

# The one break-point order and scan of the compiled line searches (MFN's in
# _linesearch.pyx, LapSVM's in _lapsvm.pyx) and of TSVM's switching sort
# (_ssl.pyx): defined here, inline, so that every user compiles the same code.

cdef inline bint ev_less(const Event *a, const Event *b) noexcept nogil:
    """The break points' order: ascending delta, ties by ascending key (a
    total order: keys are unique)."""
    return a.delta < b.delta or (a.delta == b.delta and a.key < b.key)


cdef inline void _ev_swap(Event *a, Event *b) noexcept nogil:
    cdef Event t = a[0]
    a[0] = b[0]
    b[0] = t


cdef inline void _ev_insertion(Event *e, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i, j
    cdef Event x
    for i in range(1, n):
        x = e[i]
        j = i
        while j > 0 and ev_less(&x, &e[j - 1]):
            e[j] = e[j - 1]
            j -= 1
        e[j] = x


cdef inline void _ev_sift(Event *e, Py_ssize_t root, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t child
    cdef Event x = e[root]
    while True:
        child = 2 * root + 1
        if child >= n:
            break
        if child + 1 < n and ev_less(&e[child], &e[child + 1]):
            child += 1
        if not ev_less(&x, &e[child]):
            break
        e[root] = e[child]
        root = child
    e[root] = x


cdef inline void _ev_heapsort(Event *e, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n // 2 - 1, -1, -1):
        _ev_sift(e, i, n)
    for i in range(n - 1, 0, -1):
        _ev_swap(&e[0], &e[i])
        _ev_sift(e, 0, i)


cdef inline void _ev_introsort(Event *e, Py_ssize_t n, int depth) noexcept nogil:
    """Introsort (median-of-three quicksort, heapsort past ``depth`` levels,
    insertion sort below 17 entries) with the comparison inlined: qsort's
    call per comparison cost more than the rest of a line search."""
    cdef Py_ssize_t i, j, mid
    cdef Event pivot
    while n > 16:
        if depth == 0:
            _ev_heapsort(e, n)
            return
        depth -= 1
        mid = n // 2
        if ev_less(&e[mid], &e[0]):
            _ev_swap(&e[mid], &e[0])
        if ev_less(&e[n - 1], &e[mid]):
            _ev_swap(&e[n - 1], &e[mid])
            if ev_less(&e[mid], &e[0]):
                _ev_swap(&e[mid], &e[0])
        pivot = e[mid]
        i = 0
        j = n - 1
        # Hoare partition: e[0..j] <= pivot <= e[j+1..n-1]
        while True:
            while ev_less(&e[i], &pivot):
                i += 1
            while ev_less(&pivot, &e[j]):
                j -= 1
            if i >= j:
                break
            _ev_swap(&e[i], &e[j])
            i += 1
            j -= 1
        # the smaller side by recursion, the larger by the loop
        if j + 1 < n - j - 1:
            _ev_introsort(e, j + 1, depth)
            e = e + j + 1
            n = n - j - 1
        else:
            _ev_introsort(e + j + 1, n - j - 1, depth)
            n = j + 1
    _ev_insertion(e, n)


cdef inline void sort_events(Event *events, Py_ssize_t m) noexcept nogil:
    """Sort events[0:m] by :func:`ev_less` (a total order, so any correct sort
    gives the one result qsort gave)."""
    cdef int depth = 0
    cdef Py_ssize_t k = m
    while k > 1:
        depth += 2
        k >>= 1
    _ev_introsort(events, m, depth)


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
                        Event *events, int n_threads=*) noexcept nogil

cdef Py_ssize_t collect_events(Py_ssize_t n, const floating *o,
                               const floating *obar, const floating *cpos,
                               const floating *cneg, Event *events,
                               double *L_out, double *R_out) noexcept nogil
