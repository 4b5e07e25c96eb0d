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


cdef inline floating row_dot4(RowData X, Py_ssize_t i,
                              const floating *w) noexcept nogil:
    """Return x_i @ w[:n_cols] with four partial sums on CSR rows (entries
    k = 0, 1, 2, 3 mod 4 of the full groups of four into s0..s3, the rest
    into s0, then (s0 + s1) + (s2 + s3)): the CG product's order, whose
    additions do not wait on each other (dense rows: BLAS, as row_dot)."""
    cdef const floating *v
    cdef const int *ix
    cdef Py_ssize_t k = 0, nnz = row_view(X, i, &v, &ix)
    cdef floating s0 = 0, s1 = 0, s2 = 0, s3 = 0
    if X.indptr == NULL:
        return _dot(<int> nnz, v, 1, w, 1)
    while k + 4 <= nnz:
        s0 += v[k] * w[ix[k]]
        s1 += v[k + 1] * w[ix[k + 1]]
        s2 += v[k + 2] * w[ix[k + 2]]
        s3 += v[k + 3] * w[ix[k + 3]]
        k += 4
    while k < nnz:
        s0 += v[k] * w[ix[k]]
        k += 1
    return (s0 + s1) + (s2 + s3)


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
