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
from cython.parallel cimport prange
from libc.string cimport memcpy
from semisvm._core._linesearch cimport Event, ev_less, sort_events


# ---------------------------------------------------------------------------
# Fixed row blocks of the O(u) passes. Every pass over the unlabeled rows is
# cut into blocks of BLOCK consecutive rows, a number that depends on u only;
# ``n_threads`` threads take the blocks, each block's sums are kept apart and
# added in block order, so every result has the same bits for any thread
# count. A problem of at most BLOCK unlabeled rows is one block: the former
# single-pass arithmetic, bit for bit (the papers' sets and the held-out
# suite, a few thousand rows, stay there). Element-wise steps (the label
# costs, g, z, p) and min / max reductions give the same bits for any block
# size; the root finder's, KL's and entropy's sums change their rounding from
# one block to more (the whole pass's sums to 1e-16 relative).

cdef Py_ssize_t BLOCK = 8192


def _set_block(Py_ssize_t rows):
    """Test hook: set the rows per block (>= 1); returns the former value."""
    global BLOCK
    if rows < 1:
        raise ValueError(f"rows must be >= 1, got {rows}")
    old = BLOCK
    BLOCK = rows
    return old


cdef inline Py_ssize_t _nb(Py_ssize_t u) noexcept nogil:
    """Blocks of u rows."""
    return (u + BLOCK - 1) // BLOCK


cdef inline Py_ssize_t _b_end(Py_ssize_t b, Py_ssize_t u) noexcept nogil:
    """End (exclusive) of block b."""
    cdef Py_ssize_t e = (b + 1) * BLOCK
    return e if e < u else u


cdef inline int _nt(int n_threads, Py_ssize_t nb) noexcept nogil:
    """Threads for nb blocks: one for a single block (no parallel region)."""
    if nb <= 1 or n_threads <= 1:
        return 1
    return n_threads if n_threads < nb else <int> nb


cdef Py_ssize_t _bad_idx(const int *idx, Py_ssize_t j0, Py_ssize_t j1,
                         Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t j, bad = 0
    for j in range(j0, j1):
        bad += not 0 <= idx[j] < n
    return bad


cdef bint _idx_in_range(const int *idx, Py_ssize_t u, Py_ssize_t n,
                        int n_threads) noexcept nogil:
    """Every idx[j] in [0, n)? (blocks on n_threads threads)"""
    cdef Py_ssize_t nb = _nb(u), b, bad = 0
    cdef int nt = _nt(n_threads, nb)
    if nt > 1:
        for b in prange(nb, schedule="dynamic", num_threads=nt):
            bad += _bad_idx(idx, b * BLOCK, _b_end(b, u), n)
    else:
        bad = _bad_idx(idx, 0, u, n)
    return bad == 0


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


cdef void _switch_bounds(const floating *o, const int *idx_u,
                         const signed char *yu, Py_ssize_t j0, Py_ssize_t j1,
                         double *out) noexcept nogil:
    """The smallest output labelled +1 and the largest labelled -1 of rows
    j0..j1-1 (1e300 / -1e300 when none)."""
    cdef Py_ssize_t j
    cdef double min_pos = 1e300, max_neg = -1e300, oj
    for j in range(j0, j1):
        oj = o[idx_u[j]]
        if yu[j] > 0:
            if oj < min_pos:
                min_pos = oj
        elif oj > max_neg:
            max_neg = oj
    out[0] = min_pos
    out[1] = max_neg


cdef void _switch_collect(const floating *o, const int *idx_u,
                          const signed char *yu, Py_ssize_t j0, Py_ssize_t j1,
                          double min_pos, double max_neg, Event *kp,
                          Event *kn, Py_ssize_t *cnt) noexcept nogil:
    """The candidates of rows j0..j1-1 into kp[0:], kn[0:], each sorted
    (L+ ascending by output, L- descending; ties: lowest index first); their
    counts into cnt[0], cnt[1]."""
    cdef Py_ssize_t j, n_p = 0, n_n = 0
    cdef double oj
    for j in range(j0, j1):
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
    # the break-point struct of _linesearch holds the sort key (delta) and
    # the row
    sort_events(kp, n_p)
    sort_events(kn, n_n)
    cnt[0] = n_p
    cnt[1] = n_n


cdef inline void _heap_down(const Event *ev, const Py_ssize_t *pos,
                            Py_ssize_t *heap, Py_ssize_t h,
                            Py_ssize_t i) noexcept nogil:
    """Sift heap[i] down the min-heap of runs keyed by their heads
    ev[b BLOCK + pos[b]]."""
    cdef Py_ssize_t c, x = heap[i]
    while True:
        c = 2 * i + 1
        if c >= h:
            break
        if c + 1 < h and ev_less(&ev[heap[c + 1] * BLOCK + pos[heap[c + 1]]],
                                 &ev[heap[c] * BLOCK + pos[heap[c]]]):
            c += 1
        if not ev_less(&ev[heap[c] * BLOCK + pos[heap[c]]],
                       &ev[x * BLOCK + pos[x]]):
            break
        heap[i] = heap[c]
        i = c
    heap[i] = x


cdef Py_ssize_t _merge_runs(const Event *ev, const Py_ssize_t *cnt,
                            Py_ssize_t nb, Py_ssize_t take, Event *out,
                            Py_ssize_t *heap, Py_ssize_t *pos) noexcept nogil:
    """The first ``take`` events, by ev_less, of the sorted runs
    ev[b BLOCK : b BLOCK + cnt[2 b]] (b < nb) into out; returns how many
    (fewer when the runs hold fewer). ev_less is a total order (unique
    keys): the first events of the one sorted list."""
    cdef Py_ssize_t b, h = 0, m = 0, i
    for b in range(nb):
        pos[b] = 0
        if cnt[2 * b] > 0:
            heap[h] = b
            h += 1
    i = h // 2
    while i > 0:
        i -= 1
        _heap_down(ev, pos, heap, h, i)
    while m < take and h > 0:
        b = heap[0]
        out[m] = ev[b * BLOCK + pos[b]]
        m += 1
        pos[b] += 1
        if pos[b] == cnt[2 * b]:
            h -= 1
            heap[0] = heap[h]
        if h > 0:
            _heap_down(ev, pos, heap, h, 0)
    return m


cdef Py_ssize_t _switch(const floating *o, const int *idx_u, Py_ssize_t u,
                        signed char *yu, Py_ssize_t S, floating cu,
                        floating *cpos, floating *cneg, Event *kp,
                        Event *kn, Event *mp, Event *mn, double *part,
                        Py_ssize_t *cnt, int n_threads) noexcept nogil:
    """The switching round (see tsvm_switch). kp, kn: u events each; mp, mn:
    min(S, u) each (used with more than one block); part: 2 nb doubles, cnt:
    4 nb entries (nb blocks)."""
    cdef Py_ssize_t j, n_p = 0, n_n = 0, k, b, nb = _nb(u)
    cdef Py_ssize_t t_p = 0, t_n = 0
    cdef double min_pos, max_neg
    cdef int nt = _nt(n_threads, nb)
    cdef Event *lp = kp
    cdef Event *ln = kn
    # only outputs that can be part of a lowering pair are sorted:
    # positives below the largest negative output, negatives above the
    # smallest positive output (min / max by blocks: the same values)
    if nt > 1:
        for b in prange(nb, schedule="dynamic", num_threads=nt):
            _switch_bounds(o, idx_u, yu, b * BLOCK, _b_end(b, u),
                           part + 2 * b)
    else:
        for b in range(nb):
            _switch_bounds(o, idx_u, yu, b * BLOCK, _b_end(b, u),
                           part + 2 * b)
    min_pos = part[0]
    max_neg = part[1]
    for b in range(1, nb):
        if part[2 * b] < min_pos:
            min_pos = part[2 * b]
        if part[2 * b + 1] > max_neg:
            max_neg = part[2 * b + 1]
    if not min_pos < max_neg:
        return 0
    # each block's candidates, sorted, at its own offset b BLOCK
    if nt > 1:
        for b in prange(nb, schedule="dynamic", num_threads=nt):
            _switch_collect(o, idx_u, yu, b * BLOCK, _b_end(b, u), min_pos,
                            max_neg, kp + b * BLOCK, kn + b * BLOCK,
                            cnt + 2 * b)
    else:
        for b in range(nb):
            _switch_collect(o, idx_u, yu, b * BLOCK, _b_end(b, u), min_pos,
                            max_neg, kp + b * BLOCK, kn + b * BLOCK,
                            cnt + 2 * b)
    if nb == 1:
        n_p = cnt[0]
        n_n = cnt[1]
    else:
        # the first S of the one sorted order (a total order: the same
        # events as sorting all candidates at once)
        for b in range(nb):
            t_p += cnt[2 * b]
            t_n += cnt[2 * b + 1]
        n_p = _merge_runs(kp, cnt, nb, S if S < t_p else t_p, mp,
                          cnt + 2 * nb, cnt + 3 * nb)
        n_n = _merge_runs(kn, cnt + 1, nb, S if S < t_n else t_n, mn,
                          cnt + 2 * nb, cnt + 3 * nb)
        lp = mp
        ln = mn
    k = 0
    while k < S and k < n_p and k < n_n and lp[k].delta < -ln[k].delta:
        j = lp[k].key
        yu[j] = -1
        cpos[idx_u[j]] = 0
        cneg[idx_u[j]] = cu
        j = ln[k].key
        yu[j] = 1
        cpos[idx_u[j]] = cu
        cneg[idx_u[j]] = 0
        k += 1
    return k


cdef void _eval_block(const double *g, Py_ssize_t j0, Py_ssize_t j1,
                      double T, double nu, double *e_out,
                      double *out) noexcept nogil:
    """sum_j p_j(nu) and sum_j p_j (1 - p_j) over rows j0..j1-1 into out[0],
    out[1], in row order; if ``e_out`` is not NULL, exp(-|z_j|) (z_j = (g_j
    - nu) / T) in e_out[j]: the exp of ``_sigmoid_neg(z_j)``, whose p_j it
    gives bitwise."""
    cdef Py_ssize_t j
    cdef double s = 0, sd = 0, pj, zj, e
    if e_out == NULL:
        for j in range(j0, j1):
            pj = _sigmoid_neg((g[j] - nu) / T)
            s += pj
            sd += pj * (1.0 - pj)
    else:
        for j in range(j0, j1):
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
    out[0] = s
    out[1] = sd


cdef double _balance_eval(const double *g, Py_ssize_t u, double T, double nu,
                          double *fprime, double *e_out, int n_threads,
                          double *part) noexcept nogil:
    """Return mean_j p_j(nu); store mean_j p_j (1 - p_j) / T in fprime (and
    the exps in ``e_out``, see _eval_block). The sums by blocks (``part``: 2
    per block), added in block order: one block is the plain row-order sum."""
    cdef Py_ssize_t b, nb = _nb(u)
    cdef int nt = _nt(n_threads, nb)
    cdef double s, sd
    if nt > 1:
        for b in prange(nb, schedule="dynamic", num_threads=nt):
            _eval_block(g, b * BLOCK, _b_end(b, u), T, nu, e_out,
                        part + 2 * b)
    else:
        for b in range(nb):
            _eval_block(g, b * BLOCK, _b_end(b, u), T, nu, e_out,
                        part + 2 * b)
    s = part[0]
    sd = part[1]
    for b in range(1, nb):
        s += part[2 * b]
        sd += part[2 * b + 1]
    fprime[0] = sd / (u * T)
    return s / u


cdef void _range_block(const double *g, Py_ssize_t j0, Py_ssize_t j1,
                       double *out) noexcept nogil:
    cdef Py_ssize_t j
    cdef double gmin = g[j0], gmax = g[j0]
    for j in range(j0 + 1, j1):
        if g[j] < gmin:
            gmin = g[j]
        if g[j] > gmax:
            gmax = g[j]
    out[0] = gmin
    out[1] = gmax


cdef void _range_combine(const double *part, Py_ssize_t nb, double *gmin,
                         double *gmax) noexcept nogil:
    """The blocks' (min, max) pairs combined in block order: min and max of
    all rows, as one pass gives them."""
    cdef Py_ssize_t b
    gmin[0] = part[0]
    gmax[0] = part[1]
    for b in range(1, nb):
        if part[2 * b] < gmin[0]:
            gmin[0] = part[2 * b]
        if part[2 * b + 1] > gmax[0]:
            gmax[0] = part[2 * b + 1]


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
                  double *resid, int *n_iter, double gmin, double gmax,
                  double *e_out, int n_threads, double *part) noexcept nogil:
    """Safeguarded Newton/bisection for mean_j sigmoid((nu - g_j)/T) = r,
    from the range [gmin, gmax] of g. ``e_out`` (u, or NULL) receives the
    exps of the last evaluation, the one at the returned nu (every exit
    follows an evaluation at nu); ``part``: 2 doubles per block."""
    cdef double lo, hi, nu, f, fp
    cdef int it, status = ROOT_MAX_ITER
    _root_bracket(gmin, gmax, T, r, nu0, &lo, &hi, &nu)
    n_iter[0] = 0
    for it in range(1, max_iter + 1):
        n_iter[0] = it
        f = _balance_eval(g, u, T, nu, &fp, e_out, n_threads, part) - r
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


cdef void _g_block(const floating *o, const int *idx_u, Py_ssize_t j0,
                   Py_ssize_t j1, double lam_u, double omega, double c,
                   const double *z, double *g, double *out) noexcept nogil:
    """g_j = lam_u [l2(o_j) - l2(-o_j)] (+ c z_j when omega != 1) on rows
    j0..j1-1, and their (min, max) into out."""
    cdef Py_ssize_t j
    cdef double oj
    for j in range(j0, j1):
        oj = o[idx_u[j]]
        g[j] = lam_u * (_l2(oj) - _l2(-oj))
        if omega != 1.0:
            g[j] += c * z[j]
    _range_block(g, j0, j1, out)


cdef void _p_block(Py_ssize_t j0, Py_ssize_t j1, Py_ssize_t u,
                   const int *idx_u, double *z, double *p, const double *g,
                   double nu, double Te, floating cu, floating *cpos,
                   floating *cneg, const double *ebuf, double *sp,
                   bint sp_valid, double *out) noexcept nogil:
    """The new z, p and costs of rows j0..j1-1; their KL, entropy and p sums
    (row order) into out[0:3]."""
    cdef Py_ssize_t j
    cdef double zj, pj, zq, s_kl = 0, s_h = 0, s_p = 0
    cdef double spq, spq_neg, spz, spz_neg, e, l
    for j in range(j0, j1):
        zq = z[j]
        zj = (g[j] - nu) / Te
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
    out[0] = s_kl
    out[1] = s_h
    out[2] = s_p


cdef int _pstep(const floating *o, const int *idx_u, Py_ssize_t u,
                double lam_u, double T, double r, double *z, double *p,
                double *g, floating cu, floating *cpos, floating *cneg,
                double nu0, double tol, int max_iter, double omega,
                double *nu, double *kl, double *entropy, double *resid,
                int *n_iter, double *ebuf, double *sp, bint sp_valid,
                int n_threads, double *part) noexcept nogil:
    """The p-step (see :func:`da_pstep`). ``ebuf`` (u) and ``sp`` (2 u),
    or NULL: work that saves transcendental calls, the same bits: the
    balance root's last evaluation leaves exp(-|z_j|) in ebuf (p_j and the
    softplus of +-z_j need no other exp), and sp holds softplus(+-z_j) of
    the z this step leaves, for the KL term of the next step (``sp_valid``:
    sp holds them for the z this step enters with). Every pass in blocks on
    ``n_threads`` threads (``part``: 3 doubles per block)."""
    cdef Py_ssize_t b, nb = _nb(u)
    cdef int nt = _nt(n_threads, nb)
    cdef double s_kl, s_h, s_p, gmin, gmax
    # over-relaxed logits z = (1 - omega) zq + omega (g - nu) / T
    #                       = (G - nu) / (T / omega), G = g + (1/omega - 1) T zq:
    # the same balance root on G at temperature T / omega
    cdef double Te = T / omega, c = (1.0 / omega - 1.0) * T
    cdef int status
    # g_j = lam_u [l2(o_j) - l2(-o_j)], and the range of g
    if nt > 1:
        for b in prange(nb, schedule="dynamic", num_threads=nt):
            _g_block(o, idx_u, b * BLOCK, _b_end(b, u), lam_u, omega, c, z,
                     g, part + 2 * b)
    else:
        for b in range(nb):
            _g_block(o, idx_u, b * BLOCK, _b_end(b, u), lam_u, omega, c, z,
                     g, part + 2 * b)
    _range_combine(part, nb, &gmin, &gmax)
    status = _balance(g, u, Te, r, nu0, tol, max_iter, nu, resid, n_iter,
                      gmin, gmax, ebuf, n_threads, part)
    if nt > 1:
        for b in prange(nb, schedule="dynamic", num_threads=nt):
            _p_block(b * BLOCK, _b_end(b, u), u, idx_u, z, p, g, nu[0], Te,
                     cu, cpos, cneg, ebuf, sp, sp_valid, part + 3 * b)
    else:
        for b in range(nb):
            _p_block(b * BLOCK, _b_end(b, u), u, idx_u, z, p, g, nu[0], Te,
                     cu, cpos, cneg, ebuf, sp, sp_valid, part + 3 * b)
    s_kl = part[0]
    s_h = part[1]
    s_p = part[2]
    for b in range(1, nb):
        s_kl += part[3 * b]
        s_h += part[3 * b + 1]
        s_p += part[3 * b + 2]
    kl[0] = s_kl / u
    entropy[0] = s_h / u
    resid[0] = s_p / u - r
    return status


def _check_common(Py_ssize_t n, const int[::1] idx_u, floating[::1] cpos,
                  floating[::1] cneg, int n_threads=1):
    cdef Py_ssize_t u = idx_u.shape[0]
    cdef bint ok
    if cpos.shape[0] != n or cneg.shape[0] != n:
        raise ValueError("cpos and cneg need one entry per row of o")
    if u:
        with nogil:
            ok = _idx_in_range(&idx_u[0], u, n, n_threads)
        if not ok:
            raise ValueError("idx_u holds a row index out of range")


def _check_threads(n_threads):
    if n_threads < 1:
        raise ValueError(f"n_threads must be >= 1, got {n_threads}")


def switch_work_len(Py_ssize_t u, Py_ssize_t S):
    """Bytes of :func:`tsvm_switch`'s work buffer for u unlabeled rows and
    at most S pairs per round."""
    return (2 * u + 2 * min(max(S, 0), u)) * sizeof(Event)


def tsvm_switch(const floating[::1] o, const int[::1] idx_u,
                signed char[::1] yu, Py_ssize_t S, double cu,
                floating[::1] cpos, floating[::1] cneg,
                unsigned char[::1] work=None, int n_threads=1):
    """Switch up to ``S`` label pairs of TSVM's unlabeled rows, in place.

    ``o`` holds the outputs of all rows, ``idx_u`` the unlabeled rows, ``yu``
    their temporary labels (+1/-1, updated), ``cpos``/``cneg`` the MFN costs
    of all rows (the switched rows get ``cu`` on their new side). Returns the
    number of pairs switched; 0 means no pair swap lowers the objective.
    ``work``: a uint8 buffer of at least ``switch_work_len(u, S)`` bytes kept
    by the caller across rounds (None: one per call). ``n_threads``: threads
    of the passes over the unlabeled rows, cut into fixed blocks (each
    block's candidates sorted, then the first S of all merged: the pairs of
    one sort of all candidates), the same answer for any value.
    """
    cdef Py_ssize_t u = idx_u.shape[0], k, nb
    if yu.shape[0] != u:
        raise ValueError("yu needs one entry per unlabeled row")
    if S < 1:
        raise ValueError(f"S must be >= 1, got {S}")
    _check_threads(n_threads)
    _check_common(o.shape[0], idx_u, cpos, cneg, n_threads)
    if u == 0:
        return 0
    need = switch_work_len(u, S)
    if work is None:
        work = np.empty(need, dtype=np.uint8)
    elif work.shape[0] < need:
        raise ValueError(f"work needs at least {need} bytes, got {work.shape[0]}")
    nb = _nb(u)
    cdef double[::1] part = np.empty(2 * nb)
    cdef Py_ssize_t[::1] cnt = np.empty(4 * nb, dtype=np.intp)
    cdef Event *kp = <Event *> &work[0]
    with nogil:
        k = _switch(&o[0], &idx_u[0], u, &yu[0], S, <floating> cu, &cpos[0],
                    &cneg[0], kp, kp + u, kp + 2 * u,
                    kp + 2 * u + min(S, u), &part[0], &cnt[0], n_threads)
    return k


def da_pstep(const floating[::1] o, const int[::1] idx_u, double lam_u,
             double T, double r, double[::1] z, double[::1] p, double cu,
             floating[::1] cpos, floating[::1] cneg, double nu0=0.0,
             double tol=1e-12, int max_iter=500, double omega=1.0,
             double[::1] work=None, bint sp_valid=False, int n_threads=1):
    """DA-S3VM p-step in place: new logits ``z``, probabilities ``p`` and costs.

    ``z`` enters holding the previous logits zq (for the KL divergence) and
    leaves with z_j = (g_j - nu) / T; ``p = 1 / (1 + exp(z))`` with
    mean(p) = r; ``cpos[idx_u] = cu p``, ``cneg[idx_u] = cu (1 - p)``.
    ``omega`` != 1: the over-relaxed step z_j = (1 - omega) zq_j + omega
    (g_j - nu) / T, nu again such that mean(p) = r (a fixed point of either
    step is one of the other, with the same nu); the KL divergence is that
    of the step taken. ``work`` (3 u or 4 u, or None): kept by the caller
    across p-steps, it saves two exps and a log1p per row (the same bits);
    its entries u..3u then hold softplus(+-z) of the z left, which the next
    step uses when ``sp_valid`` (z untouched in between); a 4th u entries
    hold g (else allocated per call). ``n_threads``: threads of the passes
    over the unlabeled rows, cut into fixed blocks (the same bits for any
    value; see the module's block notes).

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
    _check_threads(n_threads)
    _check_common(o.shape[0], idx_u, cpos, cneg, n_threads)
    if u == 0:
        return nu0, 0.0, 0.0, 0.0, 0, ROOT_OK
    cdef double[::1] g
    cdef double nu = 0, kl = 0, ent = 0, resid = 0
    cdef int n_iter = 0, status
    cdef double *eb = NULL
    cdef double *spb = NULL
    if work is not None:
        if work.shape[0] != 3 * u and work.shape[0] != 4 * u:
            raise ValueError("work needs 3 or 4 entries per unlabeled row")
        eb = &work[0]
        spb = &work[u]
    if work is not None and work.shape[0] == 4 * u:
        g = work[3 * u:]
    else:
        g = np.empty(u)
    cdef double[::1] part = np.empty(3 * _nb(u))
    with nogil:
        status = _pstep(&o[0], &idx_u[0], u, lam_u, T, r, &z[0], &p[0], &g[0],
                        <floating> cu, &cpos[0], &cneg[0], nu0, tol, max_iter,
                        omega, &nu, &kl, &ent, &resid, &n_iter, eb, spb,
                        sp_valid and spb != NULL, n_threads, &part[0])
    return nu, kl, ent, resid, n_iter, status


def _balance_py(const double[::1] g, double T, double r, double nu0=0.0,
                double tol=1e-12, int max_iter=500, int n_threads=1):
    """Test hook: (nu, mean(p) - r, n_iter, status) of the balance root finder."""
    cdef Py_ssize_t u = g.shape[0], b, nb
    if u == 0 or not (T > 0 and 0 < r < 1):
        raise ValueError("need len(g) > 0, T > 0 and 0 < r < 1")
    _check_threads(n_threads)
    nb = _nb(u)
    cdef double[::1] part = np.empty(2 * nb)
    cdef double nu = 0, resid = 0, gmin, gmax
    cdef int n_iter = 0, status
    with nogil:
        for b in range(nb):
            _range_block(&g[0], b * BLOCK, _b_end(b, u), &part[2 * b])
        _range_combine(&part[0], nb, &gmin, &gmax)
        status = _balance(&g[0], u, T, r, nu0, tol, max_iter, &nu, &resid,
                          &n_iter, gmin, gmax, NULL, n_threads, &part[0])
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


#: leaves of the pairwise tree summed apart on threads (>= 128, so that the
#: tree above them is the one _pairwise_sum walks)
cdef Py_ssize_t PW_LEAF = 8192


def _set_pw_leaf(Py_ssize_t n):
    """Test hook: set the parallel pairwise sum's leaf size (>= 128); returns
    the former value."""
    global PW_LEAF
    if n < 128:
        raise ValueError(f"the leaf size must be >= 128, got {n}")
    old = PW_LEAF
    PW_LEAF = n
    return old


cdef Py_ssize_t _pw_leaves(Py_ssize_t off, Py_ssize_t n, Py_ssize_t *lo,
                           Py_ssize_t *ln, Py_ssize_t k) noexcept nogil:
    """The nodes of _pairwise_sum's recursion of at most PW_LEAF entries,
    left to right, into (lo, ln)[k:]; returns the new count."""
    cdef Py_ssize_t n2
    if n <= PW_LEAF:
        lo[k] = off
        ln[k] = n
        return k + 1
    n2 = n // 2
    n2 -= n2 % 8
    k = _pw_leaves(off, n2, lo, ln, k)
    return _pw_leaves(off + n2, n - n2, lo, ln, k)


cdef double _pw_combine(Py_ssize_t n, const double *leaf,
                        Py_ssize_t *k) noexcept nogil:
    """_pairwise_sum's recursion above the leaves, from their sums."""
    cdef Py_ssize_t n2
    cdef double left, right
    if n <= PW_LEAF:
        left = leaf[k[0]]
        k[0] += 1
        return left
    n2 = n // 2
    n2 -= n2 % 8
    left = _pw_combine(n2, leaf, k)
    right = _pw_combine(n - n2, leaf, k)
    return left + right


cdef inline Py_ssize_t _pw_max_leaves(Py_ssize_t n) noexcept nogil:
    # every leaf below a split holds more than PW_LEAF / 2 - 8 entries
    return n // (PW_LEAF // 2 - 8) + 2


cdef double _pairwise_par(const double *a, Py_ssize_t n, int n_threads,
                          Py_ssize_t *lo, Py_ssize_t *ln,
                          double *leaf) noexcept nogil:
    """:c:func:`_pairwise_sum`, bit for bit, its leaves of at most PW_LEAF
    entries summed on ``n_threads`` threads (lo, ln, leaf:
    ``_pw_max_leaves(n)`` entries each)."""
    cdef Py_ssize_t m, k = 0
    cdef int nt
    if n <= PW_LEAF or n_threads <= 1:
        return _pairwise_sum(a, n)
    m = _pw_leaves(0, n, lo, ln, 0)
    nt = _nt(n_threads, m)
    for k in prange(m, schedule="dynamic", num_threads=nt):
        leaf[k] = _pairwise_sum(a + lo[k], ln[k])
    k = 0
    return _pw_combine(n, leaf, &k)


def _np_sum_par(const double[::1] a, int n_threads=1):
    """Test hook: :c:func:`_pairwise_par` (``np.sum``'s bits)."""
    cdef Py_ssize_t n = a.shape[0], m = _pw_max_leaves(a.shape[0])
    cdef Py_ssize_t[::1] lo = np.empty(m, dtype=np.intp)
    cdef Py_ssize_t[::1] ln = np.empty(m, dtype=np.intp)
    cdef double[::1] leaf = np.empty(m)
    cdef double s
    if n == 0:
        return 0.0
    with nogil:
        s = 0.0 + _pairwise_par(&a[0], n, n_threads, &lo[0], &ln[0], &leaf[0])
    return s


cdef inline double _np_max0(double v) noexcept nogil:
    """np.maximum(0.0, v) (NaN passes through)."""
    return v if not v <= 0.0 else 0.0


def _np_sum(const double[::1] a):
    """Test hook: :c:func:`_pairwise_sum` as ``np.sum`` gives it."""
    cdef double s
    with nogil:
        s = 0.0 + _pairwise_sum(&a[0] if a.shape[0] else NULL, a.shape[0])
    return s


cdef void _sq_block(const floating *w, Py_ssize_t j0, Py_ssize_t j1,
                    double *t) noexcept nogil:
    cdef Py_ssize_t j
    cdef double wj
    for j in range(j0, j1):
        wj = w[j]
        t[j] = wj * wj


cdef void _u_terms_block(const floating *o, const int *idx_u,
                         const signed char *yu, int unlabeled, Py_ssize_t j0,
                         Py_ssize_t j1, double *t) noexcept nogil:
    cdef Py_ssize_t j, i
    cdef double m
    for j in range(j0, j1):
        i = idx_u[j]
        if unlabeled == 1:
            m = _np_max0(1.0 - fabs(<double> o[i]))
        else:
            m = _np_max0(1.0 - <double> yu[j] * <double> o[i])
        t[j] = m * m


def objective_sums(const floating[::1] w, const floating[::1] o,
                   const Py_ssize_t[::1] idx_l, const double[::1] y_l,
                   const double[::1] c_l, const int[::1] idx_u,
                   const signed char[::1] yu, int unlabeled,
                   int n_threads=1):
    """The sums of the TSVM/DA objectives with NumPy's bits (``np.sum`` of
    the same float64 terms, in its pairwise order):

    * ``sum(w^2)``;
    * ``sum(c_l m^2)``, m = max(0, 1 - y_l o_l) on the labeled rows;
    * on the unlabeled rows, ``unlabeled`` 0: nothing (0.0); 1: ``sum(m^2)``,
      m = max(0, 1 - |o_u|) (label-free loss); 2: ``sum(m^2)``,
      m = max(0, 1 - yu o_u) (the temporary labels ``yu``).

    Each term is the NumPy expression's: float64 conversions, then
    ``(c m) m`` and ``m m``. Returns ``(s_w, s_l, s_u)``. ``n_threads``:
    the terms in blocks and the pairwise sum's subtrees on that many
    threads (the same bits for any value).
    """
    cdef Py_ssize_t D = w.shape[0], n = o.shape[0], l = idx_l.shape[0]
    cdef Py_ssize_t u = idx_u.shape[0], j, b, nb
    cdef double s_w = 0, s_l = 0, s_u = 0, m
    cdef int nt
    cdef bint ok
    if y_l.shape[0] != l or c_l.shape[0] != l:
        raise ValueError("y_l and c_l need one entry per labeled row")
    if unlabeled == 2 and yu.shape[0] != u:
        raise ValueError("yu needs one entry per unlabeled row")
    if not 0 <= unlabeled <= 2:
        raise ValueError("unlabeled must be 0, 1 or 2")
    _check_threads(n_threads)
    for j in range(l):
        if not 0 <= idx_l[j] < n:
            raise ValueError("idx_l holds a row index out of range")
    if u:
        with nogil:
            ok = _idx_in_range(&idx_u[0], u, n, n_threads)
        if not ok:
            raise ValueError("idx_u holds a row index out of range")
    cdef Py_ssize_t big = max(D, l, u, 1)
    buf = np.empty(big)
    cdef double[::1] t = buf
    cdef Py_ssize_t ml = _pw_max_leaves(big)
    cdef Py_ssize_t[::1] lo = np.empty(ml, dtype=np.intp)
    cdef Py_ssize_t[::1] ln = np.empty(ml, dtype=np.intp)
    cdef double[::1] leaf = np.empty(ml)
    cdef const signed char *yp = &yu[0] if yu.shape[0] else NULL
    with nogil:
        nb = _nb(D)
        nt = _nt(n_threads, nb)
        if nt > 1:
            for b in prange(nb, schedule="dynamic", num_threads=nt):
                _sq_block(&w[0], b * BLOCK, _b_end(b, D), &t[0])
        else:
            _sq_block(&w[0], 0, D, &t[0])
        s_w = 0.0 + _pairwise_par(&t[0], D, n_threads, &lo[0], &ln[0],
                                  &leaf[0])
        for j in range(l):
            m = _np_max0(1.0 - y_l[j] * <double> o[idx_l[j]])
            t[j] = c_l[j] * m * m
        s_l = 0.0 + _pairwise_par(&t[0], l, n_threads, &lo[0], &ln[0],
                                  &leaf[0])
        if unlabeled:
            nb = _nb(u)
            nt = _nt(n_threads, nb)
            if nt > 1:
                for b in prange(nb, schedule="dynamic", num_threads=nt):
                    _u_terms_block(&o[0], &idx_u[0], yp, unlabeled,
                                   b * BLOCK, _b_end(b, u), &t[0])
            elif u:
                _u_terms_block(&o[0], &idx_u[0], yp, unlabeled, 0, u, &t[0])
            s_u = 0.0 + _pairwise_par(&t[0], u, n_threads, &lo[0], &ln[0],
                                      &leaf[0])
    return s_w, s_l, s_u


cdef void _cost_block(const int *idx_u, const signed char *yu, floating c,
                      floating *cpos, floating *cneg, Py_ssize_t j0,
                      Py_ssize_t j1) noexcept nogil:
    cdef Py_ssize_t j, i
    for j in range(j0, j1):
        i = idx_u[j]
        cpos[i] = c if yu[j] > 0 else 0
        cneg[i] = c if yu[j] < 0 else 0


def set_label_costs(const int[::1] idx_u, const signed char[::1] yu, double cu,
                    floating[::1] cpos, floating[::1] cneg, int n_threads=1):
    """TSVM's unlabeled MFN costs from the temporary labels, in place:
    ``cpos[idx_u] = where(yu > 0, cu, 0)``, ``cneg[idx_u] = where(yu < 0,
    cu, 0)`` (cu rounded once to the costs' precision, as NumPy casts);
    blocks of rows on ``n_threads`` threads."""
    cdef Py_ssize_t u = idx_u.shape[0], b, nb
    cdef floating c = <floating> cu
    cdef int nt
    if yu.shape[0] != u:
        raise ValueError("yu needs one entry per unlabeled row")
    _check_threads(n_threads)
    _check_common(cpos.shape[0], idx_u, cpos, cneg, n_threads)
    if u == 0:
        return
    nb = _nb(u)
    nt = _nt(n_threads, nb)
    with nogil:
        if nt > 1:
            for b in prange(nb, schedule="dynamic", num_threads=nt):
                _cost_block(&idx_u[0], &yu[0], c, &cpos[0], &cneg[0],
                            b * BLOCK, _b_end(b, u))
        else:
            _cost_block(&idx_u[0], &yu[0], c, &cpos[0], &cneg[0], 0, u)


cdef void _copy_block(const char *src, char *dst, Py_ssize_t j0,
                      Py_ssize_t j1) noexcept nogil:
    memcpy(dst + j0, src + j0, j1 - j0)


def copy_par(a, int n_threads=1):
    """A copy of the contiguous 1-d array ``a`` (``a.copy()``), its blocks
    copied (and the new pages first touched) on ``n_threads`` threads: the
    outputs TSVM/DA's MFN calls start from (semisvm._rows.LocalRows)."""
    _check_threads(n_threads)
    if a.ndim != 1 or not a.flags.c_contiguous:
        raise ValueError("copy_par needs a contiguous 1-d array")
    out = np.empty_like(a)
    cdef Py_ssize_t nbytes = a.nbytes, b, nb, blk = BLOCK * 8
    if nbytes == 0:
        return out
    cdef const unsigned char[::1] src = a.view(np.uint8)
    cdef unsigned char[::1] dst = out.view(np.uint8)
    nb = (nbytes + blk - 1) // blk
    cdef int nt = _nt(n_threads, nb)
    with nogil:
        if nt > 1:
            for b in prange(nb, schedule="static", num_threads=nt):
                _copy_block(<const char *> &src[0], <char *> &dst[0], b * blk,
                            min((b + 1) * blk, nbytes))
        else:
            _copy_block(<const char *> &src[0], <char *> &dst[0], 0, nbytes)
    return out
