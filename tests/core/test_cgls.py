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


# --- row blocks, threads and the one-pass product ---------------------------

from semisvm._core._cgls import _product_py, _set_blocking  # noqa: E402


@pytest.fixture
def small_blocks():
    """Cut even small passes into (up to 5) row blocks, as large ones are."""
    old = _set_blocking(1, 5)
    yield
    _set_blocking(*old)


def _problem(dtype, sparse, n=300, d=40, seed=0):
    import scipy.sparse as sp
    rng = np.random.RandomState(seed)
    X = (rng.randn(n, d) * (rng.rand(n, d) < 0.3)).astype(dtype)
    a = (rng.rand(n) + 0.1).astype(dtype)
    a[rng.rand(n) < 0.2] = 0          # some rows weigh nothing
    active = np.sort(rng.choice(n, 2 * n // 3, replace=False)).astype(np.int32)
    v = rng.randn(d + 1).astype(dtype)
    return RowData(sp.csr_matrix(X) if sparse else X), X, a, active, v


@pytest.mark.parametrize("sparse", [True, False])
def test_one_pass_product_is_the_two_pass_product_bit_for_bit(dtype, sparse):
    # one block: each row's x.v, a x.v and its terms are added in the same order
    R, X, a, active, v = _problem(dtype, sparse)
    u1, q1, s1 = _product_py(R, 0.7, active, a, v, one_pass=True)
    u2, q2, s2 = _product_py(R, 0.7, active, a, v, one_pass=False)
    assert u1.tobytes() == u2.tobytes() and q1.tobytes() == q2.tobytes()
    assert s1 == s2
    # and it is X_J' A X_J v (float64 reference)
    Xa = np.c_[X, 0.7 * np.ones(X.shape[0])].astype(np.float64)[active]
    q = Xa @ v.astype(np.float64)
    tol = 1e-10 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(q1, q, rtol=tol, atol=tol)
    np.testing.assert_allclose(u1, Xa.T @ (a[active] * q), rtol=tol, atol=tol)
    assert s1 == pytest.approx(float(a[active] @ q ** 2), rel=tol)


@pytest.mark.parametrize("sparse", [True, False])
def test_blocked_products_have_the_same_bits_for_any_thread_count(
        dtype, sparse, small_blocks):
    R, X, a, active, v = _problem(dtype, sparse, seed=1)
    outs = [_product_py(R, 1.0, active, a, v, n_threads=k, one_pass=op)
            for op in (True, False) for k in (1, 2, 3, 8)]
    for j, (u, q, s) in enumerate(outs):
        assert u.tobytes() == outs[0][0].tobytes()
        assert q.tobytes() == outs[0][1].tobytes()
        # q'Aq: block sums in one pass, one running sum in two
        assert s == outs[4 * (j // 4)][2]
    assert outs[0][2] == pytest.approx(outs[4][2], rel=1e-12 if dtype == np.float64 else 1e-5)
    # blocked sums are a re-association of the one-block sums
    _set_blocking(10**9, 1)
    u1, _, _ = _product_py(R, 1.0, active, a, v)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(outs[0][0], u1, rtol=tol, atol=tol)


@pytest.mark.parametrize("sparse", [True, False])
def test_cg_one_pass_and_cgls_reach_the_same_solution(dtype, sparse, small_blocks):
    R, X, a, active, _ = _problem(dtype, sparse, seed=2)
    n, d = X.shape
    t = np.sign(np.random.RandomState(5).randn(n)).astype(dtype)
    res = {}
    for one_pass in (True, False):
        for k in (1, 2):
            beta = np.zeros(d + 1, dtype=dtype)
            o = np.zeros(n, dtype=dtype)
            st, it = _cgls_py(R, 1.0, active, a, t, 0.5, beta, o,
                              1e-10 if dtype == np.float64 else 1e-5, 500,
                              n_threads=k, one_pass=one_pass)
            assert st == 1
            res[one_pass, k] = (beta, o, it)
    # the same bits for any thread count, in either form
    for op in (True, False):
        assert res[op, 1][0].tobytes() == res[op, 2][0].tobytes()
        assert res[op, 1][1].tobytes() == res[op, 2][1].tobytes()
    # the two forms differ by rounding only, with about as many iterations
    tol = 1e-8 if dtype == np.float64 else 2e-3
    np.testing.assert_allclose(res[True, 1][0], res[False, 1][0], rtol=tol, atol=tol)
    assert abs(res[True, 1][2] - res[False, 1][2]) <= 2
    # o stays X beta on the active rows (one pass: the folded updates)
    Xa = np.c_[X, np.ones(n)].astype(np.float64)
    beta, o, _ = res[True, 1]
    np.testing.assert_allclose(o[active], Xa[active] @ beta, rtol=tol, atol=tol)


def test_cgls_gradient_stop_changes_nothing():
    rng = np.random.RandomState(4)
    X = rng.randn(60, 8)
    a, t = np.ones(60), np.sign(rng.randn(60))
    active = np.arange(60, dtype=np.int32)
    beta, o = np.zeros(9), np.zeros(60)
    g0 = np.linalg.norm(np.c_[X, np.ones(60)].T @ t) ** 2     # ||r_seed||^2
    st, it = _cgls_py(RowData(X), 1.0, active, a, t, 1.0, beta, o, 1e-8, 100,
                      gstop2=1.0001 * g0)
    assert (st, it) == (3, 0) and not beta.any() and not o.any()
    st, it = _cgls_py(RowData(X), 1.0, active, a, t, 1.0, beta, o, 1e-8, 100,
                      gstop2=0.9999 * g0)
    assert st == 1 and it > 0


def test_set_blocking_rejects_bad_values():
    with pytest.raises(ValueError, match="block_nnz"):
        _set_blocking(0, 4)
    with pytest.raises(ValueError, match="max_blocks"):
        _set_blocking(10, 65)


@pytest.mark.slow
@pytest.mark.parametrize("preset, expected", [(None, "PASSIVE"), ("active", "active")])
def test_openmp_threads_wait_passively_unless_the_user_says(preset, expected):
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if preset is not None:
        env["OMP_WAIT_POLICY"] = preset
    out = subprocess.run(
        [sys.executable, "-c", "import os, semisvm._core._cgls; "
         "print(os.environ['OMP_WAIT_POLICY'])"],
        env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert out == expected
