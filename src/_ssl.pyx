# SPDX-License-Identifier: BSD-3-Clause
"""O(u) steps of the semi-supervised linear SVMs (Sindhwani & Keerthi 2006, §3).

* ``tsvm_switch``: multiple switching of TSVM's temporary labels (§3.1.2).
  Swapping the labels of an unlabeled pair (i labelled +1, j labelled -1)
  changes their loss by h(o_i) - h(o_j), where
  h(o) = max(0, 1 + o)^2 - max(0, 1 - o)^2 is strictly increasing; so the swap
  lowers the objective exactly when o_i < o_j, and the S pairs that lower it
  most are the S smallest positive outputs matched with the S largest negative
  outputs. Swapping keeps the number of positives (the class balance) fixed.
* ``da_pstep``: the p-step of DA-S3VM (§3.2.2). With
  g_j = lam_u [l2(o_j) - l2(-o_j)] and l2(z) = max(0, 1 - z)^2, the minimiser
  over p of the DA objective under mean(p) = r is
  p_j = 1 / (1 + exp((g_j - nu) / T)), where nu solves the balance equation
  f(nu) = mean_j p_j(nu) - r = 0. f is increasing in nu, and
  nu in [min g + T logit(r), max g + T logit(r)] brackets the root; a Newton
  step (f' = mean p (1 - p) / T) is taken when it stays inside the current
  bracket, a bisection step otherwise (safeguarded Newton).

The state of the p-step is kept as the logits z_j = (g_j - nu) / T, so that
log p = -softplus(z) and log(1 - p) = -softplus(-z) are exact even when p
underflows to 0 or 1: KL divergence and entropy never see log(0).
"""

import numpy as np

from libc.math cimport exp, log, log1p, fabs
from cython cimport floating
from semisvm._core._linesearch cimport Event, sort_events


# status codes of the balance root finder
cdef enum:
    ROOT_OK = 0            # |mean(p) - r| <= tol
    ROOT_STALLED = 1       # bracket at machine precision before tol was met
    ROOT_MAX_ITER = 2      # max_iter steps used


cdef inline double _softplus(double x) noexcept nogil:
    """log(1 + exp(x)) without overflow."""
    if x > 0:
        return x + log1p(exp(-x))
    return log1p(exp(x))


cdef inline double _sigmoid_neg(double z) noexcept nogil:
    """1 / (1 + exp(z)) without overflow."""
    cdef double e
    if z > 0:
        e = exp(-z)
        return e / (1.0 + e)
    return 1.0 / (1.0 + exp(z))


cdef inline double _sigmoid_softplus(double z, double *sp_pos,
                                     double *sp_neg) noexcept nogil:
    """``_sigmoid_neg(z)``, with ``_softplus(z)`` and ``_softplus(-z)`` in
    sp_pos/sp_neg, bitwise as those functions give them, from one exp and
    one log1p: all three use exp(-|z|) (exp(-z) for z > 0, else exp(z))."""
    cdef double e, l
    if z > 0:
        e = exp(-z)
        l = log1p(e)
        sp_pos[0] = z + l
        sp_neg[0] = l
        return e / (1.0 + e)
    e = exp(z)
    l = log1p(e)
    sp_pos[0] = l
    # _softplus(-z): -z + log1p(exp(z)) when -z > 0, else log1p(exp(-z))
    # (z = -0.0 or 0.0: exp(-z) = exp(z) = 1)
    sp_neg[0] = -z + l if -z > 0 else l
    return 1.0 / (1.0 + e)


cdef inline void _softplus_pair(double z, double *sp_pos,
                                double *sp_neg) noexcept nogil:
    """``_softplus(z)`` and ``_softplus(-z)`` (bitwise) from one exp and one
    log1p."""
    cdef double l
    if z > 0:
        l = log1p(exp(-z))
        sp_pos[0] = z + l
        sp_neg[0] = l
        return
    l = log1p(exp(z))
    sp_pos[0] = l
    sp_neg[0] = -z + l if -z > 0 else l


cdef inline double _l2(double z) noexcept nogil:
    """max(0, 1 - z)^2."""
    return (1.0 - z) * (1.0 - z) if z < 1.0 else 0.0


cdef Py_ssize_t _switch(const floating *o, const int *idx_u, Py_ssize_t u,
                        signed char *yu, Py_ssize_t S, floating cu,
                        floating *cpos, floating *cneg, Event *kp,
                        Event *kn) noexcept nogil:
    cdef Py_ssize_t j, n_p = 0, n_n = 0, k
    cdef double min_pos = 1e300, max_neg = -1e300, oj
    # only outputs that can be part of a lowering pair are sorted:
    # positives below the largest negative output, negatives above the
    # smallest positive output
    for j in range(u):
        oj = o[idx_u[j]]
        if yu[j] > 0:
            if oj < min_pos:
                min_pos = oj
        elif oj > max_neg:
            max_neg = oj
    if not min_pos < max_neg:
        return 0
    for j in range(u):
        oj = o[idx_u[j]]
        if yu[j] > 0:
            if oj < max_neg:
                kp[n_p].delta = oj
                kp[n_p].key = j
                n_p += 1
        elif oj > min_pos:
            kn[n_n].delta = -oj
            kn[n_n].key = j
            n_n += 1
    # L+ ascending by output, L- descending (ties: lowest index first); the
    # break-point struct of _linesearch holds the sort key (delta) and the row
    sort_events(kp, n_p)
    sort_events(kn, n_n)
    k = 0
    while k < S and k < n_p and k < n_n and kp[k].delta < -kn[k].delta:
        j = kp[k].key
        yu[j] = -1
        cpos[idx_u[j]] = 0
        cneg[idx_u[j]] = cu
        j = kn[k].key
        yu[j] = 1
        cpos[idx_u[j]] = cu
        cneg[idx_u[j]] = 0
        k += 1
    return k


cdef inline double _balance_eval(const double *g, Py_ssize_t u, double T,
                                 double nu, double *fprime,
                                 double *e_out) noexcept nogil:
    """Return mean_j p_j(nu); store mean_j p_j (1 - p_j) / T in fprime
    and, if ``e_out`` is not NULL, exp(-|z_j|) (z_j = (g_j - nu) / T) in
    e_out[j]: the exp of ``_sigmoid_neg(z_j)``, whose p_j it gives bitwise."""
    cdef Py_ssize_t j
    cdef double s = 0, sd = 0, pj, zj, e
    if e_out == NULL:
        for j in range(u):
            pj = _sigmoid_neg((g[j] - nu) / T)
            s += pj
            sd += pj * (1.0 - pj)
    else:
        for j in range(u):
            # _sigmoid_neg(z), its exp kept
            zj = (g[j] - nu) / T
            if zj > 0:
                e = exp(-zj)
                pj = e / (1.0 + e)
            else:
                e = exp(zj)
                pj = 1.0 / (1.0 + e)
            e_out[j] = e
            s += pj
            sd += pj * (1.0 - pj)
    fprime[0] = sd / (u * T)
    return s / u


cdef inline void _root_bracket(double gmin, double gmax, double T, double r,
                               double nu0, double *lo, double *hi,
                               double *nu) noexcept nogil:
    """Bracket of the balance root from the range [gmin, gmax] of the g_j:
    every p_j <= r at lo and >= r at hi, so f(lo) <= 0 <= f(hi); the start
    is nu0 when strictly inside, else the midpoint."""
    cdef double logit_r = log(r / (1.0 - r))
    lo[0] = gmin + T * logit_r
    hi[0] = gmax + T * logit_r
    nu[0] = nu0 if lo[0] < nu0 < hi[0] else 0.5 * (lo[0] + hi[0])


cdef inline int _root_step(double f, double fp, double *lo, double *hi,
                           double *nu) noexcept nogil:
    """One safeguarded Newton/bisection step for the increasing f(nu) =
    mean(p) - r with value f and slope fp at nu: shrink the bracket by the
    sign of f, take the Newton step if it stays strictly inside, else bisect.
    Returns ROOT_STALLED when the bracket holds no float strictly inside (nu
    is the root to machine precision), else ROOT_OK."""
    cdef double nu_new
    if f < 0:
        lo[0] = nu[0]
    else:
        hi[0] = nu[0]
    nu_new = nu[0] - f / fp if fp > 0 else lo[0]
    if not (lo[0] < nu_new < hi[0]):
        nu_new = 0.5 * (lo[0] + hi[0])
    if not (lo[0] < nu_new < hi[0]):
        return ROOT_STALLED
    nu[0] = nu_new
    return ROOT_OK


cdef int _balance(const double *g, Py_ssize_t u, double T, double r,
                  double nu0, double tol, int max_iter, double *nu_out,
                  double *resid, int *n_iter,
                  double *e_out=NULL) noexcept nogil:
    """Safeguarded Newton/bisection for mean_j sigmoid((nu - g_j)/T) = r.
    ``e_out`` (u, or NULL) receives the exps of the last evaluation, the
    one at the returned nu (every exit follows an evaluation at nu)."""
    cdef Py_ssize_t j
    cdef double gmin = g[0], gmax = g[0], lo, hi, nu, f, fp
    cdef int it, status = ROOT_MAX_ITER
    for j in range(1, u):
        if g[j] < gmin:
            gmin = g[j]
        if g[j] > gmax:
            gmax = g[j]
    _root_bracket(gmin, gmax, T, r, nu0, &lo, &hi, &nu)
    n_iter[0] = 0
    for it in range(1, max_iter + 1):
        n_iter[0] = it
        f = _balance_eval(g, u, T, nu, &fp, e_out) - r
        resid[0] = f
        if fabs(f) <= tol:
            status = ROOT_OK
            break
        if it == max_iter:
            break
        if _root_step(f, fp, &lo, &hi, &nu) == ROOT_STALLED:
            status = ROOT_STALLED
            break
    nu_out[0] = nu
    return status


def root_bracket(double gmin, double gmax, double T, double r, double nu0):
    """The balance root finder's start ``(lo, hi, nu)`` (as the compiled
    p-step): for the Dask p-step, whose reductions give gmin and gmax."""
    cdef double lo, hi, nu
    _root_bracket(gmin, gmax, T, r, nu0, &lo, &hi, &nu)
    return lo, hi, nu


def root_step(double f, double fp, double lo, double hi, double nu):
    """One step of the compiled balance root finder, for the Dask p-step's
    driver loop: returns ``(stalled, lo, hi, nu)``."""
    cdef int st = _root_step(f, fp, &lo, &hi, &nu)
    return st == ROOT_STALLED, lo, hi, nu


cdef int _pstep(const floating *o, const int *idx_u, Py_ssize_t u,
                double lam_u, double T, double r, double *z, double *p,
                double *g, floating cu, floating *cpos, floating *cneg,
                double nu0, double tol, int max_iter, double omega,
                double *nu, double *kl, double *entropy, double *resid,
                int *n_iter, double *ebuf=NULL, double *sp=NULL,
                bint sp_valid=False) noexcept nogil:
    """The p-step (see :func:`da_pstep`). ``ebuf`` (u) and ``sp`` (2 u),
    or NULL: work that saves transcendental calls, the same bits: the
    balance root's last evaluation leaves exp(-|z_j|) in ebuf (p_j and the
    softplus of +-z_j need no other exp), and sp holds softplus(+-z_j) of
    the z this step leaves, for the KL term of the next step (``sp_valid``:
    sp holds them for the z this step enters with)."""
    cdef Py_ssize_t j
    cdef double oj, zj, pj, zq, s_kl = 0, s_h = 0, s_p = 0
    cdef double spq, spq_neg, spz, spz_neg, e, l
    # over-relaxed logits z = (1 - omega) zq + omega (g - nu) / T
    #                       = (G - nu) / (T / omega), G = g + (1/omega - 1) T zq:
    # the same balance root on G at temperature T / omega
    cdef double Te = T / omega, c = (1.0 / omega - 1.0) * T
    cdef int status
    # g_j = lam_u [l2(o_j) - l2(-o_j)]
    for j in range(u):
        oj = o[idx_u[j]]
        g[j] = lam_u * (_l2(oj) - _l2(-oj))
        if omega != 1.0:
            g[j] += c * z[j]
    status = _balance(g, u, Te, r, nu0, tol, max_iter, nu, resid, n_iter,
                      ebuf)
    for j in range(u):
        zq = z[j]
        zj = (g[j] - nu[0]) / Te
        # p = _sigmoid_neg(z), and the softplus of +-z, +-zq it needs
        if ebuf != NULL:
            # _sigmoid_softplus(zj) from the root finder's exp(-|zj|)
            e = ebuf[j]
            l = log1p(e)
            if zj > 0:
                spz = zj + l
                spz_neg = l
                pj = e / (1.0 + e)
            else:
                spz = l
                spz_neg = -zj + l if -zj > 0 else l
                pj = 1.0 / (1.0 + e)
        else:
            pj = _sigmoid_softplus(zj, &spz, &spz_neg)
        if sp != NULL and sp_valid:
            spq = sp[j]
            spq_neg = sp[u + j]
        else:
            _softplus_pair(zq, &spq, &spq_neg)
        if sp != NULL:
            sp[j] = spz
            sp[u + j] = spz_neg
        # KL(p || q) with log p = -softplus(z), log(1 - p) = -softplus(-z)
        s_kl += (pj * (spq - spz)
                 + (1.0 - pj) * (spq_neg - spz_neg))
        # entropy -p log p - (1 - p) log(1 - p)
        s_h += pj * spz + (1.0 - pj) * spz_neg
        s_p += pj
        z[j] = zj
        p[j] = pj
        cpos[idx_u[j]] = <floating> (cu * pj)
        cneg[idx_u[j]] = <floating> (cu * (1.0 - pj))
    kl[0] = s_kl / u
    entropy[0] = s_h / u
    resid[0] = s_p / u - r
    return status


def _check_common(Py_ssize_t n, const int[::1] idx_u, floating[::1] cpos,
                  floating[::1] cneg):
    cdef Py_ssize_t j
    if cpos.shape[0] != n or cneg.shape[0] != n:
        raise ValueError("cpos and cneg need one entry per row of o")
    for j in range(idx_u.shape[0]):
        if not 0 <= idx_u[j] < n:
            raise ValueError("idx_u holds a row index out of range")


def tsvm_switch(const floating[::1] o, const int[::1] idx_u,
                signed char[::1] yu, Py_ssize_t S, double cu,
                floating[::1] cpos, floating[::1] cneg):
    """Switch up to ``S`` label pairs of TSVM's unlabeled rows, in place.

    ``o`` holds the outputs of all rows, ``idx_u`` the unlabeled rows, ``yu``
    their temporary labels (+1/-1, updated), ``cpos``/``cneg`` the MFN costs
    of all rows (the switched rows get ``cu`` on their new side). Returns the
    number of pairs switched; 0 means no pair swap lowers the objective.
    """
    cdef Py_ssize_t u = idx_u.shape[0], k
    if yu.shape[0] != u:
        raise ValueError("yu needs one entry per unlabeled row")
    if S < 1:
        raise ValueError(f"S must be >= 1, got {S}")
    _check_common(o.shape[0], idx_u, cpos, cneg)
    if u == 0:
        return 0
    buf = np.empty(2 * u * sizeof(Event), dtype=np.uint8)
    cdef unsigned char[::1] raw = buf
    cdef Event *kp = <Event *> &raw[0]
    with nogil:
        k = _switch(&o[0], &idx_u[0], u, &yu[0], S, <floating> cu, &cpos[0],
                    &cneg[0], kp, kp + u)
    return k


def da_pstep(const floating[::1] o, const int[::1] idx_u, double lam_u,
             double T, double r, double[::1] z, double[::1] p, double cu,
             floating[::1] cpos, floating[::1] cneg, double nu0=0.0,
             double tol=1e-12, int max_iter=500, double omega=1.0,
             double[::1] work=None, bint sp_valid=False):
    """DA-S3VM p-step in place: new logits ``z``, probabilities ``p`` and costs.

    ``z`` enters holding the previous logits zq (for the KL divergence) and
    leaves with z_j = (g_j - nu) / T; ``p = 1 / (1 + exp(z))`` with
    mean(p) = r; ``cpos[idx_u] = cu p``, ``cneg[idx_u] = cu (1 - p)``.
    ``omega`` != 1: the over-relaxed step z_j = (1 - omega) zq_j + omega
    (g_j - nu) / T, nu again such that mean(p) = r (a fixed point of either
    step is one of the other, with the same nu); the KL divergence is that
    of the step taken. ``work`` (3 u, or None): kept by the caller across
    p-steps, it saves two exps and a log1p per row (the same bits); its
    last 2 u entries then hold softplus(+-z) of the z left, which the next
    step uses when ``sp_valid`` (z untouched in between).

    Returns
    -------
    nu, kl, entropy, resid, n_iter, status
        The balance multiplier, mean KL(p_new || p_old), mean entropy of
        p_new, mean(p) - r, root-finder steps and status (0 converged,
        1 stalled at machine precision, 2 max_iter).
    """
    cdef Py_ssize_t u = idx_u.shape[0]
    if z.shape[0] != u or p.shape[0] != u:
        raise ValueError("z and p need one entry per unlabeled row")
    if not (T > 0 and 0 < r < 1 and lam_u >= 0 and tol > 0 and max_iter >= 1):
        raise ValueError("need T > 0, 0 < r < 1, lam_u >= 0, tol > 0, max_iter >= 1")
    if not 0 < omega < 2:
        raise ValueError(f"omega must be in (0, 2), got {omega!r}")
    _check_common(o.shape[0], idx_u, cpos, cneg)
    if u == 0:
        return nu0, 0.0, 0.0, 0.0, 0, ROOT_OK
    cdef double[::1] g = np.empty(u)
    cdef double nu = 0, kl = 0, ent = 0, resid = 0
    cdef int n_iter = 0, status
    cdef double *eb = NULL
    cdef double *spb = NULL
    if work is not None:
        if work.shape[0] != 3 * u:
            raise ValueError("work needs 3 entries per unlabeled row")
        eb = &work[0]
        spb = &work[u]
    with nogil:
        status = _pstep(&o[0], &idx_u[0], u, lam_u, T, r, &z[0], &p[0], &g[0],
                        <floating> cu, &cpos[0], &cneg[0], nu0, tol, max_iter,
                        omega, &nu, &kl, &ent, &resid, &n_iter, eb, spb,
                        sp_valid and spb != NULL)
    return nu, kl, ent, resid, n_iter, status


def _balance_py(const double[::1] g, double T, double r, double nu0=0.0,
                double tol=1e-12, int max_iter=500):
    """Test hook: (nu, mean(p) - r, n_iter, status) of the balance root finder."""
    cdef Py_ssize_t u = g.shape[0]
    if u == 0 or not (T > 0 and 0 < r < 1):
        raise ValueError("need len(g) > 0, T > 0 and 0 < r < 1")
    cdef double nu = 0, resid = 0
    cdef int n_iter = 0, status
    with nogil:
        status = _balance(&g[0], u, T, r, nu0, tol, max_iter, &nu, &resid,
                          &n_iter)
    return nu, resid, n_iter, status


# ---------------------------------------------------------------------------
# objective sums of the semi-supervised loops, as NumPy computes them

cdef double _pairwise_sum(const double *a, Py_ssize_t n) noexcept nogil:
    """NumPy's pairwise summation of a contiguous float64 array (``np.sum``
    is ``0.0 + `` this): below 8 entries a plain loop, up to 128 eight
    accumulators, above that the two halves (the first a multiple of 8)."""
    cdef Py_ssize_t i, n2
    cdef double res, r0, r1, r2, r3, r4, r5, r6, r7
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    if n <= 128:
        r0 = a[0]
        r1 = a[1]
        r2 = a[2]
        r3 = a[3]
        r4 = a[4]
        r5 = a[5]
        r6 = a[6]
        r7 = a[7]
        i = 8
        while i < n - (n % 8):
            r0 += a[i]
            r1 += a[i + 1]
            r2 += a[i + 2]
            r3 += a[i + 3]
            r4 += a[i + 4]
            r5 += a[i + 5]
            r6 += a[i + 6]
            r7 += a[i + 7]
            i += 8
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            res += a[i]
            i += 1
        return res
    n2 = n // 2
    n2 -= n2 % 8
    return _pairwise_sum(a, n2) + _pairwise_sum(a + n2, n - n2)


cdef inline double _np_max0(double v) noexcept nogil:
    """np.maximum(0.0, v) (NaN passes through)."""
    return v if not v <= 0.0 else 0.0


def _np_sum(const double[::1] a):
    """Test hook: :c:func:`_pairwise_sum` as ``np.sum`` gives it."""
    cdef double s
    with nogil:
        s = 0.0 + _pairwise_sum(&a[0] if a.shape[0] else NULL, a.shape[0])
    return s


def objective_sums(const floating[::1] w, const floating[::1] o,
                   const Py_ssize_t[::1] idx_l, const double[::1] y_l,
                   const double[::1] c_l, const int[::1] idx_u,
                   const signed char[::1] yu, int unlabeled):
    """The sums of the TSVM/DA objectives with NumPy's bits (``np.sum`` of
    the same float64 terms, in its pairwise order):

    * ``sum(w^2)``;
    * ``sum(c_l m^2)``, m = max(0, 1 - y_l o_l) on the labeled rows;
    * on the unlabeled rows, ``unlabeled`` 0: nothing (0.0); 1: ``sum(m^2)``,
      m = max(0, 1 - |o_u|) (label-free loss); 2: ``sum(m^2)``,
      m = max(0, 1 - yu o_u) (the temporary labels ``yu``).

    Each term is the NumPy expression's: float64 conversions, then
    ``(c m) m`` and ``m m``. Returns ``(s_w, s_l, s_u)``.
    """
    cdef Py_ssize_t D = w.shape[0], n = o.shape[0], l = idx_l.shape[0]
    cdef Py_ssize_t u = idx_u.shape[0], j, i
    cdef double s_w = 0, s_l = 0, s_u = 0, m, wj
    if y_l.shape[0] != l or c_l.shape[0] != l:
        raise ValueError("y_l and c_l need one entry per labeled row")
    if unlabeled == 2 and yu.shape[0] != u:
        raise ValueError("yu needs one entry per unlabeled row")
    if not 0 <= unlabeled <= 2:
        raise ValueError("unlabeled must be 0, 1 or 2")
    for j in range(l):
        if not 0 <= idx_l[j] < n:
            raise ValueError("idx_l holds a row index out of range")
    for j in range(u):
        if not 0 <= idx_u[j] < n:
            raise ValueError("idx_u holds a row index out of range")
    buf = np.empty(max(D, l, u, 1))
    cdef double[::1] t = buf
    with nogil:
        for j in range(D):
            wj = w[j]
            t[j] = wj * wj
        s_w = 0.0 + _pairwise_sum(&t[0], D)
        for j in range(l):
            m = _np_max0(1.0 - y_l[j] * <double> o[idx_l[j]])
            t[j] = c_l[j] * m * m
        s_l = 0.0 + _pairwise_sum(&t[0], l)
        if unlabeled:
            for j in range(u):
                i = idx_u[j]
                if unlabeled == 1:
                    m = _np_max0(1.0 - fabs(<double> o[i]))
                else:
                    m = _np_max0(1.0 - <double> yu[j] * <double> o[i])
                t[j] = m * m
            s_u = 0.0 + _pairwise_sum(&t[0], u)
    return s_w, s_l, s_u


def set_label_costs(const int[::1] idx_u, const signed char[::1] yu, double cu,
                    floating[::1] cpos, floating[::1] cneg):
    """TSVM's unlabeled MFN costs from the temporary labels, in place:
    ``cpos[idx_u] = where(yu > 0, cu, 0)``, ``cneg[idx_u] = where(yu < 0,
    cu, 0)`` (cu rounded once to the costs' precision, as NumPy casts)."""
    cdef Py_ssize_t u = idx_u.shape[0], j, i
    cdef floating c = <floating> cu
    if yu.shape[0] != u:
        raise ValueError("yu needs one entry per unlabeled row")
    _check_common(cpos.shape[0], idx_u, cpos, cneg)
    with nogil:
        for j in range(u):
            i = idx_u[j]
            cpos[i] = c if yu[j] > 0 else 0
            cneg[i] = c if yu[j] < 0 else 0
