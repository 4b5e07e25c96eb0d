# SPDX-License-Identifier: BSD-3-Clause
"""Fused float32/float64 wrappers over ``scipy.linalg.cython_blas``.

Every BLAS call of semisvm goes through this module, so a change of SciPy's
BLAS integer type (``blas_int`` in SciPy >= 1.18) touches one file.
"""

import numpy as np

from cython cimport floating
from scipy.linalg.cython_blas cimport sdot, ddot, saxpy, daxpy, sscal, dscal
from scipy.linalg.cython_blas cimport snrm2, dnrm2, scopy, dcopy, sgemv, dgemv
from scipy.linalg.cython_blas cimport sgemm, dgemm


cdef floating _dot(int n, const floating *x, int incx,
                   const floating *y, int incy) noexcept nogil:
    # x @ y
    if floating is float:
        return sdot(&n, <float *> x, &incx, <float *> y, &incy)
    else:
        return ddot(&n, <double *> x, &incx, <double *> y, &incy)


cdef void _axpy(int n, floating alpha, const floating *x, int incx,
                floating *y, int incy) noexcept nogil:
    # y += alpha * x
    if floating is float:
        saxpy(&n, &alpha, <float *> x, &incx, y, &incy)
    else:
        daxpy(&n, &alpha, <double *> x, &incx, y, &incy)


cdef void _scal(int n, floating alpha, floating *x, int incx) noexcept nogil:
    # x *= alpha
    if floating is float:
        sscal(&n, &alpha, x, &incx)
    else:
        dscal(&n, &alpha, x, &incx)


cdef floating _nrm2(int n, const floating *x, int incx) noexcept nogil:
    # sqrt(x @ x)
    if floating is float:
        return snrm2(&n, <float *> x, &incx)
    else:
        return dnrm2(&n, <double *> x, &incx)


cdef void _copy(int n, const floating *x, int incx,
                floating *y, int incy) noexcept nogil:
    # y[:] = x
    if floating is float:
        scopy(&n, <float *> x, &incx, y, &incy)
    else:
        dcopy(&n, <double *> x, &incx, y, &incy)


cdef void _gemv_rm(int m, int n, floating alpha, const floating *A,
                   const floating *x, floating beta, floating *y) noexcept nogil:
    # y = alpha * A @ x + beta * y, A row-major (C-contiguous) of shape (m, n):
    # BLAS sees the column-major n x m matrix A.T, hence trans = 'T'
    cdef char trans = b'T'
    cdef int inc = 1, lda = n if n > 0 else 1
    if m <= 0:
        return
    if floating is float:
        sgemv(&trans, &n, &m, &alpha, <float *> A, &lda, <float *> x, &inc,
              &beta, y, &inc)
    else:
        dgemv(&trans, &n, &m, &alpha, <double *> A, &lda, <double *> x, &inc,
              &beta, y, &inc)


cdef void _gemm_rm(int m, int n, int k, floating alpha, const floating *A,
                   const floating *B, floating beta, floating *C) noexcept nogil:
    # C = alpha * A @ B + beta * C, all row-major: A (m, k), B (k, n), C (m, n);
    # BLAS computes the column-major C.T = B.T @ A.T
    cdef char tr = b'N'
    cdef int ldb = n if n > 0 else 1, lda = k if k > 0 else 1
    if m <= 0 or n <= 0:
        return
    if floating is float:
        sgemm(&tr, &tr, &n, &m, &k, &alpha, <float *> B, &ldb, <float *> A, &lda,
              &beta, C, &ldb)
    else:
        dgemm(&tr, &tr, &n, &m, &k, &alpha, <double *> B, &ldb, <double *> A, &lda,
              &beta, C, &ldb)


def _dot_py(const floating[::1] x, const floating[::1] y):
    """Test hook: ``x @ y`` through the BLAS shim."""
    if x.shape[0] != y.shape[0]:
        raise ValueError("x and y must have the same length")
    return _dot(<int> x.shape[0], &x[0], 1, &y[0], 1)


def _nrm2_py(const floating[::1] x):
    """Test hook: ``sqrt(x @ x)`` through the BLAS shim."""
    return _nrm2(<int> x.shape[0], &x[0], 1)


def _gemv_py(const floating[:, ::1] A, const floating[::1] x):
    """Test hook: ``A @ x`` for a C-contiguous A through the BLAS shim."""
    if A.shape[1] != x.shape[0]:
        raise ValueError("A and x have inconsistent shapes")
    if floating is float:
        out = np.zeros(A.shape[0], dtype=np.float32)
    else:
        out = np.zeros(A.shape[0], dtype=np.float64)
    cdef floating[::1] y = out
    if A.shape[0] and A.shape[1]:
        _gemv_rm(<int> A.shape[0], <int> A.shape[1], 1, &A[0, 0], &x[0], 0, &y[0])
    return out


def _gemm_py(const floating[:, ::1] A, const floating[:, ::1] B):
    """Test hook: ``A @ B`` for C-contiguous A, B through the BLAS shim."""
    if A.shape[1] != B.shape[0]:
        raise ValueError("A and B have inconsistent shapes")
    if floating is float:
        out = np.zeros((A.shape[0], B.shape[1]), dtype=np.float32)
    else:
        out = np.zeros((A.shape[0], B.shape[1]), dtype=np.float64)
    cdef floating[:, ::1] C = out
    if A.shape[0] and B.shape[1] and A.shape[1]:
        _gemm_rm(<int> A.shape[0], <int> B.shape[1], <int> A.shape[1], 1,
                 &A[0, 0], &B[0, 0], 0, &C[0, 0])
    return out
