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
              floating *tbuf, int n_threads, int *n_iter, bint one_pass=*,
              double gstop2=*, double *gnorm2=*,
              bint blocked=*) noexcept nogil
cdef int n_blocks(RowData X, Py_ssize_t n_rows) noexcept nogil
cdef void rows_rmatvec_diag(RowData X, floating bias_scale, const int *rows,
                            Py_ssize_t n_rows, const floating *z,
                            const floating *a, floating *out,
                            floating *diag) noexcept nogil
