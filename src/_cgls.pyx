# SPDX-License-Identifier: BSD-3-Clause
"""CGLS for the weighted regularised least-squares step of L2-SVM-MFN.

Solves, over the active rows J (Sindhwani & Keerthi 2006, eq. 4),

    (lam I + X_J' A_J X_J) beta = X_J' A_J t_J

with A_J = diag(a_J) the per-row weights and t_J the targets, seeded with the
current iterate (the paper's "seeding"). The bias is an extra column of value
``bias_scale`` in every row, stored as ``beta[n_cols]``. Only products with
X_J and X_J' are needed, one of each per iteration (Paige & Saunders' CGLS on
the normal equations, in the numerically stable residual form).
"""

import numpy as np

from cython cimport floating
from cython.parallel cimport parallel, prange, threadid
from libc.string cimport memset
from semisvm._core._blas cimport _dot, _axpy, _copy
from semisvm._core._dataset cimport RowData, row_dot, row_axpy, row_view

# weight of diag(H) in the CG preconditioner (Hsia, Chiang & Lin 2018)
cdef double PREC_MIX = 0.01
# the same weight for Python (the driver-side CGLS of semisvm._distributed)
prec_mix = PREC_MIX


cdef void rows_matvec(RowData X, floating bias_scale, const int *rows,
                      Py_ssize_t n_rows, const floating *v, floating *out,
                      int n_threads) noexcept nogil:
    """out[k] = x_{rows[k]} @ v[:d] + bias_scale * v[d]  (rows split over threads)."""
    cdef Py_ssize_t k
    cdef floating vb = bias_scale * v[X.n_cols]
    if n_threads <= 1:
        for k in range(n_rows):
            out[k] = row_dot(X, rows[k], v) + vb
        return
    for k in prange(n_rows, schedule="static", num_threads=n_threads):
        out[k] = row_dot(X, rows[k], v) + vb


cdef void rows_rmatvec(RowData X, floating bias_scale, const int *rows,
                       Py_ssize_t n_rows, const floating *z, floating *out,
                       floating *tbuf, int n_threads) noexcept nogil:
    """out[:d+1] = sum_k z[k] * [x_{rows[k]}, bias_scale].

    With n_threads > 1 each thread accumulates a static block of rows into its
    own slice of ``tbuf`` (n_threads * (d + 1)), summed at the end: the result
    is bit-for-bit reproducible for a given thread count.
    """
    cdef Py_ssize_t k, j, D = X.n_cols + 1
    cdef double zsum = 0
    cdef floating *mine
    cdef int tid
    for k in range(n_rows):
        zsum += z[k]
    if n_threads <= 1:
        for j in range(D):
            out[j] = 0
        for k in range(n_rows):
            if z[k] != 0:
                row_axpy(X, rows[k], z[k], out)
    else:
        # all slices are cleared here, not by their threads: OpenMP may start
        # fewer threads than asked, and a slice nobody ran must add zero
        memset(tbuf, 0, D * n_threads * sizeof(floating))
        with parallel(num_threads=n_threads):
            tid = threadid()
            mine = tbuf + tid * D
            for k in prange(n_rows, schedule="static"):
                if z[k] != 0:
                    row_axpy(X, rows[k], z[k], mine)
        # out = sum over threads of their partial sums
        for j in prange(D, schedule="static", num_threads=n_threads):
            out[j] = tbuf[j]
            for tid in range(1, n_threads):
                out[j] = out[j] + tbuf[tid * D + j]
    out[X.n_cols] = <floating> (bias_scale * zsum)


cdef extern from *:
    """
    /* out += z0 x0 + ... + z3 x3, diag += a0 x0^2 + ... + a3 x3^2 over the
       d entries, the four rows added in turn to each entry (the generic
       loop's order). Compiled twice on x86-64 (baseline and AVX2, picked at
       run time): no FMA in either, so the same bits. */
    #define SEMISVM_RMD4_BODY(T)                                          \
        for (Py_ssize_t m = 0; m < d; m++) {                              \
            T ov = out[m], dv = diag[m];                                  \
            ov = ov + z0 * v0[m];                                         \
            ov = ov + z1 * v1[m];                                         \
            ov = ov + z2 * v2[m];                                         \
            ov = ov + z3 * v3[m];                                         \
            dv = dv + a0 * v0[m] * v0[m];                                 \
            dv = dv + a1 * v1[m] * v1[m];                                 \
            dv = dv + a2 * v2[m] * v2[m];                                 \
            dv = dv + a3 * v3[m] * v3[m];                                 \
            out[m] = ov;                                                  \
            diag[m] = dv;                                                 \
        }
    #define SEMISVM_RMD4_ARGS(T)                                          \
        Py_ssize_t d, const T *v0, const T *v1, const T *v2, const T *v3, \
        T z0, T z1, T z2, T z3, T a0, T a1, T a2, T a3,                   \
        T *out, T *diag
    static void semisvm_rmd4_f_base(SEMISVM_RMD4_ARGS(float))
    { SEMISVM_RMD4_BODY(float) }
    static void semisvm_rmd4_d_base(SEMISVM_RMD4_ARGS(double))
    { SEMISVM_RMD4_BODY(double) }
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    __attribute__((target("avx2")))
    static void semisvm_rmd4_f_avx2(SEMISVM_RMD4_ARGS(float))
    { SEMISVM_RMD4_BODY(float) }
    __attribute__((target("avx2")))
    static void semisvm_rmd4_d_avx2(SEMISVM_RMD4_ARGS(double))
    { SEMISVM_RMD4_BODY(double) }
    #define SEMISVM_HAVE_AVX2() __builtin_cpu_supports("avx2")
    #else
    #define semisvm_rmd4_f_avx2 semisvm_rmd4_f_base
    #define semisvm_rmd4_d_avx2 semisvm_rmd4_d_base
    #define SEMISVM_HAVE_AVX2() 0
    #endif
    """
    bint SEMISVM_HAVE_AVX2() noexcept nogil
    void semisvm_rmd4_f_base(Py_ssize_t d, const float *v0, const float *v1,
                             const float *v2, const float *v3, float z0,
                             float z1, float z2, float z3, float a0, float a1,
                             float a2, float a3, float *out,
                             float *diag) noexcept nogil
    void semisvm_rmd4_f_avx2(Py_ssize_t d, const float *v0, const float *v1,
                             const float *v2, const float *v3, float z0,
                             float z1, float z2, float z3, float a0, float a1,
                             float a2, float a3, float *out,
                             float *diag) noexcept nogil
    void semisvm_rmd4_d_base(Py_ssize_t d, const double *v0, const double *v1,
                             const double *v2, const double *v3, double z0,
                             double z1, double z2, double z3, double a0,
                             double a1, double a2, double a3, double *out,
                             double *diag) noexcept nogil
    void semisvm_rmd4_d_avx2(Py_ssize_t d, const double *v0, const double *v1,
                             const double *v2, const double *v3, double z0,
                             double z1, double z2, double z3, double a0,
                             double a1, double a2, double a3, double *out,
                             double *diag) noexcept nogil


cdef Py_ssize_t _rmatvec_diag_dense4(RowData X, const int *rows,
                                     Py_ssize_t n_rows, const floating *z,
                                     const floating *a, floating *out,
                                     floating *diag, double *zsum,
                                     double *asum) noexcept nogil:
    """The loop of :func:`rows_rmatvec_diag` over dense rows, four rows per
    pass: each entry of out/diag stays in a register while the four rows'
    terms are added one by one (the generic loop's sums, in its order) and
    the inner loop is contiguous, so the compiler vectorises it (with an
    AVX2 build picked at run time on x86-64). Returns the
    number of rows done (a multiple of 4; the caller does the rest)."""
    cdef Py_ssize_t k, d = X.n_cols
    cdef const floating *v0
    cdef const floating *v1
    cdef const floating *v2
    cdef const floating *v3
    cdef const int *ix
    cdef floating z0, z1, z2, z3, a0, a1, a2, a3
    cdef bint avx2 = SEMISVM_HAVE_AVX2()
    k = 0
    while k + 4 <= n_rows:
        row_view(X, rows[k], &v0, &ix)
        row_view(X, rows[k + 1], &v1, &ix)
        row_view(X, rows[k + 2], &v2, &ix)
        row_view(X, rows[k + 3], &v3, &ix)
        z0 = z[k]
        z1 = z[k + 1]
        z2 = z[k + 2]
        z3 = z[k + 3]
        a0 = a[rows[k]]
        a1 = a[rows[k + 1]]
        a2 = a[rows[k + 2]]
        a3 = a[rows[k + 3]]
        # out += z_k x_k ; diag += a_k x_k^2, k = the four rows in order
        if floating is float:
            if avx2:
                semisvm_rmd4_f_avx2(d, v0, v1, v2, v3, z0, z1, z2, z3, a0, a1,
                                    a2, a3, out, diag)
            else:
                semisvm_rmd4_f_base(d, v0, v1, v2, v3, z0, z1, z2, z3, a0, a1,
                                    a2, a3, out, diag)
        else:
            if avx2:
                semisvm_rmd4_d_avx2(d, v0, v1, v2, v3, z0, z1, z2, z3, a0, a1,
                                    a2, a3, out, diag)
            else:
                semisvm_rmd4_d_base(d, v0, v1, v2, v3, z0, z1, z2, z3, a0, a1,
                                    a2, a3, out, diag)
        zsum[0] += z0
        zsum[0] += z1
        zsum[0] += z2
        zsum[0] += z3
        asum[0] += a0
        asum[0] += a1
        asum[0] += a2
        asum[0] += a3
        k += 4
    return k


cdef void rows_rmatvec_diag(RowData X, floating bias_scale, const int *rows,
                            Py_ssize_t n_rows, const floating *z,
                            const floating *a, floating *out,
                            floating *diag) noexcept nogil:
    """out = sum_k z[k] [x_i, s];  diag = sum_k a_i [x_i, s]^2  (i = rows[k])."""
    cdef const floating *v
    cdef const int *ix
    cdef Py_ssize_t k, m, nnz, i
    cdef double zsum = 0, asum = 0
    cdef floating zk, ai
    for m in range(X.n_cols + 1):
        out[m] = 0
        diag[m] = 0
    k = 0
    if X.indptr == NULL:
        # dense rows, four at a time: the same sums in the same row order
        k = _rmatvec_diag_dense4(X, rows, n_rows, z, a, out, diag, &zsum, &asum)
    for k in range(k, n_rows):
        i = rows[k]
        zk = z[k]
        ai = a[i]
        nnz = row_view(X, i, &v, &ix)
        for m in range(nnz):
            out[ix[m]] += zk * v[m]
            diag[ix[m]] += ai * v[m] * v[m]
        zsum += zk
        asum += ai
    out[X.n_cols] = <floating> (bias_scale * zsum)
    diag[X.n_cols] = <floating> (bias_scale * bias_scale * asum)


cdef int cgls(RowData X, floating bias_scale, const int *active,
              Py_ssize_t n_active, const floating *a, const floating *t,
              floating lam, floating *beta, floating *o, floating tol,
              floating eta, int max_iter, floating *z, floating *q,
              floating *r, floating *p, floating *s, floating *minv,
              floating *tbuf, int n_threads, int *n_iter) noexcept nogil:
    """Seeded, preconditioned CGLS over the rows ``active[:n_active]``.

    ``a``, ``t`` and ``o`` are indexed by row number; ``o`` holds X beta on
    the active rows on entry and is kept equal to it. ``z``/``q`` (n_active)
    and ``r``/``p``/``s``/``minv`` (n_cols + 1) are work arrays. The
    preconditioner is M = (1 - PREC_MIX) lam I + PREC_MIX diag(H),
    H = lam I + X_J' A_J X_J (Hsia, Chiang & Lin 2018, as LIBLINEAR >= 2.40),
    which leaves the iterates those of CG on the same normal equations in a
    rescaled basis. With r the residual of the normal equations (r = -gradient
    of the quadratic model), returns

    * 1 when ||r|| <= tol * ||X_J' A_J t_J|| (solved to the tolerance),
    * 2 when ||r|| <= eta * ||r_seed|| first (inexact Newton forcing term;
      ``eta = 0`` disables it),
    * 0 when ``max_iter`` iterations did not suffice.
    """
    cdef int D = <int> (X.n_cols + 1)
    cdef Py_ssize_t k, i, j
    cdef int it
    cdef double rho, rho_new, omega_z, omega_q, pp, bnorm2, gamma, tol2, force2
    cdef floating g

    # rhs = X_J' A_J t_J (only for the scale of the stopping test) and the
    # preconditioner's diagonal sum_J a_i x_ij^2, in one pass over the rows
    for k in range(n_active):
        i = active[k]
        q[k] = a[i] * t[i]
    rows_rmatvec_diag(X, bias_scale, active, n_active, q, a, p, minv)
    bnorm2 = _dot(D, p, 1, p, 1)
    tol2 = tol * tol * (bnorm2 if bnorm2 > 0 else 1.0)
    for j in range(D):
        minv[j] = 1 / (lam + PREC_MIX * minv[j])

    # z = A_J (t_J - o_J);  r = X_J' z - lam * beta;  s = M^-1 r
    for k in range(n_active):
        i = active[k]
        z[k] = a[i] * (t[i] - o[i])
    rows_rmatvec(X, bias_scale, active, n_active, z, r, tbuf, n_threads)
    _axpy(D, -lam, beta, 1, r, 1)
    for j in range(D):
        s[j] = minv[j] * r[j]
    _copy(D, s, 1, p, 1)
    omega_z = _dot(D, r, 1, r, 1)
    rho = _dot(D, r, 1, s, 1)
    force2 = eta * eta * omega_z

    n_iter[0] = 0
    if omega_z <= tol2:
        return 1
    for it in range(1, max_iter + 1):
        n_iter[0] = it
        # q = X_J p ; gamma = r's / (lam ||p||^2 + q' A q)
        rows_matvec(X, bias_scale, active, n_active, p, q, n_threads)
        omega_q = 0
        for k in range(n_active):
            omega_q += a[active[k]] * q[k] * q[k]
        pp = _dot(D, p, 1, p, 1)
        gamma = rho / (lam * pp + omega_q)
        g = <floating> gamma
        # beta += gamma p ; o_J += gamma q ; z -= gamma A q
        _axpy(D, g, p, 1, beta, 1)
        for k in range(n_active):
            i = active[k]
            o[i] += g * q[k]
            z[k] -= g * a[i] * q[k]
        # r = X_J' z - lam beta ; s = M^-1 r
        rows_rmatvec(X, bias_scale, active, n_active, z, r, tbuf, n_threads)
        _axpy(D, -lam, beta, 1, r, 1)
        omega_z = _dot(D, r, 1, r, 1)
        if omega_z <= tol2:
            return 1
        if omega_z <= force2:
            return 2
        for j in range(D):
            s[j] = minv[j] * r[j]
        rho_new = _dot(D, r, 1, s, 1)
        # p = s + (rho_new / rho) p
        g = <floating> (rho_new / rho)
        for j in range(D):
            p[j] = s[j] + g * p[j]
        rho = rho_new
    return 0


def _cgls_py(RowData X, double bias_scale, const int[::1] active,
             const floating[::1] a, const floating[::1] t, double lam,
             floating[::1] beta, floating[::1] o, double tol, int max_iter,
             double eta=0.0, int n_threads=1):
    """Test hook: run :c:func:`cgls` in place on ``beta`` and ``o``.

    Returns ``(status, n_iter)`` (status 1: tol reached, 2: forcing term
    ``eta`` reached, 0: ``max_iter`` used).
    """
    cdef Py_ssize_t n = X.n_rows, D = X.n_cols + 1, k
    cdef int n_iter = 0, status
    cdef bint is32 = False
    if floating is float:
        is32 = True
    if is32 != X.is_float32:
        raise TypeError("arrays must have X's dtype")
    if a.shape[0] != n or t.shape[0] != n or o.shape[0] != n or beta.shape[0] != D:
        raise ValueError("a, t, o must have n_rows entries and beta n_cols + 1")
    for k in range(active.shape[0]):
        if not 0 <= active[k] < n:
            raise ValueError("active holds an out-of-range row")
    dt = np.float32 if is32 else np.float64
    cdef floating[::1] z = np.zeros(max(active.shape[0], 1), dtype=dt)
    cdef floating[::1] q = np.zeros(max(active.shape[0], 1), dtype=dt)
    cdef floating[::1] r = np.zeros(D, dtype=dt)
    cdef floating[::1] p = np.zeros(D, dtype=dt)
    cdef floating[::1] s = np.zeros(D, dtype=dt)
    cdef floating[::1] minv = np.zeros(D, dtype=dt)
    if n_threads < 1:
        raise ValueError("n_threads must be >= 1")
    cdef floating[::1] tbuf = np.zeros(D * n_threads, dtype=dt)
    with nogil:
        status = cgls(X, <floating> bias_scale,
                      &active[0] if active.shape[0] else NULL,
                      active.shape[0], &a[0], &t[0], <floating> lam, &beta[0],
                      &o[0], <floating> tol, <floating> eta, max_iter, &z[0],
                      &q[0], &r[0], &p[0], &s[0], &minv[0], &tbuf[0],
                      n_threads, &n_iter)
    return status, n_iter
