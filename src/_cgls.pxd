# SPDX-License-Identifier: BSD-3-Clause
"""CGLS over an active row set, and the row-set products it is built on."""

from cython cimport floating
from semisvm._core._dataset cimport RowData

cdef void rows_matvec(RowData X, floating bias_scale, const int *rows,
                      Py_ssize_t n_rows, const floating *v, floating *out,
                      int n_threads) noexcept nogil
cdef void rows_rmatvec(RowData X, floating bias_scale, const int *rows,
                       Py_ssize_t n_rows, const floating *z, floating *out,
                       floating *tbuf, int n_threads) noexcept nogil
cdef int cgls(RowData X, floating bias_scale, const int *active,
              Py_ssize_t n_active, const floating *a, const floating *t,
              floating lam, floating *beta, floating *o, floating tol,
              floating eta, int max_iter, floating *z, floating *q,
              floating *r, floating *p, floating *s, floating *minv,
              floating *tbuf, Py_ssize_t tbuf_len, int n_threads,
              int *n_iter, bint one_pass=*, double gstop2=*,
              double *gnorm2=*, bint blocked=*, floating *keep=*,
              bint given=*, double prec_mix=*) noexcept nogil
cdef void rows_rmatvec_blocked(RowData X, floating bias_scale, const int *rows,
                               Py_ssize_t n_rows, const floating *z,
                               floating *out, floating *buf,
                               int n_threads) noexcept nogil
cdef int n_blocks(RowData X, Py_ssize_t n_rows) noexcept nogil
cdef Py_ssize_t slice_len(RowData X, Py_ssize_t n_rows) noexcept nogil
cdef void rows_rmatvec_diag(RowData X, floating bias_scale, const int *rows,
                            Py_ssize_t n_rows, const floating *z,
                            const floating *a, floating *out,
                            floating *diag) noexcept nogil


cdef extern from "Python.h":
    int _check_signals "PyErr_CheckSignals" () nogil


cdef inline bint interrupted() noexcept nogil:
    """Run Python's pending signal handlers (the main thread only; elsewhere
    nothing): True when one raised (Ctrl-C: KeyboardInterrupt). The
    exception stays set; the ``def`` entry point propagates it with
    :func:`reraise` once it holds the GIL. Costs taking the GIL: called
    every few million flops (:func:`check_period`), not per row."""
    cdef int rc
    with gil:
        rc = _check_signals()
    return rc != 0


cdef inline int reraise() except -1:
    """Propagate the exception a signal handler left set (see interrupted)."""
    return -1


cdef inline int check_period(Py_ssize_t work) noexcept nogil:
    """Iterations between signal checks for iterations costing ``work`` flops
    each: about 4 million flops (a few ms) between checks."""
    if work < 1:
        return 1 << 22
    if work >= (1 << 22):
        return 1
    return <int> ((1 << 22) // work)
