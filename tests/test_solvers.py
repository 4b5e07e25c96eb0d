"""l2svm_mfn: exact optimum against L-BFGS, invariants, dtype/containers, errors."""
import numpy as np
import pytest
import scipy.sparse as sp
from _reference import l2svm_gradient, l2svm_lbfgs, l2svm_objective, make_classification

from semisvm.solvers import l2svm_mfn

# float64: objective to 1e-6 relative (the bar), gradient to 1e-6 relative.
# float32: the solver computes in single precision; 1e-4 relative is its floor.
TOL = {np.float64: 1e-6, np.float32: 1e-4}


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_mfn_reaches_the_lbfgs_optimum(dtype, container, weighted, fit_intercept):
    X, y = make_classification(n=150, d=20, seed=3, density=0.4)
    rng = np.random.RandomState(0)
    costs = rng.rand(150) * 2 if weighted else None
    lam = 0.05
    res = l2svm_mfn(container(X.astype(dtype)), y, lam=lam, costs=costs, tol=1e-9,
                    fit_intercept=fit_intercept)
    w_ref, b_ref, f_ref = l2svm_lbfgs(X, y, lam, costs, fit_intercept=fit_intercept)
    # float32 may stop on the relative objective test: its CGLS floor is 1e-5
    assert res.converged and (res.status == "optimal" or dtype == np.float32)
    assert res.coef.dtype == dtype
    f = l2svm_objective(X, y, res.coef, res.intercept, lam, costs)
    assert f == pytest.approx(f_ref, rel=TOL[dtype])
    assert res.objective == pytest.approx(f, rel=TOL[dtype])
    g = l2svm_gradient(X, y, res.coef, res.intercept, lam, costs)
    if not fit_intercept:
        g = g[:-1]
    g0 = l2svm_gradient(X, y, np.zeros(20), 0.0, lam, costs)
    assert np.linalg.norm(g) <= (1e-6 if dtype == np.float64 else 1e-3) * np.linalg.norm(g0)
    if not fit_intercept:
        assert res.intercept == 0.0


def test_mfn_objective_history_is_non_increasing():
    X, y = make_classification(n=400, d=30, seed=5)
    res = l2svm_mfn(X, y, lam=0.01)
    h = res.history
    assert np.all(np.diff(h) <= 1e-12 * np.abs(h[:-1]))
    assert res.n_cg_iter == res.cg_history.sum() > 0
    assert res.active_history.shape == (res.n_iter,)


def test_mfn_dense_and_csr_agree_and_are_deterministic(dtype):
    X, y = make_classification(n=200, d=25, seed=9, density=0.3)
    X = X.astype(dtype)
    a = l2svm_mfn(X, y, lam=0.1)
    b = l2svm_mfn(sp.csr_matrix(X), y, lam=0.1)
    c = l2svm_mfn(X, y, lam=0.1)
    tol = 1e-7 if dtype == np.float64 else 1e-3
    np.testing.assert_allclose(a.coef, b.coef, rtol=tol, atol=tol)
    assert a.coef.tobytes() == c.coef.tobytes() and a.intercept == c.intercept


def test_mfn_float32_close_to_float64():
    X, y = make_classification(n=300, d=20, seed=2)
    a = l2svm_mfn(X, y, lam=0.1)
    b = l2svm_mfn(X.astype(np.float32), y, lam=0.1)
    np.testing.assert_allclose(b.coef, a.coef, rtol=1e-3, atol=1e-3)
    assert b.objective == pytest.approx(a.objective, rel=1e-4)


def test_mfn_warm_start_from_the_optimum_stops_at_once():
    X, y = make_classification(n=200, d=10, seed=4)
    res = l2svm_mfn(X, y, lam=0.1, tol=1e-10)
    w0 = np.r_[res.coef, res.intercept]
    again = l2svm_mfn(X, y, lam=0.1, w0=w0, tol=1e-8)
    assert again.n_iter == 1 and again.n_cg_iter <= 2
    assert again.objective == pytest.approx(res.objective, rel=1e-10)


def test_mfn_equivalent_to_liblinear_scaling():
    """1/2(lam||w||^2 + sum l2) = lam * (1/2||w||^2 + C sum l2) with C = 1/(2 lam)."""
    X, y = make_classification(n=100, d=8, seed=1)
    lam = 0.25
    res = l2svm_mfn(X, y, lam=lam, tol=1e-10)
    C = 1 / (2 * lam)
    o = X @ res.coef + res.intercept
    liblinear_obj = 0.5 * (res.coef @ res.coef + res.intercept ** 2) + C * np.sum(
        np.maximum(0, 1 - y * o) ** 2)
    assert res.objective == pytest.approx(lam * liblinear_obj, rel=1e-12)


def test_mfn_handles_int64_unsorted_csr_and_empty_rows():
    X, y = make_classification(n=60, d=12, seed=7, density=0.3)
    X[5] = 0
    ref = l2svm_mfn(X, y, lam=0.1)
    S = sp.csr_matrix(X)
    S.indices = S.indices.astype(np.int64)
    S.indptr = S.indptr.astype(np.int64)
    # reverse each row's index order (valid but unsorted CSR)
    for i in range(S.shape[0]):
        a, b = S.indptr[i], S.indptr[i + 1]
        S.indices[a:b] = S.indices[a:b][::-1].copy()
        S.data[a:b] = S.data[a:b][::-1].copy()
    S.has_sorted_indices = False
    res = l2svm_mfn(S, y, lam=0.1)
    np.testing.assert_allclose(res.coef, ref.coef, rtol=1e-6, atol=1e-9)


def test_mfn_float32_tolerance_is_clamped_to_its_precision():
    X, y = make_classification(n=200, d=20, seed=3)
    res = l2svm_mfn(X.astype(np.float32), y, lam=0.05, tol=1e-12)
    assert res.converged and res.cg_history.max() < 1000


def test_mfn_max_iter_reports_not_converged():
    X, y = make_classification(n=300, d=20, seed=8)
    res = l2svm_mfn(X, y, lam=1e-3, max_iter=1)
    assert not res.converged and res.status == "max_iter" and res.n_iter == 1


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(lam=0.0), ValueError, "lam must be"),
        (dict(lam=-1.0), ValueError, "lam must be"),
        (dict(lam=float("nan")), ValueError, "lam must be"),
        (dict(lam="1"), TypeError, "lam must be a real"),
        (dict(costs=[1.0, 2.0]), ValueError, r"costs must have shape"),
        (dict(costs=np.full(20, np.inf)), ValueError, "costs must be finite"),
        (dict(costs=-np.ones(20)), ValueError, "costs must be non-negative"),
        (dict(tol=0), ValueError, "tol must be"),
        (dict(max_iter=0), ValueError, "max_iter must be"),
        (dict(w0=np.ones(3)), ValueError, r"w0 must have shape \(6,\)"),
        (dict(intercept_scaling=0.0), ValueError, "intercept_scaling must be"),
    ],
)
def test_mfn_rejects_bad_arguments(kwargs, exc, match):
    X, y = make_classification(n=20, d=5, seed=0)
    with pytest.raises(exc, match=match):
        l2svm_mfn(X, y, **kwargs)


def test_mfn_rejects_bad_data():
    X, y = make_classification(n=20, d=5, seed=0)
    Xn = X.copy()
    Xn[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        l2svm_mfn(Xn, y)
    with pytest.raises(ValueError, match="only -1 and"):
        l2svm_mfn(X, np.where(y > 0, 1, 0))
    with pytest.raises(ValueError, match=r"y must have shape \(20,\)"):
        l2svm_mfn(X, y[:-1])
    with pytest.raises(ValueError, match="0 sample"):
        l2svm_mfn(np.zeros((0, 5)), np.zeros(0))
    with pytest.raises(ValueError, match="[Cc]omplex"):
        l2svm_mfn(X + 1j, y)


def test_mfn_threads_agree_and_are_reproducible(dtype):
    X, y = make_classification(n=3000, d=40, seed=12, density=0.3)
    S = sp.csr_matrix(X.astype(dtype))
    one = l2svm_mfn(S, y, lam=0.05, n_jobs=1)
    two = l2svm_mfn(S, y, lam=0.05, n_jobs=2)
    again = l2svm_mfn(S, y, lam=0.05, n_jobs=2)
    tol = 1e-6 if dtype == np.float64 else 1e-3
    np.testing.assert_allclose(two.coef, one.coef, rtol=tol, atol=tol)
    assert two.coef.tobytes() == again.coef.tobytes()


@pytest.mark.parametrize("n_jobs, match", [(0, "non-zero"), (1.5, "integer")])
def test_mfn_rejects_bad_n_jobs(n_jobs, match):
    X, y = make_classification(n=20, d=5, seed=0)
    with pytest.raises((ValueError, TypeError), match=match):
        l2svm_mfn(X, y, n_jobs=n_jobs)
