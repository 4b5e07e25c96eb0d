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
from libc.stdlib cimport malloc, free
from semisvm._core._blas cimport _dot, _axpy, _copy
from semisvm._core._dataset cimport (RowData, row_axpy, row_dot, row_dot4,
                                     row_view)

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
    # (one value per row: any schedule gives the same bits; dynamic chunks
    # let a thread that runs take the rows of one the system descheduled)
    for k in prange(n_rows, schedule="dynamic", chunksize=1024,
                    num_threads=n_threads):
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


cdef extern from *:
    """
    /* CG's one-pass product over the CSR rows rows[k0:k1] of one block,
       into the block's interleaved slice e = [v_j, out_j]: q_k = x_i.v +
       vb, out += (a_i q_k) x_i, s0 = sum a_i q_k^2, s1 = sum a_i q_k (into
       part[0:2]), the last CG iteration's o_i += gprev q_k folded in (o not
       NULL). The terms of _block_pass_csr's loop in its order: x_i.v in
       four partial sums (entries m = 0, 1, 2, 3 mod 4 of the full groups of
       four, the rest into the first, then (s0 + s1) + (s2 + s3)).

       Three builds, picked at run time: baseline C; AVX2 (x86-64), where
       the four partial sums are the four lanes of a gather of v_j; AVX-512,
       which also gathers eight entries at a time (the lower four products
       added to the lanes, then the upper four: each lane's terms in the
       same order). The output update a_i q_k x_ij -> out_j stays a scalar
       loop in all three: a SIMD scatter would drop all but one update of a
       column repeated within a row (a CSR matrix whose cached canonical
       flag went stale), which the scalar loop sums. No FMA anywhere (the
       extensions are compiled with -ffp-contract=off where the compiler
       takes it, and GCC's C11 mode contracts nothing): the same bits in
       all three. The gathers index the slice at 2 j in 32 bits: columns <
       2^30 only (else baseline). */
    #define SEMISVM_SDOT_SCALAR(T, vals, ix, nnz, e, out)                 \
        {                                                                 \
            T s0_ = 0, s1_ = 0, s2_ = 0, s3_ = 0;                         \
            Py_ssize_t m_ = 0;                                            \
            for (; m_ + 4 <= (nnz); m_ += 4) {                            \
                s0_ += (vals)[m_] * (e)[2 * (Py_ssize_t)(ix)[m_]];        \
                s1_ += (vals)[m_ + 1] * (e)[2 * (Py_ssize_t)(ix)[m_ + 1]];\
                s2_ += (vals)[m_ + 2] * (e)[2 * (Py_ssize_t)(ix)[m_ + 2]];\
                s3_ += (vals)[m_ + 3] * (e)[2 * (Py_ssize_t)(ix)[m_ + 3]];\
            }                                                             \
            for (; m_ < (nnz); m_++)                                      \
                s0_ += (vals)[m_] * (e)[2 * (Py_ssize_t)(ix)[m_]];        \
            out = (s0_ + s1_) + (s2_ + s3_);                              \
        }
    #define SEMISVM_SCATTER_SCALAR(T, vals, ix, nnz, e, at)               \
        for (Py_ssize_t m_ = 0; m_ < (nnz); m_++)                         \
            (e)[2 * (Py_ssize_t)(ix)[m_] + 1] += (at) * (vals)[m_];
    #define SEMISVM_HESSP_BODY(T, SDOT, SCATTER)                          \
        double s0 = 0, s1 = 0;                                            \
        for (Py_ssize_t k = k0; k < k1; k++) {                            \
            Py_ssize_t i = rows[k];                                       \
            Py_ssize_t start = indptr[i];                                 \
            Py_ssize_t nnz = indptr[i + 1] - start;                       \
            const T *vals = data + start;                                 \
            const int *ix = indices + start;                              \
            T sd, tv, ai, at;                                             \
            if (o != NULL)                                                \
                o[i] += gprev * q[k];                                     \
            SDOT(T, vals, ix, nnz, e, sd)                                 \
            tv = sd + vb;                                                 \
            q[k] = tv;                                                    \
            ai = a[i];                                                    \
            s0 += ai * tv * tv;                                           \
            at = ai * tv;                                                 \
            s1 += at;                                                     \
            if (at != 0) {                                                \
                SCATTER(T, vals, ix, nnz, e, at)                          \
            }                                                             \
        }                                                                 \
        part[0] = s0;                                                     \
        part[1] = s1;                                                     \
        part[2] = 0;
    #define SEMISVM_HESSP_ARGS(T)                                         \
        const T *data, const int *indices, const int *indptr,             \
        const int *rows, Py_ssize_t k0, Py_ssize_t k1, const T *a, T *o,  \
        T gprev, T vb, T *q, T *e, double *part
    static void semisvm_hessp_f_base(SEMISVM_HESSP_ARGS(float))
    { SEMISVM_HESSP_BODY(float, SEMISVM_SDOT_SCALAR, SEMISVM_SCATTER_SCALAR) }
    static void semisvm_hessp_d_base(SEMISVM_HESSP_ARGS(double))
    { SEMISVM_HESSP_BODY(double, SEMISVM_SDOT_SCALAR, SEMISVM_SCATTER_SCALAR) }
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    #include <immintrin.h>
    #define SEMISVM_SDOT_AVX2_D(T, vals, ix, nnz, e, out)                 \
        {                                                                 \
            __m256d acc_ = _mm256_setzero_pd();                           \
            double l_[4];                                                 \
            Py_ssize_t m_ = 0;                                            \
            for (; m_ + 4 <= (nnz); m_ += 4) {                            \
                __m128i id_ = _mm_slli_epi32(                             \
                    _mm_loadu_si128((const __m128i *)((ix) + m_)), 1);    \
                acc_ = _mm256_add_pd(acc_, _mm256_mul_pd(                 \
                    _mm256_loadu_pd((vals) + m_),                         \
                    _mm256_i32gather_pd((e), id_, 8)));                   \
            }                                                             \
            _mm256_storeu_pd(l_, acc_);                                   \
            for (; m_ < (nnz); m_++)                                      \
                l_[0] += (vals)[m_] * (e)[2 * (Py_ssize_t)(ix)[m_]];      \
            out = (l_[0] + l_[1]) + (l_[2] + l_[3]);                      \
        }
    #define SEMISVM_SDOT_AVX2_F(T, vals, ix, nnz, e, out)                 \
        {                                                                 \
            __m128 acc_ = _mm_setzero_ps();                               \
            float l_[4];                                                  \
            Py_ssize_t m_ = 0;                                            \
            for (; m_ + 4 <= (nnz); m_ += 4) {                            \
                __m128i id_ = _mm_slli_epi32(                             \
                    _mm_loadu_si128((const __m128i *)((ix) + m_)), 1);    \
                acc_ = _mm_add_ps(acc_, _mm_mul_ps(                       \
                    _mm_loadu_ps((vals) + m_),                            \
                    _mm_i32gather_ps((e), id_, 4)));                      \
            }                                                             \
            _mm_storeu_ps(l_, acc_);                                      \
            for (; m_ < (nnz); m_++)                                      \
                l_[0] += (vals)[m_] * (e)[2 * (Py_ssize_t)(ix)[m_]];      \
            out = (l_[0] + l_[1]) + (l_[2] + l_[3]);                      \
        }
    #define SEMISVM_SDOT_AVX512_D(T, vals, ix, nnz, e, out)               \
        {                                                                 \
            __m256d acc_ = _mm256_setzero_pd();                           \
            double l_[4];                                                 \
            Py_ssize_t m_ = 0;                                            \
            for (; m_ + 8 <= (nnz); m_ += 8) {                            \
                __m256i id_ = _mm256_slli_epi32(                          \
                    _mm256_loadu_si256((const __m256i *)((ix) + m_)), 1); \
                __m512d p_ = _mm512_mul_pd(_mm512_loadu_pd((vals) + m_),  \
                                           _mm512_i32gather_pd(id_, (e), 8));\
                acc_ = _mm256_add_pd(acc_, _mm512_castpd512_pd256(p_));   \
                acc_ = _mm256_add_pd(acc_, _mm512_extractf64x4_pd(p_, 1));\
            }                                                             \
            if (m_ + 4 <= (nnz)) {                                        \
                __m128i id_ = _mm_slli_epi32(                             \
                    _mm_loadu_si128((const __m128i *)((ix) + m_)), 1);    \
                acc_ = _mm256_add_pd(acc_, _mm256_mul_pd(                 \
                    _mm256_loadu_pd((vals) + m_),                         \
                    _mm256_i32gather_pd((e), id_, 8)));                   \
                m_ += 4;                                                  \
            }                                                             \
            _mm256_storeu_pd(l_, acc_);                                   \
            for (; m_ < (nnz); m_++)                                      \
                l_[0] += (vals)[m_] * (e)[2 * (Py_ssize_t)(ix)[m_]];      \
            out = (l_[0] + l_[1]) + (l_[2] + l_[3]);                      \
        }
    __attribute__((target("avx2")))
    static void semisvm_hessp_f_avx2(SEMISVM_HESSP_ARGS(float))
    { SEMISVM_HESSP_BODY(float, SEMISVM_SDOT_AVX2_F, SEMISVM_SCATTER_SCALAR) }
    __attribute__((target("avx2")))
    static void semisvm_hessp_d_avx2(SEMISVM_HESSP_ARGS(double))
    { SEMISVM_HESSP_BODY(double, SEMISVM_SDOT_AVX2_D, SEMISVM_SCATTER_SCALAR) }
    __attribute__((target("avx2,avx512f")))
    static void semisvm_hessp_f_avx512(SEMISVM_HESSP_ARGS(float))
    { SEMISVM_HESSP_BODY(float, SEMISVM_SDOT_AVX2_F, SEMISVM_SCATTER_SCALAR) }
    __attribute__((target("avx2,avx512f")))
    static void semisvm_hessp_d_avx512(SEMISVM_HESSP_ARGS(double))
    { SEMISVM_HESSP_BODY(double, SEMISVM_SDOT_AVX512_D, SEMISVM_SCATTER_SCALAR) }
    static int semisvm_hessp_best(void)
    {
        if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2"))
            return 3;
        return __builtin_cpu_supports("avx2") ? 2 : 1;
    }
    #else
    #define semisvm_hessp_f_avx2 semisvm_hessp_f_base
    #define semisvm_hessp_d_avx2 semisvm_hessp_d_base
    #define semisvm_hessp_f_avx512 semisvm_hessp_f_base
    #define semisvm_hessp_d_avx512 semisvm_hessp_d_base
    static int semisvm_hessp_best(void) { return 1; }
    #endif
    """
    int semisvm_hessp_best() noexcept nogil
    void semisvm_hessp_f_base(const float *data, const int *indices,
                              const int *indptr, const int *rows,
                              Py_ssize_t k0, Py_ssize_t k1, const float *a,
                              float *o, float gprev, float vb, float *q,
                              float *e, double *part) noexcept nogil
    void semisvm_hessp_f_avx2(const float *data, const int *indices,
                              const int *indptr, const int *rows,
                              Py_ssize_t k0, Py_ssize_t k1, const float *a,
                              float *o, float gprev, float vb, float *q,
                              float *e, double *part) noexcept nogil
    void semisvm_hessp_f_avx512(const float *data, const int *indices,
                                const int *indptr, const int *rows,
                                Py_ssize_t k0, Py_ssize_t k1, const float *a,
                                float *o, float gprev, float vb, float *q,
                                float *e, double *part) noexcept nogil
    void semisvm_hessp_d_base(const double *data, const int *indices,
                              const int *indptr, const int *rows,
                              Py_ssize_t k0, Py_ssize_t k1, const double *a,
                              double *o, double gprev, double vb, double *q,
                              double *e, double *part) noexcept nogil
    void semisvm_hessp_d_avx2(const double *data, const int *indices,
                              const int *indptr, const int *rows,
                              Py_ssize_t k0, Py_ssize_t k1, const double *a,
                              double *o, double gprev, double vb, double *q,
                              double *e, double *part) noexcept nogil
    void semisvm_hessp_d_avx512(const double *data, const int *indices,
                                const int *indptr, const int *rows,
                                Py_ssize_t k0, Py_ssize_t k1, const double *a,
                                double *o, double gprev, double vb, double *q,
                                double *e, double *part) noexcept nogil


# the CSR product's kernel (see the C block above): 0 the Cython loop of
# _block_pass_csr, 1 baseline C, 2 AVX2, 3 AVX-512; the best the processor
# runs by default. All give the same bits (tests/core/test_cgls.py).
HESSP_KERNELS = ("cython", "c", "avx2", "avx512")
cdef int HESSP_BEST = semisvm_hessp_best()
cdef int HESSP_KERNEL = HESSP_BEST


def _set_hessp_kernel(int kernel):
    """Test/bench hook: use product kernel ``kernel`` (an index into
    HESSP_KERNELS; one the processor lacks falls back to the best it has);
    returns ``(old, used)``."""
    global HESSP_KERNEL
    if not 0 <= kernel < len(HESSP_KERNELS):
        raise ValueError(f"kernel must be in [0, {len(HESSP_KERNELS)}), got {kernel!r}")
    old = HESSP_KERNEL
    HESSP_KERNEL = min(kernel, HESSP_BEST)
    return old, HESSP_KERNEL


cdef inline void _hessp_csr_c(RowData X, const int *rows, Py_ssize_t k0,
                              Py_ssize_t k1, const floating *a, floating *o,
                              floating gprev, floating vb, floating *q,
                              floating *e, double *part) noexcept nogil:
    """The PASS_HESSP loop of :func:`_block_pass_csr` (its slice set up) in
    the C kernel HESSP_KERNEL (>= 1)."""
    cdef int kernel = HESSP_KERNEL if X.n_cols < (1 << 30) else 1
    if floating is float:
        if kernel == 3:
            semisvm_hessp_f_avx512(<const float *> X.data, X.indices, X.indptr,
                                   rows, k0, k1, a, o, gprev, vb, q, e, part)
        elif kernel == 2:
            semisvm_hessp_f_avx2(<const float *> X.data, X.indices, X.indptr,
                                 rows, k0, k1, a, o, gprev, vb, q, e, part)
        else:
            semisvm_hessp_f_base(<const float *> X.data, X.indices, X.indptr,
                                 rows, k0, k1, a, o, gprev, vb, q, e, part)
    else:
        if kernel == 3:
            semisvm_hessp_d_avx512(<const double *> X.data, X.indices,
                                   X.indptr, rows, k0, k1, a, o, gprev, vb, q,
                                   e, part)
        elif kernel == 2:
            semisvm_hessp_d_avx2(<const double *> X.data, X.indices, X.indptr,
                                 rows, k0, k1, a, o, gprev, vb, q, e, part)
        else:
            semisvm_hessp_d_base(<const double *> X.data, X.indices, X.indptr,
                                 rows, k0, k1, a, o, gprev, vb, q, e, part)


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


# ---------------------------------------------------------------------------
# row blocks: the passes over the active rows of one CG solve
#
# The active rows are cut into n_blocks(...) consecutive blocks, a number that
# follows the size of the pass only (never the thread count): one block per
# BLOCK_NNZ stored entries, and per BLOCK_D_FACTOR (d + 1) at least, so that
# a block's own d-vector(s) and their share of the reduction cost a small,
# fixed fraction of the block's pass whatever the size (the reduction, split
# over the columns, scales with the threads as the pass does). Above
# BLOCK_ROUND blocks their number is a multiple of it, so that 2, 4, 8 or 16
# threads take equal shares: a 1M x 100k pass (40M entries) is cut into 16
# blocks, a 200k x 50k one (10M) into 12; the former cap of 8 blocks left
# half of 16 cores idle. Each block accumulates into
# a slice of its own, and the slices are added in block order, in parallel
# over the columns: the sums, hence the bits, are the same for any number of
# threads. Threads take whole blocks (dynamically, one at a time), all in one
# parallel region per pass, the slices' reduction included (its implicit
# barrier is the only one).
#
# CSR rows: a block's slice interleaves, per column j, the entries the pass
# reads and writes at j -- [v_j, out_j] for CG's product (v, the direction,
# copied in by the block), [rhs_j, r_j, diag_j, -] for the setup pass -- so
# that the gather of x_i.v and the scatter of x_i into out hit one cache line
# per stored entry instead of two or three (measured on 200k x 50k text-like
# rows: the product 30 %, the setup pass 20 % faster). Each entry of a slice
# receives the same terms in the same order as a separate vector did: the
# same bits. Dense rows keep contiguous vectors (their loops are BLAS calls):
# block 0 straight into the outputs, the others into slices.
#
# The slices live in one buffer the caller keeps across CG solves
# (``slice_len``): allocated and first touched once per fit, not per solve.

# a block holds at least BLOCK_NNZ stored entries and BLOCK_D_FACTOR (d + 1);
# below two blocks' worth a pass is one block, on one thread. Measured in
# bench/bench_linear_mfn.py (--threads): a smaller pass gains nothing from a
# second thread. MAX_BLOCKS bounds the slices' memory (and the partial sums
# on the stack).
cdef Py_ssize_t BLOCK_NNZ = 100000
cdef int BLOCK_D_FACTOR = 16
cdef int MAX_BLOCKS = 64
cdef enum:
    BLOCK_CAP = 256       # the largest MAX_BLOCKS _set_blocking accepts
    BLOCK_ROUND = 16      # above this many, blocks come in multiples of it
    SLICE_STRIDE = 4      # entries per column in a setup pass's slice


# one thread over CSR rows: each block's slice added to the outputs as soon
# as it is made, in one slice that stays in cache (False: every block into
# a slice of its own, reduced after the pass, as with threads; the same bits)
cdef bint FUSE_ONE_THREAD = True


def _set_fused(bint fused):
    """Test/bench hook: set FUSE_ONE_THREAD; returns the old value."""
    global FUSE_ONE_THREAD
    old = FUSE_ONE_THREAD
    FUSE_ONE_THREAD = fused
    return old


def _set_blocking(Py_ssize_t block_nnz, int max_blocks, d_factor=None):
    """Test/bench hook: set (entries per block, block cap[, entries per block
    per column]); returns the old triple."""
    global BLOCK_NNZ, MAX_BLOCKS, BLOCK_D_FACTOR
    if block_nnz < 1 or not 1 <= max_blocks <= BLOCK_CAP:
        raise ValueError(f"block_nnz must be >= 1 and max_blocks in [1, {BLOCK_CAP}]")
    if d_factor is not None and not 1 <= d_factor <= 1024:
        raise ValueError(f"d_factor must be in [1, 1024], got {d_factor!r}")
    old = (BLOCK_NNZ, MAX_BLOCKS, BLOCK_D_FACTOR)
    BLOCK_NNZ, MAX_BLOCKS = block_nnz, max_blocks
    if d_factor is not None:
        BLOCK_D_FACTOR = d_factor
    return old


cdef int n_blocks(RowData X, Py_ssize_t n_rows) noexcept nogil:
    """Blocks of a pass over ``n_rows`` rows of X (1 .. MAX_BLOCKS; never
    fewer for more rows)."""
    cdef double per_row, nnz
    cdef Py_ssize_t least, b
    if X.n_rows == 0 or n_rows < 2:
        return 1
    if X.indptr == NULL:
        per_row = <double> X.n_cols
    else:
        per_row = X.indptr[X.n_rows] / <double> X.n_rows
    nnz = per_row * n_rows
    least = max(BLOCK_NNZ, BLOCK_D_FACTOR * (X.n_cols + 1))
    b = <Py_ssize_t> (nnz / least)
    if b > MAX_BLOCKS:
        b = MAX_BLOCKS
    if b > BLOCK_ROUND:
        # a multiple of BLOCK_ROUND: 2, 4, 8 or 16 threads take equal shares
        b -= b % BLOCK_ROUND
    if b > n_rows:
        b = n_rows
    return <int> max(b, 1)


cdef Py_ssize_t slice_len(RowData X, Py_ssize_t n_rows) noexcept nogil:
    """Entries of the slice buffer of any pass over up to ``n_rows`` rows."""
    return SLICE_STRIDE * <Py_ssize_t> n_blocks(X, n_rows) * X.n_cols + 1


def _slice_len_py(RowData X):
    """The slice buffer's length for passes over X's rows (``cgls``'s
    ``tbuf``: a caller that keeps one across solves allocates this many)."""
    return slice_len(X, X.n_rows)


cdef enum:
    PASS_RMATVEC = 0      # out = X_J' z
    PASS_HESSP = 1        # q = X_J v, out = X_J' A q (one pass)
    PASS_START = 2        # X_J' A t, X_J' A (t - o), diag(X_J' A X_J)
    PART_STRIDE = 8       # doubles per block's partial sums (own cache line)


cdef inline int _stride(int kind) noexcept nogil:
    """Entries per column of a CSR block's slice for a pass of ``kind``."""
    if kind == PASS_START:
        return SLICE_STRIDE
    if kind == PASS_HESSP:
        return 2
    return 1


cdef void _block_pass(int kind, RowData X, const int *rows, Py_ssize_t k0,
                      Py_ssize_t k1, const floating *a, const floating *t,
                      floating *o, floating gprev, const floating *v,
                      floating vb, floating *z, floating *q, floating *out0,
                      floating *out1, floating *out2,
                      double *part) noexcept nogil:
    """One block (rows[k0:k1]) of a pass over dense rows, into out0/out1/out2[:d]
    (cleared here) and part[0:3] (the block's double sums for the bias entries)."""
    cdef Py_ssize_t k, m, i, nnz, d = X.n_cols
    cdef const floating *vals
    cdef const int *ix
    cdef floating zk, ai, tv, at, zr
    cdef double s0 = 0, s1 = 0, s2 = 0
    for m in range(d):
        out0[m] = 0
    if kind == PASS_START:
        for m in range(d):
            out1[m] = 0
            out2[m] = 0
    if kind == PASS_RMATVEC:
        # out0 += z_k x_k ; s0 = sum z_k
        for k in range(k0, k1):
            zk = z[k]
            s0 += zk
            if zk != 0:
                row_axpy(X, rows[k], zk, out0)
    elif kind == PASS_HESSP:
        # (o_i += gprev q_k: the previous iteration's output update, folded
        # in) ; q_k = x_i.v ; out0 += (a_i q_k) x_i ; s0 = sum a_i q_k^2,
        # s1 = sum a_i q_k
        for k in range(k0, k1):
            i = rows[k]
            if o != NULL:
                o[i] += gprev * q[k]
            tv = row_dot4(X, i, v) + vb
            q[k] = tv
            ai = a[i]
            s0 += ai * tv * tv
            at = ai * tv
            s1 += at
            if at != 0:
                row_axpy(X, i, at, out0)
    else:
        # out0 += (a_i t_i) x_i ; out1 += z_k x_k, z_k = a_i (t_i - o_i) ;
        # out2 += a_i x_i^2 ; s0, s1, s2 the sums of a t, a, z
        for k in range(k0, k1):
            i = rows[k]
            ai = a[i]
            zr = ai * t[i]
            zk = ai * (t[i] - o[i])
            z[k] = zk
            nnz = row_view(X, i, &vals, &ix)
            for m in range(nnz):
                out0[ix[m]] += zr * vals[m]
                out2[ix[m]] += ai * vals[m] * vals[m]
            if zk != 0:
                for m in range(nnz):
                    out1[ix[m]] += zk * vals[m]
            s0 += zr
            s1 += ai
            s2 += zk
    part[0] = s0
    part[1] = s1
    part[2] = s2


cdef void _block_pass_csr(int kind, RowData X, const int *rows, Py_ssize_t k0,
                          Py_ssize_t k1, const floating *a, const floating *t,
                          floating *o, floating gprev, const floating *v,
                          floating vb, floating *z, floating *q, floating *e,
                          double *part, bint ready=False) noexcept nogil:
    """One block (rows[k0:k1]) of a pass over CSR rows into its interleaved
    slice ``e`` (set up here, unless ``ready``: the last block's, emptied
    by :func:`_add_slice`; see the section's comment) and part[0:3]. The
    terms and their order are :func:`_block_pass`'s (and ``row_dot4``'s),
    entry by entry."""
    cdef Py_ssize_t k, m, i, nnz, d = X.n_cols
    cdef const floating *vals
    cdef const int *ix
    cdef floating *ee
    cdef floating zk, ai, tv, at, zr, vm, sd, s1d, s2d, s3d
    cdef double s0 = 0, s1 = 0, s2 = 0
    if kind == PASS_RMATVEC:
        if not ready:
            for m in range(d):
                e[m] = 0
        # e += z_k x_k ; s0 = sum z_k
        for k in range(k0, k1):
            zk = z[k]
            s0 += zk
            if zk != 0:
                row_axpy(X, rows[k], zk, e)
    elif kind == PASS_HESSP:
        # e = [v_j, 0] per column
        if not ready:
            for m in range(d):
                e[2 * m] = v[m]
                e[2 * m + 1] = 0
        if HESSP_KERNEL > 0:
            # the loop below in C (SIMD where the processor has it)
            _hessp_csr_c(X, rows, k0, k1, a, o, gprev, vb, q, e, part)
            return
        # (o_i += gprev q_k folded in) ; q_k = x_i.v ; out += (a_i q_k) x_i ;
        # s0 = sum a_i q_k^2, s1 = sum a_i q_k
        for k in range(k0, k1):
            i = rows[k]
            if o != NULL:
                o[i] += gprev * q[k]
            nnz = row_view(X, i, &vals, &ix)
            # row_dot4's order (four partial sums), on the slice's v_j
            sd = 0
            s1d = 0
            s2d = 0
            s3d = 0
            m = 0
            while m + 4 <= nnz:
                sd += vals[m] * e[2 * <Py_ssize_t> ix[m]]
                s1d += vals[m + 1] * e[2 * <Py_ssize_t> ix[m + 1]]
                s2d += vals[m + 2] * e[2 * <Py_ssize_t> ix[m + 2]]
                s3d += vals[m + 3] * e[2 * <Py_ssize_t> ix[m + 3]]
                m += 4
            while m < nnz:
                sd += vals[m] * e[2 * <Py_ssize_t> ix[m]]
                m += 1
            sd = (sd + s1d) + (s2d + s3d)
            tv = sd + vb
            q[k] = tv
            ai = a[i]
            s0 += ai * tv * tv
            at = ai * tv
            s1 += at
            if at != 0:
                for m in range(nnz):
                    e[2 * <Py_ssize_t> ix[m] + 1] += at * vals[m]
    else:
        if not ready:
            memset(e, 0, SLICE_STRIDE * d * sizeof(floating))
        # [rhs, r, diag] += [a_i t_i, z_k, a_i x_ij] x_ij, z_k = a_i (t_i - o_i) ;
        # s0, s1, s2 the sums of a t, a, z
        for k in range(k0, k1):
            i = rows[k]
            ai = a[i]
            zr = ai * t[i]
            zk = ai * (t[i] - o[i])
            z[k] = zk
            nnz = row_view(X, i, &vals, &ix)
            if zk != 0:
                for m in range(nnz):
                    ee = e + SLICE_STRIDE * <Py_ssize_t> ix[m]
                    vm = vals[m]
                    ee[0] += zr * vm
                    ee[1] += zk * vm
                    ee[2] += ai * vm * vm
            else:
                for m in range(nnz):
                    ee = e + SLICE_STRIDE * <Py_ssize_t> ix[m]
                    vm = vals[m]
                    ee[0] += zr * vm
                    ee[2] += ai * vm * vm
            s0 += zr
            s1 += ai
            s2 += zk
    part[0] = s0
    part[1] = s1
    part[2] = s2


cdef void rows_pass(int kind, RowData X, const int *rows, Py_ssize_t n_rows,
                    int n_blk, int n_threads, const floating *a,
                    const floating *t, floating *o, floating gprev,
                    const floating *v, floating vb, floating *z, floating *q,
                    floating *out0, floating *out1, floating *out2,
                    floating *buf, double *part) noexcept nogil:
    """A pass over rows[:n_rows] in ``n_blk`` blocks (see :func:`n_blocks`),
    ``n_threads`` threads taking whole blocks. ``buf`` holds the slices
    (``slice_len`` entries for n_blk blocks), ``part`` PART_STRIDE n_blk
    doubles; out*[:d] receive the block sums in block order, part[0:3] the
    block order sums of the blocks' part[0:3]."""
    cdef Py_ssize_t d = X.n_cols, j
    cdef int b, c
    cdef bint csr = X.indptr != NULL and buf != NULL
    if (csr and n_blk <= 1 and X.n_rows > 0
            and X.indptr[X.n_rows] / <double> X.n_rows * n_rows < 4.0 * d):
        # a small pass over wide rows: setting up and reading back a slice
        # (O(d)) would cost more than the cache lines it saves
        csr = False
    if n_blk <= 1 and not csr:
        _block_pass(kind, X, rows, 0, n_rows, a, t, o, gprev, v, vb, z, q,
                    out0, out1, out2, part)
        return
    if n_threads > n_blk:
        n_threads = n_blk
    if n_threads <= 1 and csr and FUSE_ONE_THREAD:
        # one thread: every block in turn into one slice, added to the
        # outputs right after it (the reduction's sums in its block order,
        # so the same bits), the slice staying in cache instead of one
        # slice per block written to memory and read back
        for b in range(n_blk):
            _block_pass_csr(kind, X, rows, (n_rows * b) // n_blk,
                            (n_rows * (b + 1)) // n_blk, a, t, o, gprev, v,
                            vb, z, q, buf, part + b * PART_STRIDE, b > 0)
            _add_slice(kind, b == 0, b + 1 < n_blk, d, out0, out1, out2, buf)
    elif n_threads <= 1:
        for b in range(n_blk):
            _block_slices(kind, X, rows, n_rows, n_blk, b, a, t, o, gprev, v,
                          vb, z, q, out0, out1, out2, buf, part)
        for j in range(d):
            _reduce_entry(kind, csr, j, d, n_blk, out0, out1, out2, buf)
    else:
        with parallel(num_threads=n_threads):
            # blocks are handed out one at a time (dynamic): a block's sums
            # do not depend on the thread that makes them, and a thread the
            # system deschedules on a shared machine holds up one block only
            for b in prange(n_blk, schedule="dynamic", chunksize=1):
                _block_slices(kind, X, rows, n_rows, n_blk, b, a, t, o, gprev,
                              v, vb, z, q, out0, out1, out2, buf, part)
            for j in prange(d, schedule="dynamic", chunksize=4096):
                _reduce_entry(kind, csr, j, d, n_blk, out0, out1, out2, buf)
    for c in range(3):
        for b in range(1, n_blk):
            part[c] += part[b * PART_STRIDE + c]


cdef void rows_rmatvec_blocked(RowData X, floating bias_scale, const int *rows,
                               Py_ssize_t n_rows, const floating *z,
                               floating *out, floating *buf,
                               int n_threads) noexcept nogil:
    """out[:d+1] = sum_k z[k] [x_{rows[k]}, bias_scale] (rows with z[k] = 0
    skipped), in the row blocks of a CG pass over the same rows: the same
    bits for any ``n_threads``. ``buf`` holds ``slice_len(X, n_rows)``
    entries."""
    cdef double part[BLOCK_CAP * PART_STRIDE]
    cdef Py_ssize_t j
    if n_rows < 1:
        for j in range(X.n_cols + 1):
            out[j] = 0
        return
    rows_pass(PASS_RMATVEC, X, rows, n_rows, n_blocks(X, n_rows), n_threads,
              NULL, NULL, NULL, 0, NULL, 0, <floating *> z, NULL, out, NULL,
              NULL, buf, part)
    out[X.n_cols] = <floating> (bias_scale * part[0])


cdef inline void _block_slices(int kind, RowData X, const int *rows,
                               Py_ssize_t n_rows, int n_blk, int b,
                               const floating *a, const floating *t,
                               floating *o, floating gprev, const floating *v,
                               floating vb, floating *z, floating *q,
                               floating *out0, floating *out1, floating *out2,
                               floating *buf, double *part) noexcept nogil:
    """Block b of rows_pass: CSR rows into the block's interleaved slice;
    dense rows: block 0 into the outputs, block b > 0 into its slices."""
    cdef Py_ssize_t d = X.n_cols
    cdef Py_ssize_t k0 = (n_rows * b) // n_blk, k1 = (n_rows * (b + 1)) // n_blk
    cdef int n_out = 3 if kind == PASS_START else 1
    cdef floating *base
    if X.indptr != NULL:
        _block_pass_csr(kind, X, rows, k0, k1, a, t, o, gprev, v, vb, z, q,
                        buf + <Py_ssize_t> b * _stride(kind) * d,
                        part + b * PART_STRIDE)
    elif b == 0:
        _block_pass(kind, X, rows, k0, k1, a, t, o, gprev, v, vb, z, q, out0,
                    out1, out2, part)
    else:
        base = buf + (b - 1) * n_out * d
        _block_pass(kind, X, rows, k0, k1, a, t, o, gprev, v, vb, z, q, base,
                    base + d, base + 2 * d, part + b * PART_STRIDE)


cdef void _add_slice(int kind, bint first, bint clear, Py_ssize_t d,
                     floating *out0, floating *out1, floating *out2,
                     floating *e) noexcept nogil:
    """out*[:d] (+)= a CSR block's slice ``e`` (= when ``first``): the
    step of :func:`_reduce_entry`'s block-order sum for one block. ``clear``:
    the sums read are zeroed, so that ``e`` is set up for the next block
    (the direction v stays in a product's slice)."""
    cdef Py_ssize_t j, m
    if kind == PASS_HESSP:
        for j in range(d):
            m = 2 * j + 1
            out0[j] = e[m] if first else out0[j] + e[m]
            if clear:
                e[m] = 0
    elif kind == PASS_START:
        for j in range(d):
            m = SLICE_STRIDE * j
            if first:
                out0[j] = e[m]
                out1[j] = e[m + 1]
                out2[j] = e[m + 2]
            else:
                out0[j] = out0[j] + e[m]
                out1[j] = out1[j] + e[m + 1]
                out2[j] = out2[j] + e[m + 2]
            if clear:
                e[m] = 0
                e[m + 1] = 0
                e[m + 2] = 0
    else:
        for j in range(d):
            out0[j] = e[j] if first else out0[j] + e[j]
            if clear:
                e[j] = 0


cdef inline void _reduce_entry(int kind, bint csr, Py_ssize_t j, Py_ssize_t d,
                               int n_blk, floating *out0, floating *out1,
                               floating *out2, const floating *buf) noexcept nogil:
    """out*[j] = the blocks' entries j added in block order."""
    cdef int b, n_out = 3 if kind == PASS_START else 1
    cdef Py_ssize_t st, off
    cdef const floating *base
    cdef floating x0, x1 = 0, x2 = 0
    if csr:
        st = _stride(kind)
        # HESSP's slices hold [v_j, out_j]: the sum is entry 1
        off = 1 if kind == PASS_HESSP else 0
        base = buf + st * j
        x0 = base[off]
        if n_out == 3:
            x1 = base[1]
            x2 = base[2]
        for b in range(1, n_blk):
            base = buf + <Py_ssize_t> b * st * d + st * j
            x0 = x0 + base[off]
            if n_out == 3:
                x1 = x1 + base[1]
                x2 = x2 + base[2]
    else:
        x0 = out0[j]
        if n_out == 3:
            x1 = out1[j]
            x2 = out2[j]
        for b in range(1, n_blk):
            base = buf + (b - 1) * n_out * d
            x0 = x0 + base[j]
            if n_out == 3:
                x1 = x1 + base[d + j]
                x2 = x2 + base[2 * d + j]
    out0[j] = x0
    if n_out == 3:
        out1[j] = x1
        out2[j] = x2


cdef int cgls(RowData X, floating bias_scale, const int *active,
              Py_ssize_t n_active, const floating *a, const floating *t,
              floating lam, floating *beta, floating *o, floating tol,
              floating eta, int max_iter, floating *z, floating *q,
              floating *r, floating *p, floating *s, floating *minv,
              floating *tbuf, Py_ssize_t tbuf_len, int n_threads,
              int *n_iter, bint one_pass=True, double gstop2=0.0,
              double *gnorm2=NULL, bint blocked=True, floating *keep=NULL,
              bint given=False, double prec_mix=-1.0) noexcept nogil:
    """Seeded, preconditioned CG over the rows ``active[:n_active]``.

    ``a``, ``t`` and ``o`` are indexed by row number; ``o`` holds X beta on
    the active rows on entry and is kept equal to it. ``z``/``q`` (n_active)
    and ``r``/``p``/``s``/``minv`` (n_cols + 1) are work arrays; ``tbuf``
    (``tbuf_len`` entries, or NULL) holds the row blocks' slices when it has
    ``slice_len(X, n_active)`` entries (a caller keeps one of
    ``slice_len(X, X.n_rows)`` across solves), else they are allocated here
    (``tbuf_len`` < 0: none, each pass one block straight into its outputs,
    the same sums; a test hook). The
    preconditioner is M = (1 - PREC_MIX) lam I + PREC_MIX diag(H),
    H = lam I + X_J' A_J X_J (Hsia, Chiang & Lin 2018, as LIBLINEAR >= 2.40),
    which leaves the iterates those of CG on the same normal equations in a
    rescaled basis; ``prec_mix`` >= 0 takes that weight instead of PREC_MIX
    (1: the Jacobi preconditioner diag(H)).

    ``one_pass`` (the default): each iteration is one pass over the active
    rows, u = X_J' A_J (X_J p) row by row (as LIBLINEAR's Hessian-vector
    product), and the residual follows r -= gamma (u + lam p) (the
    recurrence of the distributed twin ``semisvm._rows.cgls_twin``). Else
    CGLS proper: q = X_J p and r = X_J' z - lam beta from the maintained
    z = A_J (t_J - o_J), two passes (Paige & Saunders' stable form).

    With r the residual of the normal equations (r = -gradient of the
    quadratic model; at the seed, -gradient of the MFN objective) returns

    * 3 when ||r_seed||^2 <= gstop2 (``gstop2 > 0``: the outer gradient
      test; nothing is changed),
    * 1 when ||r|| <= tol * ||X_J' A_J t_J|| (solved to the tolerance),
    * 2 when ||r|| <= eta * ||r_seed|| first (inexact Newton forcing term;
      ``eta = 0`` disables it); ``eta < 0``: instead when the quadratic
      model's decrease in iteration i, gamma_i rho_i / 2, is at most
      ``-eta / i`` times its decrease since the seed (the truncated Newton
      test of Nash & Sofer that LIBLINEAR's Newton solver makes, with
      tolerance ``-eta``): the step stops once CG's progress has slowed
      against its average, which tracks the objective rather than the
      residual's (non-monotone) norm,
    * 0 when ``max_iter`` iterations did not suffice,
    * 4 when a signal handler raised (Ctrl-C): the exception is left set,
      ``beta``/``o`` hold a valid iterate; the caller propagates it.

    ``gnorm2`` (if not NULL) receives ||r_seed||^2. ``blocked=False``: one
    block whatever the size (with ``one_pass=False``, the arithmetic of the
    former single-threaded CGLS, bit for bit).

    ``keep`` (4 (n_cols + 1) entries, or NULL) receives the setup pass's
    ``X_J' A t`` and ``diag(X_J' A X_J)``, the final residual r and the
    seed's residual (so that a caller that steps to ``w + delta (beta -
    w)`` has the residual there: r is affine in beta for fixed A, t); with
    ``given`` (one-pass form only) the setup pass is skipped and those three
    are read from ``keep`` instead: the caller brought them up to date for
    the rows whose weight or target changed since (TSVM's switching rounds,
    from the w where the last solve ended, where r is -grad F).
    """
    cdef int D = <int> (X.n_cols + 1)
    cdef Py_ssize_t k, i, j, d = X.n_cols
    cdef int it, status = 0, n_blk, nt, period
    cdef double rho, rho_new, omega_z, omega_q, pp, bnorm2, gamma, tol2, force2
    # the model-decrease test (eta < 0): its tolerance and the decrease so far
    cdef double qtol = -eta if eta < 0 else 0, qsum = 0, dq
    cdef double mix = prec_mix if prec_mix >= 0 else PREC_MIX
    cdef floating g, gprev = 0, lp
    cdef floating *buf = NULL
    cdef floating *owned = NULL
    cdef double part[BLOCK_CAP * PART_STRIDE]
    cdef bint dense_direct
    cdef Py_ssize_t need

    n_blk = n_blocks(X, n_active) if blocked else 1
    nt = n_threads if n_threads < n_blk else n_blk
    if n_blk > 1 or X.indptr != NULL:
        need = SLICE_STRIDE * <Py_ssize_t> n_blk * d + 1
        if tbuf_len < 0:
            buf = NULL      # (test hook: no slices)
        elif tbuf != NULL and tbuf_len >= need:
            buf = tbuf
        else:
            owned = <floating *> malloc(need * sizeof(floating))
            buf = owned
        if buf == NULL:
            # no memory for the slices: one block, straight into the outputs
            # (the same sums)
            n_blk = 1
            nt = 1
    # rhs = X_J' A_J t_J (only for the scale of the stopping test), the
    # preconditioner's diagonal sum_J a_i x_ij^2 and the seeded residual's
    # X_J' A_J (t_J - o_J) (z = A_J (t_J - o_J)), in one pass over the rows
    # (dense rows, one block: the four-row loop of rows_rmatvec_diag)
    dense_direct = X.indptr == NULL and n_blk == 1
    given = given and keep != NULL and one_pass
    if given:
        # rhs, diag and r = X_J' A (t - o) - lam beta carried over
        _copy(D, keep, 1, p, 1)
        _copy(D, keep + D, 1, minv, 1)
        _copy(D, keep + 2 * D, 1, r, 1)
    elif dense_direct:
        for k in range(n_active):
            i = active[k]
            q[k] = a[i] * t[i]
        rows_rmatvec_diag(X, bias_scale, active, n_active, q, a, p, minv)
        for k in range(n_active):
            i = active[k]
            z[k] = a[i] * (t[i] - o[i])
        rows_rmatvec(X, bias_scale, active, n_active, z, r, tbuf, 1)
    else:
        rows_pass(PASS_START, X, active, n_active, n_blk, nt, a, t, o, 0,
                  NULL, 0, z, q, p, r, minv, buf, part)
        p[d] = <floating> (bias_scale * part[0])
        minv[d] = <floating> (bias_scale * bias_scale * part[1])
        r[d] = <floating> (bias_scale * part[2])
    if keep != NULL and not given:
        _copy(D, p, 1, keep, 1)
        _copy(D, minv, 1, keep + D, 1)
    bnorm2 = _dot(D, p, 1, p, 1)
    tol2 = tol * tol * (bnorm2 if bnorm2 > 0 else 1.0)
    for j in range(D):
        minv[j] = 1 / (lam + mix * minv[j])

    # r = X_J' z - lam * beta;  s = M^-1 r
    if not given:
        _axpy(D, -lam, beta, 1, r, 1)
    omega_z = _dot(D, r, 1, r, 1)
    if keep != NULL:
        _copy(D, r, 1, keep + 3 * D, 1)
    n_iter[0] = 0
    if gnorm2 != NULL:
        gnorm2[0] = omega_z
    if gstop2 > 0 and omega_z <= gstop2:
        free(owned)
        if keep != NULL:
            _copy(D, r, 1, keep + 2 * D, 1)
        return 3
    for j in range(D):
        s[j] = minv[j] * r[j]
    _copy(D, s, 1, p, 1)
    rho = _dot(D, r, 1, s, 1)
    force2 = eta * eta * omega_z if eta > 0 else 0

    if omega_z <= tol2:
        free(owned)
        if keep != NULL:
            _copy(D, r, 1, keep + 2 * D, 1)
        return 1
    # Ctrl-C: a signal check every few million flops (4: interrupted, the
    # exception left set for the caller's def entry point)
    period = check_period(
        (n_active * (X.n_cols + 1) if X.indptr == NULL else
         n_active * (X.indptr[X.n_rows] // (X.n_rows if X.n_rows else 1) + 1))
        + 4 * D)
    for it in range(1, max_iter + 1):
        if it % period == 0 and interrupted():
            status = 4
            break
        n_iter[0] = it
        if one_pass:
            # q = X_J p ; s = X_J' A_J q (one pass; the last step's
            # o_J += gamma q folded in) ; gamma = r's / (lam ||p||^2 + q'Aq)
            rows_pass(PASS_HESSP, X, active, n_active, n_blk, nt, a, t,
                      o if it > 1 else NULL, gprev, p,
                      bias_scale * p[X.n_cols], z, q, s, NULL, NULL, buf,
                      part)
            s[d] = <floating> (bias_scale * part[1])
            omega_q = part[0]
            pp = _dot(D, p, 1, p, 1)
            gamma = rho / (lam * pp + omega_q)
            g = <floating> gamma
            gprev = g
            # beta += gamma p ; r -= gamma (s + lam p)
            _axpy(D, g, p, 1, beta, 1)
            for j in range(D):
                lp = lam * p[j]
                lp = s[j] + lp
                r[j] = r[j] - g * lp
        else:
            # q = X_J p ; gamma = r's / (lam ||p||^2 + q' A q)
            rows_matvec(X, bias_scale, active, n_active, p, q, nt)
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
            # r = X_J' z - lam beta
            rows_pass(PASS_RMATVEC, X, active, n_active, n_blk, nt, a, t,
                      NULL, 0, NULL, 0, z, q, r, NULL, NULL, buf, part)
            r[d] = <floating> (bias_scale * part[0])
            _axpy(D, -lam, beta, 1, r, 1)
        omega_z = _dot(D, r, 1, r, 1)
        if omega_z <= tol2:
            status = 1
            break
        if omega_z <= force2:
            status = 2
            break
        if qtol > 0:
            # the model's decrease this iteration (gamma rho / 2, exact for
            # CG from the seed) against qtol times its mean so far
            dq = 0.5 * gamma * rho
            qsum += dq
            if it * dq <= qtol * qsum:
                status = 2
                break
        # s = M^-1 r ; p = s + (rho_new / rho) p
        for j in range(D):
            s[j] = minv[j] * r[j]
        rho_new = _dot(D, r, 1, s, 1)
        g = <floating> (rho_new / rho)
        for j in range(D):
            p[j] = s[j] + g * p[j]
        rho = rho_new
    if one_pass and n_iter[0] > 0:
        # the last step's o_J += gamma q
        for k in range(n_active):
            o[active[k]] += gprev * q[k]
    free(owned)
    if keep != NULL:
        _copy(D, r, 1, keep + 2 * D, 1)
    return status


def _cgls_py(RowData X, double bias_scale, const int[::1] active,
             const floating[::1] a, const floating[::1] t, double lam,
             floating[::1] beta, floating[::1] o, double tol, int max_iter,
             double eta=0.0, int n_threads=1, bint one_pass=True,
             double gstop2=0.0, slices="kept", double prec_mix=-1.0):
    """Test hook: run :c:func:`cgls` in place on ``beta`` and ``o``
    (``eta`` < 0: the model-decrease test; ``prec_mix``: see ``cgls``).

    Returns ``(status, n_iter)`` (status 1: tol reached, 2: forcing term
    ``eta`` reached, 0: ``max_iter`` used, 3: seed gradient below ``gstop2``).
    ``slices``: "kept", the caller's slice buffer (as a fit keeps one across
    solves); "own": the solve allocates its own; "none": no slices, each
    pass one block into separate vectors (the layout before interleaving).
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
    cdef floating[::1] tbuf = np.zeros(slice_len(X, X.n_rows), dtype=dt)
    if slices not in ("kept", "own", "none"):
        raise ValueError(f"slices must be 'kept', 'own' or 'none', got {slices!r}")
    cdef Py_ssize_t tlen = -1 if slices == "none" else tbuf.shape[0]
    cdef bint kept = slices == "kept"
    with nogil:
        status = cgls(X, <floating> bias_scale,
                      &active[0] if active.shape[0] else NULL,
                      active.shape[0], &a[0], &t[0], <floating> lam, &beta[0],
                      &o[0], <floating> tol, <floating> eta, max_iter, &z[0],
                      &q[0], &r[0], &p[0], &s[0], &minv[0],
                      &tbuf[0] if kept else NULL, tlen, n_threads,
                      &n_iter, one_pass, gstop2, NULL, True, NULL, False,
                      prec_mix)
    if status == 4:
        reraise()
    return status, n_iter


def _product_py(RowData X, double bias_scale, const int[::1] active,
                const floating[::1] a, const floating[::1] v, int n_threads=1,
                bint one_pass=True, bint slices=True):
    """Test hook: ``(u, q, q'Aq)`` with q = X_J v (bias included),
    u = X_J' A_J q, by the one-pass product or by the two passes (q, then
    X_J' (A q)) of CGLS, blocked as in :c:func:`cgls`; ``slices=False``: one
    block into separate vectors (the layout before interleaving)."""
    cdef Py_ssize_t n = X.n_rows, D = X.n_cols + 1, d = X.n_cols, k
    cdef Py_ssize_t m = active.shape[0]
    cdef bint is32 = False
    if floating is float:
        is32 = True
    if is32 != X.is_float32:
        raise TypeError("arrays must have X's dtype")
    if a.shape[0] != n or v.shape[0] != D:
        raise ValueError("a needs n_rows entries and v n_cols + 1")
    for k in range(m):
        if not 0 <= active[k] < n:
            raise ValueError("active holds an out-of-range row")
    if n_threads < 1:
        raise ValueError("n_threads must be >= 1")
    dt = np.float32 if is32 else np.float64
    cdef floating[::1] q = np.zeros(max(m, 1), dtype=dt)
    cdef floating[::1] z = np.zeros(max(m, 1), dtype=dt)
    cdef floating[::1] u = np.zeros(D, dtype=dt)
    cdef int n_blk = n_blocks(X, m) if slices else 1
    cdef floating[::1] buf = np.zeros(slice_len(X, m), dtype=dt)
    cdef floating *pbuf = &buf[0] if slices else NULL
    cdef double part[BLOCK_CAP * PART_STRIDE]
    cdef double qaq = 0
    if m == 0:
        return np.asarray(u), np.asarray(q)[:0], 0.0
    with nogil:
        if one_pass:
            rows_pass(PASS_HESSP, X, &active[0], m, n_blk, n_threads, &a[0],
                      NULL, NULL, 0, &v[0], <floating> bias_scale * v[d],
                      &z[0], &q[0], &u[0], NULL, NULL, pbuf, part)
            u[d] = <floating> (bias_scale * part[1])
            qaq = part[0]
        else:
            rows_matvec(X, <floating> bias_scale, &active[0], m, &v[0], &q[0],
                        n_threads)
            for k in range(m):
                qaq += a[active[k]] * q[k] * q[k]
                z[k] = a[active[k]] * q[k]
            rows_pass(PASS_RMATVEC, X, &active[0], m, n_blk, n_threads,
                      &a[0], NULL, NULL, 0, NULL, 0, &z[0], &q[0], &u[0],
                      NULL, NULL, pbuf, part)
            u[d] = <floating> (bias_scale * part[0])
    return np.asarray(u), np.asarray(q)[:m].copy(), qaq


def _n_blocks_py(RowData X, Py_ssize_t n_rows):
    """Test hook: the row blocks of a pass over ``n_rows`` rows of X."""
    return n_blocks(X, n_rows)
