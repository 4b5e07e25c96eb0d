# SPDX-License-Identifier: BSD-3-Clause
"""Fused float32/float64 wrappers over ``scipy.linalg.cython_blas``.

Every BLAS call of semisvm goes through this module, so a change of SciPy's
BLAS integer type (``blas_int`` in SciPy >= 1.18) touches one file.
"""

from cython cimport floating
from scipy.linalg.cython_blas cimport sdot, ddot, saxpy, daxpy, sscal, dscal
from scipy.linalg.cython_blas cimport snrm2, dnrm2, scopy, dcopy


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


def _dot_py(const floating[::1] x, const floating[::1] y):
    """Test hook: ``x @ y`` through the BLAS shim."""
    if x.shape[0] != y.shape[0]:
        raise ValueError("x and y must have the same length")
    return _dot(<int> x.shape[0], &x[0], 1, &y[0], 1)


def _nrm2_py(const floating[::1] x):
    """Test hook: ``sqrt(x @ x)`` through the BLAS shim."""
    return _nrm2(<int> x.shape[0], &x[0], 1)
