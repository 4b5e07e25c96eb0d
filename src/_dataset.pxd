# SPDX-License-Identifier: BSD-3-Clause
"""One row-access abstraction for C-contiguous dense and CSR data.

A dense matrix is seen as a CSR matrix whose every row has all ``n_cols``
entries and shares one ``arange(n_cols)`` index array, so every kernel is
written once, as a sparse loop; the helpers take a BLAS fast path when
``indptr`` is NULL. Values are float32 or float64 (``is_float32``); solvers
are fused over ``floating`` and must check ``is_float32`` on entry.
"""

from cython cimport floating
from semisvm._core._blas cimport _dot, _axpy


cdef class RowData:
    cdef const void *data           # values: n_rows * n_cols (dense) or nnz (CSR)
    cdef const int *indices         # CSR column indices, or the shared arange
    cdef const int *indptr          # CSR row pointers (n_rows + 1); NULL if dense
    cdef readonly Py_ssize_t n_rows
    cdef readonly Py_ssize_t n_cols
    cdef readonly bint is_float32
    cdef readonly bint is_sparse
    cdef object _source             # the matrix given to __init__ (for pickling)
    cdef object _refs               # arrays whose buffers the pointers above view


cdef inline Py_ssize_t row_view(RowData X, Py_ssize_t i, const floating **vals,
                                const int **idx) noexcept nogil:
    """Point ``vals``/``idx`` at row i; return its number of stored entries."""
    cdef Py_ssize_t start
    if X.indptr == NULL:
        vals[0] = (<const floating *> X.data) + i * X.n_cols
        idx[0] = X.indices
        return X.n_cols
    start = X.indptr[i]
    vals[0] = (<const floating *> X.data) + start
    idx[0] = X.indices + start
    return X.indptr[i + 1] - start


cdef inline floating row_dot(RowData X, Py_ssize_t i,
                             const floating *w) noexcept nogil:
    """Return x_i @ w[:n_cols]."""
    cdef const floating *v
    cdef const int *ix
    cdef Py_ssize_t k, nnz = row_view(X, i, &v, &ix)
    cdef floating s = 0
    if X.indptr == NULL:
        return _dot(<int> nnz, v, 1, w, 1)
    for k in range(nnz):
        s += v[k] * w[ix[k]]
    return s


cdef inline void row_axpy(RowData X, Py_ssize_t i, floating a,
                          floating *out) noexcept nogil:
    """out[:n_cols] += a * x_i."""
    cdef const floating *v
    cdef const int *ix
    cdef Py_ssize_t k, nnz = row_view(X, i, &v, &ix)
    if X.indptr == NULL:
        _axpy(<int> nnz, a, v, 1, out, 1)
        return
    for k in range(nnz):
        out[ix[k]] += a * v[k]


cdef inline floating row_sqnorm(RowData X, Py_ssize_t i,
                                floating dummy) noexcept nogil:
    """Return ||x_i||^2 (``dummy`` only selects the fused specialisation)."""
    cdef const floating *v
    cdef const int *ix
    cdef Py_ssize_t k, nnz = row_view(X, i, &v, &ix)
    cdef floating s = 0
    for k in range(nnz):
        s += v[k] * v[k]
    return s
