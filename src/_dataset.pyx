# SPDX-License-Identifier: BSD-3-Clause
"""RowData: dense (C order) or CSR (int32 indices) rows behind one interface.

The constructor only takes validated input (see ``semisvm._validation``): a
C-contiguous 2-D float32/float64 ndarray, or a SciPy CSR matrix/array with
int32 ``indices``/``indptr`` and float32/float64 ``data``. Nothing is copied
and sparse data is never densified.
"""

import numpy as np
import scipy.sparse as sp

from cython cimport floating
from cython.parallel cimport prange

from semisvm._core._typedefs cimport MAX_CHUNKS, row_chunks


cdef const void *_values_ptr(const floating[::1] a):
    return <const void *> &a[0] if a.shape[0] > 0 else NULL


cdef class RowData:
    """Read-only row access to a dense or CSR matrix (see module docstring)."""

    def __init__(self, X):
        cdef const int[::1] indices
        cdef const int[::1] indptr
        cdef const float[::1] v32
        cdef const double[::1] v64
        self._source = X
        if sp.issparse(X):
            if X.format != "csr":
                raise TypeError(f"X must be CSR, got format {X.format!r}")
            data = X.data
            ind = X.indices
            ptr = X.indptr
            if ind.dtype != np.int32 or ptr.dtype != np.int32:
                raise TypeError("X must have int32 indices and indptr")
            self.is_sparse = True
            indptr = ptr
            self.indptr = &indptr[0]
            # a matrix with no stored entry still needs a valid index pointer
            if ind.shape[0] == 0:
                ind = np.zeros(1, dtype=np.int32)
            indices = ind
            self.indices = &indices[0]
            self._refs = (data, ind, ptr)
        else:
            data = X
            if not isinstance(X, np.ndarray) or X.ndim != 2:
                raise TypeError("X must be a 2-D ndarray or a CSR matrix")
            if not X.flags.c_contiguous:
                raise ValueError("dense X must be C-contiguous")
            ar = np.arange(max(X.shape[1], 1), dtype=np.int32)
            indices = ar
            self.indices = &indices[0]
            self.indptr = NULL
            self.is_sparse = False
            self._refs = (X, ar)
            data = X.reshape(-1)
        self.n_rows, self.n_cols = X.shape
        if data.dtype == np.float32:
            self.is_float32 = True
            v32 = data
            self.data = _values_ptr(v32)
        elif data.dtype == np.float64:
            self.is_float32 = False
            v64 = data
            self.data = _values_ptr(v64)
        else:
            raise TypeError(f"X values must be float32 or float64, got {data.dtype}")

    def __reduce__(self):
        return (RowData, (self._source,))

    @property
    def dtype(self):
        return np.dtype(np.float32 if self.is_float32 else np.float64)


cdef _check_hook(RowData X, Py_ssize_t i, bint is32, Py_ssize_t length,
                 str name):
    """The test hooks' argument check: a vector of X's dtype and n_cols
    entries, a row index in range."""
    if is32 != X.is_float32 or length < X.n_cols:
        raise ValueError(f"{name} must match X's dtype and have n_cols entries")
    if not 0 <= i < X.n_rows:
        raise IndexError(i)


def _row_dot_py(RowData X, Py_ssize_t i, const floating[::1] w):
    """Test hook: x_i @ w through the shared row helpers."""
    _check_hook(X, i, floating is float, w.shape[0], "w")
    return row_dot(X, i, &w[0])


def _row_dot4_py(RowData X, Py_ssize_t i, const floating[::1] w):
    """Test hook: x_i @ w in the CG product's order (four partial sums)."""
    _check_hook(X, i, floating is float, w.shape[0], "w")
    return row_dot4(X, i, &w[0])


def _row_axpy_py(RowData X, Py_ssize_t i, double a, floating[::1] out):
    """Test hook: out += a * x_i through the shared row helpers."""
    _check_hook(X, i, floating is float, out.shape[0], "out")
    row_axpy(X, i, <floating> a, &out[0])


cdef void _scan_rows(const int *indptr, const int *indices,
                     const floating *data, Py_ssize_t nnz, Py_ssize_t i0,
                     Py_ssize_t i1, unsigned char *unsorted, Py_ssize_t *zeros,
                     double *sumsq) noexcept nogil:
    """Rows i0..i1-1 of :func:`csr_scan` (``unsorted`` 2: a row's range
    outside 0..nnz or decreasing; the row is not read)."""
    cdef Py_ssize_t i, k, k0, k1, z = 0
    cdef floating v, v2
    cdef double s = 0
    cdef int bad = 0
    for i in range(i0, i1):
        k0 = indptr[i]
        k1 = indptr[i + 1]
        if k0 < 0 or k1 < k0 or k1 > nnz:
            bad = 2
            continue
        for k in range(k0, k1):
            v = data[k]
            v2 = v * v          # (inf where the square overflows the dtype)
            s += v2
            z += v == 0
            if k > k0 and indices[k] <= indices[k - 1] and bad == 0:
                bad = 1
    unsorted[0] = bad
    zeros[0] = z
    sumsq[0] = s


def csr_scan(const int[::1] indptr, const int[::1] indices,
             const floating[::1] data, int n_threads=1):
    """One pass over CSR arrays (int32 ``indptr`` of n + 1 entries,
    ``indptr[-1]`` entries of ``indices``/``data``): returns
    ``(canonical, n_zeros, sumsq)`` -- the column indices strictly increasing
    in every row (sorted, no duplicates), the stored zeros, the sum of the
    squared values (each square in the values' precision, as a BLAS dot:
    inf where one overflows it; summed in float64; NaN where a value is).
    A row whose ``indptr`` range is decreasing or leaves 0..indptr[-1] is not
    read: then ``(False, 0, nan)`` (the caller's full check names it).
    On ``n_threads`` threads over the fixed chunks of ``row_chunks`` (their
    sums added in chunk order: the same result for any count)."""
    cdef Py_ssize_t n = indptr.shape[0] - 1, cs, nc, c, c1
    if (n < 0 or indptr[n] < 0 or indptr[n] > indices.shape[0]
            or indptr[n] > data.shape[0]):
        raise ValueError("indptr, indices and data do not form CSR arrays")
    if n == 0 or indptr[n] == 0:
        return True, 0, 0.0
    nc = row_chunks(n, &cs)
    cdef unsigned char bad[MAX_CHUNKS]
    cdef Py_ssize_t zeros[MAX_CHUNKS]
    cdef double sums[MAX_CHUNKS]
    cdef double s = 0
    cdef Py_ssize_t z = 0
    cdef bint canonical = True, broken = False
    cdef Py_ssize_t nnz = indptr[n]
    cdef int nt = n_threads if n_threads > 1 and nc > 1 else 1
    with nogil:
        if nt > 1:
            for c in prange(nc, schedule="dynamic", chunksize=1,
                            num_threads=nt):
                c1 = (c + 1) * cs
                _scan_rows(&indptr[0], &indices[0], &data[0], nnz, c * cs,
                           c1 if c1 < n else n, &bad[c], &zeros[c], &sums[c])
        else:
            for c in range(nc):
                c1 = (c + 1) * cs
                _scan_rows(&indptr[0], &indices[0], &data[0], nnz, c * cs,
                           c1 if c1 < n else n, &bad[c], &zeros[c], &sums[c])
        for c in range(nc):
            s += sums[c]
            z += zeros[c]
            if bad[c]:
                canonical = False
            if bad[c] == 2:
                broken = True
    if broken:
        return False, 0, float("nan")
    return canonical, z, s
