# SPDX-License-Identifier: BSD-3-Clause
"""Row-block kernels of L2-SVM-MFN (Sindhwani & Keerthi 2006, §2).

L2-SVM-MFN minimises, over w in R^{d+1} (the last entry is the bias weight,
whose feature is the constant ``bias_scale``; it is regularised, as in the
paper),

    F(w) = lam/2 ||w||^2
           + 1/2 sum_i [cpos_i max(0, 1 - o_i)^2 + cneg_i max(0, 1 + o_i)^2],
    o_i = x_i . w[:d] + bias_scale * w[d].

The supervised L2-SVM is cpos_i = c_i [y_i = +1], cneg_i = c_i [y_i = -1];
TSVM's temporary labels and DA's label probabilities use the same form, so one
solver serves all three. Each iteration fixes which loss terms are active at w,
solves the resulting regularised least-squares problem by seeded CGLS (or by
Cholesky for few features) and takes the exact line search step; it
terminates finitely when the active terms no longer change (Keerthi &
DeCoste 2005).

The outer loop lives in Python, once (``semisvm._distributed.mfn_loop``),
over a *rows backend*: the whole matrix in memory, or row blocks held by Dask
workers. This module holds what that loop runs on one row block, every
function a pure kernel over the block's arrays (no state of its own):

* in-memory steps: ``outputs``, ``loss``, ``activate``, ``newton_point``
  (the compiled CGLS of :mod:`semisvm._core._cgls` or the Cholesky step, then
  the outputs of the inactive rows), ``same_state``, ``line_search``, ``step``;
* the pieces a driver needs to run the same iteration over many blocks:
  ``cg_start`` (right-hand side, seeded residual and preconditioner diagonal
  of the CGLS system), ``cg_product`` (the fused ``X_J' A_J X_J p`` of one CG
  iteration), ``normal_matrix`` (the block's share of the Newton matrix),
  ``ls_bins`` / ``ls_events`` (the line search's break points, binned or
  listed in a bracket).
"""

import numpy as np

from cython cimport floating
from cython.parallel cimport prange
from semisvm._core._blas cimport _dot, _copy
from semisvm._core._dataset cimport RowData, row_dot, row_view
from semisvm._core._cgls cimport cgls, rows_matvec, rows_rmatvec, rows_rmatvec_diag
from semisvm._core._cgls cimport n_blocks, slice_len, interrupted, reraise
from semisvm._core._cgls cimport rows_rmatvec_blocked
from semisvm._core._linesearch cimport Event, line_search as _line_search
from semisvm._core._linesearch cimport collect_events
from semisvm._core._typedefs cimport MAX_CHUNKS, row_chunks
from scipy.linalg.cython_lapack cimport dpotrf, dpotrs
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy
from libc.math cimport fabs, fmax, sqrt
from libc.float cimport DBL_EPSILON, FLT_EPSILON


cdef inline double _loss_rows(Py_ssize_t i0, Py_ssize_t i1,
                              const floating *o, const floating *cpos,
                              const floating *cneg) noexcept nogil:
    """sum over rows i0..i1-1 of cpos_i max(0, 1 - o_i)^2 + cneg_i max(0, 1 + o_i)^2."""
    cdef Py_ssize_t i
    cdef double s = 0, m
    for i in range(i0, i1):
        m = 1.0 - o[i]
        if m > 0 and cpos[i] > 0:
            s += cpos[i] * m * m
        m = 1.0 + o[i]
        if m > 0 and cneg[i] > 0:
            s += cneg[i] * m * m
    return s


cdef double _loss(Py_ssize_t n, const floating *o, const floating *cpos,
                  const floating *cneg, int nt=1) noexcept nogil:
    """1/2 sum_i [cpos_i max(0, 1 - o_i)^2 + cneg_i max(0, 1 + o_i)^2]: in
    row order up to ROW_CHUNK rows, else by the chunks of ``row_chunks``
    (on ``nt`` threads) added in chunk order: the same bits for any ``nt``."""
    cdef Py_ssize_t cs, c, c1
    cdef Py_ssize_t nc = row_chunks(n, &cs)
    cdef double part[MAX_CHUNKS]
    cdef double s = 0
    if nc == 1:
        return 0.5 * _loss_rows(0, n, o, cpos, cneg)
    if nt > 1:
        for c in prange(nc, schedule="static", num_threads=nt):
            c1 = (c + 1) * cs
            part[c] = _loss_rows(c * cs, c1 if c1 < n else n, o, cpos, cneg)
    else:
        for c in range(nc):
            c1 = (c + 1) * cs
            part[c] = _loss_rows(c * cs, c1 if c1 < n else n, o, cpos, cneg)
    for c in range(nc):
        s += part[c]
    return 0.5 * s


cdef inline int _state(floating oi, floating cp, floating cn) noexcept nogil:
    """Bit 0: the cpos term is active (o < 1); bit 1: the cneg term (o > -1)."""
    return (cp > 0 and oi < 1) | ((cn > 0 and oi > -1) << 1)


cdef enum:
    NM_BLOCK = 4      # rows per pass of the dense normal-matrix update


cdef extern from *:
    """
    /* H[u, u:] += sum_{m < 4} f_m[u] e_m[u:], row m = 0..3 added in turn
       (H is D x D row-major, f and e hold 4 rows of D doubles each). The
       same C is also compiled for AVX2 and picked at run time on x86 CPUs
       that have it: no FMA (AVX2 does not enable it), so every product and
       sum is rounded as in the baseline build, and the bits are the same. */
    #define SEMISVM_NM_RANK4_BODY                                          \
        const double *e0 = e, *e1 = e + D, *e2 = e + 2 * D, *e3 = e + 3 * D; \
        for (Py_ssize_t u = 0; u < D; u++) {                               \
            const double s0 = f[u], s1 = f[D + u], s2 = f[2 * D + u],      \
                         s3 = f[3 * D + u];                                 \
            double *Hr = H + u * D;                                         \
            for (Py_ssize_t v = u; v < D; v++) {                            \
                double h = Hr[v];                                           \
                h = h + s0 * e0[v];                                         \
                h = h + s1 * e1[v];                                         \
                h = h + s2 * e2[v];                                         \
                h = h + s3 * e3[v];                                         \
                Hr[v] = h;                                                  \
            }                                                               \
        }
    #if defined(_MSC_VER)
    #define SEMISVM_RESTRICT __restrict
    #else
    #define SEMISVM_RESTRICT restrict
    #endif
    /* one row's f = a e and b += (a t) e */
    #define SEMISVM_NM_SCALE_BODY                                          \
        for (Py_ssize_t u = 0; u < D; u++) {                               \
            f[u] = ai * e[u];                                               \
            b[u] = b[u] + ati * e[u];                                       \
        }
    static void semisvm_nm_rank4_base(Py_ssize_t D, const double *f,
                                      const double *e, double *H)
    { SEMISVM_NM_RANK4_BODY }
    static void semisvm_nm_scale_base(Py_ssize_t D, double ai, double ati,
                                      const double *SEMISVM_RESTRICT e,
                                      double *SEMISVM_RESTRICT f,
                                      double *SEMISVM_RESTRICT b)
    { SEMISVM_NM_SCALE_BODY }
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    __attribute__((target("avx2")))
    static void semisvm_nm_rank4_avx2(Py_ssize_t D, const double *f,
                                      const double *e, double *H)
    { SEMISVM_NM_RANK4_BODY }
    __attribute__((target("avx2")))
    static void semisvm_nm_scale_avx2(Py_ssize_t D, double ai, double ati,
                                      const double *SEMISVM_RESTRICT e,
                                      double *SEMISVM_RESTRICT f,
                                      double *SEMISVM_RESTRICT b)
    { SEMISVM_NM_SCALE_BODY }
    static void semisvm_nm_rank4(Py_ssize_t D, const double *f,
                                 const double *e, double *H)
    {
        if (__builtin_cpu_supports("avx2"))
            semisvm_nm_rank4_avx2(D, f, e, H);
        else
            semisvm_nm_rank4_base(D, f, e, H);
    }
    static void semisvm_nm_scale(Py_ssize_t D, double ai, double ati,
                                 const double *e, double *f, double *b)
    {
        if (__builtin_cpu_supports("avx2"))
            semisvm_nm_scale_avx2(D, ai, ati, e, f, b);
        else
            semisvm_nm_scale_base(D, ai, ati, e, f, b);
    }
    #else
    #define semisvm_nm_rank4 semisvm_nm_rank4_base
    #define semisvm_nm_scale semisvm_nm_scale_base
    #endif
    """
    void semisvm_nm_rank4(Py_ssize_t D, const double *f, const double *e,
                          double *H) noexcept nogil
    void semisvm_nm_rank4_base(Py_ssize_t D, const double *f, const double *e,
                               double *H) noexcept nogil
    void semisvm_nm_scale(Py_ssize_t D, double ai, double ati, const double *e,
                          double *f, double *b) noexcept nogil


cdef void _normal_matrix_dense(RowData X, floating bias_scale, const int *active,
                               Py_ssize_t n_act, const floating *a,
                               const floating *t, double *H, double *b,
                               double *work, bint simd=True,
                               const floating *a_prev=NULL,
                               const floating *t_prev=NULL) noexcept nogil:
    """:func:`_normal_matrix` for dense X, the same sums in the same order.

    Each row x_i is extended by the bias feature to e_i (D entries, float64:
    the conversion is exact) and scaled to f_i = a_i e_i; then
    ``H[u, v] += f_i[u] e_i[v]`` (v >= u) and ``b[u] += (a_i t_i) e_i[u]``
    are the very products the generic loop adds (``xv * vals[v]``,
    ``xv * bias_scale``, ``a_i bias_scale bias_scale``), added to each
    entry in the same row order, so H and b are bitwise the generic loop's.
    The update runs NM_BLOCK rows per pass over H (the entry stays in a
    register between the rows: one load and store of H per block) with a
    contiguous inner loop the compiler vectorises (``semisvm_nm_rank4``,
    with an AVX2 build picked at run time when ``simd``). ``work`` holds
    2 NM_BLOCK D doubles. With ``a_prev``/``t_prev`` (see
    :func:`_normal_matrix_generic`) the rows' differences are added to H
    and b as they stand.
    """
    cdef Py_ssize_t D = X.n_cols + 1, d = X.n_cols
    cdef Py_ssize_t kb, m, nb, i, u, v
    cdef const floating *vals
    cdef const int *ix
    cdef double *e = work
    cdef double *f = work + NM_BLOCK * D
    cdef double *Hrow
    cdef double *e0
    cdef double ai, ati, s0
    if a_prev == NULL:
        for u in range(D * D):
            H[u] = 0
        for u in range(D):
            b[u] = 0
    kb = 0
    while kb < n_act:
        nb = min(<Py_ssize_t> NM_BLOCK, n_act - kb)
        for m in range(nb):
            i = active[kb + m]
            ai = a[i]
            ati = ai * t[i]
            if a_prev != NULL:
                ai = ai - a_prev[i]
                ati = ati - <double> a_prev[i] * t_prev[i]
            row_view(X, i, &vals, &ix)
            for u in range(d):
                e[m * D + u] = vals[u]
            e[m * D + d] = bias_scale
            # f_i = a_i e_i ; b += (a_i t_i) e_i
            semisvm_nm_scale(D, ai, ati, e + m * D, f + m * D, b)
        if nb == NM_BLOCK:
            # H[u, u:] += sum_m f_m[u] e_m[u:], the rows added one by one
            if simd:
                semisvm_nm_rank4(D, f, e, H)
            else:
                semisvm_nm_rank4_base(D, f, e, H)
        else:
            for m in range(nb):
                e0 = e + m * D
                for u in range(D):
                    s0 = f[m * D + u]
                    Hrow = H + u * D
                    for v in range(u, D):
                        Hrow[v] = Hrow[v] + s0 * e0[v]
        kb += nb


cdef void _normal_matrix_generic(RowData X, floating bias_scale,
                                 const int *active, Py_ssize_t n_act,
                                 const floating *a, const floating *t,
                                 double *H, double *b,
                                 const floating *a_prev=NULL,
                                 const floating *t_prev=NULL) noexcept nogil:
    """H = X_J' A X_J (row-major upper triangle), b = X_J' A t, in float64.

    One pass over the active rows (sum of nnz_i^2 per row); ``H`` is
    (d+1)^2, ``b`` d+1, both overwritten. With ``a_prev``/``t_prev`` the
    rows listed in ``active`` add their differences instead, H += (a_i -
    a_prev_i) e_i e_i', b += (a_i t_i - a_prev_i t_prev_i) e_i (e_i the
    row extended by the bias feature), to H and b as they stand.
    """
    cdef Py_ssize_t D = X.n_cols + 1
    cdef Py_ssize_t k, i, u, v, nnz, lo, hi, dcol = X.n_cols
    cdef const floating *vals
    cdef const int *ix
    cdef double ai, ati, xv
    cdef double *Hrow
    cdef bint increasing
    if a_prev == NULL:
        for u in range(D * D):
            H[u] = 0
        for u in range(D):
            b[u] = 0
    for k in range(n_act):
        i = active[k]
        ai = a[i]
        ati = ai * t[i]
        if a_prev != NULL:
            ai = ai - a_prev[i]
            ati = ati - <double> a_prev[i] * t_prev[i]
        nnz = row_view(X, i, &vals, &ix)
        # a row whose column indices increase (canonical CSR: every row the
        # estimators pass) needs neither the swap nor the repeated-index
        # factor below: the same terms, added in the same order
        increasing = True
        for u in range(1, nnz):
            if ix[u] <= ix[u - 1]:
                increasing = False
                break
        for u in range(nnz):
            xv = ai * vals[u]
            b[ix[u]] += ati * vals[u]
            # bias column (index d, value bias_scale)
            Hrow = H + ix[u] * D
            Hrow[dcol] += xv * bias_scale
            Hrow[ix[u]] += xv * vals[u]
            if increasing:
                for v in range(u + 1, nnz):
                    Hrow[ix[v]] += xv * vals[v]
                continue
            for v in range(u + 1, nnz):
                lo = ix[u]
                hi = ix[v]
                if lo > hi:
                    lo, hi = hi, lo
                # a repeated column index in one row adds 2 x_u x_v to H_uu
                H[lo * D + hi] += xv * vals[v] * (2 if lo == hi else 1)
        H[dcol * D + dcol] += ai * bias_scale * bias_scale
        b[dcol] += ati * bias_scale


cdef void _normal_matrix(RowData X, floating bias_scale, const int *active,
                         Py_ssize_t n_act, const floating *a, const floating *t,
                         double *H, double *b, const floating *a_prev=NULL,
                         const floating *t_prev=NULL) noexcept nogil:
    """H = X_J' A X_J (row-major upper triangle), b = X_J' A t, in float64:
    the blocked loop on dense rows, else the generic one (the same bits);
    with ``a_prev``/``t_prev``, the listed rows' differences added (see
    :func:`_normal_matrix_generic`)."""
    cdef double *work
    if X.indptr == NULL:
        work = <double *> malloc(2 * NM_BLOCK * (X.n_cols + 1) * sizeof(double))
        if work != NULL:
            _normal_matrix_dense(X, bias_scale, active, n_act, a, t, H, b, work,
                                 True, a_prev, t_prev)
            free(work)
            return
    _normal_matrix_generic(X, bias_scale, active, n_act, a, t, H, b, a_prev,
                           t_prev)


cdef inline Py_ssize_t _row_work(RowData X, Py_ssize_t i) noexcept nogil:
    """Row i's share of a normal-matrix pass: (nnz_i + 1)^2."""
    cdef Py_ssize_t m = X.n_cols + 1
    if X.indptr != NULL:
        m = X.indptr[i + 1] - X.indptr[i] + 1
    return m * m


#: the kept normal matrix is built anew once the magnitudes of the terms it
#: took since its last build (sum |a_i - a_prev_i| ||e_i||^2 over the rows
#: brought up to date, and the build's own trace) exceed this many times its
#: trace (the same for b: |a_i t_i - a_prev_i t_prev_i| ||e_i|| against
#: sum_J |a_i t_i| ||e_i||). Its rounding is then at most this factor above a
#: fresh build's bound (about 2 digits), and the fresh builds the rule adds
#: cost at most 1/KEPT_REBUILD of the update work done since the last one
#: (a build's work and its trace both grow with the active rows' mass).
cdef double KEPT_REBUILD = 100.0


def _set_kept_rebuild(double factor):
    """Test hook: set the kept normal matrix's rebuild factor; returns the
    former one."""
    global KEPT_REBUILD
    old = KEPT_REBUILD
    KEPT_REBUILD = factor
    return old


cdef inline double _row_norm2(RowData X, floating bias_scale,
                              Py_ssize_t i) noexcept nogil:
    """||e_i||^2, e_i row i extended by the bias feature (float64)."""
    cdef const floating *vals
    cdef const int *ix
    cdef Py_ssize_t k, nnz = row_view(X, i, &vals, &ix)
    cdef double s2 = <double> bias_scale * bias_scale
    for k in range(nnz):
        s2 += <double> vals[k] * vals[k]
    return s2


cdef void _normal_matrix_kept(RowData X, floating bias_scale, const int *active,
                              Py_ssize_t n_act, const floating *a,
                              const floating *t, double *H, double *b,
                              floating *a_prev, floating *t_prev, int *rows,
                              bint *valid) noexcept nogil:
    """H = X_J' A X_J and b = X_J' A t as :func:`_normal_matrix`, kept
    from one Newton step to the next: ``H``/``b`` hold, when ``valid``,
    those of the weights and targets ``a_prev``/``t_prev`` (n each); only
    the rows whose (a_i, t_i) changed then add their differences (rows
    leaving the active set subtract their outer products, rows entering
    add theirs), when those rows' work (sum of (nnz_i + 1)^2) is below a
    pass over the active rows and the rounding rule below allows it; else
    H and b are built anew. ``a_prev``, ``t_prev`` then take (a, t) and
    ``valid`` becomes True; ``rows`` (n ints) is work. ``b`` has D + 3
    entries: b, then the rule's sums (the magnitudes taken into H and b
    since the last build, and sum_J |a_i t_i| ||e_i||).

    Between the steps of one MFN call few rows change state (on
    adult_a9a, 12,000 of 32,561 rows leave at the second step and a few
    hundred change at each later one), so the matrix costs about a third
    of the passes. The sums' rounding differs from a fresh build's: they
    hold terms added and later subtracted, so their error is of the order
    of the unit roundoff times the magnitudes of all the terms taken since
    the last build, not of the active rows' alone (a large row that left
    leaves its rounding behind). Hence the rule: a fresh build once those
    magnitudes exceed KEPT_REBUILD times the active rows' (the trace of H,
    sum_J |a_i t_i| ||e_i|| for b), which keeps the error within that
    factor of a fresh build's bound.
    """
    cdef Py_ssize_t n = X.n_rows, D = X.n_cols + 1, i, k, u, m = 0
    cdef Py_ssize_t changed = 0, work = 0
    cdef double *acc = b + D
    cdef double nrm2, nrm, ati, apti, trace = 0
    cdef double dmh = 0, dh = 0, dmb = 0, drb = 0
    cdef bint update = valid[0]
    if update:
        for i in range(n):
            if a[i] != a_prev[i] or t[i] != t_prev[i]:
                rows[m] = <int> i
                m += 1
                changed += _row_work(X, i)
                nrm2 = _row_norm2(X, bias_scale, i)
                nrm = sqrt(nrm2)
                dh += (<double> a[i] - <double> a_prev[i]) * nrm2
                dmh += fabs(<double> a[i] - <double> a_prev[i]) * nrm2
                ati = <double> a[i] * t[i]
                apti = <double> a_prev[i] * t_prev[i]
                dmb += fabs(ati - apti) * nrm
                drb += (fabs(ati) - fabs(apti)) * nrm
        for k in range(n_act):
            work += _row_work(X, active[k])
        for u in range(D):
            trace += H[u * D + u]
        update = (changed < work
                  and acc[0] + dmh <= KEPT_REBUILD * (trace + dh)
                  and acc[1] + dmb <= KEPT_REBUILD * (acc[2] + drb))
    if update:
        _normal_matrix(X, bias_scale, rows, m, a, t, H, b, a_prev, t_prev)
        for k in range(m):
            i = rows[k]
            a_prev[i] = a[i]
            t_prev[i] = t[i]
        acc[0] += dmh
        acc[1] += dmb
        acc[2] += drb
        return
    _normal_matrix(X, bias_scale, active, n_act, a, t, H, b)
    for i in range(n):
        a_prev[i] = a[i]
        t_prev[i] = t[i]
    trace = 0
    for u in range(D):
        trace += H[u * D + u]
    acc[0] = trace
    acc[2] = 0
    for k in range(n_act):
        i = active[k]
        acc[2] += fabs(<double> a[i] * t[i]) * sqrt(_row_norm2(X, bias_scale,
                                                               i))
    acc[1] = acc[2]
    valid[0] = True


cdef int _newton_direct(RowData X, floating bias_scale, const int *active,
                        Py_ssize_t n_act, const floating *a, const floating *t,
                        double lam, double *H, double *b,
                        floating *wbar, double *H0=NULL, double *b0=NULL,
                        floating *a_prev=NULL, floating *t_prev=NULL,
                        int *rows=NULL, bint *valid=NULL) noexcept nogil:
    """Newton point by Cholesky: wbar = (lam I + X_J' A X_J)^-1 X_J' A t.

    For small n_features the (d+1)^2 matrix costs one pass over the active
    rows and a Cholesky factorisation, far less than the CG iterations it
    replaces, and the step is exact. H's row-major upper triangle is what
    LAPACK reads as the column-major lower one. Returns 0 on success, else
    LAPACK's info (the caller then falls back to CGLS). With ``H0`` (and
    ``b0``, ``a_prev``, ``t_prev``, ``rows``, ``valid``: see
    :func:`_normal_matrix_kept`) the matrix is kept there from the last
    step and brought up to date; H and b receive a copy.
    """
    cdef int D = <int> (X.n_cols + 1), info = 0, one = 1
    cdef Py_ssize_t u
    cdef char lower = b'L'
    if H0 != NULL:
        _normal_matrix_kept(X, bias_scale, active, n_act, a, t, H0, b0,
                            a_prev, t_prev, rows, valid)
        memcpy(H, H0, D * D * sizeof(double))
        memcpy(b, b0, D * sizeof(double))
    else:
        _normal_matrix(X, bias_scale, active, n_act, a, t, H, b)
    for u in range(D):
        H[u * D + u] += lam
    dpotrf(&lower, &D, H, &D, &info)
    if info != 0:
        return info
    dpotrs(&lower, &D, &one, H, &D, b, &D, &info)
    if info != 0:
        return info
    for u in range(D):
        wbar[u] = <floating> b[u]
    return 0


cdef Py_ssize_t _activate_rows(Py_ssize_t i0, Py_ssize_t i1, const floating *o,
                               const floating *cpos, const floating *cneg,
                               floating *a, floating *t,
                               int *active) noexcept nogil:
    """Rows i0..i1-1 of :func:`_activate`; their active ones are listed in
    ``active`` (unless NULL) from its start; returns their number."""
    cdef Py_ssize_t i, n_act = 0
    cdef int st
    for i in range(i0, i1):
        st = _state(o[i], cpos[i], cneg[i])
        a[i] = (cpos[i] if st & 1 else 0) + (cneg[i] if st & 2 else 0)
        if a[i] > 0:
            t[i] = ((cpos[i] if st & 1 else 0)
                    - (cneg[i] if st & 2 else 0)) / a[i]
            if active != NULL:
                active[n_act] = <int> i
            n_act += 1
        else:
            t[i] = 0
    return n_act


cdef Py_ssize_t _list_rows(Py_ssize_t i0, Py_ssize_t i1, const floating *a,
                           bint idle, int *out, bint exact) noexcept nogil:
    """The rows i0..i1-1 with a_i > 0 (``idle``: a_i == 0) into ``out``, in
    order; returns their number. ``exact``: no entry written past the list
    (a chunk's list ends where the next chunk's begins); else (idle rows
    only) without a branch per row (a row's test is as good as random:
    mispredicted branches kept the processor from overlapping the rows),
    writing one entry past the list (``out`` has room for it)."""
    cdef Py_ssize_t i, m = 0
    if exact and idle:
        for i in range(i0, i1):
            if a[i] == 0:
                out[m] = <int> i
                m += 1
    elif exact:
        for i in range(i0, i1):
            if a[i] > 0:
                out[m] = <int> i
                m += 1
    else:
        for i in range(i0, i1):
            out[m] = <int> i
            m += a[i] == 0
    return m


cdef Py_ssize_t _count_rows(Py_ssize_t i0, Py_ssize_t i1, const floating *a,
                            bint idle) noexcept nogil:
    """The number of rows i0..i1-1 with a_i > 0 (``idle``: a_i == 0)."""
    cdef Py_ssize_t i, m = 0
    for i in range(i0, i1):
        m += (a[i] == 0) == idle
    return m


cdef Py_ssize_t _activate(Py_ssize_t n, const floating *o,
                          const floating *cpos, const floating *cneg,
                          floating *a, floating *t, int *active,
                          int nt=1) noexcept nogil:
    """The body of :func:`activate`; returns n_act. On ``nt`` > 1 threads,
    above ROW_CHUNK rows, chunk by chunk of ``row_chunks``: the weights and
    targets, then the active rows listed from each chunk's offset (the same
    values and list as in one pass)."""
    cdef Py_ssize_t cs, c, c1
    cdef Py_ssize_t nc = row_chunks(n, &cs)
    cdef Py_ssize_t cnt[MAX_CHUNKS]
    if nt <= 1 or nc == 1:
        return _activate_rows(0, n, o, cpos, cneg, a, t, active)
    for c in prange(nc, schedule="static", num_threads=nt):
        c1 = (c + 1) * cs
        cnt[c] = _activate_rows(c * cs, c1 if c1 < n else n, o, cpos, cneg,
                                a, t, NULL)
    return _list_chunks(n, cs, nc, a, False, active, cnt, nt)


cdef Py_ssize_t _list_chunks(Py_ssize_t n, Py_ssize_t cs, Py_ssize_t nc,
                             const floating *a, bint idle, int *out,
                             Py_ssize_t *cnt, int nt) noexcept nogil:
    """Given each chunk's count of rows to list (``cnt``, made offsets
    here), list them from the chunks' offsets on ``nt`` threads: the list
    of one pass. Returns its length."""
    cdef Py_ssize_t c, c1, total = 0
    for c in range(nc):
        c1 = cnt[c]
        cnt[c] = total
        total += c1
    for c in prange(nc, schedule="static", num_threads=nt):
        c1 = (c + 1) * cs
        _list_rows(c * cs, c1 if c1 < n else n, a, idle, out + cnt[c], True)
    return total


cdef Py_ssize_t _idle_rows(Py_ssize_t n, const floating *a, int *out,
                           int nt) noexcept nogil:
    """The rows with a_i == 0 into ``out`` (n + 1 entries), in order; on
    ``nt`` > 1 threads chunk by chunk as :func:`_activate`. Returns their
    number."""
    cdef Py_ssize_t cs, c, c1
    cdef Py_ssize_t nc = row_chunks(n, &cs)
    cdef Py_ssize_t cnt[MAX_CHUNKS]
    if nt <= 1 or nc == 1:
        return _list_rows(0, n, a, True, out, False)
    for c in prange(nc, schedule="static", num_threads=nt):
        c1 = (c + 1) * cs
        cnt[c] = _count_rows(c * cs, c1 if c1 < n else n, a, True)
    return _list_chunks(n, cs, nc, a, True, out, cnt, nt)


cdef int _newton_point(RowData X, floating bias_scale, const int *active,
                       Py_ssize_t n_act, const floating *a, const floating *t,
                       double lam, floating *wbar, const floating *o,
                       floating *obar, double tol, double eta, int max_iter,
                       bint direct, floating *z, floating *q, floating *r,
                       floating *p, floating *s, floating *minv,
                       floating *tbuf, Py_ssize_t tbuf_len, double *H,
                       double *b, int n_threads,
                       int *n_iter, bint one_pass=True, double gstop2=0.0,
                       double *gnorm2=NULL, bint blocked=True,
                       floating *keep=NULL, bint given=False,
                       double *H0=NULL, double *b0=NULL,
                       floating *a_prev=NULL, floating *t_prev=NULL,
                       int *rows=NULL, bint *valid=NULL,
                       double prec_mix=-1.0) noexcept nogil:
    """The body of :func:`newton_point` (n >= 1); returns the status (3:
    the CG seed's gradient norm^2, stored in ``gnorm2``, is <= ``gstop2``;
    nothing was changed). ``gnorm2`` gets -1 after a Cholesky step. ``H0``
    and the rest: the Cholesky step's kept matrix (:func:`_newton_direct`)."""
    cdef Py_ssize_t n = X.n_rows, D = X.n_cols + 1, i, k
    cdef int status = 1, nt
    n_iter[0] = 0
    if gnorm2 != NULL:
        gnorm2[0] = -1
    # obar starts at o (CGLS keeps it = X wbar on the active rows)
    _copy(<int> n, o, 1, obar, 1)
    if direct and _newton_direct(X, bias_scale, active, n_act, a, t, lam, H,
                                 b, wbar, H0, b0, a_prev, t_prev, rows,
                                 valid) == 0:
        rows_matvec(X, bias_scale, active, n_act, wbar, q, n_threads)
        for k in range(n_act):
            obar[active[k]] = q[k]
    else:
        # (a failed factorisation leaves wbar as it was: CGLS starts there)
        status = cgls(X, bias_scale, active, n_act, a, t, <floating> lam,
                      wbar, obar, <floating> tol, <floating> eta, max_iter,
                      z, q, r, p, s, minv, tbuf, tbuf_len, n_threads, n_iter,
                      one_pass, gstop2, gnorm2, blocked, keep, given,
                      prec_mix)
        if status == 3 or status == 4:
            return status  # 4: interrupted (the exception is left set)
    # outputs of wbar on the inactive rows (one value per row: the same
    # bits on any number of threads), listed first without a branch per row
    # (a row's test a_i == 0 is as good as random: mispredicted branches
    # kept the processor from overlapping the rows' dot products)
    nt = n_threads if n_blocks(X, n - n_act) > 1 else 1
    cdef int *idle = <int *> malloc((n - n_act + 1) * sizeof(int))
    cdef Py_ssize_t m = 0, j
    if idle != NULL:
        m = _idle_rows(n, a, idle, n_threads)
        if nt > 1:
            for j in prange(m, schedule="dynamic", chunksize=1024,
                            num_threads=nt):
                obar[idle[j]] = (row_dot(X, idle[j], wbar)
                                 + bias_scale * wbar[D - 1])
        else:
            for j in range(m):
                i = idle[j]
                obar[i] = row_dot(X, i, wbar) + bias_scale * wbar[D - 1]
        free(idle)
    elif nt > 1:
        for i in prange(n, schedule="dynamic", chunksize=1024, num_threads=nt):
            if a[i] == 0:
                obar[i] = row_dot(X, i, wbar) + bias_scale * wbar[D - 1]
    else:
        for i in range(n):
            if a[i] == 0:
                obar[i] = row_dot(X, i, wbar) + bias_scale * wbar[D - 1]
    return status


cdef bint _start_update(RowData X, floating bias_scale, const floating *a,
                        const floating *t, const floating *a_old,
                        const floating *t_old, const floating *o,
                        const int *active, Py_ssize_t n_act,
                        floating *keep, floating *zw, floating *u,
                        floating *tbuf, Py_ssize_t tbuf_len,
                        int n_threads) noexcept nogil:
    """Bring the last solve's setup sums ``keep`` = [X_J' A t, diag(X_J' A
    X_J), r = X_J' A (t - o) - lam w] (each n_cols + 1) to the weights and
    targets (a, t) from (a_old, t_old), at the same o and w: only the rows
    whose (a_i, t_i) changed add their difference.

    Few such rows (at most a sixteenth of the active rows' entries: TSVM's
    switched pairs): one serial loop over them. More (DA's p-steps move the
    target t_i = (cpos_i - cneg_i) / a_i of every unlabeled row, and on a
    row inside the margin not its weight a_i = cpos_i + cneg_i = lam_u / u,
    to rounding): the rows whose weight is unchanged (to 4 ulp) add their
    difference of a (t - o) to X_J' A t and to r in one blocked pass over
    the active rows (``zw``, n_act, and ``u``, n_cols + 1, are work; the
    same bits for any ``n_threads``), a third of a setup pass's work; their
    weight's rounding-level change would add that much to diag(X_J' A X_J),
    the preconditioner's, and is left out. The rows whose weight changed
    add all three differences in a serial loop. Returns False, changing
    nothing, when those rows hold more than a quarter of the active rows'
    entries (a setup pass is then cheaper)."""
    cdef Py_ssize_t n = X.n_rows, D = X.n_cols + 1, d = X.n_cols, i, k, m, nnz
    cdef const floating *vals
    cdef const int *ix
    cdef floating dr, dz, da, vm, ulp4
    cdef floating *rhs = keep
    cdef floating *dg = keep + D
    cdef floating *r = keep + 2 * D
    cdef Py_ssize_t changed = 0, work = 0, reweighted = 0, nz
    cdef bint wide
    if floating is float:
        ulp4 = 4 * FLT_EPSILON
    else:
        ulp4 = 4 * DBL_EPSILON
    for i in range(n):
        if a[i] != a_old[i] or t[i] != t_old[i]:
            nnz = row_view(X, i, &vals, &ix) + 1
            changed += nnz
            if fabs(a[i] - a_old[i]) > ulp4 * fmax(a[i], a_old[i]):
                reweighted += nnz
    for m in range(n_act):
        work += row_view(X, active[m], &vals, &ix) + 1
    wide = 16 * changed > work
    if wide and (4 * reweighted > work or n_act < 1
                 or tbuf_len < slice_len(X, n_act)):
        return False
    if wide:
        # the rows of unchanged weight, in one blocked pass: a (t - o)
        # differences into both X_J' A t and r (none, as in a supervised
        # fit, whose targets do not move: no pass)
        nz = 0
        for k in range(n_act):
            i = active[k]
            if (a[i] == a_old[i] and t[i] == t_old[i]) or (
                    fabs(a[i] - a_old[i]) > ulp4 * fmax(a[i], a_old[i])):
                zw[k] = 0
            else:
                zw[k] = a[i] * (t[i] - o[i]) - a_old[i] * (t_old[i] - o[i])
            nz += zw[k] != 0
        if nz > 0:
            rows_rmatvec_blocked(X, bias_scale, active, n_act, zw, u, tbuf,
                                 n_threads)
            for m in range(D):
                rhs[m] += u[m]
                r[m] += u[m]
    for i in range(n):
        if a[i] == a_old[i] and t[i] == t_old[i]:
            continue
        if wide and not fabs(a[i] - a_old[i]) > ulp4 * fmax(a[i], a_old[i]):
            continue
        # the differences of a t, a (t - o) and a
        dr = a[i] * t[i] - a_old[i] * t_old[i]
        dz = a[i] * (t[i] - o[i]) - a_old[i] * (t_old[i] - o[i])
        da = a[i] - a_old[i]
        nnz = row_view(X, i, &vals, &ix)
        for m in range(nnz):
            vm = vals[m]
            rhs[ix[m]] += dr * vm
            r[ix[m]] += dz * vm
            dg[ix[m]] += da * vm * vm
        rhs[d] += bias_scale * dr
        r[d] += bias_scale * dz
        dg[d] += bias_scale * bias_scale * da
    return True


cdef bint _same_rows(Py_ssize_t i0, Py_ssize_t i1, const floating *o,
                     const floating *obar, const floating *cpos,
                     const floating *cneg) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(i0, i1):
        if _state(obar[i], cpos[i], cneg[i]) != _state(o[i], cpos[i], cneg[i]):
            return False
    return True


cdef bint _same_state(Py_ssize_t n, const floating *o, const floating *obar,
                      const floating *cpos, const floating *cneg,
                      int nt=1) noexcept nogil:
    """The body of :func:`same_state` (on ``nt`` threads above ROW_CHUNK
    rows, chunk by chunk)."""
    cdef Py_ssize_t cs, c, c1
    cdef Py_ssize_t nc = row_chunks(n, &cs)
    cdef unsigned char same[MAX_CHUNKS]
    if nt <= 1 or nc == 1:
        return _same_rows(0, n, o, obar, cpos, cneg)
    for c in prange(nc, schedule="static", num_threads=nt):
        c1 = (c + 1) * cs
        same[c] = _same_rows(c * cs, c1 if c1 < n else n, o, obar, cpos, cneg)
    for c in range(nc):
        if not same[c]:
            return False
    return True


cdef double _step(Py_ssize_t n, const floating *o, const floating *obar,
                  floating dl, const floating *cpos, const floating *cneg,
                  floating *out, int nt=1) noexcept nogil:
    """The body of :func:`step` (n >= 1): out = o + dl (obar - o), then its
    loss (:func:`_loss`'s sums: the same bits for any ``nt``), on ``nt``
    threads above ROW_CHUNK rows, chunk by chunk."""
    cdef Py_ssize_t i, cs, c, c0, c1
    cdef Py_ssize_t nc = row_chunks(n, &cs)
    cdef double part[MAX_CHUNKS]
    cdef double s = 0
    if nt <= 1 or nc == 1:
        for i in range(n):
            out[i] = o[i] + dl * (obar[i] - o[i])
        return _loss(n, out, cpos, cneg)
    for c in prange(nc, schedule="static", num_threads=nt):
        c0 = c * cs
        c1 = c0 + cs
        if c1 > n:
            c1 = n
        for i in range(c0, c1):
            out[i] = o[i] + dl * (obar[i] - o[i])
        part[c] = _loss_rows(c0, c1, out, cpos, cneg)
    for c in range(nc):
        s += part[c]
    return 0.5 * s


# ---------------------------------------------------------------------------
# argument checks shared by the entry points (raise before any nogil code)

cdef _check_dtype(RowData X, bint is32):
    if is32 != X.is_float32:
        raise TypeError("arrays must have X's dtype")


cdef _check_rows(Py_ssize_t n, name, Py_ssize_t have):
    if have != n:
        raise ValueError(f"{name} needs {n} entries, got {have}")


cdef _check_active(const int[::1] active, Py_ssize_t n_act, Py_ssize_t n):
    cdef Py_ssize_t k
    if not 0 <= n_act <= active.shape[0]:
        raise ValueError("n_act out of range")
    for k in range(n_act):
        if not 0 <= active[k] < n:
            raise ValueError("active holds an out-of-range row")


# ---------------------------------------------------------------------------
# in-memory steps (also run per block by the distributed backend)

def slice_buffer_len(RowData X):
    """Entries of the row blocks' slice buffer (``tbuf``) that serves every
    CG solve over X's rows: a fit allocates it once and passes it to each
    :func:`newton_point` / :func:`mfn_run`."""
    return slice_len(X, X.n_rows)


def outputs(RowData X, double bias_scale, const floating[::1] w,
            int[::1] rows, floating[::1] o, int n_threads=1):
    """o = X w[:d] + bias_scale w[d] over all rows (``rows`` is work, n)."""
    cdef Py_ssize_t n = X.n_rows, i
    cdef bint is32 = False
    if floating is float:
        is32 = True
    _check_dtype(X, is32)
    _check_rows(n, "o", o.shape[0])
    _check_rows(n, "rows", rows.shape[0])
    _check_rows(X.n_cols + 1, "w", w.shape[0])
    if n == 0:
        return
    with nogil:
        for i in range(n):
            rows[i] = <int> i
        rows_matvec(X, <floating> bias_scale, &rows[0], n, &w[0], &o[0],
                    n_threads)


def loss(const floating[::1] o, const floating[::1] cpos,
         const floating[::1] cneg, int n_threads=1):
    """1/2 sum_i [cpos_i l2(o_i) + cneg_i l2(-o_i)], l2(z) = max(0, 1 - z)^2.
    ``n_threads``: threads of the pass above ROW_CHUNK rows (its chunks'
    sums added in chunk order: the same bits for any count)."""
    cdef Py_ssize_t n = o.shape[0]
    cdef double s
    _check_rows(n, "cpos", cpos.shape[0])
    _check_rows(n, "cneg", cneg.shape[0])
    if n == 0:
        return 0.0
    with nogil:
        s = _loss(n, &o[0], &cpos[0], &cneg[0], n_threads)
    return s


def activate(const floating[::1] o, const floating[::1] cpos,
             const floating[::1] cneg, floating[::1] a, floating[::1] t,
             int[::1] active, int n_threads=1):
    """Least-squares weights a, targets t and the active rows at outputs o.

    cp (o-1)^2 + cn (o+1)^2 = (cp+cn) (o - (cp-cn)/(cp+cn))^2 + const over
    the active terms; returns n_act (the active rows fill ``active[:n_act]``).
    ``n_threads``: threads of the pass above ROW_CHUNK rows (the same values
    and list for any count).
    """
    cdef Py_ssize_t n = o.shape[0], n_act = 0
    for arr, name in ((cpos, "cpos"), (cneg, "cneg"), (a, "a"), (t, "t"),
                      (active, "active")):
        _check_rows(n, name, arr.shape[0])
    if n == 0:
        return 0
    with nogil:
        n_act = _activate(n, &o[0], &cpos[0], &cneg[0], &a[0], &t[0], &active[0],
                          n_threads)
    return n_act


def newton_point(RowData X, double bias_scale, const int[::1] active,
                 Py_ssize_t n_act, const floating[::1] a,
                 const floating[::1] t, double lam, floating[::1] wbar,
                 const floating[::1] o, floating[::1] obar, double tol,
                 double eta, int max_iter, bint direct, floating[::1] z,
                 floating[::1] q, floating[::1] r, floating[::1] p,
                 floating[::1] s, floating[::1] minv, floating[::1] tbuf,
                 double[::1] H, double[::1] b, int n_threads=1,
                 bint one_pass=True, double gstop2=0.0, bint blocked=True,
                 double[::1] H0=None, double[::1] b0=None,
                 floating[::1] a_prev=None, floating[::1] t_prev=None,
                 int[::1] rows=None, bint valid=False,
                 double prec_mix=-1.0):
    """Newton point of the active rows, in place on ``wbar`` (seeded) and
    ``obar`` (its outputs on all rows).

    By Cholesky when ``direct`` (``H`` (d+1)^2 and ``b`` d+1 float64 work),
    falling back to CGLS if the factorisation fails; else by the seeded,
    preconditioned CGLS of :mod:`semisvm._core._cgls` (tolerance ``tol``,
    forcing term ``eta``, < 0 the model-decrease test, ``max_iter``
    iterations, preconditioner weight ``prec_mix``, < 0 the default), which
    keeps obar = X wbar on the active rows. ``z``/``q`` (n) and
    ``r``/``p``/``s``/``minv`` (d+1),
    ``tbuf`` (the row blocks' slices: ``slice_buffer_len(X)`` entries, or
    fewer to let each solve allocate its own) are work arrays.
    ``one_pass``: CG's product in one pass over the rows (else CGLS's two).
    Returns ``(status, n_iter,
    gnorm2)`` with CGLS's status (1 the Cholesky step; 3 when the gradient
    norm^2 at wbar, ``gnorm2``, is <= ``gstop2`` > 0: nothing is changed) and
    ``gnorm2`` -1 after a Cholesky step.

    ``H0`` ((d+1)^2), ``b0`` (d+4), ``a_prev``, ``t_prev`` and ``rows`` (n
    each), all or none: the Cholesky step keeps its normal matrix there
    (:func:`_normal_matrix_kept`); ``valid``: they hold the last step's
    (for the weights and targets in ``a_prev``/``t_prev``), brought up to
    date for the rows that changed. After a Cholesky step they are valid.
    """
    cdef Py_ssize_t n = X.n_rows, D = X.n_cols + 1
    cdef int status = 1, n_iter = 0
    cdef double gn2 = -1
    cdef bint is32 = False
    cdef bint kept_valid = valid
    cdef double *h0 = NULL
    if floating is float:
        is32 = True
    _check_dtype(X, is32)
    for arr, name in ((a, "a"), (t, "t"), (o, "o"), (obar, "obar"),
                      (z, "z"), (q, "q"), (active, "active")):
        _check_rows(n, name, arr.shape[0])
    for arr, name in ((wbar, "wbar"), (r, "r"), (p, "p"), (s, "s"),
                      (minv, "minv")):
        _check_rows(D, name, arr.shape[0])
    if tbuf.shape[0] < 1 or n_threads < 1:
        raise ValueError("tbuf needs an entry and n_threads must be >= 1")
    if direct and (H.shape[0] < D * D or b.shape[0] < D):
        raise ValueError("H and b need (n_cols + 1)^2 and n_cols + 1 entries")
    if H0 is not None and direct:
        if (H0.shape[0] < D * D or b0 is None or b0.shape[0] < D + 3
                or a_prev is None or t_prev is None or rows is None):
            raise ValueError("H0, b0, a_prev, t_prev and rows go together")
        for arr, name in ((a_prev, "a_prev"), (t_prev, "t_prev"),
                          (rows, "rows")):
            _check_rows(n, name, arr.shape[0])
        if n > 0:
            h0 = &H0[0]
    _check_active(active, n_act, n)
    if n == 0:
        return 1, 0, -1.0
    with nogil:
        status = _newton_point(X, <floating> bias_scale, &active[0], n_act,
                               &a[0], &t[0], lam, &wbar[0], &o[0], &obar[0],
                               tol, eta, max_iter, direct, &z[0], &q[0], &r[0],
                               &p[0], &s[0], &minv[0], &tbuf[0],
                               tbuf.shape[0], &H[0] if direct else NULL,
                               &b[0] if direct else NULL, n_threads, &n_iter,
                               one_pass, gstop2, &gn2, blocked, NULL, False,
                               h0, &b0[0] if h0 != NULL else NULL,
                               &a_prev[0] if h0 != NULL else NULL,
                               &t_prev[0] if h0 != NULL else NULL,
                               &rows[0] if h0 != NULL else NULL,
                               &kept_valid, prec_mix)
    if status == 4:
        reraise()
    return status, n_iter, gn2


def same_state(const floating[::1] o, const floating[::1] obar,
               const floating[::1] cpos, const floating[::1] cneg,
               int n_threads=1):
    """True when every loss term is active at obar exactly as at o.
    ``n_threads``: threads of the pass above ROW_CHUNK rows."""
    cdef Py_ssize_t n = o.shape[0]
    cdef bint same = True
    _check_rows(n, "obar", obar.shape[0])
    _check_rows(n, "cpos", cpos.shape[0])
    _check_rows(n, "cneg", cneg.shape[0])
    if n == 0:
        return True
    with nogil:
        same = _same_state(n, &o[0], &obar[0], &cpos[0], &cneg[0], n_threads)
    return same


def line_search(const floating[::1] w, const floating[::1] wbar, double lam,
                const floating[::1] o, const floating[::1] obar,
                const floating[::1] cpos, const floating[::1] cneg,
                unsigned char[::1] events, int n_threads=1):
    """Exact step argmin_{delta >= 0} F(w + delta (wbar - w)) (outputs o ->
    obar); ``events`` is work of at least 2 n sizeof(Event) bytes.
    ``n_threads``: threads of the pass above ROW_CHUNK rows (its chunks'
    sums added in chunk order: the same bits for any count)."""
    cdef Py_ssize_t n = o.shape[0], D = w.shape[0]
    cdef double out
    _check_rows(D, "wbar", wbar.shape[0])
    for arr, name in ((obar, "obar"), (cpos, "cpos"), (cneg, "cneg")):
        _check_rows(n, name, arr.shape[0])
    if events.shape[0] < max(2 * n, 1) * sizeof(Event):
        raise ValueError("events buffer too small")
    with nogil:
        out = _line_search(D, lam, &w[0], &wbar[0], n, &o[0] if n else NULL,
                           &obar[0] if n else NULL, &cpos[0] if n else NULL,
                           &cneg[0] if n else NULL, <Event *> &events[0],
                           n_threads)
    return out


def step(const floating[::1] o, const floating[::1] obar, double delta,
         const floating[::1] cpos, const floating[::1] cneg,
         floating[::1] out, int n_threads=1):
    """out = o + delta (obar - o) (``out`` may be ``o``); returns its loss.
    ``n_threads``: threads of the pass above ROW_CHUNK rows (its chunks'
    sums added in chunk order: the same bits for any count)."""
    cdef Py_ssize_t n = o.shape[0]
    cdef floating dl = <floating> delta
    cdef double s
    for arr, name in ((obar, "obar"), (cpos, "cpos"), (cneg, "cneg"),
                      (out, "out")):
        _check_rows(n, name, arr.shape[0])
    if n == 0:
        return 0.0
    with nogil:
        s = _step(n, &o[0], &obar[0], dl, &cpos[0], &cneg[0], &out[0],
                  n_threads)
    return s


def mfn_run(RowData X, double bias_scale, floating[::1] w, double lam,
            const floating[::1] cpos, const floating[::1] cneg,
            floating[::1] o, floating[::1] obar, floating[::1] wbar,
            floating[::1] a, floating[::1] t, int[::1] active,
            floating[::1] z, floating[::1] q, floating[::1] r,
            floating[::1] p, floating[::1] s, floating[::1] minv,
            floating[::1] tbuf, double[::1] H, double[::1] b,
            object events, double tol, int max_iter,
            int cg_max_iter, bint cold_start, double rel_tol, double eta,
            bint direct, double[::1] hobj, int[::1] hcg, int[::1] hact,
            int n_threads=1, double grad_tol=0.0, bint one_pass=True,
            bint blocked=True, floating[::1] keep=None,
            floating[::1] a_old=None, floating[::1] t_old=None,
            bint given=False, double[::1] H0=None, double[::1] b0=None,
            floating[::1] a_prev=None, floating[::1] t_prev=None,
            int[::1] rows=None, int n_carried=0, int carry_max=-1,
            double prec_mix=-1.0, double grad_decrease=-1.0):
    """The whole L2-SVM-MFN outer loop of ``semisvm._rows.mfn_loop`` in one
    call, for the in-memory backend: the same steps (the kernels above) in
    the same order, without the GIL.

    ``o`` holds X w on entry (``outputs``); ``obar`` and the rest are work
    as for the step functions (``H``/``b`` used when ``direct``; ``events``
    of at least 2 n sizeof(Event) bytes, or None: allocated at the first
    line search, as the Python loop's backend does). ``lam``, ``tol`` and
    ``eta`` come
    rounded to the data's precision, ``eta`` the cold-start forcing term (0
    for a warm start; < 0 the model-decrease test of ``_cgls.cgls``);
    ``prec_mix`` the preconditioner's weight (< 0: ``_cgls``'s default).
    ``grad_decrease`` >= 0: the gradient test (``grad_tol``) is made only
    on the seeds of Newton iterations whose predecessor decreased F by at
    most ``grad_decrease`` relative, or after one iteration whose seed
    passed it unmade (< 0: on every seed).
    ``hobj`` (max_iter + 1, ``hobj[0]`` the objective at
    w), ``hcg`` and ``hact`` (max_iter) receive the histories (shorter
    ones, nh + 1 and nh entries, keep the first nh iterations, hcg's last
    entry adding up the CG iterations of the later ones). Returns
    ``(n_iter, status, F, swapped, events)``: ``swapped`` when the final
    outputs are in ``obar`` (the caller swaps its references), ``events``
    the line search's buffer (None if none was needed or given).
    ``grad_tol`` > 0: status 3 (and the iteration not counted) when a CG
    solve's seed has ||grad F(w)|| <= grad_tol ||grad F(w_start)||, the
    latter the first CG seed's. ``one_pass``: see :func:`newton_point`;
    ``blocked=False``: every pass one row block (see ``_cgls.cgls``).

    ``keep`` (4 (d + 1), or None) receives each CG solve's setup sums and
    residuals (see ``_cgls.cgls``); ``given``: ``keep`` holds those of the
    solve that ended the last call, at this very w and o, and ``a``/``t``
    that solve's weights and targets: the first solve takes them, brought up
    to date for the rows whose weight or target changed (``a_old``/``t_old``,
    n, are work), instead of its setup pass (one-pass CG, no Cholesky).
    Returns then also ``kept``, ``used`` and ``run``: ``kept``, the call
    ended where ``keep``'s residual is that of its w for the last solve's
    weights and targets (a finite termination, or a line-search step, whose
    residual is the seed's plus delta times the solve's change: r is affine
    in w), so that ``keep`` may serve the next call from this w; ``used``,
    the first solve took the given sums (else it made its setup pass: too
    many rows changed). The later Newton iterations of the call take them
    the same way from the iteration before (its step ended where ``kept``
    says), brought up to date for the rows that entered or left the active
    set, when ``a_old``/``t_old`` are given. ``n_carried``: the solves in a
    row before this call that took carried sums; a solve takes them only
    while that run is below ``carry_max`` (-1: no cap), so that a setup pass
    every ``carry_max + 1`` solves puts the sums back on the exact ones;
    ``run``: the run at the end of the call.

    ``H0`` ((d+1)^2), ``b0`` (d+4), ``a_prev``, ``t_prev`` and ``rows`` (n
    each), all or none (with ``direct``): the Cholesky steps keep their
    normal matrix there from step to step of the call, built at its first
    and brought up to date for the rows whose weight or target changed
    (:func:`_normal_matrix_kept`); None: each step builds it from all
    active rows.
    """
    cdef Py_ssize_t n = X.n_rows, D = X.n_cols + 1, j
    cdef bint is32 = False
    if floating is float:
        is32 = True
    _check_dtype(X, is32)
    # (shape checks without building Python objects: this runs per call)
    if (cpos.shape[0] != n or cneg.shape[0] != n or o.shape[0] != n
            or obar.shape[0] != n or a.shape[0] != n or t.shape[0] != n
            or z.shape[0] != n or q.shape[0] != n or active.shape[0] != n):
        raise ValueError(f"cpos, cneg, o, obar, a, t, z, q and active need "
                         f"{n} entries (one per row)")
    if (w.shape[0] != D or wbar.shape[0] != D or r.shape[0] != D
            or p.shape[0] != D or s.shape[0] != D or minv.shape[0] != D):
        raise ValueError(f"w, wbar, r, p, s and minv need {D} entries")
    if n < 1:
        raise ValueError("mfn_run needs at least one row")
    if tbuf.shape[0] < 1 or n_threads < 1:
        raise ValueError("tbuf needs an entry and n_threads must be >= 1")
    if direct and (H.shape[0] < D * D or b.shape[0] < D):
        raise ValueError("H and b need (n_cols + 1)^2 and n_cols + 1 entries")
    cdef floating *kp = NULL
    if keep is not None:
        if keep.shape[0] != 4 * D:
            raise ValueError("keep needs 4 (n_cols + 1) entries")
        kp = &keep[0]
    given = given and kp != NULL and one_pass and not direct
    if given and (a_old is None or t_old is None or a_old.shape[0] != n
                  or t_old.shape[0] != n):
        raise ValueError("a_old and t_old need one entry per row")
    # the later iterations carry the sums too (a_old / t_old as work)
    cdef bint can_carry = (kp != NULL and one_pass and a_old is not None
                           and t_old is not None and a_old.shape[0] == n
                           and t_old.shape[0] == n)
    cdef bint kept = False, used = False, carry = False
    cdef int run = n_carried if n_carried > 0 else 0
    cdef unsigned char[::1] ev
    cdef Event *evp = NULL
    if events is not None:
        ev = events
        if ev.shape[0] < 2 * n * sizeof(Event):
            raise ValueError("events buffer too small")
        evp = <Event *> &ev[0]
    # histories of nh iterations (nh + 1 objectives) at most: the first
    # nh - 1 iterations, then hcg[nh - 1] sums the CG iterations of the rest
    # (so that a huge max_iter allocates nothing)
    cdef Py_ssize_t nh = hcg.shape[0]
    if max_iter < 1 or nh < 1 or hobj.shape[0] != nh + 1 or hact.shape[0] != nh:
        raise ValueError("the histories need nh + 1, nh and nh >= 1 entries")
    cdef floating *po = &o[0]
    cdef floating *pb = &obar[0]
    cdef floating *tmp
    cdef floating dl
    cdef bint loose = cold_start, swapped = False
    cdef int it, n_iter = 0, status = 2, cg_status, cg_iter
    cdef Py_ssize_t n_act
    cdef double F, F_new, delta, gn2 = -1, gstop2 = 0.0
    # the last Newton iteration's relative decrease of F (the gradient test
    # waits for one of at most grad_decrease, for one iteration at most)
    cdef double dec = 0.0
    cdef bint waits, waited = False
    # the Cholesky steps' normal matrix, kept from step to step of this call
    # (built at the first, then brought up to date for the changed rows)
    # (the caller's arrays: NumPy owns them)
    cdef double *h0 = NULL
    cdef floating *ap = NULL
    cdef floating *tp = NULL
    cdef int *rw = NULL
    cdef double *bk = NULL
    cdef bint h_valid = False
    if direct and H0 is not None:
        if (H0.shape[0] < D * D or b0 is None or b0.shape[0] < D + 3
                or a_prev is None or t_prev is None or rows is None
                or a_prev.shape[0] != n or t_prev.shape[0] != n
                or rows.shape[0] != n):
            raise ValueError("H0 ((n_cols + 1)^2), b0 (n_cols + 4), a_prev, "
                             "t_prev and rows (one per row) go together")
        h0 = &H0[0]
        bk = &b0[0]
        ap = &a_prev[0]
        tp = &t_prev[0]
        rw = &rows[0]
    with nogil:
        # F = lam/2 ||w||^2 + loss(o)
        F = 0.5 * lam * <double> _dot(<int> D, &w[0], 1, &w[0], 1) \
            + _loss(n, po, &cpos[0], &cneg[0], n_threads)
        hobj[0] = F
        for it in range(1, max_iter + 1):
            if interrupted():
                status = -1
                break
            n_iter = it
            # the setup sums of the last solve, at this w (the given ones, or
            # those the last iteration's step left), unless the run of
            # carried solves is due for a setup pass
            carry = (given if it == 1 else
                     kept and can_carry and not direct) and (
                         carry_max < 0 or run < carry_max)
            kept = False
            if carry:
                # the last solve's weights and targets (a, t still hold them)
                _copy(<int> n, &a[0], 1, &a_old[0], 1)
                _copy(<int> n, &t[0], 1, &t_old[0], 1)
            n_act = _activate(n, po, &cpos[0], &cneg[0], &a[0], &t[0],
                              &active[0], n_threads)
            if carry:
                carry = _start_update(X, <floating> bias_scale, &a[0], &t[0],
                                      &a_old[0], &t_old[0], po, &active[0],
                                      n_act, kp, &z[0], &s[0], &tbuf[0],
                                      tbuf.shape[0], n_threads)
            if it == 1:
                used = carry
            if not direct:
                run = run + 1 if carry else 0
            if it <= nh:
                hact[it - 1] = <int> n_act
            # Newton point, seeded with w
            _copy(<int> D, &w[0], 1, &wbar[0], 1)
            waits = not (grad_decrease < 0 or dec <= grad_decrease or waited)
            cg_status = _newton_point(
                X, <floating> bias_scale, &active[0], n_act, &a[0], &t[0], lam,
                &wbar[0], po, pb, tol, eta, cg_max_iter, direct, &z[0], &q[0],
                &r[0], &p[0], &s[0], &minv[0], &tbuf[0], tbuf.shape[0],
                &H[0] if direct else NULL, &b[0] if direct else NULL,
                n_threads, &cg_iter, one_pass, 0.0 if waits else gstop2,
                &gn2, blocked,
                kp if not direct else NULL, carry, h0,
                bk, ap, tp, rw, &h_valid, prec_mix)
            if it <= nh:
                hcg[it - 1] = cg_iter
            else:
                hcg[nh - 1] += cg_iter
            if cg_status == 4:
                status = -1
                break
            if cg_status == 3:
                # ||grad F(w)|| <= grad_tol ||grad F(w_start)||: w stays
                n_iter = it - 1
                status = 3
                break
            if waits and gstop2 > 0 and 0 <= gn2 <= gstop2:
                # the test passed at this seed: it waited this one iteration
                # (a Cholesky step reports gn2 = -1: no test was made)
                waited = True
            if grad_tol > 0 and gstop2 == 0 and gn2 > 0:
                gstop2 = grad_tol * grad_tol * gn2
            if _same_state(n, po, pb, &cpos[0], &cneg[0], n_threads):
                # finite termination: the active terms are unchanged at wbar
                _copy(<int> D, &wbar[0], 1, &w[0], 1)
                tmp = po
                po = pb
                pb = tmp
                swapped = not swapped
                F_new = 0.5 * lam * <double> _dot(<int> D, &w[0], 1, &w[0], 1) \
                    + _loss(n, po, &cpos[0], &cneg[0], n_threads)
                dec = (F - F_new) / fabs(F_new) if F_new != 0 else 0.0
                F = F_new
                if it <= nh:
                    hobj[it] = F
                # keep's final residual is that of w = wbar
                kept = kp != NULL and not direct
                if cg_status == 1:
                    status = 0
                    break
                # self-consistent point of an inexact solve: solve to tol next
                loose = False
                eta = 0.0
                continue
            if evp == NULL:
                # the break points' buffer, at the first line search only
                with gil:
                    events = np.empty(2 * n * sizeof(Event), dtype=np.uint8)
                    ev = events
                    evp = <Event *> &ev[0]
            delta = _line_search(D, lam, &w[0], &wbar[0], n, po, pb,
                                 &cpos[0], &cneg[0], evp, n_threads)
            # w += delta (wbar - w);  o += delta (obar - o)
            dl = <floating> delta
            for j in range(D):
                w[j] = w[j] + dl * (wbar[j] - w[j])
            if kp != NULL and not direct:
                # the residual at the new w for this solve's weights and
                # targets: r_seed + delta (r_end - r_seed)
                for j in range(D):
                    kp[2 * D + j] = kp[3 * D + j] + dl * (
                        kp[2 * D + j] - kp[3 * D + j])
                kept = True
            F_new = 0.5 * lam * <double> _dot(<int> D, &w[0], 1, &w[0], 1) \
                + _step(n, po, pb, dl, &cpos[0], &cneg[0], po, n_threads)
            if it <= nh:
                hobj[it] = F_new
            dec = (F - F_new) / fabs(F_new) if F_new != 0 else 0.0
            if F - F_new <= rel_tol * fabs(F_new):
                F = F_new
                if direct:
                    # a Cholesky step that (nearly) failed to decrease F:
                    # (lam I + X_J' A X_J) too ill-conditioned for its
                    # factor; the rest of the call takes CGLS steps
                    direct = False
                    continue
                if not loose:
                    status = 1
                    break
                loose = False
                eta = 0.0
                continue
            F = F_new
    if status == -1:
        reraise()  # Ctrl-C: the KeyboardInterrupt a handler raised
    if kp != NULL:
        return n_iter, status, F, swapped, events, kept, used, run
    return n_iter, status, F, swapped, events


# ---------------------------------------------------------------------------
# pieces of one iteration for a driver that reduces over row blocks

def cg_start(RowData X, double bias_scale, const int[::1] active,
             Py_ssize_t n_act, const floating[::1] a, const floating[::1] t,
             const floating[::1] o):
    """This block's ``(X_J' A t, X_J' A (t - o), diag(X_J' A X_J))`` (d+1 each).

    Summed over blocks they are CGLS's right-hand side (for the stopping
    scale), its seeded residual before ``- lam beta`` and the diagonal of its
    preconditioner, as :func:`semisvm._core._cgls.cgls` computes them.
    """
    cdef Py_ssize_t n = X.n_rows, D = X.n_cols + 1, k, i
    cdef bint is32 = False
    if floating is float:
        is32 = True
    _check_dtype(X, is32)
    for arr, name in ((a, "a"), (t, "t"), (o, "o")):
        _check_rows(n, name, arr.shape[0])
    _check_active(active, n_act, n)
    dt = np.float32 if is32 else np.float64
    cdef floating[::1] rhs = np.zeros(D, dtype=dt)
    cdef floating[::1] r0 = np.zeros(D, dtype=dt)
    cdef floating[::1] diag = np.zeros(D, dtype=dt)
    cdef floating[::1] zq = np.zeros(max(n_act, 1), dtype=dt)
    cdef floating[::1] tb = np.zeros(D, dtype=dt)
    with nogil:
        for k in range(n_act):
            i = active[k]
            zq[k] = a[i] * t[i]
        rows_rmatvec_diag(X, <floating> bias_scale, &active[0] if n_act else NULL,
                          n_act, &zq[0], &a[0] if n else NULL, &rhs[0], &diag[0])
        for k in range(n_act):
            i = active[k]
            zq[k] = a[i] * (t[i] - o[i])
        rows_rmatvec(X, <floating> bias_scale, &active[0] if n_act else NULL,
                     n_act, &zq[0], &r0[0], &tb[0], 1)
    return np.asarray(rhs), np.asarray(r0), np.asarray(diag)


def cg_product(RowData X, double bias_scale, const int[::1] active,
               Py_ssize_t n_act, const floating[::1] a,
               const floating[::1] p):
    """This block's ``X_J' A X_J p`` (d+1) and ``q' A q`` with q = X_J p:
    the two data passes of one CG iteration, fused (one round trip)."""
    cdef Py_ssize_t n = X.n_rows, D = X.n_cols + 1, k
    cdef bint is32 = False
    if floating is float:
        is32 = True
    cdef double qaq = 0
    _check_dtype(X, is32)
    _check_rows(n, "a", a.shape[0])
    _check_rows(D, "p", p.shape[0])
    _check_active(active, n_act, n)
    dt = np.float32 if is32 else np.float64
    cdef floating[::1] u = np.zeros(D, dtype=dt)
    cdef floating[::1] q = np.zeros(max(n_act, 1), dtype=dt)
    cdef floating[::1] tb = np.zeros(D, dtype=dt)
    if n_act == 0:
        return np.asarray(u), 0.0
    with nogil:
        # q = X_J p ; q'Aq ; q <- A q ; u = X_J' q
        rows_matvec(X, <floating> bias_scale, &active[0], n_act, &p[0], &q[0], 1)
        for k in range(n_act):
            qaq += a[active[k]] * q[k] * q[k]
            q[k] = a[active[k]] * q[k]
        rows_rmatvec(X, <floating> bias_scale, &active[0], n_act, &q[0], &u[0],
                     &tb[0], 1)
    return np.asarray(u), qaq


def normal_matrix(RowData X, double bias_scale, const int[::1] active,
                  Py_ssize_t n_act, const floating[::1] a,
                  const floating[::1] t, bint generic=False, bint simd=True,
                  const floating[::1] a_prev=None,
                  const floating[::1] t_prev=None):
    """This block's ``(X_J' A X_J, X_J' A t)`` in float64 ((d+1)^2 with only
    the upper triangle filled, and d+1). Test hooks (all give the same
    bits): ``generic``, the one-row-at-a-time loop even on dense rows;
    ``simd=False``, the blocked dense loop without the AVX2 build of its
    kernel. With ``a_prev`` and ``t_prev`` (n each): the listed rows'
    differences, sum_J (a_i - a_prev_i) e_i e_i' and sum_J (a_i t_i -
    a_prev_i t_prev_i) e_i, what a kept matrix adds when (a, t) change."""
    cdef Py_ssize_t n = X.n_rows, D = X.n_cols + 1
    cdef bint is32 = False
    if floating is float:
        is32 = True
    _check_dtype(X, is32)
    _check_rows(n, "a", a.shape[0])
    _check_rows(n, "t", t.shape[0])
    _check_active(active, n_act, n)
    Hm = np.zeros((D, D))
    bv = np.zeros(D)
    cdef double[:, ::1] H = Hm
    cdef double[::1] b = bv
    cdef double[::1] work = np.zeros(2 * NM_BLOCK * D)
    cdef const floating *ap = NULL
    cdef const floating *tp = NULL
    if (a_prev is None) != (t_prev is None):
        raise ValueError("a_prev and t_prev go together")
    if a_prev is not None:
        _check_rows(n, "a_prev", a_prev.shape[0])
        _check_rows(n, "t_prev", t_prev.shape[0])
    if n == 0:
        return Hm, bv
    if a_prev is not None:
        ap = &a_prev[0]
        tp = &t_prev[0]
    with nogil:
        if generic or (not simd and X.indptr == NULL):
            if generic:
                _normal_matrix_generic(X, <floating> bias_scale, &active[0],
                                       n_act, &a[0], &t[0], &H[0, 0], &b[0],
                                       ap, tp)
            else:
                _normal_matrix_dense(X, <floating> bias_scale, &active[0],
                                     n_act, &a[0], &t[0], &H[0, 0], &b[0],
                                     &work[0], False, ap, tp)
        else:
            _normal_matrix(X, <floating> bias_scale, &active[0], n_act, &a[0],
                           &t[0], &H[0, 0], &b[0], ap, tp)
    return Hm, bv


cdef Py_ssize_t _bin(const double *edges, Py_ssize_t K, double x) noexcept nogil:
    """Number of edges <= x (events with edges[k-1] <= delta < edges[k] go to
    bin k)."""
    cdef Py_ssize_t lo = 0, hi = K, mid
    while lo < hi:
        mid = (lo + hi) // 2
        if edges[mid] <= x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def ls_bins(const floating[::1] o, const floating[::1] obar,
            const floating[::1] cpos, const floating[::1] cneg,
            const double[::1] edges):
    """Line-search summary of this block along o -> obar.

    Returns ``(L, R, bin_L, bin_R, count)``: the loss part of the slope at 0
    (L + delta R), and per bin k (``edges`` ascending, K of them; bin k holds
    the break points with edges[k-1] <= delta < edges[k], bin K those above
    the last edge) the summed slope changes and the number of break points.
    """
    cdef Py_ssize_t n = o.shape[0], K = edges.shape[0], j, k, n_ev
    cdef double L = 0, R = 0
    for arr, name in ((obar, "obar"), (cpos, "cpos"), (cneg, "cneg")):
        _check_rows(n, name, arr.shape[0])
    if K < 1:
        raise ValueError("edges must not be empty")
    bl = np.zeros(K + 1)
    br = np.zeros(K + 1)
    cnt = np.zeros(K + 1, dtype=np.int64)
    cdef double[::1] bL = bl, bR = br
    cdef long long[::1] c = cnt
    ev = np.empty(max(2 * n, 1) * sizeof(Event), dtype=np.uint8)
    cdef unsigned char[::1] raw = ev
    cdef Event *events = <Event *> &raw[0]
    if n == 0:
        return 0.0, 0.0, bl, br, cnt
    with nogil:
        n_ev = collect_events(n, &o[0], &obar[0], &cpos[0], &cneg[0], events,
                              &L, &R)
        for j in range(n_ev):
            k = _bin(&edges[0], K, events[j].delta)
            bL[k] += events[j].dL
            bR[k] += events[j].dR
            c[k] += 1
    return L, R, bl, br, cnt


def ls_events(const floating[::1] o, const floating[::1] obar,
              const floating[::1] cpos, const floating[::1] cneg, double lo,
              double hi, Py_ssize_t key_offset):
    """The break points with lo <= delta < hi of this block, as arrays
    ``(delta, dL, dR, key)``; keys are ``key_offset + 2 row + term``."""
    cdef Py_ssize_t n = o.shape[0], j, m = 0, n_ev
    cdef double L = 0, R = 0
    for arr, name in ((obar, "obar"), (cpos, "cpos"), (cneg, "cneg")):
        _check_rows(n, name, arr.shape[0])
    ev = np.empty(max(2 * n, 1) * sizeof(Event), dtype=np.uint8)
    cdef unsigned char[::1] raw = ev
    cdef Event *events = <Event *> &raw[0]
    if n == 0:
        return (np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, np.int64))
    with nogil:
        n_ev = collect_events(n, &o[0], &obar[0], &cpos[0], &cneg[0], events,
                              &L, &R)
        for j in range(n_ev):
            if lo <= events[j].delta < hi:
                events[m] = events[j]
                m += 1
    out = np.frombuffer(ev, dtype=np.dtype([("delta", np.float64),
                                            ("dL", np.float64),
                                            ("dR", np.float64),
                                            ("key", np.intp)]), count=m)
    return (out["delta"].copy(), out["dL"].copy(), out["dR"].copy(),
            out["key"].astype(np.int64) + key_offset)
