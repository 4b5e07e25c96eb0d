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


cdef void _tv_cols(const int[::1] src, const int[::1] dst, const floating[::1] w,
                   const floating[:, ::1] g, double *out) noexcept nogil:
    """out[k] = sum_e w_e |g[dst_e, k] - g[src_e, k]| for every column k."""
    cdef Py_ssize_t e, k, c = g.shape[1], s, d
    for k in range(c):
        out[k] = 0
    for e in range(src.shape[0]):
        s = src[e]
        d = dst[e]
        for k in range(c):
            out[k] += w[e] * fabs(<double> g[d, k] - g[s, k])


cdef void _primal_cols(const int[::1] src, const int[::1] dst, const floating[::1] w,
                       const floating[:, ::1] z, const floating[:, ::1] g,
                       double gamma, const double *rho, double *out,
                       double *work) noexcept nogil:
    """out[k] = gamma TV(g_k) + rho_k/2 ||g_k - z_k||^2 (work: c doubles)."""
    cdef Py_ssize_t i, k, n = g.shape[0], c = g.shape[1]
    cdef double d
    _tv_cols(src, dst, w, g, out)
    for k in range(c):
        work[k] = 0
    for i in range(n):
        for k in range(c):
            d = <double> g[i, k] - z[i, k]
            work[k] += d * d
    for k in range(c):
        out[k] = gamma * out[k] + 0.5 * rho[k] * work[k]


cdef int _rof(const int[::1] src, const int[::1] dst, const floating[::1] w,
              const floating[:, ::1] z, double gamma, const double *rho,
              double L, double step_ratio, floating[:, ::1] g,
              floating[:, ::1] p, double tol,
              int max_iter, floating[:, ::1] gbar, floating[:, ::1] div,
              floating[:, ::1] ghat, double *tau, double *sigma, double *theta,
              double *gap, double *primal, double *work) noexcept nogil:
    """Accelerated primal-dual on the graph ROF problem, all c columns at once.

    Column k has its own fidelity rho_k (and so its own step schedule); the
    edge list is read once per iteration for every column, and the dual
    update and the divergence ``div = grad' p`` share one pass over the edges.
    Stops when every column's gap is below ``tol`` times its primal value.
    Returns the iterations.
    """
    cdef Py_ssize_t i, e, k, s, d, n = g.shape[0], m = src.shape[0], c = g.shape[1]
    cdef double t, gold, we, D, dd
    cdef int it = 0, done
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
    while it < max_iter:
        it += 1
        # p <- clip(p + sigma grad(gbar), -gamma, gamma);  div = grad' p
        for i in range(n):
            for k in range(c):
                div[i, k] = 0
        for e in range(m):
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
                t = we * t
                div[d, k] += <floating> t
                div[s, k] -= <floating> t
        # g+ = (g - tau grad'p + tau rho z) / (1 + tau rho)
        for k in range(c):
            theta[k] = 1.0 / sqrt(1.0 + 2.0 * rho[k] * tau[k])
        for i in range(n):
            for k in range(c):
                gold = g[i, k]
                t = (gold - tau[k] * div[i, k] + tau[k] * rho[k] * z[i, k]) \
                    / (1.0 + tau[k] * rho[k])
                g[i, k] = <floating> t
                gbar[i, k] = <floating> (t + theta[k] * (t - gold))
        for k in range(c):
            tau[k] = theta[k] * tau[k]
            sigma[k] = sigma[k] / theta[k]
        if it % GAP_EVERY == 0 or it == max_iter:
            # dual D(p) = <grad'p, z> - ||grad'p||^2 / (2 rho), its primal
            # point ghat = z - grad'p / rho
            for i in range(n):
                for k in range(c):
                    ghat[i, k] = <floating> (z[i, k] - div[i, k] / rho[k])
            _primal_cols(src, dst, w, z, g, gamma, rho, primal, work)
            _primal_cols(src, dst, w, z, ghat, gamma, rho, gap, work)
            for k in range(c):
                if gap[k] < primal[k]:
                    # the dual's primal point is better: keep it (below)
                    primal[k] = gap[k]
                    work[k] = 1
                else:
                    work[k] = 0
            done = 1
            for k in range(c):
                D = 0
                dd = 0
                for i in range(n):
                    D += <double> div[i, k] * z[i, k]
                    dd += <double> div[i, k] * div[i, k]
                    if work[k] != 0:
                        g[i, k] = ghat[i, k]
                        gbar[i, k] = ghat[i, k]
                D -= 0.5 * dd / rho[k]
                gap[k] = primal[k] - D
                if not (gap[k] <= tol * fabs(primal[k]) or gap[k] <= 1e-300):
                    done = 0
            if done:
                break
    return it


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
                 int max_iter=1000, double L=-1.0, double step_ratio=1.0):
    """Solve the graph ROF problem for every column of Z at once.

    ``min_{g_k} gamma sum_e w_e |g_k[dst_e] - g_k[src_e]| + rho_k/2 ||g_k - z_k||^2``
    for the columns k of ``Z`` (n, c), with one dual column per class in
    ``P`` (n_edges, c) and the solutions written into ``G`` (n, c) (both
    warm starts, overwritten). ``rho``: a float or one value per column.
    Initial steps ``tau = step_ratio / L``, ``sigma = 1 / (step_ratio L)``.
    Stops when the gap of every column is below ``tol`` times its primal
    value (checked every 10 iterations).

    Returns
    -------
    n_iter : int
    gap, primal : ndarray of shape (c,)
        Final absolute primal-dual gaps and primal objectives.
    status : int
        0 converged, 1 max_iter reached.
    """
    cdef Py_ssize_t n = Z.shape[0], c = Z.shape[1], m = src.shape[0], e, k
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
    cdef floating[:, ::1] div = np.empty((n, c), dtype=dtype)
    cdef floating[:, ::1] ghat = np.empty((n, c), dtype=dtype)
    cdef double[::1] rho_v = rho_np
    cdef double[:, ::1] buf = np.zeros((6, c))
    cdef int it
    # the dual box may have shrunk since the warm start
    for e in range(m):
        for k in range(c):
            if P[e, k] > gamma:
                P[e, k] = <floating> gamma
            elif P[e, k] < -gamma:
                P[e, k] = <floating> -gamma
    with nogil:
        it = _rof(src, dst, w, Z, gamma, &rho_v[0], L, step_ratio, G, P, tol,
                  max_iter,
                  gbar, div, ghat, &buf[0, 0], &buf[1, 0], &buf[2, 0],
                  &buf[3, 0], &buf[4, 0], &buf[5, 0])
    gap = np.asarray(buf[3]).copy()
    primal = np.asarray(buf[4]).copy()
    ok = (gap <= tol * np.abs(primal)) | (gap <= 1e-300)
    status = STATUS_CONVERGED if (it < max_iter or np.all(ok)) else STATUS_MAX_ITER
    return it, gap, primal, status


def rof_pd(const int[::1] src, const int[::1] dst, const floating[::1] w,
           const floating[::1] z, double gamma, double rho,
           floating[::1] g, floating[::1] p, *, double tol=1e-4,
           int max_iter=1000, double L=-1.0):
    """Solve ``min_g gamma sum_e w_e |g_dst - g_src| + rho/2 ||g - z||^2``.

    Chambolle & Pock (2011) Algorithm 2 with ``tau0 = sigma0 = 1/L``,
    ``L >= ||grad||`` (default: ``sqrt(2 max_i sum_{e ~ i} w_e^2)``), stopping
    when the primal-dual gap is below ``tol`` times the primal value
    (checked every 10 iterations). One column of :func:`rof_pd_multi`.

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
        max_iter=max_iter, L=L)
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
