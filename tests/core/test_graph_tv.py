"""Tests of semisvm._core._graph_tv: graph ROF (primal-dual), simplex, SMO."""
import numpy as np
import pytest

from semisvm._core._graph_tv import (
    graph_tv_value,
    rof_pd,
    rof_pd_multi,
    simplex_project,
    smo_qp,
)

cp = pytest.importorskip("cvxpy")


def _random_graph(n, rng, p=0.3):
    src, dst = np.nonzero(np.triu(rng.random((n, n)) < p, 1))
    w = rng.random(src.shape[0]) + 0.1
    return src.astype(np.int32), dst.astype(np.int32), w


def _rof_cvxpy(src, dst, w, z, gamma, rho):
    g = cp.Variable(z.shape[0])
    obj = gamma * cp.sum(cp.multiply(w, cp.abs(g[dst] - g[src]))) \
        + rho / 2 * cp.sum_squares(g - z)
    prob = cp.Problem(cp.Minimize(obj))
    prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12,
               tol_feas=1e-12)
    return g.value, prob.value


# the accelerated steps (the default) and the constant scalar steps
STEPS = [{}, {"accelerate": False, "step_ratio": 0.5}]


@pytest.mark.parametrize("steps", STEPS)
@pytest.mark.parametrize("gamma", [0.05, 0.3, 2.0])
def test_rof_matches_cvxpy(seed, gamma, steps):
    rng = np.random.default_rng(seed)
    src, dst, w = _random_graph(25, rng)
    z = rng.standard_normal(25)
    g = np.zeros(25)
    p = np.zeros(src.shape[0])
    it, gap, primal, status = rof_pd(src, dst, w, z, gamma, 1.5, g, p,
                                     tol=1e-13, max_iter=200000, **steps)
    g_ref, f_ref = _rof_cvxpy(src, dst, w, z, gamma, 1.5)
    assert status == 0
    np.testing.assert_allclose(g, g_ref, atol=1e-5)
    assert abs(primal - f_ref) <= 1e-7 * max(1, abs(f_ref))


@pytest.mark.parametrize("ratio", [0.3, 0.5, 1.0])
@pytest.mark.parametrize("c", [1, 3, 17])
def test_rof_constant_steps_match_cvxpy_varied_degrees(dtype, c, ratio):
    # constant scalar steps (accelerate=False) on a graph whose rows'
    # weighted degrees vary ~100-fold (a hub, a chain, weights over three
    # decades) and two isolated rows; each column against cvxpy, both
    # dtypes, the one-column, local-array (c <= 16) and general passes
    rng = np.random.default_rng(c)
    n = 30
    edges = [(0, j) for j in range(1, 20)] + [(j, j + 1) for j in range(1, 27)]
    src = np.array([a for a, _ in edges], np.int32)
    dst = np.array([b for _, b in edges], np.int32)
    w = 10.0 ** rng.uniform(-1.5, 1.5, src.shape[0])
    Z = rng.standard_normal((n, c))
    rho = rng.uniform(0.5, 3.0, c)
    G = np.zeros((n, c), dtype=dtype)
    P = np.zeros((src.shape[0], c), dtype=dtype)
    # (a hard graph for scalar steps: 3,000-430,000 steps to 1e-10)
    tol = 1e-5 if dtype == np.float32 else 1e-10
    it, gap, primal, status = rof_pd_multi(
        src, dst, w.astype(dtype), Z.astype(dtype), 0.4, rho, G, P, tol=tol,
        max_iter=1_000_000, accelerate=False, step_ratio=ratio)
    assert status == 0 and it < 1_000_000
    assert G.dtype == dtype and np.all(np.abs(P) <= dtype(0.4))
    for k in range(c):
        g_ref, f_ref = _rof_cvxpy(src, dst, w, Z[:, k], 0.4, rho[k])
        # our own certificate (the fidelity is rho-strongly convex: ||g -
        # g*||^2 <= 2 gap / rho, up to the rounding of the gap's sums in the
        # dtype), then the reference to an accuracy any recent Clarabel
        # reaches at its 1e-12 tolerances (not to its last digits)
        err = np.linalg.norm(G[:, k] - g_ref)
        slack = 10 * np.finfo(dtype).eps * abs(primal[k]) + 1e-12
        assert err <= np.sqrt(2 * (max(gap[k], 0) + slack) / rho[k]) + 1e-6
        if dtype == np.float64:
            assert err <= 1e-4
        assert abs(primal[k] - f_ref) <= 10 * tol * max(1, abs(f_ref))


def test_rof_gap_decreases_to_zero():
    rng = np.random.default_rng(3)
    src, dst, w = _random_graph(40, rng, 0.2)
    z = rng.standard_normal(40)
    gaps = []
    for max_iter in (10, 100, 1000, 10000):
        g = np.zeros(40)
        p = np.zeros(src.shape[0])
        _, gap, _, _ = rof_pd(src, dst, w, z, 0.5, 1.0, g, p, tol=0.0,
                              max_iter=max_iter)
        gaps.append(gap)
    assert all(b <= a for a, b in zip(gaps, gaps[1:]))
    assert gaps[-1] < 1e-8 * gaps[0]
    assert gaps[-1] >= -1e-12  # a gap, up to rounding


def test_rof_constant_steps_gap_to_zero_in_fewer_steps():
    # constant steps: the gap need not fall at every step (no monotone
    # claim), but it reaches a tolerance, and a tight one in fewer steps
    # than the accelerated steps (the problem is strongly convex with a
    # boxed dual: linear convergence at constant steps)
    rng = np.random.default_rng(3)
    src, dst, w = _random_graph(40, rng, 0.2)
    z = rng.standard_normal(40)
    its = {}
    for steps in STEPS:
        g = np.zeros(40)
        p = np.zeros(src.shape[0])
        _, gap0, _, _ = rof_pd(src, dst, w, z, 0.5, 1.0, g, p, tol=0.0,
                               max_iter=10, **steps)
        g = np.zeros(40)
        p = np.zeros(src.shape[0])
        it, gap, primal, status = rof_pd(src, dst, w, z, 0.5, 1.0, g, p,
                                         tol=1e-10, max_iter=100000, **steps)
        assert status == 0 and -1e-12 <= gap <= 1e-10 * abs(primal)
        assert gap < 1e-8 * gap0
        its[bool(steps)] = it
    assert its[True] < its[False]       # constant: fewer steps


def test_rof_warm_start_is_faster():
    rng = np.random.default_rng(4)
    src, dst, w = _random_graph(60, rng, 0.1)
    z = rng.standard_normal(60)
    g = np.zeros(60)
    p = np.zeros(src.shape[0])
    it_cold, *_ = rof_pd(src, dst, w, z, 0.5, 1.0, g, p, tol=1e-8, max_iter=100000)
    it_warm, *_ = rof_pd(src, dst, w, z + 1e-3, 0.5, 1.0, g, p, tol=1e-8,
                         max_iter=100000)
    assert it_warm < it_cold


def test_rof_chain_piecewise_constant(dtype):
    # chain graph, three plateaus + noise: TV denoising recovers the plateaus
    n = 90
    src = np.arange(n - 1, dtype=np.int32)
    dst = src + 1
    w = np.ones(n - 1, dtype=dtype)
    clean = np.repeat([0.0, 2.0, -1.0], 30)
    rng = np.random.default_rng(0)
    z = (clean + 0.1 * rng.standard_normal(n)).astype(dtype)
    g = np.zeros(n, dtype=dtype)
    p = np.zeros(n - 1, dtype=dtype)
    rof_pd(src, dst, w, z, 1.0, 1.0, g, p, tol=1e-7, max_iter=50000)
    assert g.dtype == dtype
    # the large jumps are the true ones, the noise inside the plateaus is gone
    jumps = np.nonzero(np.abs(np.diff(g)) > 0.5)[0]
    np.testing.assert_array_equal(jumps, [29, 59])
    for k in range(3):
        inner = slice(30 * k + 2, 30 * k + 28)
        assert np.ptp(g[inner]) < 0.05 < np.ptp(z[inner])
    assert np.max(np.abs(g - clean)) < 0.2


def test_rof_no_edges_and_zero_gamma():
    z = np.arange(5.0)
    g = np.zeros(5)
    e = np.zeros(0, np.int32)
    rof_pd(e, e, np.zeros(0), z, 1.0, 1.0, g, np.zeros(0))
    np.testing.assert_array_equal(g, z)
    src = np.array([0, 1], np.int32)
    dst = np.array([1, 2], np.int32)
    g = np.zeros(5)
    rof_pd(src, dst, np.ones(2), z, 0.0, 2.0, g, np.zeros(2))
    np.testing.assert_array_equal(g, z)


def test_rof_bad_input():
    src = np.array([0, 1], np.int32)
    dst = np.array([1, 7], np.int32)
    with pytest.raises(ValueError, match="out of range"):
        rof_pd(src, dst, np.ones(2), np.zeros(3), 1.0, 1.0, np.zeros(3), np.zeros(2))
    with pytest.raises(ValueError, match="rho"):
        rof_pd(src, src, np.ones(2), np.zeros(3), 1.0, 0.0, np.zeros(3), np.zeros(2))


def test_tv_value():
    src = np.array([0, 1], np.int32)
    dst = np.array([1, 2], np.int32)
    assert graph_tv_value(src, dst, np.array([1.0, 2.0]),
                          np.array([0.0, 1.0, -1.0])) == pytest.approx(5.0)


def _simplex_sort(v):
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1
    k = np.arange(1, v.shape[0] + 1)
    rho = np.nonzero(u - css / k > 0)[0][-1]
    return np.maximum(v - css[rho] / (rho + 1), 0)


@pytest.mark.parametrize("c", [1, 2, 3, 10])
def test_simplex_projection_vs_sort(seed, dtype, c):
    rng = np.random.default_rng(seed)
    V = (3 * rng.standard_normal((200, c))).astype(dtype)
    out = np.empty_like(V)
    simplex_project(V, out)
    ref = np.array([_simplex_sort(v.astype(np.float64)) for v in V])
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, ref, atol=tol)
    assert np.all(out >= 0)
    np.testing.assert_allclose(out.sum(1), 1, atol=tol)


def _qp_cvxpy(Q, q, y, C):
    b = cp.Variable(q.shape[0])
    R = np.linalg.cholesky(Q + 1e-12 * np.eye(q.shape[0]))
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(R.T @ b) + q @ b),
                      [y @ b == 0, b >= 0, b <= C])
    prob.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12,
               tol_feas=1e-12)
    return b.value, prob.value, prob.constraints[0].dual_value


def test_smo_matches_dense_qp(seed):
    rng = np.random.default_rng(seed)
    n = 30
    A = rng.standard_normal((n, 5))
    y = np.where(rng.random(n) < 0.4, -1.0, 1.0)
    Q = (y[:, None] * y[None, :]) * (A @ A.T + 0.1 * np.eye(n))
    q = -1.0 + 0.5 * rng.standard_normal(n)
    C = rng.uniform(0.2, 2.0, n)
    beta = np.zeros(n)
    bias, it, status = smo_qp(Q, q, y, C, beta, tol=1e-10)
    b_ref, f_ref, nu = _qp_cvxpy(Q, q, y, C)
    f = 0.5 * beta @ Q @ beta + q @ beta
    assert status == 0
    assert abs(y @ beta) < 1e-10
    assert np.all(beta >= 0) and np.all(beta <= C)
    assert f == pytest.approx(f_ref, abs=1e-7)
    np.testing.assert_allclose(beta, b_ref, atol=1e-4)
    # the bias is the multiplier of y'b = 0 (cvxpy's sign: + nu y'b)
    assert bias == pytest.approx(nu, abs=1e-4)


def test_smo_bad_shapes():
    with pytest.raises(ValueError, match="Q must be"):
        smo_qp(np.eye(3), np.zeros(2), np.ones(3), np.ones(3), np.zeros(3))


def test_rof_multi_matches_columns(dtype):
    # all columns in one edge pass == each column alone (own rho per column)
    from semisvm._core._graph_tv import rof_pd_multi
    rng = np.random.default_rng(5)
    src, dst, w = _random_graph(30, rng, 0.2)
    w = w.astype(dtype)
    Z = rng.standard_normal((30, 3)).astype(dtype)
    rho = np.array([0.5, 1.0, 3.0])
    G = np.zeros((30, 3), dtype)
    P = np.zeros((src.shape[0], 3), dtype)
    rtol = 1e-5 if dtype == np.float32 else 1e-9
    it, gap, primal, status = rof_pd_multi(src, dst, w, Z, 0.4, rho, G, P,
                                           tol=rtol, max_iter=100000)
    assert status == 0 and gap.shape == (3,) and G.dtype == dtype
    tol = 2e-2 if dtype == np.float32 else 1e-6   # float32: gap limited by rounding
    for k in range(3):
        g = np.zeros(30, dtype)
        rof_pd(src, dst, w, np.ascontiguousarray(Z[:, k]), 0.4, rho[k], g,
               np.zeros(src.shape[0], dtype), tol=rtol, max_iter=100000)
        np.testing.assert_allclose(G[:, k], g, atol=tol)


# --- the accelerated iteration itself --------------------------------------

def _rof_twin(src, dst, w, z, gamma, rho, k, L):
    """k iterations of Chambolle & Pock (2011) Algorithm 2 on the graph ROF
    problem from g = p = 0, tau0 = sigma0 = 1/L: the dual iterate p."""
    g = np.zeros_like(z)
    gbar = g.copy()
    p = np.zeros(src.shape[0])
    tau, sigma = 1.0 / L, 1.0 / L
    for _ in range(k):
        p = np.clip(p + sigma * w * (gbar[dst] - gbar[src]), -gamma, gamma)
        div = np.zeros_like(z)
        np.add.at(div, dst, w * p)
        np.add.at(div, src, -w * p)
        theta = 1.0 / np.sqrt(1.0 + 2.0 * rho * tau)    # the O(1/k^2) variant
        g_new = (g - tau * div + tau * rho * z) / (1.0 + tau * rho)
        gbar = g_new + theta * (g_new - g)
        g = g_new
        tau, sigma = theta * tau, sigma / theta
    return p


@pytest.mark.parametrize("k", [2, 5, 9])
def test_rof_iterates_are_the_accelerated_algorithm(k):
    # before the first gap check (every 10 iterations) the dual iterate is the
    # plain algorithm's: any change of the step schedule (theta, tau, sigma)
    # shows here even when the final solution would not change
    rng = np.random.default_rng(11)
    src, dst, w = _random_graph(30, rng, 0.2)
    z = 3 * rng.standard_normal(30)
    gamma, rho, L = 0.4, 2.0, 2.5
    g = np.zeros(30)
    p = np.zeros(src.shape[0])
    it, *_ = rof_pd(src, dst, w, z, gamma, rho, g, p, tol=0.0, max_iter=k, L=L)
    assert it == k
    np.testing.assert_allclose(p, _rof_twin(src, dst, w, z, gamma, rho, k, L),
                               rtol=1e-12, atol=1e-14)


def test_rof_gap_decays_like_one_over_k_squared():
    # Chambolle & Pock (2011), Theorem 2: the accelerated method's error is
    # O(1/k^2); the gap at k and 4k iterations must drop by well over 4 (the
    # unaccelerated O(1/k) rate) on a strongly convex problem
    rng = np.random.default_rng(5)
    src, dst, w = _random_graph(60, rng, 0.15)
    z = rng.standard_normal(60)
    gaps = {}
    for k in (100, 400, 1600):
        g, p = np.zeros(60), np.zeros(src.shape[0])
        _, gaps[k], _, _ = rof_pd(src, dst, w, z, 1.0, 0.05, g, p, tol=0.0,
                                  max_iter=k)
    assert gaps[400] < gaps[100] / 8 and gaps[1600] < gaps[400] / 8


@pytest.mark.parametrize("tol", [1e-3, 1e-6])
def test_rof_stops_at_the_first_check_with_a_small_enough_gap(tol):
    # the gap is checked every 10 iterations: at the returned iteration it is
    # at most tol |primal|, at the check before it was not
    rng = np.random.default_rng(8)
    src, dst, w = _random_graph(40, rng, 0.2)
    z = rng.standard_normal(40)
    g, p = np.zeros(40), np.zeros(src.shape[0])
    it, gap, primal, status = rof_pd(src, dst, w, z, 0.5, 1.0, g, p, tol=tol,
                                     max_iter=100000)
    assert status == 0 and it % 10 == 0 and it >= 20
    assert gap <= tol * abs(primal)
    g, p = np.zeros(40), np.zeros(src.shape[0])
    _, gap_prev, primal_prev, _ = rof_pd(src, dst, w, z, 0.5, 1.0, g, p, tol=0.0,
                                         max_iter=it - 10)
    assert gap_prev > tol * abs(primal_prev)


def _rof_multi_reference(src, dst, w, Z, gamma, rho, G0, P0, k, L):
    """NumPy reference of ``rof_pd_multi`` (tol = 0, k iterations), every
    column at once with its own rho: Chambolle & Pock's Algorithm 2 from
    (G0, P0), and every 10 iterations the dual's primal point
    ``z - grad'p / rho`` kept where its primal value is lower."""
    G, P = G0.copy(), np.clip(P0, -gamma, gamma)
    Gbar = G.copy()
    tau = np.full(Z.shape[1], 1.0 / L)
    sigma = np.full(Z.shape[1], 1.0 / L)

    def primal(A):
        tv = np.sum(w[:, None] * np.abs(A[dst] - A[src]), axis=0)
        return gamma * tv + 0.5 * rho * np.sum((A - Z) ** 2, axis=0)

    for it in range(1, k + 1):
        P = np.clip(P + sigma * w[:, None] * (Gbar[dst] - Gbar[src]), -gamma, gamma)
        div = np.zeros_like(Z)
        np.add.at(div, dst, w[:, None] * P)
        np.add.at(div, src, -w[:, None] * P)
        theta = 1.0 / np.sqrt(1.0 + 2.0 * rho * tau)
        G_new = (G - tau * div + tau * rho * Z) / (1.0 + tau * rho)
        Gbar = G_new + theta * (G_new - G)
        G = G_new
        tau, sigma = theta * tau, sigma / theta
        if it % 10 == 0 or it == k:
            Ghat = Z - div / rho
            better = primal(Ghat) < primal(G)
            G[:, better] = Ghat[:, better]
            Gbar[:, better] = Ghat[:, better]
    return G, P


@pytest.mark.parametrize("k", [7, 10, 35])
def test_rof_multi_iterates_match_the_numpy_reference(k):
    # several columns with their own rho, warm started from a given (G, P)
    # (a dual start outside the box is clipped): the same iterates to 1e-10,
    # across the gap checks that may swap in the dual's primal point
    rng = np.random.default_rng(3)
    src, dst, w = _random_graph(40, rng, 0.15)
    Z = rng.standard_normal((40, 3))
    rho = np.array([0.5, 1.0, 4.0])
    G0 = rng.standard_normal((40, 3))
    P0 = 0.8 * rng.standard_normal((src.shape[0], 3))
    G, P = G0.copy(), P0.copy()
    it, *_ = rof_pd_multi(src, dst, w, Z, 0.6, rho, G, P, tol=0.0, max_iter=k,
                          L=3.0)
    Gr, Pr = _rof_multi_reference(src, dst, w, Z, 0.6, rho, G0, P0, k, 3.0)
    assert it == k
    np.testing.assert_allclose(G, Gr, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(P, Pr, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("n_threads", [2, 3])
@pytest.mark.parametrize("k", [10, 35])
def test_rof_multi_threads_match_the_numpy_reference(k, n_threads):
    # the two-pass parallel step (dual update over the edges, divergence
    # gathered per row) follows the same algorithm as the one-thread pass
    rng = np.random.default_rng(3)
    src, dst, w = _random_graph(40, rng, 0.15)
    Z = rng.standard_normal((40, 3))
    rho = np.array([0.5, 1.0, 4.0])
    G0 = rng.standard_normal((40, 3))
    P0 = 0.8 * rng.standard_normal((src.shape[0], 3))
    G, P = G0.copy(), P0.copy()
    rof_pd_multi(src, dst, w, Z, 0.6, rho, G, P, tol=0.0, max_iter=k, L=3.0,
                 n_threads=n_threads)
    Gr, Pr = _rof_multi_reference(src, dst, w, Z, 0.6, rho, G0, P0, k, 3.0)
    np.testing.assert_allclose(G, Gr, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(P, Pr, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rof_multi_same_bits_whatever_the_thread_count(dtype):
    # more rows than one block of the gap's sums (1,024): the stopping test
    # and every iterate are the same to the bit on 1, 2 and 4 threads
    from semisvm._core._graph_tv import edge_incidence
    rng = np.random.default_rng(0)
    n = 2500
    src = rng.integers(0, n, 12000).astype(np.int32)
    dst = rng.integers(0, n, 12000).astype(np.int32)
    keep = src < dst
    src, dst = src[keep], dst[keep]
    w = (rng.random(src.shape[0]) + 0.1).astype(dtype)
    Z = rng.standard_normal((n, 4)).astype(dtype)
    inc = edge_incidence(src, dst, w, n)
    out = []
    for nt in (1, 2, 4):
        G = np.zeros((n, 4), dtype)
        P = np.zeros((src.shape[0], 4), dtype)
        it, gap, primal, _ = rof_pd_multi(src, dst, w, Z, 0.5, [0.3, 1.0, 2.0, 5.0],
                                          G, P, tol=1e-2, max_iter=2000,
                                          incidence=inc, n_threads=nt)
        out.append((it, gap.tobytes(), primal.tobytes(), G.tobytes(), P.tobytes()))
    assert out[0][0] < 2000
    assert out[0] == out[1] == out[2]


def test_rof_multi_bad_threads_and_incidence():
    from semisvm._core._graph_tv import edge_incidence
    rng = np.random.default_rng(0)
    src, dst, w = _random_graph(10, rng)
    Z = rng.standard_normal((10, 2))
    G, P = np.zeros((10, 2)), np.zeros((src.shape[0], 2))
    with pytest.raises(ValueError, match="n_threads"):
        rof_pd_multi(src, dst, w, Z, 1.0, 1.0, G, P, n_threads=0)
    inc = edge_incidence(src, dst, w, 11)
    with pytest.raises(ValueError, match="incidence"):
        rof_pd_multi(src, dst, w, Z, 1.0, 1.0, G, P, incidence=inc)
    ptr, edge, iw = edge_incidence(src, dst, w, 10)
    for bad in ((ptr.astype(np.int64), edge, iw), (ptr, edge.astype(np.int64), iw)):
        # a wrong index dtype: the same ValueError, not a buffer-dtype error
        with pytest.raises(ValueError, match="incidence does not match"):
            rof_pd_multi(src, dst, w, Z, 1.0, 1.0, G, P, incidence=bad)


# --- groups of columns stepped together ------------------------------------

def _group_problem(rng, n, dtype, c):
    from semisvm._tv_solvers import _edges
    from semisvm.graph import knn_affinity
    X = rng.standard_normal((n, 3))
    src, dst, w = _edges(knn_affinity(X, 6), dtype)
    Z = (rng.standard_normal((n, c)) * rng.uniform(0.1, 3.0, c)).astype(dtype)
    G0 = rng.standard_normal((n, c)).astype(dtype)
    P0 = rng.uniform(-1.0, 1.0, (src.shape[0], c)).astype(dtype)
    return src, dst, w, Z, G0, P0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("steps", STEPS)
@pytest.mark.parametrize("sizes", [(1, 1), (1, 1, 1), (2, 1), (1, 3), (2, 2)])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_rof_groups_match_each_group_alone(dtype, steps, sizes, n_threads):
    # each group stepped with the others stops at its own step: its iterate,
    # duals, step count, status, gap and primal value are those of a solve of
    # its columns alone, to the bit (groups stopping at different steps, one
    # at the first gap check, one at max_iter)
    from semisvm._core._graph_tv import edge_incidence
    rng = np.random.default_rng(sum(sizes) + len(sizes))
    c = sum(sizes)
    groups = np.repeat(np.arange(len(sizes)), sizes)
    seen, capped = set(), set()
    for trial in range(6):
        n = int(rng.integers(40, 300))
        src, dst, w, Z, G0, P0 = _group_problem(rng, n, dtype, c)
        inc = edge_incidence(src, dst, w, n)
        rho = rng.uniform(0.3, 5.0, c)
        # very different fidelities per group: different stop steps
        rho[groups == 0] *= 20.0
        gamma = float(rng.uniform(0.2, 1.5))
        tol = [1e-2, 1e-4, 1e-6][trial % 3]
        max_iter = [1000, 57, 300][trial % 3]
        G, P = G0.copy(), P0.copy()
        its, gap, primal, status = rof_pd_multi(
            src, dst, w, Z, gamma, rho, G, P, tol=tol, max_iter=max_iter,
            incidence=inc, n_threads=n_threads, groups=groups, **steps)
        assert its.shape == status.shape == (c,)
        for q in range(len(sizes)):
            cols = groups == q
            Gq = np.ascontiguousarray(G0[:, cols])
            Pq = np.ascontiguousarray(P0[:, cols])
            it1, gap1, primal1, st1 = rof_pd_multi(
                src, dst, w, np.ascontiguousarray(Z[:, cols]), gamma, rho[cols],
                Gq, Pq, tol=tol, max_iter=max_iter, incidence=inc, **steps)
            assert np.array_equal(G[:, cols], Gq)
            assert np.array_equal(P[:, cols], Pq)
            assert np.all(its[cols] == it1) and np.all(status[cols] == st1)
            assert np.array_equal(gap[cols], gap1)
            assert np.array_equal(primal[cols], primal1)
        seen.add(len(set(its.tolist())) > 1)
        capped.update(status.tolist())
    # (some trial had groups stopping at different steps, and both sides of
    # the step cap: a group converged and one stopped at max_iter)
    assert True in seen
    assert {0, 1} <= capped


def test_rof_groups_first_check_and_no_tv():
    # a group converged at the first gap check (its start is the solution)
    # stops there while the other steps on; gamma = 0: every group at once
    rng = np.random.default_rng(3)
    src, dst, w, Z, G0, P0 = _group_problem(rng, 120, np.float64, 2)
    G0[:, 0] = 0.0
    Z[:, 0] = 0.0
    P0[:, 0] = 0.0
    G, P = G0.copy(), P0.copy()
    its, _, _, status = rof_pd_multi(src, dst, w, Z, 0.5, 1.0, G, P, tol=1e-4,
                                     max_iter=3000, groups=[0, 1])
    assert its[0] == 10 and its[1] > 10 and np.all(status == 0)
    g1, p1 = np.ascontiguousarray(G0[:, 1:]), np.ascontiguousarray(P0[:, 1:])
    it1, _, _, _ = rof_pd_multi(src, dst, w, np.ascontiguousarray(Z[:, 1:]), 0.5,
                                1.0, g1, p1, tol=1e-4, max_iter=3000)
    assert it1 == its[1] and np.array_equal(G[:, 1:], g1) and np.array_equal(P[:, 1:], p1)
    G = G0.copy()
    its, gap, _, status = rof_pd_multi(src, dst, w, Z, 0.0, 1.0, G, P0.copy(),
                                       groups=[0, 1])
    assert np.all(its == 0) and np.all(gap == 0) and np.array_equal(G, Z)


def test_rof_groups_with_the_general_passes():
    # the C passes switched off (the Cython pass of 2-16 columns), and more
    # than 16 columns (the general pass): the same bits as each group alone
    from semisvm._core._graph_tv import _rof_column_kernels
    rng = np.random.default_rng(4)
    src, dst, w, Z, G0, P0 = _group_problem(rng, 100, np.float64, 18)
    rho = rng.uniform(0.3, 5.0, 18)
    groups = np.repeat([0, 1, 2], [1, 16, 1])
    before = _rof_column_kernels()
    try:
        for c_pass in (False, True):
            _rof_column_kernels(c_pass=c_pass)
            G, P = G0.copy(), P0.copy()
            its, _, _, _ = rof_pd_multi(src, dst, w, Z, 0.7, rho, G, P, tol=1e-5,
                                        max_iter=400, groups=groups)
            for q in range(3):
                cols = groups == q
                Gq = np.ascontiguousarray(G0[:, cols])
                Pq = np.ascontiguousarray(P0[:, cols])
                it1, _, _, _ = rof_pd_multi(src, dst, w, np.ascontiguousarray(Z[:, cols]),
                                            0.7, rho[cols], Gq, Pq, tol=1e-5, max_iter=400)
                assert np.all(its[cols] == it1)
                assert np.array_equal(G[:, cols], Gq) and np.array_equal(P[:, cols], Pq)
    finally:
        _rof_column_kernels(c_pass=before[0])


def test_rof_groups_bad_input():
    rng = np.random.default_rng(0)
    src, dst, w, Z, G0, P0 = _group_problem(rng, 30, np.float64, 3)
    with pytest.raises(ValueError, match="one entry per column"):
        rof_pd_multi(src, dst, w, Z, 0.5, 1.0, G0, P0, groups=[0, 1])
    with pytest.raises(ValueError, match="adjacent"):
        rof_pd_multi(src, dst, w, Z, 0.5, 1.0, G0, P0, groups=[0, 1, 0])
