# SPDX-License-Identifier: BSD-3-Clause
"""Inner solvers of the TV / Cheeger graph classifiers (Bresson & Zhang 2012).

* ``rof_pd``: the graph ROF problem

      min_g  gamma * sum_e w_e |g_{dst_e} - g_{src_e}|  +  rho/2 ||g - z||^2

  over an edge list (each undirected edge once), by Chambolle & Pock's
  accelerated primal-dual method (2011, Algorithm 2; the problem is
  rho-strongly convex in g, so the O(1/k^2) variant applies). The dual
  variable p (one per edge) is boxed in [-gamma, gamma]; the iteration stops
  on the relative primal-dual gap.  p and g are updated in place, so that
  callers warm-start them across outer iterations.
* ``simplex_project``: Michelot's (1986) finite projection of every row onto
  the probability simplex {x >= 0, sum x = 1}.
* ``smo_qp``: an SMO (Fan, Chen & Lin 2005 working-set selection, LIBSVM's
  clipped pair update) for the box QP with one equality and a linear term

      min_b  1/2 b'Qb + q'b   s.t.  y'b = 0,  0 <= b_i <= C_i,  y_i = +-1.

Each ``def`` entry point checks shapes and dtypes before its ``nogil`` block.
"""

import numpy as np

from libc.math cimport fabs, sqrt, INFINITY
from cython cimport floating
from cython.parallel cimport prange
from libc.stdint cimport int64_t


cdef enum:
    GAP_EVERY = 10          # evaluate the primal-dual gap every GAP_EVERY iterations


cdef enum:
    STATUS_CONVERGED = 0
    STATUS_MAX_ITER = 1


# ---------------------------------------------------------------- graph ROF

cdef double _tv(const int[::1] src, const int[::1] dst, const floating[::1] w,
                const floating[::1] g) noexcept nogil:
    """sum_e w_e |g_dst - g_src|."""
    cdef Py_ssize_t e
    cdef double s = 0
    for e in range(src.shape[0]):
        s += w[e] * fabs(<double> g[dst[e]] - g[src[e]])
    return s


cdef enum:
    # rows per block of the gap's sums (fixed: any thread count, same bits)
    NODE_BLOCK = 1024


cdef enum:
    # columns of the one-thread pass held in local arrays (_pd_step_columns)
    # and of the gap's sums held in local arrays (_gap_block)
    COL_BLOCK = 16


# the gap's sums of <= COL_BLOCK columns in local arrays (_gap_block; False:
# into ``part`` directly, the same bits; for the tests)
cdef bint _GAP_LOCAL = True
# the gap's TV sums of <= COL_BLOCK columns taken over each row's run of
# edges in the edge list (sorted by src, positive weights: _by_src_edges)
# instead of over its incidence list (False: the incidence list, the same
# bits; for the tests)
cdef bint _GAP_EDGES = True


def _rof_gap_by_edges(on=None):
    """Whether the gap's sums of <= 16 columns walk each row's run of edges
    in the edge list (set first where given): for the tests, every setting
    gives the same bits."""
    global _GAP_EDGES
    if on is not None:
        _GAP_EDGES = bool(on)
    return bool(_GAP_EDGES)


cdef bint _by_src_edges(const int[::1] src,
                        const floating[::1] w) noexcept nogil:
    """Whether the edges are sorted by src and every weight is > 0: then the
    src entries of a row's incidence run (those with ``inc_w < 0``, in edge
    order) are exactly its run of edges ``src[e] == i`` in the edge list, in
    the same order, and ``-inc_w`` is ``w_e`` exactly: the gap's TV sums can
    walk the edge list (one entry per edge, no sign test) with the same
    terms added in the same order."""
    cdef Py_ssize_t e, m = src.shape[0]
    for e in range(m):
        if not (w[e] > 0) or (e and src[e] < src[e - 1]):
            return False
    return True


def _gap_walks_edges(const int[::1] src, const floating[::1] w):
    """Whether the gap's sums may walk this edge list (:func:`_by_src_edges`;
    for the tests)."""
    return bool(_by_src_edges(src, w))


cdef inline Py_ssize_t _first_edge_from(const int[::1] src,
                                        Py_ssize_t row) noexcept nogil:
    """The first edge e with ``src[e] >= row`` (src sorted)."""
    cdef Py_ssize_t lo = 0, hi = src.shape[0], mid
    while lo < hi:
        mid = (lo + hi) // 2
        if src[mid] < row:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef void _gap_block(Py_ssize_t b, const int[::1] src, const int[::1] dst,
                     const floating[::1] w, bint by_edges,
                     const int[::1] inc_ptr,
                     const int[::1] inc_edge, const floating[::1] inc_w,
                     const floating[:, ::1] z, const floating[:, ::1] g,
                     const floating[:, ::1] ghat, const floating[:, ::1] div,
                     double[:, ::1] part) noexcept nogil:
    """``_gap_sums`` of the block b of c <= COL_BLOCK columns: each sum in
    a local array (one per quantity, contiguous over the columns: the
    compiler keeps them apart from the rows' stores and vectorises across
    the columns), added to in the same order as into ``part``: the same
    bits. ``by_edges`` (:func:`_by_src_edges`): a row's TV terms from its
    run of edges in the edge list, the same terms in the same order as its
    incidence run's src entries."""
    cdef Py_ssize_t i, j, k, e, o, c = g.shape[1], n = g.shape[0]
    cdef Py_ssize_t m = src.shape[0], f = 0
    cdef double we, d
    cdef double a0[COL_BLOCK]
    cdef double a1[COL_BLOCK]
    cdef double a2[COL_BLOCK]
    cdef double a3[COL_BLOCK]
    cdef double a4[COL_BLOCK]
    cdef double a5[COL_BLOCK]
    cdef const floating *gi
    cdef const floating *go
    cdef const floating *hi
    cdef const floating *ho
    cdef const floating *zi
    cdef const floating *vi
    for k in range(c):
        a0[k] = 0
        a1[k] = 0
        a2[k] = 0
        a3[k] = 0
        a4[k] = 0
        a5[k] = 0
    if by_edges:
        f = _first_edge_from(src, b * NODE_BLOCK)
    for i in range(b * NODE_BLOCK, min(n, (b + 1) * NODE_BLOCK)):
        gi = &g[i, 0]
        hi = &ghat[i, 0]
        if by_edges:
            # (-inc_w of a src entry is w_e itself: the same products)
            while f < m and src[f] == i:
                we = w[f]
                o = dst[f]
                go = &g[o, 0]
                ho = &ghat[o, 0]
                for k in range(c):
                    a0[k] += we * fabs(<double> go[k] - gi[k])
                    a1[k] += we * fabs(<double> ho[k] - hi[k])
                f += 1
        else:
            for j in range(inc_ptr[i], inc_ptr[i + 1]):
                we = inc_w[j]
                if we < 0:          # i is the edge's src: count it once
                    e = inc_edge[j]
                    o = dst[e]
                    go = &g[o, 0]
                    ho = &ghat[o, 0]
                    for k in range(c):
                        a0[k] += -we * fabs(<double> go[k] - gi[k])
                        a1[k] += -we * fabs(<double> ho[k] - hi[k])
        zi = &z[i, 0]
        vi = &div[i, 0]
        for k in range(c):
            d = <double> gi[k] - zi[k]
            a2[k] += d * d
            d = <double> hi[k] - zi[k]
            a3[k] += d * d
            a4[k] += <double> vi[k] * zi[k]
            a5[k] += <double> vi[k] * vi[k]
    for k in range(c):
        part[b, 6 * k] = a0[k]
        part[b, 6 * k + 1] = a1[k]
        part[b, 6 * k + 2] = a2[k]
        part[b, 6 * k + 3] = a3[k]
        part[b, 6 * k + 4] = a4[k]
        part[b, 6 * k + 5] = a5[k]


cdef void _gap_sums(const int[::1] src, const int[::1] dst,
                    const floating[::1] w, bint by_edges,
                    const int[::1] inc_ptr,
                    const int[::1] inc_edge, const floating[::1] inc_w,
                    const floating[:, ::1] z, const floating[:, ::1] g,
                    const floating[:, ::1] ghat, const floating[:, ::1] div,
                    double[:, ::1] part, int n_threads) noexcept nogil:
    """Per block of NODE_BLOCK rows and per column k, into ``part[b, 6k:6k+6]``:
    TV(g), TV(ghat) (each edge counted at its src end), ||g - z||^2,
    ||ghat - z||^2, <div, z>, ||div||^2."""
    cdef Py_ssize_t b, i, j, k, e, o, c = g.shape[1], n = g.shape[0]
    cdef Py_ssize_t n_blk = (n + NODE_BLOCK - 1) // NODE_BLOCK
    cdef double we, d
    if c <= COL_BLOCK and _GAP_LOCAL:
        for b in prange(n_blk, schedule="static", num_threads=n_threads):
            _gap_block(b, src, dst, w, by_edges, inc_ptr, inc_edge, inc_w,
                       z, g, ghat, div, part)
        return
    for b in prange(n_blk, schedule="static", num_threads=n_threads):
        for k in range(6 * c):
            part[b, k] = 0
        for i in range(b * NODE_BLOCK, min(n, (b + 1) * NODE_BLOCK)):
            for j in range(inc_ptr[i], inc_ptr[i + 1]):
                we = inc_w[j]
                if we < 0:          # i is the edge's src: count it once
                    e = inc_edge[j]
                    o = dst[e]
                    for k in range(c):
                        part[b, 6 * k] += -we * fabs(<double> g[o, k] - g[i, k])
                        part[b, 6 * k + 1] += -we * fabs(<double> ghat[o, k]
                                                         - ghat[i, k])
            for k in range(c):
                d = <double> g[i, k] - z[i, k]
                part[b, 6 * k + 2] += d * d
                d = <double> ghat[i, k] - z[i, k]
                part[b, 6 * k + 3] += d * d
                part[b, 6 * k + 4] += <double> div[i, k] * z[i, k]
                part[b, 6 * k + 5] += <double> div[i, k] * div[i, k]


cdef void _pd_step_parallel(const int[::1] src, const int[::1] dst,
                            const floating[::1] w, const int[::1] inc_ptr,
                            const int[::1] inc_edge, const floating[::1] inc_w,
                            const floating[:, ::1] z, double gamma,
                            const double *rho, floating[:, ::1] g,
                            floating[:, ::1] p, floating[:, ::1] gbar,
                            floating[:, ::1] div, const double *tau,
                            const double *sigma, const double *theta,
                            int n_threads) noexcept nogil:
    """One primal-dual step in two passes free of write conflicts."""
    cdef Py_ssize_t i, j, e, k, s, d, n = g.shape[0], m = src.shape[0], c = g.shape[1]
    cdef double t, gold, we
    # p <- clip(p + sigma grad(gbar), -gamma, gamma): each edge reads its two rows
    for e in prange(m, schedule="static", num_threads=n_threads):
        s = src[e]
        d = dst[e]
        we = w[e]
        for k in range(c):
            t = p[e, k] + sigma[k] * we * (<double> gbar[d, k] - gbar[s, k])
            if t > gamma:
                t = gamma
            elif t < -gamma:
                t = -gamma
            p[e, k] = <floating> t
    # div_i = sum over the row's edges (in edge order) of -+w_e p_e; then
    # g+ = (g - tau div + tau rho z) / (1 + tau rho), gbar = g+ + theta (g+ - g)
    for i in prange(n, schedule="static", num_threads=n_threads):
        for k in range(c):
            div[i, k] = 0
        for j in range(inc_ptr[i], inc_ptr[i + 1]):
            e = inc_edge[j]
            we = inc_w[j]
            for k in range(c):
                div[i, k] += <floating> (we * p[e, k])
        for k in range(c):
            gold = g[i, k]
            t = (gold - tau[k] * div[i, k] + tau[k] * rho[k] * z[i, k]) \
                / (1.0 + tau[k] * rho[k])
            g[i, k] = <floating> t
            gbar[i, k] = <floating> (t + theta[k] * (t - gold))


cdef void _pd_step_one_column(const int[::1] src, const int[::1] dst,
                              const floating[::1] w, const floating[:, ::1] z,
                              double gamma, double rho, floating[:, ::1] g,
                              floating[:, ::1] p, floating[:, ::1] gbar,
                              floating[:, ::1] div, double tau, double sigma,
                              double theta) noexcept nogil:
    """One primal-dual step of one column on one thread: the general one-thread
    pass of ``_rof`` with c = 1 (the same operations in the same order, so
    the same bits), through flat pointers and scalars the compiler keeps in
    registers (the column loop and the per-column step arrays are gone)."""
    cdef Py_ssize_t i, e, s, d, n = g.shape[0], m = src.shape[0]
    cdef double t, gold, tr = tau * rho
    cdef floating v
    cdef const int *ps = &src[0]
    cdef const int *pd = &dst[0]
    cdef const floating *pw = &w[0]
    cdef const floating *pz = &z[0, 0]
    cdef floating *pp = &p[0, 0]
    cdef floating *pg = &g[0, 0]
    cdef floating *pb = &gbar[0, 0]
    cdef floating *pv = &div[0, 0]
    for i in range(n):
        pv[i] = 0
    for e in range(m):
        s = ps[e]
        d = pd[e]
        t = pp[e] + sigma * pw[e] * (<double> pb[d] - pb[s])
        if t > gamma:
            t = gamma
        elif t < -gamma:
            t = -gamma
        pp[e] = <floating> t
        v = <floating> (pw[e] * pp[e])
        pv[d] += v
        pv[s] -= v
    for i in range(n):
        gold = pg[i]
        t = (gold - tau * pv[i] + tr * pz[i]) / (1.0 + tr)
        pg[i] = <floating> t
        pb[i] = <floating> (t + theta * (t - gold))


# The one-thread pass of 2-16 columns (``_pd_step_columns``'s operations, in
# its order for each value: the same bits) in C, one function per column
# count (the count a constant: the compiler unrolls the column loops into
# whole vectors; one function with the count read at run time took 10-29 %
# longer a step at 10 columns and 36-148 % at 2, bench/RESULTS.md), with
# the dual update and the divergence's scatter in one loop over an edge's
# columns (its two end rows are distinct: edges with src == dst keep
# ``_pd_step_columns``), the rows of an edge a few edges ahead prefetched
# (on a kNN graph of rows in random order they are far apart), and, on
# x86-64 CPUs with AVX2, a second copy of each compiled for AVX2 (no FMA:
# separate multiplies and adds, as in the SSE2 copy; the same bits), chosen
# at run time. Measured (bench/RESULTS.md): 10 columns, 5,000 rows, ~38k
# edges, ~0.8 -> ~0.6 ms a step on one Zen 3 core.
cdef extern from *:
    """
    #include <stddef.h>
    /* the AVX2 copies: GCC / clang on x86-64 (as _cgls's and _mfn's), the
       CPU asked per solve (SEMISVM_ROF_HAVE_AVX2, as _cgls's
       SEMISVM_HAVE_AVX2) */
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    #  define SEMISVM_ROF_AVX2 1
    #  define SEMISVM_ROF_TARGET __attribute__((target("avx2")))
    #  define SEMISVM_ROF_HAVE_AVX2() __builtin_cpu_supports("avx2")
    #else
    #  define SEMISVM_ROF_AVX2 0
    #  define SEMISVM_ROF_TARGET
    #  define SEMISVM_ROF_HAVE_AVX2() 0
    #endif
    /* edges ahead whose end rows are prefetched */
    #define SEMISVM_ROF_AHEAD 8
    #if defined(__GNUC__)
    #  define SEMISVM_ROF_RESTRICT __restrict__
    /* the end row of edge e + SEMISVM_ROF_AHEAD (its gbar read, its div
       written) */
    #  define SEMISVM_ROF_PREFETCH_ROWS(C)                                     \\
        if (e + SEMISVM_ROF_AHEAD < m) {                                       \\
            ptrdiff_t a = ps_dst[e + SEMISVM_ROF_AHEAD];                       \\
            __builtin_prefetch(pb + a * C, 0);                                 \\
            __builtin_prefetch(pv + a * C, 1);                                 \\
        }
    #elif defined(_MSC_VER)
    #  define SEMISVM_ROF_RESTRICT __restrict
    #  define SEMISVM_ROF_PREFETCH_ROWS(C)
    #else
    #  define SEMISVM_ROF_RESTRICT
    #  define SEMISVM_ROF_PREFETCH_ROWS(C)
    #endif

    /* one primal-dual step of C columns (T: float or double; the steps and
       the edge's terms in double, as _pd_step_columns takes them) */
    #define SEMISVM_ROF_COLS_BODY(T, C)                                        \\
        double sg[C], ta[C], tr[C], th[C];                                     \\
        ptrdiff_t i, e, k;                                                     \\
        for (k = 0; k < C; k++) {                                              \\
            sg[k] = sigma[k]; ta[k] = tau[k];                                  \\
            tr[k] = tau[k] * rho[k]; th[k] = theta[k];                         \\
        }                                                                      \\
        for (i = 0; i < n * C; i++) pv[i] = 0;                                 \\
        for (e = 0; e < m; e++) {                                              \\
            SEMISVM_ROF_PREFETCH_ROWS(C)                                       \\
            ptrdiff_t s = ps_src[e], d = ps_dst[e];                            \\
            double we = pw[e];                                                 \\
            T *SEMISVM_ROF_RESTRICT pe = pp + e * C;                           \\
            const T *SEMISVM_ROF_RESTRICT gd = pb + d * C;                     \\
            const T *SEMISVM_ROF_RESTRICT gs = pb + s * C;                     \\
            T *SEMISVM_ROF_RESTRICT dd = pv + d * C;                           \\
            T *SEMISVM_ROF_RESTRICT ds = pv + s * C;                           \\
            for (k = 0; k < C; k++) {                                          \\
                double t = pe[k] + sg[k] * we * ((double)gd[k] - gs[k]);       \\
                t = t > gamma ? gamma : t;                                     \\
                t = t < -gamma ? -gamma : t;                                   \\
                T pk = (T)t;                                                   \\
                T v = (T)(we * pk);                                            \\
                pe[k] = pk;                                                    \\
                dd[k] += v;                                                    \\
                ds[k] -= v;                                                    \\
            }                                                                  \\
        }                                                                      \\
        for (i = 0; i < n; i++) {                                              \\
            for (k = 0; k < C; k++) {                                          \\
                double gold = pg[i * C + k];                                   \\
                double t = (gold - ta[k] * pv[i * C + k]                       \\
                            + tr[k] * pz[i * C + k]) / (1.0 + tr[k]);          \\
                pg[i * C + k] = (T)t;                                          \\
                pb[i * C + k] = (T)(t + th[k] * (t - gold));                   \\
            }                                                                  \\
        }

    #define SEMISVM_ROF_ARGS(T)                                                \\
        const int *ps_src, const int *ps_dst, const T *pw, const T *pz,        \\
        double gamma, const double *rho, T *pg, T *pp, T *pb, T *pv,           \\
        const double *tau, const double *sigma, const double *theta,           \\
        ptrdiff_t n, ptrdiff_t m
    #define SEMISVM_ROF_PASS                                                   \\
        ps_src, ps_dst, pw, pz, gamma, rho, pg, pp, pb, pv, tau, sigma, theta, n, m

    #define SEMISVM_ROF_DEF(T, NAME, C)                                        \\
        static void NAME##_##C(SEMISVM_ROF_ARGS(T)) {                          \\
            SEMISVM_ROF_COLS_BODY(T, C)                                        \\
        }
    #if SEMISVM_ROF_AVX2
    #define SEMISVM_ROF_DEF_AVX2(T, NAME, C)                                   \\
        SEMISVM_ROF_TARGET static void NAME##_avx2_##C(SEMISVM_ROF_ARGS(T)) {  \\
            SEMISVM_ROF_COLS_BODY(T, C)                                        \\
        }
    #else
    #define SEMISVM_ROF_DEF_AVX2(T, NAME, C)
    #endif
    #define SEMISVM_ROF_DEFS(T, NAME, C)                                       \\
        SEMISVM_ROF_DEF(T, NAME, C) SEMISVM_ROF_DEF_AVX2(T, NAME, C)
    #define SEMISVM_ROF_ALL(T, NAME)                                           \\
        SEMISVM_ROF_DEFS(T, NAME, 2) SEMISVM_ROF_DEFS(T, NAME, 3)              \\
        SEMISVM_ROF_DEFS(T, NAME, 4) SEMISVM_ROF_DEFS(T, NAME, 5)              \\
        SEMISVM_ROF_DEFS(T, NAME, 6) SEMISVM_ROF_DEFS(T, NAME, 7)              \\
        SEMISVM_ROF_DEFS(T, NAME, 8) SEMISVM_ROF_DEFS(T, NAME, 9)              \\
        SEMISVM_ROF_DEFS(T, NAME, 10) SEMISVM_ROF_DEFS(T, NAME, 11)            \\
        SEMISVM_ROF_DEFS(T, NAME, 12) SEMISVM_ROF_DEFS(T, NAME, 13)            \\
        SEMISVM_ROF_DEFS(T, NAME, 14) SEMISVM_ROF_DEFS(T, NAME, 15)            \\
        SEMISVM_ROF_DEFS(T, NAME, 16)
    SEMISVM_ROF_ALL(double, semisvm_rof_cols_d)
    SEMISVM_ROF_ALL(float, semisvm_rof_cols_f)

    #define SEMISVM_ROF_CASE(NAME, C) case C: NAME##_##C(SEMISVM_ROF_PASS); return 1;
    #define SEMISVM_ROF_CASE_AVX2(NAME, C)                                     \\
        case C: NAME##_avx2_##C(SEMISVM_ROF_PASS); return 2;
    #define SEMISVM_ROF_CASES(M, NAME)                                         \\
        M(NAME, 2) M(NAME, 3) M(NAME, 4) M(NAME, 5) M(NAME, 6) M(NAME, 7)      \\
        M(NAME, 8) M(NAME, 9) M(NAME, 10) M(NAME, 11) M(NAME, 12) M(NAME, 13)  \\
        M(NAME, 14) M(NAME, 15) M(NAME, 16)
    #if SEMISVM_ROF_AVX2
    #define SEMISVM_ROF_DISPATCH_AVX2(NAME)                                    \\
        if (avx2) {                                                            \\
            switch (c) { SEMISVM_ROF_CASES(SEMISVM_ROF_CASE_AVX2, NAME) }      \\
        }
    #else
    #define SEMISVM_ROF_DISPATCH_AVX2(NAME) (void)avx2;
    #endif
    /* 1: done by the plain copy, 2: by the AVX2 copy (asked for by avx2,
       only where SEMISVM_ROF_HAVE_AVX2()); 0: no kernel for this c (the
       caller's pass) */
    #define SEMISVM_ROF_DISPATCH(T, NAME)                                      \\
        static int NAME(SEMISVM_ROF_ARGS(T), ptrdiff_t c, int avx2) {          \\
            SEMISVM_ROF_DISPATCH_AVX2(NAME)                                    \\
            switch (c) { SEMISVM_ROF_CASES(SEMISVM_ROF_CASE, NAME) }           \\
            return 0;                                                          \\
        }
    SEMISVM_ROF_DISPATCH(double, semisvm_rof_cols_d)
    SEMISVM_ROF_DISPATCH(float, semisvm_rof_cols_f)

    """
    bint SEMISVM_ROF_HAVE_AVX2() noexcept nogil
    int semisvm_rof_cols_d(const int *ps_src, const int *ps_dst, const double *pw,
                           const double *pz, double gamma, const double *rho,
                           double *pg, double *pp, double *pb, double *pv,
                           const double *tau, const double *sigma,
                           const double *theta, Py_ssize_t n, Py_ssize_t m,
                           Py_ssize_t c, int avx2) noexcept nogil
    int semisvm_rof_cols_f(const int *ps_src, const int *ps_dst, const float *pw,
                           const float *pz, double gamma, const double *rho,
                           float *pg, float *pp, float *pb, float *pv,
                           const double *tau, const double *sigma,
                           const double *theta, Py_ssize_t n, Py_ssize_t m,
                           Py_ssize_t c, int avx2) noexcept nogil


# Switches for the tests (every setting the same bits): the C passes above
# (False: ``_pd_step_columns``) and their AVX2 copies (True: where the CPU
# has AVX2, asked per solve). Module-level flags only for the tests, as
# _cgls's HESSP_KERNEL and FUSE_ONE_THREAD (and _GAP_LOCAL above).
cdef bint _COLS_C = True
cdef bint _COLS_AVX2 = True


cdef inline bint _cols_avx2() noexcept nogil:
    """Whether the C passes take their AVX2 copies (asked per solve)."""
    return _COLS_AVX2 and SEMISVM_ROF_HAVE_AVX2()


def _rof_column_kernels(c_pass=None, avx2=None, gap_local=None):
    """The graph ROF's one-thread pass of 2-16 columns and the gap's sums:
    ``(c_pass, avx2, gap_local)`` in use (the C passes; their AVX2 copies;
    the gap's sums of <= 16 columns in local arrays), each set first where
    given (the AVX2 copies only where the CPU has AVX2). ``avx2`` is read
    back from the dispatch: one step of a two-row problem by the C pass of
    every count 2-16 in both dtypes, True where every one ran its AVX2
    copy, False where every one ran its plain copy, None otherwise (a
    broken dispatch). For the tests: every setting gives the same bits."""
    global _COLS_C, _COLS_AVX2, _GAP_LOCAL
    if c_pass is not None:
        _COLS_C = bool(c_pass)
    if avx2 is not None:
        _COLS_AVX2 = bool(avx2)
    if gap_local is not None:
        _GAP_LOCAL = bool(gap_local)
    # a two-row problem (one edge 0 -> 1) of every count 2-16: its weight,
    # z, g, p, gbar and div (their values do not matter here)
    cdef int[1] src = [0]
    cdef int[1] dst = [1]
    cdef double[6][2 * COL_BLOCK] bd
    cdef float[6][2 * COL_BLOCK] bf
    cdef double[COL_BLOCK] steps
    cdef Py_ssize_t c, i, j
    cdef bint use = _cols_avx2()
    for i in range(6):
        for j in range(2 * COL_BLOCK):
            bd[i][j] = 0.5
            bf[i][j] = 0.5
    for j in range(COL_BLOCK):
        steps[j] = 0.5
    codes = set()
    for c in range(2, COL_BLOCK + 1):
        codes.add(semisvm_rof_cols_d(src, dst, bd[0], bd[1], 1.0, steps, bd[2],
                                     bd[3], bd[4], bd[5], steps, steps, steps,
                                     2, 1, c, use))
        codes.add(semisvm_rof_cols_f(src, dst, bf[0], bf[1], 1.0, steps, bf[2],
                                     bf[3], bf[4], bf[5], steps, steps, steps,
                                     2, 1, c, use))
    copies = {1: False, 2: True}.get(codes.pop()) if len(codes) == 1 else None
    return bool(_COLS_C), copies, bool(_GAP_LOCAL)


cdef bint _no_loops(const int[::1] src, const int[::1] dst) noexcept nogil:
    """Whether no edge has src == dst (the C passes' condition)."""
    cdef Py_ssize_t e
    for e in range(src.shape[0]):
        if src[e] == dst[e]:
            return False
    return True


cdef int _pd_step_columns_c(const int[::1] src, const int[::1] dst,
                            const floating[::1] w, const floating[:, ::1] z,
                            double gamma, const double *rho, floating[:, ::1] g,
                            floating[:, ::1] p, floating[:, ::1] gbar,
                            floating[:, ::1] div, const double *tau,
                            const double *sigma, const double *theta,
                            bint avx2) noexcept nogil:
    """``_pd_step_columns`` by the C pass of its column count (the same
    bits; ``avx2``: its AVX2 copy, only where the CPU has AVX2); 0 where
    there is none (the caller then takes it)."""
    cdef Py_ssize_t n = g.shape[0], m = src.shape[0], c = g.shape[1]
    if floating is double:
        return semisvm_rof_cols_d(&src[0], &dst[0], &w[0], &z[0, 0], gamma, rho,
                                  &g[0, 0], &p[0, 0], &gbar[0, 0], &div[0, 0],
                                  tau, sigma, theta, n, m, c, avx2)
    else:
        return semisvm_rof_cols_f(&src[0], &dst[0], &w[0], &z[0, 0], gamma, rho,
                                  &g[0, 0], &p[0, 0], &gbar[0, 0], &div[0, 0],
                                  tau, sigma, theta, n, m, c, avx2)


cdef void _pd_step_columns(const int[::1] src, const int[::1] dst,
                           const floating[::1] w, const floating[:, ::1] z,
                           double gamma, const double *rho, floating[:, ::1] g,
                           floating[:, ::1] p, floating[:, ::1] gbar,
                           floating[:, ::1] div, const double *tau,
                           const double *sigma, const double *theta) noexcept nogil:
    """One primal-dual step of c <= COL_BLOCK columns on one thread: the
    general one-thread pass of ``_rof`` (the same operations in the same
    order for each column, so the same bits) with the per-column steps and
    the edge's terms in local arrays, which no store through a row pointer
    can touch (the compiler keeps them in registers)."""
    cdef Py_ssize_t i, e, k, s, d, n = g.shape[0], m = src.shape[0], c = g.shape[1]
    cdef double t, gold, we
    cdef double sg[COL_BLOCK]
    cdef double ta[COL_BLOCK]
    cdef double tr[COL_BLOCK]
    cdef double th[COL_BLOCK]
    cdef floating v[COL_BLOCK]
    cdef const int *ps = &src[0]
    cdef const int *pd = &dst[0]
    cdef const floating *pw = &w[0]
    cdef const floating *pz = &z[0, 0]
    cdef floating *pp = &p[0, 0]
    cdef floating *pg = &g[0, 0]
    cdef floating *pb = &gbar[0, 0]
    cdef floating *pv = &div[0, 0]
    cdef floating *pe
    cdef floating *dd
    cdef const floating *gd
    cdef const floating *gs
    for k in range(c):
        sg[k] = sigma[k]
        ta[k] = tau[k]
        tr[k] = tau[k] * rho[k]
        th[k] = theta[k]
    for i in range(n * c):
        pv[i] = 0
    for e in range(m):
        s = ps[e]
        d = pd[e]
        we = pw[e]
        pe = pp + e * c
        gd = pb + d * c
        gs = pb + s * c
        for k in range(c):
            t = pe[k] + sg[k] * we * (<double> gd[k] - gs[k])
            # the clip as two selects (t > gamma: gamma; then t < -gamma:
            # -gamma; NaN kept): the same values as the branches of the
            # other passes, in a form the compiler vectorises across columns
            t = gamma if t > gamma else t
            t = -gamma if t < -gamma else t
            pe[k] = <floating> t
            v[k] = <floating> (we * pe[k])
        dd = pv + d * c
        for k in range(c):
            dd[k] += v[k]
        dd = pv + s * c
        for k in range(c):
            dd[k] -= v[k]
    for i in range(n):
        for k in range(c):
            gold = pg[i * c + k]
            t = (gold - ta[k] * pv[i * c + k] + tr[k] * pz[i * c + k]) / (1.0 + tr[k])
            pg[i * c + k] = <floating> t
            pb[i * c + k] = <floating> (t + th[k] * (t - gold))


cdef int _rof(const int[::1] src, const int[::1] dst, const floating[::1] w,
              const int[::1] inc_ptr, const int[::1] inc_edge,
              const floating[::1] inc_w,
              const floating[:, ::1] z, double gamma, const double *rho,
              double L, double step_ratio, floating[:, ::1] g,
              floating[:, ::1] p, double tol,
              int max_iter, floating[:, ::1] gbar, floating[:, ::1] div,
              floating[:, ::1] ghat, double[:, ::1] part, double *tau,
              double *sigma, double *theta, double *gap, double *primal,
              double *work, floating *tmp, bint accelerate,
              int n_threads, int it0, const int *grp) noexcept nogil:
    """Primal-dual on the graph ROF problem, all c columns at once.

    Accelerated (Chambolle & Pock Algorithm 2) or, ``accelerate`` False,
    constant steps (Algorithm 1, theta = 1).

    Column k has its own fidelity rho_k (and so its own step schedule). With
    one thread an iteration is one pass over the edges (dual update, with
    ``div = grad' p`` scattered to the end rows) and one over the rows
    (primal update). With more, it is two parallel passes free of write
    conflicts (``_pd_step_parallel``): the dual update over the edges, then
    over the rows the divergence gathered from each row's incidence list
    (``inc_ptr``, ``inc_edge``, signed weights ``inc_w``: +w_e at dst, -w_e
    at src) in edge order, the order in which the scatter adds them, with
    the primal update. The gap's sums go per fixed block of rows, added in
    block order: the iterates are the same to the bit whatever
    ``n_threads``.
    Stops when every column's gap is below ``tol`` times its primal value
    (checked every GAP_EVERY iterations). Returns the iterations.
    Steps ``tau = step_ratio / L``, ``sigma = 1 / (step_ratio L)``,
    accelerated with the fidelity rho (Algorithm 2) when ``accelerate``,
    else constant (Algorithm 1, theta = 1).

    ``grp`` (NULL: none): a group per column, each group a run of adjacent
    columns; the solve then also stops at the first gap check where every
    column of some group passes the gap test (the caller takes those
    columns out and resumes the others). ``it0`` > 0: such a resumed
    solve, the iterations so far (the gap checks at the same steps), tau,
    sigma and gbar as the previous call left them.
    """
    cdef Py_ssize_t i, e, k, s, d, b, n = g.shape[0], m = src.shape[0]
    cdef Py_ssize_t c = g.shape[1], n_blk = (n + NODE_BLOCK - 1) // NODE_BLOCK
    cdef Py_ssize_t j
    cdef double t, gold, we, D, acc
    cdef int it = it0, done, whole
    cdef floating *pe
    cdef const floating *gd
    cdef const floating *gs
    cdef floating *dd
    if it0 == 0:
        for k in range(c):
            gap[k] = INFINITY
            primal[k] = 0
            tau[k] = step_ratio / L
            sigma[k] = 1.0 / (step_ratio * L)
        if m == 0 or gamma == 0:
            # no edges (or no TV): the minimiser is z itself
            for i in range(n):
                for k in range(c):
                    g[i, k] = z[i, k]
            for k in range(c):
                gap[k] = 0
            return 0
        for i in range(n):
            for k in range(c):
                gbar[i, k] = g[i, k]
    # (the C passes of 2-16 columns on one thread: no edge from a row to itself)
    cdef bint cols_c = (_COLS_C and n_threads == 1 and 2 <= c <= COL_BLOCK
                        and _no_loops(src, dst))
    cdef bint avx2 = _cols_avx2()
    # (the gap's sums by the edge list's runs: checked once per solve, O(m))
    cdef bint by_edges = (_GAP_EDGES and _GAP_LOCAL and c <= COL_BLOCK
                          and _by_src_edges(src, w))
    while it < max_iter:
        it += 1
        for k in range(c):
            theta[k] = (1.0 / sqrt(1.0 + 2.0 * rho[k] * tau[k]) if accelerate
                        else 1.0)
        if n_threads == 1 and c == 1:
            _pd_step_one_column(src, dst, w, z, gamma, rho[0], g, p, gbar, div,
                                tau[0], sigma[0], theta[0])
        elif n_threads == 1 and c <= COL_BLOCK:
            if not (cols_c and _pd_step_columns_c(src, dst, w, z, gamma, rho, g,
                                                  p, gbar, div, tau, sigma,
                                                  theta, avx2)):
                _pd_step_columns(src, dst, w, z, gamma, rho, g, p, gbar, div,
                                 tau, sigma, theta)
        elif n_threads == 1:
            # one thread: the dual update scatters div = grad' p in the same
            # pass (the same sums, in the same order, as the gather below)
            for i in range(n):
                for k in range(c):
                    div[i, k] = 0
            for e in range(m):
                s = src[e]
                d = dst[e]
                we = w[e]
                # through row pointers and a buffer of the edge's terms: the
                # compiler then sees no aliasing between the rows (the same
                # operations in the same order: the same bits)
                pe = &p[e, 0]
                gd = &gbar[d, 0]
                gs = &gbar[s, 0]
                for k in range(c):
                    t = pe[k] + sigma[k] * we * (<double> gd[k] - gs[k])
                    if t > gamma:
                        t = gamma
                    elif t < -gamma:
                        t = -gamma
                    pe[k] = <floating> t
                    tmp[k] = <floating> (we * pe[k])
                dd = &div[d, 0]
                for k in range(c):
                    dd[k] += tmp[k]
                dd = &div[s, 0]
                for k in range(c):
                    dd[k] -= tmp[k]
            for i in range(n):
                for k in range(c):
                    gold = g[i, k]
                    t = (gold - tau[k] * div[i, k] + tau[k] * rho[k] * z[i, k]) \
                        / (1.0 + tau[k] * rho[k])
                    g[i, k] = <floating> t
                    gbar[i, k] = <floating> (t + theta[k] * (t - gold))
        else:
            _pd_step_parallel(src, dst, w, inc_ptr, inc_edge, inc_w, z, gamma,
                              rho, g, p, gbar, div, tau, sigma, theta, n_threads)
        for k in range(c):
            tau[k] = theta[k] * tau[k]
            sigma[k] = sigma[k] / theta[k]
        if it % GAP_EVERY == 0 or it == max_iter:
            # dual D(p) = <grad'p, z> - ||grad'p||^2 / (2 rho), its primal
            # point ghat = z - grad'p / rho
            for i in prange(n, schedule="static", num_threads=n_threads):
                for k in range(c):
                    ghat[i, k] = <floating> (z[i, k] - div[i, k] / rho[k])
            _gap_sums(src, dst, w, by_edges, inc_ptr, inc_edge, inc_w, z, g,
                      ghat, div, part, n_threads)
            done = 1
            for k in range(c):
                # primal[k]: P(g); gap[k]: P(ghat); work[k]: <div, z>; then ||div||^2
                primal[k] = 0
                gap[k] = 0
                work[k] = 0
                acc = 0
                for b in range(n_blk):
                    primal[k] += (gamma * part[b, 6 * k]
                                  + 0.5 * rho[k] * part[b, 6 * k + 2])
                    gap[k] += (gamma * part[b, 6 * k + 1]
                               + 0.5 * rho[k] * part[b, 6 * k + 3])
                    work[k] += part[b, 6 * k + 4]
                    acc += part[b, 6 * k + 5]
                D = work[k] - 0.5 * acc / rho[k]
                if gap[k] < primal[k]:
                    # the dual's primal point is better: keep it
                    primal[k] = gap[k]
                    work[k] = 1
                else:
                    work[k] = 0
                gap[k] = primal[k] - D
                if not (gap[k] <= tol * fabs(primal[k]) or gap[k] <= 1e-300):
                    done = 0
            for i in prange(n, schedule="static", num_threads=n_threads):
                for k in range(c):
                    if work[k] != 0:
                        g[i, k] = ghat[i, k]
                        gbar[i, k] = ghat[i, k]
            if done:
                break
            if grp != NULL:
                # a group whose every column passed: stop (the caller's turn)
                k = 0
                while k < c and not done:
                    whole = 1
                    j = k
                    while j < c and grp[j] == grp[k]:
                        if not (gap[j] <= tol * fabs(primal[j]) or gap[j] <= 1e-300):
                            whole = 0
                        j += 1
                    done = whole
                    k = j
                if done:
                    break
    return it


cdef void _incidence_fill(const int[::1] src, const int[::1] dst,
                          const floating[::1] w, long long[::1] cursor,
                          int[::1] inc_edge, floating[::1] inc_w) noexcept:
    """Each edge's two entries into their rows' runs, in edge order (the
    src entry before the dst entry): a counting sort by row."""
    cdef Py_ssize_t e
    cdef long long q
    with nogil:
        for e in range(src.shape[0]):
            q = cursor[src[e]]
            cursor[src[e]] = q + 1
            inc_edge[q] = <int> e
            inc_w[q] = -w[e]
            q = cursor[dst[e]]
            cursor[dst[e]] = q + 1
            inc_edge[q] = <int> e
            inc_w[q] = w[e]


def edge_incidence(src, dst, w, Py_ssize_t n):
    """Each row's incident edges for :func:`rof_pd_multi`'s gather.

    Returns ``(inc_ptr, inc_edge, inc_w)``: the edges of row i are
    ``inc_edge[inc_ptr[i]:inc_ptr[i + 1]]`` in edge order (the order in
    which the one-thread pass adds them up), with the signed weights
    ``inc_w`` (-w_e at the src, +w_e at the dst) of ``div = grad' p``.
    The runs are the stable sort of the entries ``[src; dst]`` by (row,
    edge) (``np.lexsort``'s order), built by a counting sort in O(m + n).
    """
    src = np.ascontiguousarray(src, dtype=np.int32)
    dst = np.ascontiguousarray(dst, dtype=np.int32)
    w = np.ascontiguousarray(w)
    m = src.shape[0]
    if dst.shape[0] != m or w.shape[0] != m:
        raise ValueError("src, dst and w must have the same length")
    if m and (min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= n):
        raise ValueError("the edges' ends must lie in [0, n)")
    nodes = np.concatenate([src, dst])
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(nodes, minlength=n), out=ptr[1:])
    if ptr[n] > np.iinfo(np.int32).max:
        raise ValueError("the graph has too many edges (more than 2^30)")
    if w.dtype != np.float32 and w.dtype != np.float64:
        # other weight types: the (row, edge) sort itself
        edges = np.concatenate([np.arange(m, dtype=np.int32)] * 2)
        order = np.lexsort((edges, nodes))
        inc_w = np.concatenate([-w, w])
        return (ptr.astype(np.int32), np.ascontiguousarray(edges[order]),
                np.ascontiguousarray(inc_w[order]))
    inc_edge = np.empty(2 * m, dtype=np.int32)
    inc_w = np.empty(2 * m, dtype=w.dtype)
    cursor = ptr[:-1].astype(np.longlong)
    if w.dtype == np.float32:
        _incidence_fill[float](src, dst, w, cursor, inc_edge, inc_w)
    else:
        _incidence_fill[double](src, dst, w, cursor, inc_edge, inc_w)
    return ptr.astype(np.int32), inc_edge, inc_w


def lex_order(lo, hi, Py_ssize_t n):
    """``np.lexsort((hi, lo))`` for ends in [0, n): the stable order by lo,
    then hi, then position, by two stable counting sorts (O(m + n))."""
    cdef const int[::1] a = np.ascontiguousarray(lo, dtype=np.int32)
    cdef const int[::1] b = np.ascontiguousarray(hi, dtype=np.int32)
    cdef Py_ssize_t m = a.shape[0], i
    if b.shape[0] != m:
        raise ValueError("lo and hi must have the same length")
    order = np.empty(m, dtype=np.intp)
    if m == 0:
        return order
    if min(np.min(a), np.min(b)) < 0 or max(np.max(a), np.max(b)) >= n:
        raise ValueError("the keys must lie in [0, n)")
    tmp = np.empty(m, dtype=np.intp)
    cnt = np.zeros(n + 1, dtype=np.intp)
    cdef Py_ssize_t[::1] o = order, t = tmp, c = cnt
    with nogil:
        # by hi (stable), then by lo (stable): positions of equal (lo, hi)
        # keep their order, as in np.lexsort
        for i in range(m):
            c[b[i] + 1] += 1
        for i in range(n):
            c[i + 1] += c[i]
        for i in range(m):
            t[c[b[i]]] = i
            c[b[i]] += 1
        for i in range(n + 1):
            c[i] = 0
        for i in range(m):
            c[a[i] + 1] += 1
        for i in range(n):
            c[i + 1] += c[i]
        for i in range(m):
            o[c[a[t[i]]]] = t[i]
            c[a[t[i]]] += 1
    return order


def sym_csr(src, dst, Py_ssize_t n):
    """The CSR pattern of the symmetric graph with edges (src, dst), when
    they are listed once each with src < dst and sorted by (src, dst) (as
    ``_edges`` lists them); None otherwise.

    Returns ``(indptr, indices, pos)``: each row's columns in increasing
    order (those of a COO -> CSR conversion of the entries ``[src; dst]``
    in rows ``[src; dst]`` and columns ``[dst; src]`` with its indices
    sorted), and ``pos[k]`` the position of entry k (int64, 2m). Row i
    lists the edges (j, i) in edge order (j < i increasing), then the
    edges (i, j) in edge order (j > i increasing).
    """
    cdef const int[::1] s = np.ascontiguousarray(src, dtype=np.int32)
    cdef const int[::1] d = np.ascontiguousarray(dst, dtype=np.int32)
    cdef Py_ssize_t m = s.shape[0], e
    cdef long long q
    if d.shape[0] != m:
        raise ValueError("src and dst must have the same length")
    if not _listed_once_sorted(s, d, n):
        return None
    itype = np.int32 if max(2 * m, n) < np.iinfo(np.int32).max else np.int64
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(s, minlength=n) + np.bincount(d, minlength=n),
              out=ptr[1:])
    cur = ptr[:-1].astype(np.longlong)
    indices = np.empty(2 * m, dtype=np.int32)
    pos = np.empty(2 * m, dtype=np.int64)
    cdef long long[::1] cu = cur
    cdef int[::1] ix = indices
    cdef int64_t[::1] ps = pos
    with nogil:
        for e in range(m):
            q = cu[d[e]]
            cu[d[e]] = q + 1
            ix[q] = s[e]
            ps[m + e] = q
        for e in range(m):
            q = cu[s[e]]
            cu[s[e]] = q + 1
            ix[q] = d[e]
            ps[e] = q
    return ptr.astype(itype), indices.astype(itype, copy=False), pos


cdef bint _listed_once_sorted(const int[::1] s, const int[::1] d, Py_ssize_t n):
    """Every edge once, s < d, sorted by (s, d), the ends in [0, n)."""
    cdef Py_ssize_t m = s.shape[0], e
    cdef bint ok = 1
    if m and (np.min(s) < 0 or np.max(d) >= n):
        return 0
    with nogil:
        for e in range(m):
            if s[e] >= d[e] or (e > 0 and (s[e] < s[e - 1] or (
                    s[e] == s[e - 1] and d[e] <= d[e - 1]))):
                ok = 0
                break
    return ok


def laplacian_csr(src, dst, w2, Py_ssize_t n):
    """The graph Laplacian with weights w2 (float64) when the edges are
    listed as ``_edges`` lists them (once, src < dst, sorted by (src,
    dst)); None otherwise.

    Returns ``(indptr, indices, data, deg2)``: the arrays of
    ``coo_matrix(([-w2; -w2], ([src; dst], [dst; src]))).tocsr() +
    sp.diags(deg2)`` (indices sorted, no zero entry: the sum keeps none)
    and ``deg2``, each row's sum of w2 in the order of ``np.bincount([src;
    dst], weights=[w2; w2])``, in O(m + n).
    """
    cdef const int[::1] s = np.ascontiguousarray(src, dtype=np.int32)
    cdef const int[::1] d = np.ascontiguousarray(dst, dtype=np.int32)
    cdef const double[::1] v = np.ascontiguousarray(w2, dtype=np.float64)
    cdef Py_ssize_t m = s.shape[0], e, i
    cdef long long q
    if d.shape[0] != m or v.shape[0] != m:
        raise ValueError("src, dst and w2 must have the same length")
    if not _listed_once_sorted(s, d, n):
        return None
    deg = np.zeros(n)
    ptr = np.zeros(n + 1, dtype=np.int64)
    cdef double[::1] dg = deg
    cdef int64_t[::1] pt = ptr
    with nogil:
        for e in range(m):
            dg[s[e]] += v[e]
        for e in range(m):
            dg[d[e]] += v[e]
        for e in range(m):
            if v[e] != 0:
                pt[s[e] + 1] += 1
                pt[d[e] + 1] += 1
        for i in range(n):
            pt[i + 1] += pt[i] + (dg[i] != 0)
    nnz = int(ptr[n])
    itype = np.int32 if max(nnz, n) < np.iinfo(np.int32).max else np.int64
    cur = ptr[:-1].copy()
    indices = np.empty(nnz, dtype=np.int32)
    data = np.empty(nnz)
    cdef int64_t[::1] cu = cur
    cdef int[::1] ix = indices
    cdef double[::1] dt = data
    with nogil:
        # row i: the edges (j, i) in edge order (j < i increasing), its
        # diagonal, the edges (i, j) in edge order (j > i increasing)
        for e in range(m):
            if v[e] != 0:
                q = cu[d[e]]
                cu[d[e]] = q + 1
                ix[q] = s[e]
                dt[q] = -v[e]
        for i in range(n):
            if dg[i] != 0:
                q = cu[i]
                cu[i] = q + 1
                ix[q] = <int> i
                dt[q] = dg[i]
        for e in range(m):
            if v[e] != 0:
                q = cu[s[e]]
                cu[s[e]] = q + 1
                ix[q] = d[e]
                dt[q] = -v[e]
    return ptr.astype(itype), indices.astype(itype, copy=False), data, deg


cdef Py_ssize_t _upper_fill(const long long[::1] ptr, const int[::1] ind,
                            const floating[::1] val, const long long[::1] tptr,
                            long long[::1] tcur, int[::1] tind, floating[::1] tval,
                            int[::1] src, int[::1] dst,
                            floating[::1] w) noexcept:
    cdef Py_ssize_t n = ptr.shape[0] - 1, i, j, p, q, pe, qe, m = 0
    cdef floating v
    with nogil:
        # the strictly lower entries (j, i), i < j, as row i of the transpose
        # (rows j in increasing order: each row's columns come sorted)
        for j in range(n):
            for p in range(ptr[j], ptr[j + 1]):
                i = ind[p]
                if i < j:
                    q = tcur[i]
                    tcur[i] = q + 1
                    tind[q] = <int> j
                    tval[q] = val[p]
        # row i of W's strict upper part merged with row i of the transpose:
        # w_ij + w_ji (W's value first, as W + W.T adds them)
        for i in range(n):
            p = ptr[i]
            pe = ptr[i + 1]
            while p < pe and ind[p] <= i:
                p += 1
            q = tptr[i]
            qe = tptr[i + 1]
            while p < pe or q < qe:
                if q == qe or (p < pe and ind[p] < tind[q]):
                    j = ind[p]
                    v = val[p]
                    p += 1
                elif p == pe or tind[q] < ind[p]:
                    j = tind[q]
                    v = tval[q]
                    q += 1
                else:
                    j = ind[p]
                    v = val[p] + tval[q]
                    p += 1
                    q += 1
                if v > 0:
                    src[m] = <int> i
                    dst[m] = <int> j
                    w[m] = v
                    m += 1
    return m


cdef bint _canonical(const long long[::1] ptr, const int[::1] ind, Py_ssize_t n):
    """Each row's columns strictly increasing and in [0, n) (the arrays
    themselves, whatever W's format flags say)."""
    cdef Py_ssize_t i, p
    cdef bint ok = 1
    if ptr.shape[0] != n + 1 or ptr[0] != 0 or ptr[n] > ind.shape[0]:
        return 0
    with nogil:
        for i in range(n):
            if ptr[i + 1] < ptr[i]:
                ok = 0
                break
            for p in range(ptr[i], ptr[i + 1]):
                if ind[p] < 0 or ind[p] >= n or (p > ptr[i] and ind[p] <= ind[p - 1]):
                    ok = 0
                    break
            if not ok:
                break
    return ok


def upper_edges(W):
    """The edges i < j of ``W + W.T`` with a positive weight w_ij + w_ji,
    sorted by (i, j), for a square CSR matrix W whose arrays are canonical
    (sorted indices, no duplicates; checked) with float32 / float64 values: the entries
    that ``sp.triu(W + W.T, k=1)`` lists, in its order, in O(nnz + n).

    Returns ``(src, dst, w)`` (int32, int32, W's dtype); None for any
    other W.
    """
    import scipy.sparse as sp
    if (not sp.issparse(W) or W.format != "csr" or W.shape[0] != W.shape[1]
            or W.dtype not in (np.float32, np.float64)
            or W.shape[0] >= np.iinfo(np.int32).max):
        return None
    cdef Py_ssize_t n = W.shape[0], m
    ptr = np.ascontiguousarray(W.indptr, dtype=np.longlong)
    ind = np.ascontiguousarray(W.indices, dtype=np.int32)
    val = np.ascontiguousarray(W.data)
    if not _canonical(ptr, ind, n) or val.shape[0] < ptr[n]:
        return None
    rows = np.repeat(np.arange(n, dtype=np.int32), np.diff(ptr))
    lower = ind < rows
    tcnt = np.bincount(ind[lower], minlength=n)
    del rows
    tptr = np.zeros(n + 1, dtype=np.longlong)
    np.cumsum(tcnt, out=tptr[1:])
    nt = int(tptr[n])
    tcur = tptr[:-1].copy()
    tind = np.empty(nt, dtype=np.int32)
    tval = np.empty(nt, dtype=val.dtype)
    size = int(ptr[n])
    src = np.empty(size, dtype=np.int32)
    dst = np.empty(size, dtype=np.int32)
    w = np.empty(size, dtype=val.dtype)
    del lower
    if val.dtype == np.float32:
        m = _upper_fill[float](ptr, ind, val, tptr, tcur, tind, tval, src, dst, w)
    else:
        m = _upper_fill[double](ptr, ind, val, tptr, tcur, tind, tval, src, dst, w)
    return src[:m].copy(), dst[:m].copy(), w[:m].copy()


def _edge_L(src_np, dst_np, w, Py_ssize_t n):
    """``sqrt(2 max_i sum_{e ~ i} w_e^2) >= ||grad||``."""
    deg2 = np.zeros(n)
    w2 = np.asarray(w, dtype=np.float64) ** 2
    np.add.at(deg2, src_np, w2)
    np.add.at(deg2, dst_np, w2)
    return sqrt(max(2.0 * deg2.max(initial=0.0), 1e-300))


def rof_pd_multi(const int[::1] src, const int[::1] dst, const floating[::1] w,
                 const floating[:, ::1] Z, double gamma, rho,
                 floating[:, ::1] G, floating[:, ::1] P, *, double tol=1e-4,
                 int max_iter=1000, double L=-1.0, double step_ratio=1.0,
                 incidence=None, int n_threads=1, bint accelerate=True,
                 groups=None):
    """Solve the graph ROF problem for every column of Z at once.

    ``min_{g_k} gamma sum_e w_e |g_k[dst_e] - g_k[src_e]| + rho_k/2 ||g_k - z_k||^2``
    for the columns k of ``Z`` (n, c), with one dual column per class in
    ``P`` (n_edges, c) and the solutions written into ``G`` (n, c) (both
    warm starts, overwritten). ``rho``: a float or one value per column.
    Initial steps ``tau = step_ratio / L``, ``sigma = 1 / (step_ratio L)``,
    accelerated with rho (Chambolle & Pock 2011, Algorithm 2), or constant
    with ``accelerate=False`` (their Algorithm 1, theta = 1; these strongly
    convex problems with a boxed dual then still converge linearly).
    Stops when the gap of every column is below ``tol`` times its primal
    value (checked every 10 iterations). ``incidence``: the rows' edge
    lists of :func:`edge_incidence` (built here when None; pass them to
    reuse them across calls). ``n_threads``: OpenMP threads of the passes
    over the edges and the rows (the result does not depend on it).
    ``groups``: an int per column, each group a run of adjacent columns
    (e.g. ``[0, 1]``: two one-column problems; ``[0, 0, 1]``): each group
    stops on its own, at the step where it would stop solved alone (every
    column of the group below the tolerance, or ``max_iter``), its columns
    then left as they are while the others step on: each group's iterates,
    duals, step count and status are those of a solve of its columns
    alone, to the bit (several problems on one graph stepped together: one
    pass over the edges per step for all of them).

    Returns
    -------
    n_iter : int (``groups``: ndarray of shape (c,), each column's)
    gap, primal : ndarray of shape (c,)
        Final absolute primal-dual gaps and primal objectives.
    status : int (``groups``: ndarray of shape (c,), each column's)
        0 converged, 1 max_iter reached.
    """
    cdef Py_ssize_t n = Z.shape[0], c = Z.shape[1], m = src.shape[0], e
    if dst.shape[0] != m or w.shape[0] != m or P.shape[0] != m:
        raise ValueError("src, dst, w and p must have the same length")
    if G.shape[0] != n or G.shape[1] != c:
        raise ValueError(f"g must have shape ({n}, {c}), got "
                         f"({G.shape[0]}, {G.shape[1]})")
    if P.shape[1] != c:
        raise ValueError(f"p must have {c} columns, got {P.shape[1]}")
    rho_np = np.array(np.broadcast_to(np.asarray(rho, dtype=np.float64), (c,)),
                      dtype=np.float64, order="C")
    if not np.all(rho_np > 0):
        raise ValueError(f"rho must be > 0, got {rho!r}")
    if not (gamma >= 0):
        raise ValueError(f"gamma must be >= 0, got {gamma!r}")
    if not (step_ratio > 0):
        raise ValueError(f"step_ratio must be > 0, got {step_ratio!r}")
    src_np = np.asarray(src)
    dst_np = np.asarray(dst)
    if m and (min(src_np.min(), dst_np.min()) < 0
              or max(src_np.max(), dst_np.max()) >= n):
        raise ValueError("edge end points out of range")
    if floating is float:
        dtype = np.float32
    else:
        dtype = np.float64
    if L <= 0:
        L = _edge_L(src_np, dst_np, w, n)
    cdef floating[:, ::1] gbar = np.empty((n, c), dtype=dtype)
    cdef floating[:, ::1] div
    cdef floating[:, ::1] ghat
    cdef double[::1] rho_v = rho_np
    cdef double[:, ::1] buf
    cdef floating[::1] tmp
    cdef double[:, ::1] part
    if incidence is None:
        incidence = edge_incidence(src_np, dst_np, np.asarray(w), n)
    inc_ptr_np, inc_edge_np, inc_w_np = incidence
    if (inc_ptr_np.shape != (n + 1,) or inc_edge_np.shape != (2 * m,)
            or inc_w_np.shape != (2 * m,) or inc_w_np.dtype != dtype
            or inc_ptr_np.dtype != np.int32 or inc_edge_np.dtype != np.int32):
        raise ValueError("incidence does not match the edge list (shapes, "
                         "int32 row pointers and edges, weights of the "
                         "solver's dtype: as edge_incidence returns them)")
    cdef const int[::1] inc_ptr = inc_ptr_np
    cdef const int[::1] inc_edge = inc_edge_np
    cdef const floating[::1] inc_w = inc_w_np
    if n_threads < 1:
        raise ValueError(f"n_threads must be >= 1, got {n_threads}")
    grp_np = None
    if groups is not None:
        grp_np = np.ascontiguousarray(groups, dtype=np.intc)
        if grp_np.shape != (c,):
            raise ValueError(f"groups must have one entry per column ({c}), got "
                             f"shape {grp_np.shape}")
        if c and np.unique(grp_np).size != np.count_nonzero(
                np.r_[True, grp_np[1:] != grp_np[:-1]]):
            raise ValueError("each group's columns must be adjacent")
    if c == 0:
        # no columns: nothing to solve (the passes index column 0)
        if grp_np is not None:
            return (np.zeros(0, dtype=np.intp), np.zeros(0), np.zeros(0),
                    np.zeros(0, dtype=np.intp))
        return 0, np.zeros(0), np.zeros(0), STATUS_CONVERGED
    cdef int it
    # the dual box may have shrunk since the warm start: clip P to it (as
    # two selects over the flat array, the values of the branches
    # ``P > gamma: gamma; elif P < -gamma: -gamma``, NaN kept)
    cdef floating *pp = &P[0, 0] if m * c else NULL
    cdef floating hi = <floating> gamma, lo = <floating> -gamma, v
    with nogil:
        for e in range(m * c):
            v = pp[e]
            v = hi if v > gamma else v
            pp[e] = lo if v < -gamma else v
    if grp_np is not None:
        return _rof_groups(src, dst, w, inc_ptr, inc_edge, inc_w, Z, gamma,
                           rho_np, L, step_ratio, G, P, tol, max_iter, gbar,
                           accelerate, n_threads, grp_np)
    # (allocated here: _rof_groups allocates its own, per live column set)
    div = np.empty((n, c), dtype=dtype)
    ghat = np.empty((n, c), dtype=dtype)
    buf = np.zeros((6, c))
    tmp = np.zeros(max(c, 1), dtype=dtype)
    part = np.zeros(((n + NODE_BLOCK - 1) // NODE_BLOCK, 6 * c))
    with nogil:
        it = _rof(src, dst, w, inc_ptr, inc_edge, inc_w, Z, gamma, &rho_v[0],
                  L, step_ratio, G, P, tol, max_iter, gbar, div, ghat, part,
                  &buf[0, 0], &buf[1, 0], &buf[2, 0], &buf[3, 0], &buf[4, 0],
                  &buf[5, 0], &tmp[0], accelerate, n_threads, 0, NULL)
    gap = np.asarray(buf[3]).copy()
    primal = np.asarray(buf[4]).copy()
    ok = (gap <= tol * np.abs(primal)) | (gap <= 1e-300)
    status = STATUS_CONVERGED if (it < max_iter or np.all(ok)) else STATUS_MAX_ITER
    return it, gap, primal, status


# (a cdef holding the GIL, not a ``noexcept nogil`` helper: it only
# orchestrates, between its ``_rof`` calls, each one ``with nogil:`` block
# for the whole iteration as in a def entry point; it runs once per group
# stop, at most c times, allocating and compacting the live columns' NumPy
# arrays, as an outer loop may stay in Python (STYLE.md 6). A cdef, not a
# def: reached only through rof_pd_multi's checks, its fused memoryviews
# passed through as they are)
cdef object _rof_groups(const int[::1] src, const int[::1] dst,
                        const floating[::1] w, const int[::1] inc_ptr,
                        const int[::1] inc_edge, const floating[::1] inc_w,
                        const floating[:, ::1] Z, double gamma, rho_np,
                        double L, double step_ratio, floating[:, ::1] G,
                        floating[:, ::1] P, double tol, int max_iter,
                        floating[:, ::1] gbar, bint accelerate,
                        int n_threads, grp_np):
    """:func:`rof_pd_multi` with ``groups`` (validated there): ``_rof``
    until some group stops, that group's columns taken out (written to G
    and P where the live columns are a copy), the others compacted into
    fresh arrays (their iterates, duals, gbar, steps) and resumed at the
    same step count, until every group has stopped."""
    cdef Py_ssize_t n = Z.shape[0], c = Z.shape[1]
    dtype = np.float32 if floating is float else np.float64
    n_iter = np.zeros(c, dtype=np.intp)
    status = np.zeros(c, dtype=np.intp)
    gap_out = np.zeros(c)
    primal_out = np.zeros(c)
    live = np.arange(c)
    grp_l = grp_np
    rho_l = rho_np
    cdef const floating[:, ::1] z = Z
    cdef floating[:, ::1] g = G
    cdef floating[:, ::1] p = P
    cdef floating[:, ::1] gb = gbar
    cdef floating[:, ::1] div
    cdef floating[:, ::1] ghat
    cdef double[:, ::1] part
    cdef double[:, ::1] buf = np.zeros((6, c))
    cdef floating[::1] tmp
    cdef double[::1] rho_v
    cdef int[::1] grp_v
    cdef int it = 0
    cdef Py_ssize_t cl = c
    while True:
        div = np.empty((n, cl), dtype=dtype)
        ghat = np.empty((n, cl), dtype=dtype)
        part = np.zeros(((n + NODE_BLOCK - 1) // NODE_BLOCK, 6 * cl))
        tmp = np.zeros(cl, dtype=dtype)
        rho_v = rho_l
        grp_v = grp_l
        with nogil:
            it = _rof(src, dst, w, inc_ptr, inc_edge, inc_w, z, gamma, &rho_v[0],
                      L, step_ratio, g, p, tol, max_iter, gb, div, ghat, part,
                      &buf[0, 0], &buf[1, 0], &buf[2, 0], &buf[3, 0],
                      &buf[4, 0], &buf[5, 0], &tmp[0], accelerate, n_threads,
                      it, &grp_v[0])
        gap = np.asarray(buf[3])
        primal = np.asarray(buf[4])
        ok = (gap <= tol * np.abs(primal)) | (gap <= 1e-300)
        # each group's verdict (all its columns), then per column
        starts = np.flatnonzero(np.r_[True, grp_l[1:] != grp_l[:-1]])
        whole = np.logical_and.reduceat(ok, starts)
        size = np.diff(np.r_[starts, cl])
        whole_col = np.repeat(whole, size)
        stop = (np.ones(cl, dtype=bool) if it >= max_iter or it == 0
                else whole_col)
        rows = live[stop]
        n_iter[rows] = it
        gap_out[rows] = gap[stop]
        primal_out[rows] = primal[stop]
        status[rows] = np.where((it < max_iter) | whole_col[stop],
                                STATUS_CONVERGED, STATUS_MAX_ITER)
        if live.size < c:
            # (before the first compaction the live columns are G and P)
            np.asarray(G)[:, rows] = np.asarray(g)[:, stop]
            np.asarray(P)[:, rows] = np.asarray(p)[:, stop]
        if np.all(stop):
            break
        keep = ~stop
        live = live[keep]
        cl = live.size
        grp_l = np.ascontiguousarray(grp_l[keep])
        rho_l = np.ascontiguousarray(rho_l[keep])
        z = np.ascontiguousarray(np.asarray(z)[:, keep])
        g = np.ascontiguousarray(np.asarray(g)[:, keep])
        p = np.ascontiguousarray(np.asarray(p)[:, keep])
        gb = np.ascontiguousarray(np.asarray(gb)[:, keep])
        buf = np.ascontiguousarray(np.asarray(buf)[:, keep])
    return n_iter, gap_out, primal_out, status


def rof_pd(const int[::1] src, const int[::1] dst, const floating[::1] w,
           const floating[::1] z, double gamma, double rho,
           floating[::1] g, floating[::1] p, *, double tol=1e-4,
           int max_iter=1000, double L=-1.0, double step_ratio=1.0,
           bint accelerate=True):
    """Solve ``min_g gamma sum_e w_e |g_dst - g_src| + rho/2 ||g - z||^2``.

    Chambolle & Pock (2011) Algorithm 2 (accelerated) with ``tau0 =
    step_ratio / L``, ``sigma0 = 1 / (step_ratio L)``, or Algorithm 1
    (``accelerate=False``: those steps kept constant, theta = 1), ``L >=
    ||grad||`` (default: ``sqrt(2 max_i sum_{e ~ i} w_e^2)``), stopping when
    the primal-dual gap is below ``tol`` times the primal value (checked
    every 10 iterations). One column of :func:`rof_pd_multi`.

    Parameters
    ----------
    src, dst : int32 arrays of shape (n_edges,)
        Edge end points (each undirected edge once).
    w : array of shape (n_edges,)
        Non-negative edge weights.
    z : array of shape (n,)
        Data term centre.
    gamma, rho : float
        TV weight (>= 0) and fidelity weight (> 0).
    g : array of shape (n,)
        Start value, overwritten with the solution (warm start).
    p : array of shape (n_edges,)
        Dual start value (|p| <= gamma), overwritten (warm start).
    tol, max_iter : float, int
        Relative gap tolerance and step budget.
    L : float
        Bound on ``||grad||`` (<= 0: the default above).
    step_ratio : float
        ``tau0 = step_ratio / L``, ``sigma0 = 1 / (step_ratio L)``.
    accelerate : bool
        True: Algorithm 2 (tau shrinking like 1/k); False: constant steps.

    Returns
    -------
    n_iter : int
    gap : float
        Final primal-dual gap (absolute).
    primal : float
        Final primal objective.
    status : int
        0 converged, 1 max_iter reached.
    """
    if g.shape[0] != z.shape[0]:
        raise ValueError(f"g must have length {z.shape[0]}, got {g.shape[0]}")
    if not (rho > 0):
        raise ValueError(f"rho must be > 0, got {rho!r}")
    it, gap, primal, status = rof_pd_multi(
        np.asarray(src), np.asarray(dst), np.asarray(w),
        np.asarray(z).reshape(-1, 1), gamma, rho,
        np.asarray(g).reshape(-1, 1), np.asarray(p).reshape(-1, 1), tol=tol,
        max_iter=max_iter, L=L, step_ratio=step_ratio, accelerate=accelerate)
    return it, float(gap[0]), float(primal[0]), status


def graph_tv_value(const int[::1] src, const int[::1] dst, const floating[::1] w,
                   const floating[::1] g):
    """``sum_e w_e |g_dst - g_src|``."""
    if dst.shape[0] != src.shape[0] or w.shape[0] != src.shape[0]:
        raise ValueError("src, dst and w must have the same length")
    src_np = np.asarray(src)
    dst_np = np.asarray(dst)
    if src.shape[0] and max(src_np.max(), dst_np.max()) >= g.shape[0]:
        raise ValueError("edge end points out of range")
    cdef double s
    with nogil:
        s = _tv(src, dst, w, g)
    return s


def graph_tv_values(const int[::1] src, const int[::1] dst, const floating[::1] w,
                    const floating[:, ::1] G):
    """``sum_e w_e |G[dst_e, k] - G[src_e, k]|`` of every column k of G, in one
    pass over the edges: each column's sum takes the same terms in the same
    order as :func:`graph_tv_value` of that column alone (the same bits)."""
    if dst.shape[0] != src.shape[0] or w.shape[0] != src.shape[0]:
        raise ValueError("src, dst and w must have the same length")
    src_np = np.asarray(src)
    dst_np = np.asarray(dst)
    if src.shape[0] and max(src_np.max(), dst_np.max()) >= G.shape[0]:
        raise ValueError("edge end points out of range")
    cdef Py_ssize_t e, k, c = G.shape[1]
    cdef double we
    out = np.zeros(c, dtype=np.float64)
    cdef double[::1] acc = out
    cdef const floating *gd
    cdef const floating *gs
    with nogil:
        for e in range(src.shape[0]):
            we = w[e]
            gd = &G[dst[e], 0]
            gs = &G[src[e], 0]
            for k in range(c):
                acc[k] += we * fabs(<double> gd[k] - gs[k])
    return out


# ------------------------------------------------------- simplex projection

cdef void _michelot(const floating *v, floating *x, Py_ssize_t c,
                    signed char *active) noexcept nogil:
    """Project v (length c) onto the simplex (Michelot 1986)."""
    cdef Py_ssize_t k, n_act = c, n_drop
    cdef double s, t
    for k in range(c):
        active[k] = 1
    while True:
        s = 0
        for k in range(c):
            if active[k]:
                s += v[k]
        t = (s - 1.0) / n_act
        n_drop = 0
        for k in range(c):
            if active[k]:
                if v[k] - t < 0:
                    active[k] = 0
                    n_drop += 1
        if n_drop == 0 or n_drop == n_act:
            break
        n_act -= n_drop
    for k in range(c):
        x[k] = <floating> (v[k] - t) if active[k] else 0


def simplex_project(const floating[:, ::1] V, floating[:, ::1] out):
    """Project every row of V onto the probability simplex (into ``out``)."""
    cdef Py_ssize_t i, n = V.shape[0], c = V.shape[1]
    if out.shape[0] != n or out.shape[1] != c:
        raise ValueError("out must have the shape of V")
    if c == 0:
        raise ValueError("V must have at least one column")
    cdef signed char[::1] active = np.empty(c, dtype=np.int8)
    with nogil:
        for i in range(n):
            _michelot(&V[i, 0], &out[i, 0], c, &active[0])
    return np.asarray(out)


# --------------------------------------------------------------------- SMO

cdef int _smo(const double[:, ::1] Q, const double[::1] q, const double[::1] y,
              const double[::1] C, double[::1] a, double[::1] G, double eps,
              int max_iter, double *bias) noexcept nogil:
    cdef Py_ssize_t n = Q.shape[0], t, i, j
    cdef double Gmax, Gmin, v, b, aq, obj_min, quad, delta, diff, s
    cdef double ai_old, aj_old, Ci, Cj, ub, lb, rsum
    cdef int it = 0, nfree
    cdef double TAU = 1e-12
    while it < max_iter:
        # i = argmax_{I_up} -y G ; j by second-order gain over I_low
        Gmax = -INFINITY
        i = -1
        for t in range(n):
            if (y[t] > 0 and a[t] < C[t]) or (y[t] < 0 and a[t] > 0):
                v = -y[t] * G[t]
                if v > Gmax:
                    Gmax = v
                    i = t
        Gmin = INFINITY
        j = -1
        obj_min = INFINITY
        for t in range(n):
            if (y[t] > 0 and a[t] > 0) or (y[t] < 0 and a[t] < C[t]):
                v = -y[t] * G[t]
                if v < Gmin:
                    Gmin = v
                if i >= 0 and v < Gmax:
                    b = Gmax - v
                    aq = Q[i, i] + Q[t, t] - 2.0 * y[i] * y[t] * Q[i, t]
                    if aq <= 0:
                        aq = TAU
                    if -(b * b) / aq < obj_min:
                        obj_min = -(b * b) / aq
                        j = t
        if i < 0 or j < 0 or Gmax - Gmin < eps:
            break
        it += 1
        ai_old = a[i]
        aj_old = a[j]
        Ci = C[i]
        Cj = C[j]
        if y[i] != y[j]:
            quad = Q[i, i] + Q[j, j] + 2.0 * Q[i, j]
            if quad <= 0:
                quad = TAU
            delta = (-G[i] - G[j]) / quad
            diff = a[i] - a[j]
            a[i] += delta
            a[j] += delta
            if diff > 0:
                if a[j] < 0:
                    a[j] = 0
                    a[i] = diff
            else:
                if a[i] < 0:
                    a[i] = 0
                    a[j] = -diff
            if diff > Ci - Cj:
                if a[i] > Ci:
                    a[i] = Ci
                    a[j] = Ci - diff
            else:
                if a[j] > Cj:
                    a[j] = Cj
                    a[i] = Cj + diff
        else:
            quad = Q[i, i] + Q[j, j] - 2.0 * Q[i, j]
            if quad <= 0:
                quad = TAU
            delta = (G[i] - G[j]) / quad
            s = a[i] + a[j]
            a[i] -= delta
            a[j] += delta
            if s > Ci:
                if a[i] > Ci:
                    a[i] = Ci
                    a[j] = s - Ci
            else:
                if a[j] < 0:
                    a[j] = 0
                    a[i] = s
            if s > Cj:
                if a[j] > Cj:
                    a[j] = Cj
                    a[i] = s - Cj
            else:
                if a[i] < 0:
                    a[i] = 0
                    a[j] = s
        # G += Q[:, i] da_i + Q[:, j] da_j
        ai_old = a[i] - ai_old
        aj_old = a[j] - aj_old
        for t in range(n):
            G[t] += Q[t, i] * ai_old + Q[t, j] * aj_old
    # bias b = -rho (LIBSVM): mean of -y G over free variables, else midpoint
    nfree = 0
    rsum = 0
    ub = INFINITY
    lb = -INFINITY
    for t in range(n):
        v = y[t] * G[t]
        if a[t] >= C[t]:
            if y[t] < 0:
                ub = min(ub, v)
            else:
                lb = max(lb, v)
        elif a[t] <= 0:
            if y[t] > 0:
                ub = min(ub, v)
            else:
                lb = max(lb, v)
        else:
            nfree += 1
            rsum += v
    if nfree > 0:
        bias[0] = -rsum / nfree
    elif ub < INFINITY and lb > -INFINITY:
        bias[0] = -(ub + lb) / 2
    elif ub < INFINITY:
        bias[0] = -ub
    elif lb > -INFINITY:
        bias[0] = -lb
    else:
        bias[0] = 0
    return it


def smo_qp(const double[:, ::1] Q, const double[::1] q, const double[::1] y,
           const double[::1] C, double[::1] beta, *, double tol=1e-8,
           int max_iter=100000):
    """SMO for ``min 1/2 b'Qb + q'b``, ``y'b = 0``, ``0 <= b <= C``.

    ``Q`` must be symmetric positive semi-definite (the signed matrix
    ``Y G Y``), ``y`` in {-1, +1}; ``beta`` is a feasible start (``y'beta =
    0``; zeros are) and is overwritten with the solution. Working-set
    selection by second-order information (Fan, Chen & Lin 2005), LIBSVM's
    clipped two-variable update; stop when the maximal violating pair gap
    ``max_{I_up} -y_i G_i - min_{I_low} -y_j G_j < tol``.

    Returns
    -------
    bias : float
        The multiplier of ``y'b = 0``: for free i, ``G_i + bias y_i = 0``.
    n_iter : int
    status : int
        0 converged, 1 max_iter reached.
    """
    cdef Py_ssize_t n = Q.shape[0]
    if Q.shape[1] != n or q.shape[0] != n or y.shape[0] != n or \
            C.shape[0] != n or beta.shape[0] != n:
        raise ValueError("Q must be (n, n) and q, y, C, beta of length n")
    cdef double[::1] G = np.asarray(Q) @ np.asarray(beta) + np.asarray(q)
    cdef double bias = 0
    cdef int it
    with nogil:
        it = _smo(Q, q, y, C, beta, G, tol, max_iter, &bias)
    return bias, it, STATUS_CONVERGED if it < max_iter else STATUS_MAX_ITER
