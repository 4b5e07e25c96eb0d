# SPDX-License-Identifier: BSD-3-Clause
"""Fused-type wrappers over scipy.linalg.cython_blas (the only BLAS entry point)."""

from cython cimport floating

cdef floating _dot(int n, const floating *x, int incx,
                   const floating *y, int incy) noexcept nogil
cdef void _axpy(int n, floating alpha, const floating *x, int incx,
                floating *y, int incy) noexcept nogil
cdef void _scal(int n, floating alpha, floating *x, int incx) noexcept nogil
cdef floating _nrm2(int n, const floating *x, int incx) noexcept nogil
cdef void _copy(int n, const floating *x, int incx,
                floating *y, int incy) noexcept nogil
cdef void _gemv_rm(int m, int n, floating alpha, const floating *A,
                   const floating *x, floating beta, floating *y) noexcept nogil
cdef void _gemm_rm(int m, int n, int k, floating alpha, const floating *A,
                   const floating *B, floating beta, floating *C) noexcept nogil
