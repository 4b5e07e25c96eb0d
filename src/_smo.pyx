# SPDX-License-Identifier: BSD-3-Clause
"""USMO: SMO for the double-hinge PU SVM (Sansone, De Natale & Zhou, TPAMI 2019).

Positives P (p rows) and unlabeled U (n rows); c1 = pi / (2 lam p),
c2 = 1 / (2 lam n). The paper's dual (6) in (sigma, delta) reduces, with
delta_u = min(2 s_u, 2 c2 - 2 s_u) at the optimum, to

    min_s  D(s) = 1/2 s' K_UU s - c1 1' K_PU s - sum_u min(s_u, c2 - s_u)
    s.t.   sum_u s_u = c1 p,   0 <= s_u <= c2,

a box plus one equality, convex, with a kink at c2/2 (s_u / c2 is the loss
slope 0, 1/2 or 1 at unlabeled point u). The function cache is

    F_u = f(x_u) - b = c1 sum_P k(u, p) - sum_U s_v k(u, v)

(-F is the gradient of the smooth part). Moving s_u up costs
a_u = -F_u + (-1 if s_u < c2/2 else +1) (for s_u < c2), moving it down
gains b_u = -F_u + (-1 if s_u <= c2/2 else +1) (for s_u > 0). s is optimal iff
max b <= min a; the stopping test is the complete tau-optimality
``max b - min a <= tol`` (the paper's eq. 13 misses the case of two points on
the same side of the kink; see ../shared/papers/notes/usmo.md). The working
set is i = argmin a (s_i goes up) and, among the j with b_j > a_i (s_j goes
down), the one with the largest second-order gain (b_j - a_i)^2 / eta_ij, as
in LIBSVM's WSS 2 (Fan, Chen & Lin, JMLR 2005); lowest index on ties. The
stopping test stays the complete first-order one above.

The pair step keeps s_i + s_j fixed and minimises D exactly along
t (s_i + t, s_j - t): a convex piecewise quadratic with curvature
eta = k_ii + k_jj - 2 k_ij and at most two break points (either variable
crossing the kink), i.e. the four cases of the paper's Table I with clipping
taken together. eta <= 0 (duplicate points) leaves a piecewise linear
function whose minimum is at a break point or an end, which the same search
returns. F is then updated with the two kernel columns (eq. 15), which come
from an LRU KernelCache. At exit the bias is the average of a_u (= b_u) over
the free points (0 < s_u < c2, s_u != c2/2) (eq. 16), or the midpoint of
[max b, min a] when no point is free.
"""

import numpy as np

from libc.math cimport INFINITY
from semisvm._core._cgls cimport check_period, interrupted, reraise
from semisvm._core._kernel_cache cimport KernelCache

# status codes returned to the Python layer
cdef enum:
    STATUS_OPTIMAL = 0      # max b - min a <= tol
    STATUS_MAX_ITER = 1     # max_iter pair steps taken
    STATUS_STALLED = 2      # a pair step changed nothing (rounding limit)
    STATUS_INTERRUPTED = 3  # a signal handler raised (Ctrl-C); exception set


cdef inline void _select(const int *act, Py_ssize_t na, const double *s,
                         const double *F, double c2, Py_ssize_t *i_out,
                         Py_ssize_t *j_out, double *a_min,
                         double *b_max) noexcept nogil:
    """Maximal violating pair over the active set act[:na] (complete test)."""
    cdef double half = 0.5 * c2, su, g, v
    cdef double amin = INFINITY, bmax = -INFINITY
    cdef Py_ssize_t k, u, i = -1, j = -1
    for k in range(na):
        u = act[k]
        su = s[u]
        g = -F[u]
        if su < c2:
            v = g - 1.0 if su < half else g + 1.0
            if v < amin:
                amin = v
                i = u
        if su > 0:
            v = g - 1.0 if su <= half else g + 1.0
            if v > bmax:
                bmax = v
                j = u
    i_out[0] = i
    j_out[0] = j
    a_min[0] = amin
    b_max[0] = bmax


cdef inline Py_ssize_t _second_order_j(
        const int *act, Py_ssize_t na, const double *s, const double *F,
        double c2, double a_i, const double *Ki, const double *diag,
        Py_ssize_t i, Py_ssize_t j_first) noexcept nogil:
    """argmax over active {u: s_u > 0, b_u > a_i} of (b_u - a_i)^2 / eta_iu."""
    cdef double half = 0.5 * c2, bu, gap, eta, score, best = -1.0
    cdef Py_ssize_t k, u, j = j_first
    for k in range(na):
        u = act[k]
        if s[u] <= 0:
            continue
        bu = -F[u] - 1.0 if s[u] <= half else -F[u] + 1.0
        gap = bu - a_i
        if gap <= 0:
            continue
        eta = diag[i] + diag[u] - 2.0 * Ki[u]
        if eta < 1e-12:
            eta = 1e-12
        score = gap * gap / eta
        if score > best:
            best = score
            j = u
    return j


cdef inline double _slope(double b1, double b2, double t) noexcept nogil:
    """Derivative of the non-smooth part -h(s_i + t) - h(s_j - t) at t.

    Decided in t-space against the break points b1 = c2/2 - s_i and
    b2 = s_j - c2/2 (s_i + t < c2/2 iff t < b1; s_j - t < c2/2 iff t > b2):
    evaluating s_i + t itself rounds when the segment is narrower than an
    ulp of s_i, and then picks the wrong slope (a zero step, "stalled").
    """
    cdef double d = -1.0 if t < b1 else 1.0
    return d + (1.0 if t > b2 else -1.0)


cdef double _pair_t(double si, double sj, double g, double eta,
                    double c2) noexcept nogil:
    """argmin over t in [0, hi] of the pair objective; g = F_j - F_i.

    phi'(t) = g + eta t + slope(t) with slope piecewise constant between
    the break points c2/2 - s_i and s_j - c2/2; phi'(0+) < 0 by selection.
    Returned values at a break point or at hi are exactly those numbers.
    """
    cdef double half = 0.5 * c2
    cdef double hi = c2 - si if c2 - si < sj else sj
    cdef double b1 = half - si, b2 = sj - half, tmp
    cdef double bp[2]
    cdef int nb = 0, k
    cdef double L = 0.0, R, c, dL, dR, t
    if eta < 0:
        eta = 0.0
    if 0 < b1 < hi:
        bp[nb] = b1
        nb += 1
    if 0 < b2 < hi and b2 != b1:
        bp[nb] = b2
        nb += 1
    if nb == 2 and bp[0] > bp[1]:
        tmp = bp[0]
        bp[0] = bp[1]
        bp[1] = tmp
    for k in range(nb + 1):
        R = bp[k] if k < nb else hi
        c = _slope(b1, b2, 0.5 * (L + R))
        dR = g + eta * R + c
        if dR < 0:
            if k < nb:
                L = R
                continue
            return hi
        dL = g + eta * L + c
        if dL >= 0:
            return L
        # dL < 0 <= dR implies eta > 0
        t = L - dL / eta
        return L if t < L else (R if t > R else t)
    return hi


cdef Py_ssize_t _shrink(int *act, Py_ssize_t na, const double *s,
                        const double *F, double c2, double amin,
                        double bmax) noexcept nogil:
    """Drop from act[:na] the variables that cannot move; return the new na.

    u is stuck when it cannot go up (s_u = c2 or a_u > max b) and cannot go
    down (s_u = 0 or b_u < min a): at a bound, or on the kink with both
    one-sided slopes outside [min a, max b]. A free variable (a_u = b_u)
    never is. The order of the kept indices is preserved.
    """
    cdef double half = 0.5 * c2, su, g
    cdef Py_ssize_t k, u, m = 0
    cdef bint up, down
    for k in range(na):
        u = act[k]
        su = s[u]
        g = -F[u]
        up = su < c2 and (g - 1.0 if su < half else g + 1.0) <= bmax
        down = su > 0 and (g - 1.0 if su <= half else g + 1.0) >= amin
        if up or down:
            act[m] = <int> u
            m += 1
    return m


cdef void _reconstruct(KernelCache cache, const int *urows, Py_ssize_t n,
                       const double *s, double *F, double *s0,
                       double *F0, const int *act, Py_ssize_t na,
                       int *chg_rows, double *chg_ds, signed char *flag,
                       double *tmp, int *inact, int *pos,
                       double *out) noexcept nogil:
    """Exact F on the inactive variables, from the phase base (F0, s0).

    F_u = F0_u - sum_v (s_v - s0_v) k(u, v) over the v that moved since the
    base (where F0 was exact everywhere); afterwards (F0, s0) = (F, s).
    """
    cdef Py_ssize_t k, u, v, n_chg = 0, na_out
    for u in range(n):
        flag[u] = 0
    for k in range(na):
        flag[act[k]] = 1
    for v in range(n):
        if s[v] != s0[v]:
            chg_rows[n_chg] = urows[v]
            chg_ds[n_chg] = s[v] - s0[v]
            n_chg += 1
    # the inactive rows, then their weighted kernel sums against the moved
    # ones (BLAS on dense data); flag[u] = 1 marks active u
    na_out = 0
    for u in range(n):
        if not flag[u]:
            inact[na_out] = urows[u]
            pos[na_out] = <int> u
            na_out += 1
    if na_out > 0:
        cache.weighted_sums(inact, na_out, chg_rows, n_chg, chg_ds, tmp, out)
        for k in range(na_out):
            F[pos[k]] = F0[pos[k]] - out[k]
    for u in range(n):
        F0[u] = F[u]
        s0[u] = s[u]


cdef int _usmo(KernelCache cache, const int *urows, const int *prows,
               Py_ssize_t n, Py_ssize_t n_p, double c1, double c2,
               double *s, double tol, long long max_iter, double *F,
               double *G, const double *qP, double *diag, double *tmp_n,
               double *tmp_p, int *sv, double *hist, Py_ssize_t n_hist_max,
               long long hist_stride, bint shrinking, int *act, double *s0,
               double *F0, signed char *flag, double *tmp2, int *inact,
               int *ipos, double *out3, double *pones, double *pout,
               double *scr, long long *n_iter, double *bias,
               double *violation, Py_ssize_t *n_hist,
               long long *n_unshrink) noexcept nogil:
    cdef Py_ssize_t u, v, i, j, n_sv, nh = 0, n_free, k, na = n, na_new
    cdef long long it = 0, last_rec = -1, n_re = 0
    cdef int status = STATUS_MAX_ITER
    cdef double amin, bmax, si, sj, eta, dsi, dsj, acc, half = 0.5 * c2
    cdef double new_si, new_sj
    cdef const double *Ki
    cdef const double *Kj
    cdef Py_ssize_t period = n if n < 1000 else 1000, counter
    # Ctrl-C: signals checked every few million flops (a step is O(n), plus
    # up to two kernel columns)
    cdef long long sig_period = check_period(8 * n)
    cdef bint unshrunk = False

    # F = c1 qP - sum_v s_v K[:, v] over the v with s_v > 0 only, so that
    # a sparse start costs less; qP_u = sum_P k(u, p) is given
    for u in range(n):
        F[u] = c1 * qP[u]
        diag[u] = cache.kernel_diag(urows[u])
        act[u] = <int> u
    # weighted kernel sums against the rows with s_v > 0 (BLAS on dense
    # data; the same arithmetic whatever the cache size)
    n_sv = 0
    for v in range(n):
        if s[v] > 0:
            sv[n_sv] = urows[v]
            tmp_n[n_sv] = s[v]
            n_sv += 1
    cache.weighted_sums(urows, n, sv, n_sv, tmp_n, tmp2, F0)
    for u in range(n):
        F[u] -= F0[u]
    for u in range(n):
        F0[u] = F[u]
        s0[u] = s[u]
    counter = period

    while True:
        if shrinking:
            counter -= 1
            if counter <= 0:
                # LIBSVM's do_shrinking: every min(n, 1000) steps; once
                # the violation is within 10 tol, unshrink once first
                counter = period
                _select(act, na, s, F, c2, &i, &j, &amin, &bmax)
                if not unshrunk and bmax - amin <= 10.0 * tol:
                    unshrunk = True
                    if na < n:
                        _reconstruct(cache, urows, n, s, F, s0, F0, act, na,
                                     sv, tmp_n, flag, tmp2, inact, ipos, out3)
                        n_re += 1
                        na = n
                        for u in range(n):
                            act[u] = <int> u
                        cache.unshrink()
                        _select(act, na, s, F, c2, &i, &j, &amin, &bmax)
                na_new = _shrink(act, na, s, F, c2, amin, bmax)
                if na_new < na:
                    na = na_new
                    cache.set_active(act, na)
        _select(act, na, s, F, c2, &i, &j, &amin, &bmax)
        if na == n:
            violation[0] = bmax - amin
        if (hist_stride > 0 and it % hist_stride == 0 and it != last_rec
                and nh < n_hist_max):
            hist[nh] = bmax - amin
            nh += 1
            last_rec = it
        if (bmax - amin <= tol or i < 0 or j < 0) and na < n:
            # optimal on the active set: exact F and the test on all
            # variables (LIBSVM: shrink again at the next step if not done)
            _reconstruct(cache, urows, n, s, F, s0, F0, act, na, sv,
                         tmp_n, flag, tmp2, inact, ipos, out3)
            n_re += 1
            na = n
            for u in range(n):
                act[u] = <int> u
            cache.unshrink()
            counter = 1
            _select(act, na, s, F, c2, &i, &j, &amin, &bmax)
            violation[0] = bmax - amin
        if bmax - amin <= tol or i < 0 or j < 0:
            status = STATUS_OPTIMAL
            break
        if it >= max_iter:
            status = STATUS_MAX_ITER
            break
        if it % sig_period == 0 and it > 0 and interrupted():
            status = STATUS_INTERRUPTED
            break
        Ki = cache.get_col(i)
        # second-order choice of j (Fan, Chen & Lin 2005, WSS 2) among the
        # variables violating with i: the largest (b_u - a_i)^2 / eta_iu
        j = _second_order_j(act, na, s, F, c2, amin, Ki, diag, i, j)
        Kj = cache.get_col(j)
        si = s[i]
        sj = s[j]
        eta = diag[i] + diag[j] - 2.0 * Ki[j]
        _pair_update(si, sj, F[j] - F[i], eta, c2, &new_si, &new_sj)
        dsi = new_si - si
        dsj = new_sj - sj
        it += 1
        if dsi == 0 and dsj == 0:
            status = STATUS_STALLED
            break
        s[i] = new_si
        s[j] = new_sj
        # eq. (15): F -= K[:, i] ds_i + K[:, j] ds_j (on the active set)
        for k in range(na):
            u = act[k]
            F[u] -= dsi * Ki[u] + dsj * Kj[u]

    if na < n:
        # stopped early (max_iter, stalled) while shrunk: exact F everywhere
        _reconstruct(cache, urows, n, s, F, s0, F0, act, na, sv, tmp_n, flag,
                     tmp2, inact, ipos, out3)
        n_re += 1
        na = n
        for u in range(n):
            act[u] = <int> u
        cache.unshrink()
    n_iter[0] = it
    n_hist[0] = nh
    n_unshrink[0] = n_re

    # eq. (16): the bias from the free points, or the middle of [max b, min a]
    acc = 0.0
    n_free = 0
    n_sv = 0
    for u in range(n):
        if s[u] > 0:
            sv[n_sv] = urows[u]
            tmp_n[n_sv] = s[u]
            n_sv += 1
        if 0 < s[u] < c2 and s[u] != half:
            acc += -F[u] - 1.0 if s[u] < half else -F[u] + 1.0
            n_free += 1
    _select(act, n, s, F, c2, &i, &j, &amin, &bmax)
    violation[0] = bmax - amin
    if n_free > 0:
        bias[0] = acc / n_free
    elif i >= 0 and j >= 0:
        bias[0] = 0.5 * (amin + bmax)
    else:
        bias[0] = 0.0

    # G_p = f(x_p) - b = c1 sum_P k(p, p') - sum_U s_u k(p, u), for the
    # primal objective; tmp_n[:n_sv] holds s over the support vectors
    if n_p > 0:
        for u in range(n_p):
            pones[u] = 1.0
        cache.weighted_sums(prows, n_p, prows, n_p, pones, scr, G)
        for u in range(n_p):
            G[u] *= c1
        if n_sv > 0:
            cache.weighted_sums(prows, n_p, sv, n_sv, tmp_n, scr, pout)
            for u in range(n_p):
                G[u] -= pout[u]
    return status


cdef void _kernel_sums(KernelCache cache, const int *rows, Py_ssize_t n,
                       const int *targets, Py_ssize_t n_t, double *tmp,
                       double *ones, double *out) noexcept nogil:
    cdef Py_ssize_t v
    for v in range(n_t):
        ones[v] = 1.0
    cache.weighted_sums(rows, n, targets, n_t, ones, tmp, out)


def kernel_sums(KernelCache cache, const int[::1] rows, const int[::1] targets):
    """out[u] = sum_t k(x_{rows[u]}, x_{targets[t]}) (no caching, no n x n)."""
    cdef Py_ssize_t n = rows.shape[0], n_t = targets.shape[0], u
    cdef double[::1] out = np.zeros(n, dtype=np.float64)
    cdef double[::1] tmp = np.zeros(max(n_t, 1), dtype=np.float64)
    cdef double[::1] ones = np.zeros(max(n_t, 1), dtype=np.float64)
    for u in range(n):
        if not 0 <= rows[u] < cache.X.n_rows:
            raise IndexError(rows[u])
    for u in range(n_t):
        if not 0 <= targets[u] < cache.X.n_rows:
            raise IndexError(targets[u])
    if n > 0 and n_t > 0:
        with nogil:
            _kernel_sums(cache, &rows[0], n, &targets[0], n_t, &tmp[0],
                         &ones[0], &out[0])
    return np.asarray(out)


def usmo(KernelCache cache, const int[::1] urows, const int[::1] prows,
         double c1, double c2, double[::1] s, const double[::1] qP, double tol,
         long long max_iter, long long hist_stride=1, bint shrinking=True):
    """Run USMO from the feasible start ``s`` (modified in place).

    Parameters
    ----------
    cache : KernelCache
        Built over the rows ``urows`` (its columns are indexed by U).
    urows, prows : int32 arrays
        Rows of the cache's data that are unlabeled / labeled positive.
    c1, c2 : float
        pi / (2 lam p) and 1 / (2 lam n).
    s : float64 array of shape (n,)
        Feasible start (0 <= s <= c2, sum s = c1 p); the solution on return.
    qP : float64 array of shape (n,)
        sum_P k(u, p) for every unlabeled u (``kernel_sums(cache, urows, prows)``).
    tol : float
        Stop when max b - min a <= tol.
    max_iter : int
        Maximum number of pair steps.
    hist_stride : int
        Record the violation every ``hist_stride`` steps (at most 1024 values).
    shrinking : bool
        LIBSVM-style shrinking: every min(n, 1000) steps the variables that
        cannot move (see ``_shrink``) leave the active set, on which columns
        are computed and the pair chosen; once the violation is within
        10 tol the whole set is restored once, and optimality on the active
        set is always followed by an exact F on all variables and the test
        on all of them (the same optimum as without shrinking).

    Returns
    -------
    (F, G, n_iter, status, bias, violation, history, n_unshrink)
        F over U and G over P are f - b at the solution; status 0 optimal,
        1 max_iter, 2 stalled; n_unshrink counts the restorations of the
        whole set (each recomputes F on the inactive variables).
    """
    cdef Py_ssize_t n = urows.shape[0], n_p = prows.shape[0], n_hist = 0
    cdef long long n_iter = 0
    cdef double bias = 0.0, violation = 0.0
    cdef int status
    if n < 1:
        raise ValueError("there must be at least one unlabeled row")
    if cache.m != n or s.shape[0] != n or qP.shape[0] != n:
        raise ValueError("cache, urows, s and qP must have the same length")
    if max_iter < 0 or hist_stride < 1:
        raise ValueError("max_iter must be >= 0 and hist_stride >= 1")
    cdef double[::1] F = np.zeros(n, dtype=np.float64)
    cdef double[::1] G = np.zeros(max(n_p, 1), dtype=np.float64)
    cdef double[::1] diag = np.zeros(n, dtype=np.float64)
    cdef double[::1] tmp_n = np.zeros(n, dtype=np.float64)
    cdef double[::1] tmp_p = np.zeros(max(n_p, 1), dtype=np.float64)
    cdef int[::1] sv = np.zeros(n, dtype=np.int32)
    cdef double[::1] hist = np.zeros(1024, dtype=np.float64)
    cdef int[::1] act = np.zeros(n, dtype=np.int32)
    cdef double[::1] s0 = np.zeros(n, dtype=np.float64)
    cdef double[::1] F0 = np.zeros(n, dtype=np.float64)
    cdef double[::1] tmp2 = np.zeros(n, dtype=np.float64)
    cdef signed char[::1] flag = np.zeros(n, dtype=np.int8)
    cdef int[::1] inact = np.zeros(n, dtype=np.int32)
    cdef int[::1] ipos = np.zeros(n, dtype=np.int32)
    cdef double[::1] out3 = np.zeros(n, dtype=np.float64)
    cdef double[::1] pones = np.zeros(max(n_p, 1), dtype=np.float64)
    cdef double[::1] pout = np.zeros(max(n_p, 1), dtype=np.float64)
    cdef double[::1] scr = np.zeros(n + n_p, dtype=np.float64)
    cdef long long n_unshrink = 0
    cdef const int *pp = &prows[0] if n_p > 0 else NULL
    cache.unshrink()
    with nogil:
        status = _usmo(cache, &urows[0], pp, n, n_p, c1, c2, &s[0], tol,
                       max_iter, &F[0], &G[0], &qP[0], &diag[0], &tmp_n[0],
                       &tmp_p[0], &sv[0], &hist[0], 1024, hist_stride,
                       shrinking, &act[0], &s0[0], &F0[0], &flag[0], &tmp2[0],
                       &inact[0], &ipos[0], &out3[0], &pones[0], &pout[0],
                       &scr[0], &n_iter, &bias, &violation, &n_hist, &n_unshrink)
    if status == STATUS_INTERRUPTED:
        reraise()
    return (np.asarray(F), np.asarray(G)[:n_p], int(n_iter), int(status),
            float(bias), float(violation), np.asarray(hist)[:n_hist].copy(),
            int(n_unshrink))


cdef void _pair_update(double si, double sj, double g, double eta, double c2,
                       double* new_si, double* new_sj) noexcept nogil:
    """The pair's new values s_i + t, s_j - t with t = _pair_t(...).

    A step that stops at a kink (c2/2) or at the box bound lands exactly on
    that number, so later comparisons with c2/2, 0 and c2 are exact.
    """
    cdef double half = 0.5 * c2
    cdef double t = _pair_t(si, sj, g, eta, c2)
    cdef double hi = c2 - si if c2 - si < sj else sj
    new_si[0] = si + t
    new_sj[0] = sj - t
    if t == half - si:
        new_si[0] = half
    if t == sj - half:
        new_sj[0] = half
    if t == hi:
        if hi == c2 - si:
            new_si[0] = c2
        if hi == sj:
            new_sj[0] = 0.0


def _pair_t_py(double si, double sj, double g, double eta, double c2):
    """Test hook: the exact pair line search (returns the step t)."""
    return _pair_t(si, sj, g, eta, c2)
