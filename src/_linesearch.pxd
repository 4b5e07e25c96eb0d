# SPDX-License-Identifier: BSD-3-Clause
"""Exact line search on the piecewise-quadratic L2-SVM objective."""

from cython cimport floating

ctypedef struct Event:
    double delta      # step at which one loss term enters or leaves
    double dL         # change of the slope's constant part
    double dR         # change of the slope's linear part
    Py_ssize_t key    # 2 * row + term, for a deterministic order of ties

cdef double line_search(Py_ssize_t D, double lam, const floating *w,
                        const floating *wbar, Py_ssize_t n,
                        const floating *o, const floating *obar,
                        const floating *cpos, const floating *cneg,
                        Event *events) noexcept nogil

cdef Py_ssize_t collect_events(Py_ssize_t n, const floating *o,
                               const floating *obar, const floating *cpos,
                               const floating *cneg, Event *events,
                               double *L_out, double *R_out) noexcept nogil
