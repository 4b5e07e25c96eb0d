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
