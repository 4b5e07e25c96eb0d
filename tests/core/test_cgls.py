import numpy as np
import pytest
from semisvm._core._cgls import _cgls_py
from semisvm._core._dataset import RowData


def test_cgls_solves_the_regularised_normal_equations(dtype, container):
    rng = np.random.RandomState(0)
    n, d, lam, s = 40, 12, 0.3, 0.7
    X = (rng.randn(n, d) * (rng.rand(n, d) < 0.5)).astype(dtype)
    a = rng.rand(n).astype(dtype) + 0.1
    t = np.sign(rng.randn(n)).astype(dtype)
    active = np.sort(rng.choice(n, 25, replace=False)).astype(np.int32)
    beta = (0.1 * rng.randn(d + 1)).astype(dtype)      # a seed, not zero
    Xa = np.c_[X, s * np.ones(n)].astype(np.float64)
    o = (Xa @ beta.astype(np.float64)).astype(dtype)
    ok, n_iter = _cgls_py(RowData(container(X)), s, active, a, t, lam, beta, o,
                          1e-10 if dtype == np.float64 else 1e-5, 1000)
    J = Xa[active]
    A = lam * np.eye(d + 1) + J.T @ (a[active, None] * J)
    ref = np.linalg.solve(A, J.T @ (a[active] * t[active]))
    tol = 1e-8 if dtype == np.float64 else 2e-3
    assert ok == 1 and 0 < n_iter <= 200
    np.testing.assert_allclose(beta, ref, rtol=tol, atol=tol)
    # outputs are maintained on the active rows
    np.testing.assert_allclose(o[active], J @ beta, rtol=tol, atol=tol)


def test_cgls_with_exact_seed_needs_no_iteration():
    rng = np.random.RandomState(3)
    X = rng.randn(20, 5)
    a, t = np.ones(20), np.sign(rng.randn(20))
    active = np.arange(20, dtype=np.int32)
    Xa = np.c_[X, np.ones(20)]
    beta = np.linalg.solve(np.eye(6) + Xa.T @ Xa, Xa.T @ t)
    o = Xa @ beta
    ok, n_iter = _cgls_py(RowData(X), 1.0, active, a, t, 1.0, beta, o, 1e-6, 100)
    assert ok and n_iter == 0


def test_cgls_empty_active_set_gives_zero():
    X = np.ones((4, 3))
    beta, o = np.ones(4), np.zeros(4)
    ok, _ = _cgls_py(RowData(X), 1.0, np.zeros(0, np.int32), np.ones(4), np.ones(4),
                     2.0, beta, o, 1e-8, 50)
    assert ok
    np.testing.assert_allclose(beta, 0, atol=1e-12)


def test_cgls_hook_rejects_bad_arguments():
    X = RowData(np.ones((4, 3)))
    with pytest.raises(ValueError, match="out-of-range"):
        _cgls_py(X, 1.0, np.array([7], np.int32), np.ones(4), np.ones(4), 1.0,
                 np.zeros(4), np.zeros(4), 1e-6, 10)
    with pytest.raises(TypeError, match="dtype"):
        _cgls_py(X, 1.0, np.array([0], np.int32), np.ones(4, np.float32),
                 np.ones(4, np.float32), 1.0, np.zeros(4, np.float32),
                 np.zeros(4, np.float32), 1e-6, 10)


def test_cgls_forcing_term_stops_early_with_status_2():
    rng = np.random.RandomState(2)
    X = rng.randn(200, 60)
    n = 200
    a, t = np.ones(n), np.sign(rng.randn(n))
    active = np.arange(n, dtype=np.int32)
    beta, o = np.zeros(61), np.zeros(n)
    status, n_loose = _cgls_py(RowData(X), 1.0, active, a, t, 1e-3, beta, o, 1e-12,
                               500, eta=0.1)
    Xa = np.c_[X, np.ones(n)]
    r = Xa.T @ (t - Xa @ beta) - 1e-3 * beta
    assert status == 2
    assert np.linalg.norm(r) <= 0.1 * np.linalg.norm(Xa.T @ t)
    beta2, o2 = np.zeros(61), np.zeros(n)
    status2, n_tight = _cgls_py(RowData(X), 1.0, active, a, t, 1e-3, beta2, o2, 1e-12, 500)
    assert status2 == 1 and n_tight > n_loose


# --- the stopping rules, pinned against a reference PCG (issue 21) ---------

def _pcg_reference(Xa, a, t, lam, beta0, k):
    """k iterations of preconditioned CG on (lam I + X'AX) beta = X'At from
    beta0, with CGLS's preconditioner lam + 0.01 diag(X'AX): the iterates and
    the residual norms ||r_0||, ..., ||r_k||."""
    H = lam * np.eye(Xa.shape[1]) + Xa.T @ (a[:, None] * Xa)
    b = Xa.T @ (a * t)
    minv = 1.0 / (lam + 0.01 * np.einsum("ij,ij,i->j", Xa, Xa, a))
    beta = beta0.copy()
    r = b - H @ beta
    s = minv * r
    p = s.copy()
    rho = r @ s
    norms = [np.linalg.norm(r)]
    for _ in range(k):
        gamma = rho / (p @ H @ p)
        beta = beta + gamma * p
        r = r - gamma * (H @ p)
        norms.append(np.linalg.norm(r))
        s = minv * r
        rho_new = r @ s
        p = s + rho_new / rho * p
        rho = rho_new
    return beta, np.array(norms), np.linalg.norm(b)


def _cgls_problem(seed=5, n=120, d=30):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d) * rng.rand(d) * 3
    a = rng.rand(n) + 0.5
    t = np.sign(rng.randn(n))
    Xa = np.c_[X, np.ones(n)]
    return X, Xa, a, t


@pytest.mark.parametrize("k", [1, 2, 7])
def test_cgls_iteration_limit_is_exact(k):
    # max_iter = k: exactly k iterations, status 0, and the iterate is the k-th
    # of the reference PCG (not one more, not one fewer)
    X, Xa, a, t = _cgls_problem()
    n = X.shape[0]
    beta0 = 0.01 * np.arange(Xa.shape[1])
    beta, o = beta0.copy(), Xa @ beta0
    status, n_iter = _cgls_py(RowData(X), 1.0, np.arange(n, dtype=np.int32), a, t,
                              0.05, beta, o, 1e-14, k)
    assert (status, n_iter) == (0, k)
    ref, _, _ = _pcg_reference(Xa, a, t, 0.05, beta0, k)
    np.testing.assert_allclose(beta, ref, rtol=1e-9, atol=1e-12)
    ref_prev, _, _ = _pcg_reference(Xa, a, t, 0.05, beta0, k - 1)
    assert not np.allclose(beta, ref_prev, rtol=1e-6)
    np.testing.assert_allclose(o, Xa @ beta, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("k", [3, 6])
def test_cgls_tolerance_stops_at_the_first_small_residual(k):
    # tol between the reference residual ratios after k - 1 and k iterations:
    # CGLS must stop after exactly k (||r|| <= tol ||X'At||, status 1)
    X, Xa, a, t = _cgls_problem()
    n = X.shape[0]
    beta0 = np.zeros(Xa.shape[1])
    _, norms, bnorm = _pcg_reference(Xa, a, t, 0.05, beta0, k)
    ratios = norms / bnorm
    assert np.all(np.diff(ratios[:k + 1]) < 0)   # monotone on this problem
    tol = np.sqrt(ratios[k - 1] * ratios[k])
    beta, o = beta0.copy(), np.zeros(n)
    status, n_iter = _cgls_py(RowData(X), 1.0, np.arange(n, dtype=np.int32), a, t,
                              0.05, beta, o, tol, 100)
    assert (status, n_iter) == (1, k)
    # the forcing term eta (relative to the seed's residual) in the same way
    beta, o = beta0.copy(), np.zeros(n)
    eta = np.sqrt(ratios[k - 1] * ratios[k]) / ratios[0]
    status, n_iter = _cgls_py(RowData(X), 1.0, np.arange(n, dtype=np.int32), a, t,
                              0.05, beta, o, 1e-14, 100, eta=eta)
    assert (status, n_iter) == (2, k)
