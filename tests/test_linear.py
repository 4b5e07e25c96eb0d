"""The linear family (semisvm.linear): l2svm_mfn and LinearSVM, tsvm / da_s3vm and
TSVM / DASVM -- solvers against independent references, estimators, data."""
import logging
import pickle
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _reference import (
    l2svm_gradient,
    l2svm_lbfgs,
    l2svm_objective,
    make_classification,
    ssl01,
)
from conftest import load_shared
from scipy.special import expit, xlogy
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning

from semisvm import DASVM, TSVM, LinearSVM, _linear_ssl, _rows, linear
from semisvm._results import DAResult, TSVMResult
from semisvm.linear import l2svm_mfn


# -- LinearSVM ------------------------------------------------------------
def test_linearsvm_maps_any_two_labels_and_matches_the_solver():
    X, y = make_classification(n=120, d=10, seed=1)
    labels = np.where(y > 0, "spam", "ham")            # "ham" < "spam": spam is +1
    clf = LinearSVM(lam=0.1).fit(X, labels)
    assert list(clf.classes_) == ["ham", "spam"]
    res = l2svm_mfn(X, y, lam=0.1, tol=1e-7)
    np.testing.assert_array_equal(clf.coef_, res.coef)
    assert set(clf.predict(X)) <= {"ham", "spam"}
    assert clf.score(X, labels) > 0.85
    np.testing.assert_allclose(clf.decision_function(X), X @ clf.coef_ + clf.intercept_)


def test_linearsvm_sample_and_class_weights_enter_the_costs():
    X, y = make_classification(n=100, d=6, seed=2)
    sw = np.random.RandomState(0).rand(100) + 0.5
    clf = LinearSVM(lam=0.2, class_weight={-1.0: 3.0, 1.0: 0.5}).fit(X, y, sample_weight=sw)
    costs = sw * np.where(y > 0, 0.5, 3.0)
    w, b, f = l2svm_lbfgs(X, y, 0.2, costs)
    assert l2svm_objective(X, y, clf.coef_, clf.intercept_, 0.2, costs) == pytest.approx(
        f, rel=1e-6)


def test_linearsvm_intercept_scaling_changes_the_bias_penalty():
    X, y = make_classification(n=100, d=6, seed=3)
    y = np.where(X[:, 0] > 1.0, 1.0, -1.0)      # unbalanced: the bias matters
    small = LinearSVM(lam=1.0, intercept_scaling=0.1).fit(X, y)
    large = LinearSVM(lam=1.0, intercept_scaling=10.0).fit(X, y)
    w, b, f = l2svm_lbfgs(X, y, 1.0, s=10.0)
    assert large.intercept_ == pytest.approx(b, rel=1e-4)
    assert abs(large.intercept_) > abs(small.intercept_)


def test_linearsvm_float32_in_float32_out():
    X, y = make_classification(n=80, d=5, seed=4)
    clf = LinearSVM().fit(X.astype(np.float32), y)
    assert clf.coef_.dtype == np.float32
    assert clf.decision_function(X.astype(np.float32)).dtype == np.float32


def test_linearsvm_readonly_and_memmap_input(tmp_path):
    X, y = make_classification(n=80, d=5, seed=5)
    ref = LinearSVM().fit(X, y).coef_
    Xr = X.copy()
    Xr.setflags(write=False)
    np.testing.assert_array_equal(LinearSVM().fit(Xr, y).coef_, ref)
    path = tmp_path / "X.dat"
    mm = np.memmap(path, dtype=np.float64, mode="w+", shape=X.shape)
    mm[:] = X
    mm.flush()
    mm = np.memmap(path, dtype=np.float64, mode="r", shape=X.shape)
    np.testing.assert_array_equal(LinearSVM().fit(mm, y).coef_, ref)
    S = sp.csr_matrix(X)
    for a in (S.data, S.indices, S.indptr):
        a.setflags(write=False)
    np.testing.assert_allclose(LinearSVM().fit(S, y).coef_, ref, rtol=1e-8)


def test_linearsvm_pickles_and_predicts_the_same():
    X, y = make_classification(n=80, d=5, seed=6)
    clf = LinearSVM(lam=0.3).fit(sp.csr_matrix(X), y)
    clone = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clone.decision_function(X), clf.decision_function(X))
    assert clone.result_.objective == clf.result_.objective


def test_linearsvm_verbose_logs_iterations(caplog):
    X, y = make_classification(n=80, d=5, seed=6)
    with caplog.at_level("INFO", logger="semisvm"):
        LinearSVM(verbose=1).fit(X, y)
    assert any("MFN iter 1:" in r.getMessage() for r in caplog.records)
    assert any("stopped" in r.getMessage() for r in caplog.records)


def test_linearsvm_warns_when_max_iter_is_hit():
    X, y = make_classification(n=300, d=20, seed=8)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        clf = LinearSVM(lam=1e-3, max_iter=1).fit(X, y)
    assert clf.n_iter_ == 1 and not clf.result_.converged


@pytest.mark.parametrize(
    "X, y, exc, match",
    [
        (np.ones((4, 2)), [1, 1, 1, 1], ValueError, "needs 2 classes"),
        (np.ones((6, 2)), [[0, 1]] * 6, ValueError, "y should be a 1d array"),
        (np.ones((4, 2)), [0.5, 1.5, 0.2, 1], ValueError, "Unknown label type"),
        (np.ones((4, 2)), [0, 1, 0], ValueError, "inconsistent numbers of samples"),
        (np.array([[1.0, np.inf], [0, 1]]), [0, 1], ValueError, "infinity"),
        (np.ones((0, 2)), [], ValueError, "0 sample"),
    ],
)
def test_linearsvm_rejects_bad_input(X, y, exc, match):
    with pytest.raises(exc, match=match):
        LinearSVM().fit(X, y)


@pytest.mark.parametrize("lam", [0, -1.0, float("inf")])
def test_linearsvm_rejects_bad_lam(lam):
    with pytest.raises(ValueError, match="lam must be"):
        LinearSVM(lam=lam).fit(np.eye(2), [0, 1])


def test_linearsvm_rejects_int64_csr_too_large(monkeypatch):
    from semisvm import _validation
    monkeypatch.setattr(_validation, "_INT32_MAX", 3)
    S = sp.csr_matrix(np.eye(5))
    S.indices = S.indices.astype(np.int64)
    S.indptr = S.indptr.astype(np.int64)
    with pytest.raises(ValueError, match="int32 indices"):
        LinearSVM().fit(S, [0, 1, 0, 1, 0])


def test_linearsvm_rejects_feature_count_mismatch():
    clf = LinearSVM().fit(np.eye(3), [0, 1, 1])
    with pytest.raises(ValueError, match="features"):
        clf.predict(np.ones((2, 4)))


def test_linearsvm_breast_cancer_accuracy():
    X, y = load_breast_cancer(return_X_y=True)
    X = X / X.max(axis=0)
    clf = LinearSVM(lam=0.01).fit(X[::2], y[::2])
    assert clf.score(X[1::2], y[1::2]) > 0.93


def test_linearsvm_adult_a9a_matches_lbfgs_and_is_accurate():
    d = load_shared("adult_a9a")
    X, y, Xt, yt = d["X"], d["y"], d["X_test"], d["y_test"]
    lam = 0.5      # LIBLINEAR C = 1
    clf = LinearSVM(lam=lam).fit(X, y)
    assert clf.result_.converged
    acc = clf.score(Xt, yt)
    assert acc > 0.84       # LIBLINEAR's L2-loss SVM on a9a: ~0.85
    yy = np.where(y > 0, 1.0, -1.0)
    w, b, f = l2svm_lbfgs(X, yy, lam)
    assert clf.result_.objective == pytest.approx(f, rel=1e-6)


def test_linearsvm_pcmac_csr_and_float32():
    d = load_shared("pcmac")
    X, y = d["X"], d["y"]
    tr, te = np.arange(0, X.shape[0], 2), np.arange(1, X.shape[0], 2)
    a = LinearSVM(lam=1e-3).fit(X[tr], y[tr])
    b = LinearSVM(lam=1e-3).fit(X[tr].astype(np.float32), y[tr])
    assert a.score(X[te], y[te]) > 0.9
    assert b.result_.objective == pytest.approx(a.result_.objective, rel=1e-3)


def test_linearsvm_two_fits_in_two_threads_match_serial_fits():
    from concurrent.futures import ThreadPoolExecutor
    problems = [make_classification(n=400, d=30, seed=s, density=0.5) for s in (11, 12)]
    serial = [LinearSVM(lam=0.05).fit(sp.csr_matrix(X), y).coef_ for X, y in problems]
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(lambda p: LinearSVM(lam=0.05).fit(sp.csr_matrix(p[0]), p[1]),
                               p) for p in problems]
        threaded = [f.result().coef_ for f in futures]
    for a, b in zip(serial, threaded, strict=True):
        assert a.tobytes() == b.tobytes()


# -- l2svm_mfn ------------------------------------------------------------
# float64: objective to 1e-6 relative (the accuracy bar), gradient to 1e-6 relative.
# float32: the solver computes in single precision; 1e-4 relative is its floor.
TOL = {np.float64: 1e-6, np.float32: 1e-4}


@pytest.mark.parametrize("newton", ["cgls", "cholesky"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_mfn_reaches_the_lbfgs_optimum(dtype, container, weighted, fit_intercept,
                                       newton):
    X, y = make_classification(n=150, d=20, seed=3, density=0.4)
    rng = np.random.RandomState(0)
    costs = rng.rand(150) * 2 if weighted else None
    lam = 0.05
    res = l2svm_mfn(container(X.astype(dtype)), y, lam=lam, costs=costs, tol=1e-9,
                    grad_tol=0, fit_intercept=fit_intercept, newton=newton)
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


@pytest.mark.parametrize("newton", ["cgls", "cholesky"])
def test_mfn_objective_history_is_non_increasing(newton):
    X, y = make_classification(n=400, d=30, seed=5)
    res = l2svm_mfn(X, y, lam=0.01, newton=newton)
    h = res.history
    assert np.all(np.diff(h) <= 1e-12 * np.abs(h[:-1]))
    assert res.n_cg_iter == res.cg_history.sum()
    assert (res.n_cg_iter > 0) == (newton == "cgls")
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


def test_mfn_takes_zero_one_labels_as_minus_plus_one():
    X, y = make_classification(n=40, d=5, seed=1)
    pm = l2svm_mfn(X, y, lam=0.1)
    zo = l2svm_mfn(X, np.where(y > 0, 1, 0), lam=0.1)
    assert np.array_equal(pm.coef, zo.coef) and pm.objective == zo.objective


def test_mfn_rejects_bad_data():
    X, y = make_classification(n=20, d=5, seed=0)
    Xn = X.copy()
    Xn[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        l2svm_mfn(Xn, y)
    with pytest.raises(ValueError, match="only -1 and"):
        l2svm_mfn(X, np.where(y > 0, 1, 2))
    with pytest.raises(ValueError, match=r"y must have shape \(20,\)"):
        l2svm_mfn(X, y[:-1])
    with pytest.raises(ValueError, match="0 sample"):
        l2svm_mfn(np.zeros((0, 5)), np.zeros(0))
    with pytest.raises(ValueError, match="[Cc]omplex"):
        l2svm_mfn(X + 1j, y)


@pytest.mark.parametrize("newton", ["auto", "cgls"])
def test_mfn_has_the_same_bits_for_any_thread_count(dtype, newton):
    from semisvm._core._cgls import _set_blocking
    X, y = make_classification(n=3000, d=40, seed=12, density=0.3)
    S = sp.csr_matrix(X.astype(dtype))
    old = _set_blocking(2000, 6)      # several row blocks even at this size
    try:
        res = [l2svm_mfn(S, y, lam=0.05, n_jobs=k, newton=newton, grad_tol=0)
               for k in (1, 2, 3, 2)]
    finally:
        _set_blocking(*old)
    one = l2svm_mfn(S, y, lam=0.05, newton=newton, grad_tol=0)   # one block
    for r in res[1:]:
        assert r.coef.tobytes() == res[0].coef.tobytes()
        assert r.decision.tobytes() == res[0].decision.tobytes()
        assert r.n_cg_iter == res[0].n_cg_iter
    tol = 1e-6 if dtype == np.float64 else 1e-3
    np.testing.assert_allclose(res[0].coef, one.coef, rtol=tol, atol=tol)


def _liblinear_scale(y):
    n_pos = int(np.sum(y > 0))
    return max(min(n_pos, y.size - n_pos), 1) / y.size


@pytest.mark.parametrize("grad_tol", [0.01, 1e-3])
def test_mfn_default_stops_on_liblinears_gradient_test(grad_tol):
    X, y = make_classification(n=2000, d=300, seed=4, density=0.05)
    S = sp.csr_matrix(X)
    lam = 0.01
    res = l2svm_mfn(S, y, lam=lam, **({} if grad_tol == 0.01 else {"grad_tol": grad_tol}))
    assert res.status == "gradient" and res.converged and res.n_cg_iter > 0
    g = l2svm_gradient(X, y, res.coef, res.intercept, lam)
    g0 = l2svm_gradient(X, y, np.zeros(300), 0.0, lam)
    bound = grad_tol * _liblinear_scale(y) * np.linalg.norm(g0)
    assert np.linalg.norm(g) <= bound
    # it stopped at the first iterate passing the test, not later
    assert res.n_iter >= 1
    prev = l2svm_mfn(S, y, lam=lam, grad_tol=grad_tol, max_iter=res.n_iter)
    assert prev.coef.tobytes() == res.coef.tobytes()
    if res.n_iter > 1:
        early = l2svm_mfn(S, y, lam=lam, grad_tol=grad_tol, max_iter=res.n_iter - 1)
        ge = l2svm_gradient(X, y, early.coef, early.intercept, lam)
        assert np.linalg.norm(ge) > bound
    # grad_tol=0: the reference implementation's finite termination
    exact = l2svm_mfn(S, y, lam=lam, grad_tol=0)
    assert exact.status == "optimal"
    assert res.objective >= exact.objective
    assert res.objective == pytest.approx(exact.objective, rel=1e-3)


def test_mfn_default_objective_is_within_liblinears_default():
    liblinearutil = pytest.importorskip("liblinear.liblinearutil")
    X, y = make_classification(n=3000, d=400, seed=8, density=0.05)
    S = sp.csr_matrix(X)
    lam = 0.05
    res = l2svm_mfn(S, y, lam=lam)
    assert res.status == "gradient"
    model = liblinearutil.train(
        liblinearutil.problem(y, S, bias=1),
        liblinearutil.parameter(f"-s 2 -c {1 / (2 * lam)!r} -B 1 -q"))
    wf = np.ctypeslib.as_array(model.w, (401,)).copy()
    if model.get_labels()[0] != 1:
        wf = -wf
    f_ll = l2svm_objective(X, y, wf[:400], wf[400], lam)
    f = l2svm_objective(X, y, res.coef, res.intercept, lam)
    assert f <= f_ll * (1 + 1e-6)


@pytest.mark.parametrize("n_jobs, match", [(0, "non-zero"), (1.5, "integer")])
def test_mfn_rejects_bad_n_jobs(n_jobs, match):
    X, y = make_classification(n=20, d=5, seed=0)
    with pytest.raises((ValueError, TypeError), match=match):
        l2svm_mfn(X, y, n_jobs=n_jobs)


def test_mfn_cholesky_handles_repeated_column_indices_in_a_row():
    # CSR with duplicate (row, col) entries means their sum, for both solvers
    X, y = make_classification(n=80, d=6, seed=13)
    S = sp.csr_matrix(X)
    data = np.repeat(S.data / 2, 2)
    indices = np.repeat(S.indices, 2)
    indptr = S.indptr * 2
    dup = sp.csr_matrix((data, indices, indptr), shape=S.shape)
    dup.has_canonical_format = False
    ref = l2svm_mfn(X, y, lam=0.1, newton="cgls", tol=1e-10, grad_tol=0)
    res = l2svm_mfn(dup, y, lam=0.1, newton="cholesky")
    np.testing.assert_allclose(res.coef, ref.coef, rtol=1e-7, atol=1e-9)


def test_mfn_auto_picks_cholesky_for_few_features_and_cgls_for_many():
    X, y = make_classification(n=300, d=10, seed=1)
    assert l2svm_mfn(X, y, lam=0.1).n_cg_iter == 0
    rng = np.random.RandomState(0)
    S = sp.random(300, 5000, density=0.002, format="csr", random_state=rng)
    assert l2svm_mfn(S, y, lam=0.1).n_cg_iter > 0
    with pytest.raises(ValueError, match="newton must be one of"):
        l2svm_mfn(X, y, newton="lu")


# -- TSVM / DA-S3VM -------------------------------------------------------
def l2(z):
    return np.maximum(0.0, 1.0 - z) ** 2


def make_problem(seed, n=120, d=6, n_lab=12, flip=0.1):
    """Seeded linear problem; y in {-1, 0, +1} (0 = unlabeled), both classes labeled."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    w = rng.normal(size=d)
    y_true = np.where(X @ w + 0.3 > 0, 1.0, -1.0)
    y_true[rng.random(n) < flip] *= -1
    lab = np.r_[rng.choice(np.flatnonzero(y_true > 0), n_lab // 2, replace=False),
                rng.choice(np.flatnonzero(y_true < 0), n_lab // 2, replace=False)]
    y = np.zeros(n)
    y[lab] = y_true[lab]
    return X, y, y_true


def reference_objectives(X, y, res, lam, lam_u, s=1.0):
    """Independent NumPy evaluation of the stated objectives at res.coef/intercept."""
    Xd = X.toarray() if sp.issparse(X) else X
    coef = res.coef.astype(np.float64)
    wb = res.intercept / s
    o = Xd.astype(np.float64) @ coef + res.intercept
    L, U = y != 0, y == 0
    l, u = L.sum(), U.sum()
    base = 0.5 * lam * (coef @ coef + wb * wb) + 0.5 / l * np.sum(l2(y[L] * o[L]))
    f_abs = base + 0.5 * lam_u / u * np.sum(l2(np.abs(o[U])))
    f_lab = base + 0.5 * lam_u / u * np.sum(l2(res.labels[U] * o[U]))
    return o, base, f_abs, f_lab


def gradient(X, y_all, cpos, cneg, coef, wb, lam, s=1.0):
    """Gradient of lam/2||w||^2 + 1/2 sum cpos l2(o) + cneg l2(-o) (bias feature s)."""
    Xt = np.c_[X, np.full(X.shape[0], s)]
    w = np.r_[coef, wb]
    o = Xt @ w
    r = -cpos * np.maximum(0, 1 - o) + cneg * np.maximum(0, 1 + o)
    return lam * w + Xt.T @ r


def label_gradient(X, y, labels, res, lam, lam_u):
    """Gradient of the label objective (the unlabeled rows given ``labels``)
    at res.coef/intercept: ~0 when w is the minimiser for those labels."""
    U = y == 0
    l, u = (~U).sum(), U.sum()
    cpos = np.where(y > 0, 1 / l, 0.0)
    cneg = np.where(y < 0, 1 / l, 0.0)
    cpos[U] = np.where(labels[U] > 0, lam_u / u, 0)
    cneg[U] = np.where(labels[U] < 0, lam_u / u, 0)
    return gradient(X, y, cpos, cneg, res.coef, res.intercept, lam)


def make_clusters(seed, n=200, sy=3.5, a=3.0):
    """Two elongated clusters split by the gap x = 0; the two labeled rows
    (-3, a) and (3, -a) tilt the supervised boundary across both clusters.
    Returns X, y (estimator convention: -1 unlabeled, labels 0/1), truth."""
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal([-3, 0], [0.5, sy], (n, 2)),
              rng.normal([3, 0], [0.5, sy], (n, 2))]
    truth = np.repeat([0, 1], n)
    X[0], X[n] = [-3, a], [3, -a]
    y = np.full(2 * n, -1)
    y[0], y[n] = 0, 1
    return X, y, truth


# --------------------------------------------------------------------- TSVM

@pytest.mark.parametrize("S", [1, 10000])
def test_tsvm_objective_equals_numpy(S, dtype, container):
    X, y, _ = make_problem(0)
    Xc = container(X.astype(dtype))
    res = linear.tsvm(Xc, ssl01(y), lam=1e-2, lam_u=0.5, S=S, tol=1e-10)
    assert isinstance(res, TSVMResult) and res.converged
    o, _, f_abs, f_lab = reference_objectives(X, y, res, 1e-2, 0.5)
    rtol = 1e-4 if dtype == np.float32 else 1e-10
    assert res.objective == pytest.approx(f_abs, rel=rtol)
    assert res.label_objective == pytest.approx(f_lab, rel=rtol)
    assert res.label_objective >= res.objective - 1e-12
    np.testing.assert_allclose(res.decision, o, rtol=rtol, atol=rtol)
    assert res.coef.dtype == dtype


def test_tsvm_local_optimum_and_balance(seed):
    X, y, _ = make_problem(seed)
    lam, lam_u = 1e-2, 1.0
    res = linear.tsvm(X, ssl01(y), lam=lam, lam_u=lam_u, tol=1e-12)
    U = np.flatnonzero(y == 0)
    u = U.size
    yu = res.labels[U]
    # balance: round(r u) positives, r = labeled positive fraction
    r = np.mean(y[y != 0] > 0)
    assert res.r == r
    assert (yu > 0).sum() == res.n_positive == int(np.floor(r * u + 0.5))
    # no single pair switch lowers the objective at the final lam_u (brute force)
    o, base, _, f_lab = reference_objectives(X, y, res, lam, lam_u)
    ou = o[U]
    pos, neg = np.flatnonzero(yu > 0), np.flatnonzero(yu < 0)
    for i in pos:
        for j in neg:
            y2 = yu.copy()
            y2[i], y2[j] = -1, 1
            f2 = base + 0.5 * lam_u / u * np.sum(l2(y2 * ou))
            assert f2 >= f_lab - 1e-12
    # w is the minimiser for these labels: gradient of the label objective ~ 0
    g = label_gradient(X, y, res.labels, res, lam, lam_u)
    assert np.linalg.norm(g) < 1e-7


def test_tsvm_balance_follows_r():
    X, y, _ = make_problem(1)
    u = (y == 0).sum()
    for r in (0.2, 0.5, 0.77):
        res = linear.tsvm(X, ssl01(y), r=r)
        assert (res.labels[y == 0] > 0).sum() == int(np.floor(r * u + 0.5))


def test_tsvm_single_and_multiple_switching_agree(seed):
    X, y, _ = make_clusters(seed)
    y = np.where(y == -1, 0.0, np.where(y == 1, 1.0, -1.0))
    r1 = linear.tsvm(X, ssl01(y), S=1)
    rS = linear.tsvm(X, ssl01(y), S=10000)
    assert r1.converged and rS.converged
    assert r1.n_switches > 10
    # local optima of the same non-convex objective: within 5 % (here equal)
    assert abs(r1.objective - rS.objective) <= 0.05 * min(r1.objective, rS.objective)
    assert rS.n_mfn < r1.n_mfn


def test_tsvm_history_and_annealing():
    X, y, _ = make_problem(2)
    res = linear.tsvm(X, ssl01(y), lam_u=1.0, lam_u_init=1e-2, lam_u_rate=2.0)
    h = res.lam_u_history
    assert h[0] == 1e-2 and h[-1] == 1.0 and res.lam_u == 1.0
    np.testing.assert_allclose(h[1:-1] / h[:-2], 2.0)
    assert res.switch_history.sum() == res.n_switches
    assert res.mfn_history.sum() + 1 == res.n_mfn
    assert res.history[-1] == pytest.approx(res.label_objective)


def test_tsvm_lam_u_zero_is_supervised():
    X, y, _ = make_problem(3)
    L = y != 0
    res = linear.tsvm(X, ssl01(y), lam=1e-2, lam_u=0.0, tol=1e-12)
    sup = linear.l2svm_mfn(X[L], y[L], lam=1e-2 * L.sum(), tol=1e-12)
    np.testing.assert_allclose(res.coef, sup.coef, rtol=1e-8, atol=1e-10)


# ----------------------------------------------------------------------- DA

def test_da_balance_and_objectives(dtype, container):
    X, y, _ = make_problem(0)
    Xc = container(X.astype(dtype))
    lam, lam_u = 1e-2, 0.5
    res = linear.da_s3vm(Xc, ssl01(y), lam=lam, lam_u=lam_u)
    assert isinstance(res, DAResult) and res.converged
    assert abs(res.p.mean() - res.r) < 1e-8
    o, base, f_abs, _ = reference_objectives(X, y, res, lam, lam_u)
    rtol = 1e-4 if dtype == np.float32 else 1e-10
    assert res.objective == pytest.approx(f_abs, rel=rtol)
    assert res.objective <= res.history.min()
    U = y == 0
    p, u, T = res.p, U.sum(), res.T
    f_da = (base + 0.5 * lam_u / u * np.sum(p * l2(o[U]) + (1 - p) * l2(-o[U]))
            + 0.5 * T / u * np.sum(xlogy(p, p) + xlogy(1 - p, 1 - p)))
    assert res.da_objective == pytest.approx(f_da, rel=rtol)
    np.testing.assert_array_equal(res.labels[U], np.where(p > 0.5, 1, -1))


def test_da_p_is_the_p_step_optimum():
    """p minimises the DA objective over the balanced simplex for the returned w."""
    X, y, _ = make_problem(5)
    lam_u = 1.0
    res = linear.da_s3vm(X, ssl01(y), lam_u=lam_u, tol=1e-12)
    U = y == 0
    o = X[U] @ res.coef + res.intercept
    g = lam_u * (l2(o) - l2(-o))
    np.testing.assert_allclose(res.p, expit((res.nu - g) / res.T),
                               rtol=1e-8, atol=1e-12)


def test_da_annealing_history():
    X, y, _ = make_problem(4)
    res = linear.da_s3vm(X, ssl01(y), T0=2.0, T_rate=2.0)
    np.testing.assert_allclose(res.T_history, 2.0 / 2.0 ** np.arange(res.n_outer))
    assert res.inner_history.sum() == res.n_inner == res.n_mfn - 1
    assert np.all(res.kl_history[res.inner_history < 100] < 1e-5)  # the default kl_tol
    assert res.status == "entropy"
    assert res.T in res.T_history


@pytest.mark.parametrize("seed", [0, 1])
def test_da_fast_iterations_keep_the_result(seed):
    """Defaults (over-relaxed p-steps, one Newton step per w-step, kl_tol
    1e-5, T0 = lam_u) vs the reference settings: the same labels, objective
    within 1e-3, fewer Newton iterations; each option alone also agrees."""
    X, y, _ = make_clusters(seed)
    y = np.where(y == -1, 0.0, np.where(y == 1, 1.0, -1.0))
    ref = linear.da_s3vm(X, ssl01(y), relax=1.0, newton_steps=None, kl_tol=1e-6,
                          T0=10.0)
    fast = linear.da_s3vm(X, ssl01(y))
    assert ref.converged and fast.converged
    assert fast.objective == pytest.approx(ref.objective, rel=1e-3)
    np.testing.assert_array_equal(fast.labels, ref.labels)
    assert fast.n_iter < ref.n_iter
    assert abs(fast.p.mean() - fast.r) < 1e-8
    for kw in ({"relax": 1.0}, {"newton_steps": None}, {"newton_steps": 3},
               {"relax": 0.8}):
        res = linear.da_s3vm(X, ssl01(y), **kw)
        assert res.objective == pytest.approx(ref.objective, rel=1e-3)
        np.testing.assert_array_equal(res.labels, ref.labels)


def test_da_kept_p_is_the_plain_p_step_after_relaxed_rounds():
    """The kept point mid-temperature (after over-relaxed p-steps): p, nu
    are the plain p-step's answer to the returned w."""
    X, y, _ = make_problem(5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = linear.da_s3vm(X, ssl01(y), max_outer_iter=1, max_inner_iter=3)
    assert res.n_inner == 3 and res.objective == res.history[-1]
    U = y == 0
    o = X[U] @ res.coef + res.intercept
    g = l2(o) - l2(-o)
    np.testing.assert_allclose(res.p, expit((res.nu - g) / res.T),
                               rtol=1e-8, atol=1e-12)
    assert abs(res.p.mean() - res.r) < 1e-8


def test_da_rejects_bad_relax_and_newton_steps():
    X, y, _ = make_problem(0)
    with pytest.raises(ValueError, match="relax"):
        linear.da_s3vm(X, ssl01(y), relax=2.0)
    with pytest.raises(ValueError, match="relax"):
        linear.da_s3vm(X, ssl01(y), relax=0.0)
    with pytest.raises(ValueError, match="newton_steps"):
        linear.da_s3vm(X, ssl01(y), newton_steps=0)


def test_tsvm_lam_continuation():
    """lam_factor: the annealing runs at lam_factor * lam, then lam comes down
    by lam_u_rate; the result is a local optimum of the objective at lam."""
    X, y, _ = make_problem(6)
    lam, lam_u = 1e-2, 1.0
    res = linear.tsvm(X, ssl01(y), lam=lam, lam_u=lam_u, lam_factor=8.0,
                       lam_u_init=1e-2, lam_u_rate=2.0, tol=1e-12)
    h, hu = res.lam_history, res.lam_u_history
    assert h.size == hu.size and h[0] == 8 * lam and h[-1] == lam
    # lam stays at 8 lam until lam_u is reached, then halves per step
    up = np.flatnonzero(hu < lam_u)
    np.testing.assert_array_equal(h[up], 8 * lam)
    np.testing.assert_allclose(h[up.size:], lam * np.array([8, 4, 2, 1.0]))
    o, base, f_abs, f_lab = reference_objectives(X, y, res, lam, lam_u)
    assert res.objective == pytest.approx(f_abs, rel=1e-10)
    assert res.label_objective == pytest.approx(f_lab, rel=1e-10)
    g = label_gradient(X, y, res.labels, res, lam, lam_u)
    assert np.linalg.norm(g) < 1e-7


def test_da_lam_continuation():
    """lam_factor: lam divided by T_rate per temperature down to lam; the
    returned point is one at lam (objective and p-step optimum at lam)."""
    X, y, _ = make_problem(7)
    lam, lam_u = 1e-2, 1.0
    res = linear.da_s3vm(X, ssl01(y), lam=lam, lam_u=lam_u, lam_factor=8.0,
                          T_rate=2.0, tol=1e-12)
    h = res.lam_history
    assert h.size == res.n_outer and h[-1] == lam
    np.testing.assert_allclose(h[:4], lam * np.array([8, 4, 2, 1.0]))
    o, _, f_abs, _ = reference_objectives(X, y, res, lam, lam_u)
    assert res.objective == pytest.approx(f_abs, rel=1e-10)
    g = lam_u * (l2(o[y == 0]) - l2(-o[y == 0]))
    np.testing.assert_allclose(res.p, expit((res.nu - g) / res.T),
                               rtol=1e-8, atol=1e-12)
    assert abs(res.p.mean() - res.r) < 1e-8


# ------------------------------------------------------------ both / estimators

def _ssl_y(y):
    """Functional y (0 unlabeled, +-1) -> estimator y (-1 unlabeled, labels 3/7)."""
    return np.where(y == 0, -1, np.where(y > 0, 7, 3))


@pytest.mark.parametrize("Est", [TSVM, DASVM])
def test_dense_and_csr_same_transduction(Est):
    X, y, _ = make_problem(7)
    Xs = sp.csr_matrix(X * (np.abs(X) > 0.5))
    a = Est().fit(Xs.toarray(), _ssl_y(y))
    b = Est().fit(Xs, _ssl_y(y))
    np.testing.assert_array_equal(a.transduction_, b.transduction_)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-8)
    assert set(np.unique(a.transduction_)) == {3, 7}
    np.testing.assert_array_equal(a.transduction_[y != 0], _ssl_y(y)[y != 0])


@pytest.mark.parametrize("Est", [TSVM, DASVM])
def test_float32_close_to_float64(Est):
    X, y, _ = make_problem(8)
    a = Est().fit(X, _ssl_y(y))
    b = Est().fit(X.astype(np.float32), _ssl_y(y))
    assert b.coef_.dtype == np.float32
    assert np.mean(a.transduction_ != b.transduction_) <= 0.02
    assert b.result_.objective == pytest.approx(a.result_.objective, rel=1e-3)


@pytest.mark.parametrize("Est", [TSVM, DASVM])
def test_deterministic(Est):
    X, y, _ = make_problem(9)
    a = Est().fit(X, _ssl_y(y))
    b = Est().fit(X, _ssl_y(y))
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.intercept_ == b.intercept_
    np.testing.assert_array_equal(a.transduction_, b.transduction_)


def test_two_clusters_one_label_each(seed):
    X, y, truth = make_clusters(seed)
    n = len(y) // 2
    sup = LinearSVM(lam=2e-3).fit(X[[0, n]], [0, 1])   # same labeled loss
    assert np.mean(sup.predict(X) != truth) > 0.15
    X_new, _, truth_new = make_clusters(seed + 1000)
    for est in (TSVM(), TSVM(S=1), DASVM()):
        est.fit(X, y)
        assert np.mean(est.transduction_ != truth) < 0.02
        # out of sample: fresh points from the same clusters
        assert np.mean(est.predict(X_new) != truth_new) < 0.02


@pytest.mark.parametrize("Est", [TSVM, DASVM])
def test_bad_input(Est):
    X, y, _ = make_problem(0)
    ys = _ssl_y(y)
    with pytest.raises(ValueError, match="labeled rows"):
        Est().fit(X, np.full(len(y), -1))
    one = ys.copy()
    one[one == 3] = 7
    with pytest.raises(ValueError, match="needs 2 classes"):
        Est().fit(X, one)
    three = ys.copy()
    three[np.flatnonzero(ys == 3)[0]] = 5
    # three classes: one-vs-rest, r is one fraction per class
    with pytest.raises(ValueError, match="r must be None or an array of 3"):
        Est(r=0.5).fit(X, three)
    with pytest.raises(ValueError, match=r"r must have shape \(3,\)"):
        Est(r=[0.5, 0.5]).fit(X, three)
    with pytest.raises(ValueError, match="r must be strictly between 0 and 1"):
        Est(r=[0.5, 0.5, 1.0]).fit(X, three)
    for r in (0.0, 1.0, -0.2, 1.5):
        with pytest.raises(ValueError, match="r must be strictly between 0 and 1"):
            Est(r=r).fit(X, ys)
    with pytest.raises(ValueError, match="lam_u must be"):
        Est(lam_u=-1.0).fit(X, ys)
    with pytest.raises(ValueError, match="lam must be"):
        Est(lam=0.0).fit(X, ys)


def test_functional_bad_input():
    X, y, _ = make_problem(0)
    with pytest.raises(ValueError, match="no labeled rows"):
        linear.tsvm(X, np.full(len(y), -1))
    with pytest.raises(ValueError, match="both classes"):
        linear.da_s3vm(X, ssl01(np.where(y != 0, 1.0, 0.0)))
    with pytest.raises(ValueError, match=r"only 1, 0 \(labeled"):
        linear.tsvm(X, np.where(y == 0, 2.0, ssl01(y)))
    with pytest.raises(ValueError, match="S must be"):
        linear.tsvm(X, ssl01(y), S=0)
    with pytest.raises(ValueError, match="lam_u_rate must be > 1"):
        linear.tsvm(X, ssl01(y), lam_u_rate=1.0)
    with pytest.raises(ValueError, match="T_rate must be > 1"):
        linear.da_s3vm(X, ssl01(y), T_rate=0.5)
    with pytest.raises(ValueError, match="lam_factor must be >= 1"):
        linear.tsvm(X, ssl01(y), lam_factor=0.5)
    with pytest.raises(ValueError, match="lam_factor must be >= 1"):
        linear.da_s3vm(X, ssl01(y), lam_factor=0.5)
    with pytest.raises(ValueError, match="T0 must be"):
        linear.da_s3vm(X, ssl01(y), T0=-1.0)
    with pytest.raises(ValueError, match="shape"):
        linear.tsvm(X, ssl01(y[:-1]))


def test_convergence_warnings_on_caps():
    X, y, _ = make_problem(11, n=200)
    with pytest.warns(ConvergenceWarning, match="max_inner_iter"):
        est = TSVM(S=1, max_inner_iter=1).fit(X, _ssl_y(y))
    assert not est.result_.converged
    with pytest.warns(ConvergenceWarning, match="max_outer_iter"):
        est = DASVM(max_outer_iter=2).fit(X, _ssl_y(y))
    assert est.result_.status == "max_outer_iter" and est.result_.n_outer == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TSVM().fit(X, _ssl_y(y))
        DASVM().fit(X, _ssl_y(y))


def test_verbose_logs_annealing_and_switches(caplog):
    X, y, _ = make_problem(12)
    with caplog.at_level(logging.INFO, logger="semisvm"):
        TSVM(verbose=2).fit(X, _ssl_y(y))
        DASVM(verbose=1).fit(X, _ssl_y(y))
    text = caplog.text
    assert "pairs switched" in text and "TSVM lam_u=" in text
    assert "DA T=" in text and "entropy" in text


def test_no_unlabeled_rows_is_supervised():
    X, y, y_true = make_problem(13)
    est = TSVM().fit(X, _ssl_y(y_true))
    # lam="auto": 0.003 * mean ||x||^2 over the rows
    assert est.lam_ == pytest.approx(0.003 * np.mean(np.sum(X * X, axis=1)))
    sup = LinearSVM(lam=est.lam_ * len(y)).fit(X, _ssl_y(y_true))
    np.testing.assert_allclose(est.coef_, sup.coef_, rtol=1e-5, atol=1e-7)
    assert DASVM().fit(X, _ssl_y(y_true)).result_.converged


@pytest.mark.parametrize("Est", [TSVM, DASVM])
def test_lam_auto_is_scale_invariant(Est, container):
    """lam="auto" = 0.003 mean ||x||^2: scaling X by a scales coef_ by 1/a and
    keeps the labels (no bias: its constant feature does not scale)."""
    X, y, _ = make_problem(5)
    a = Est(fit_intercept=False).fit(container(X), _ssl_y(y))
    b = Est(fit_intercept=False).fit(container(10 * X), _ssl_y(y))
    assert a.lam_ == pytest.approx(0.003 * np.mean(np.sum(X * X, axis=1)), rel=1e-12)
    assert b.lam_ == pytest.approx(100 * a.lam_, rel=1e-12)
    np.testing.assert_array_equal(a.transduction_, b.transduction_)
    np.testing.assert_allclose(b.coef_, a.coef_ / 10, rtol=1e-4, atol=1e-8)
    # a fixed lam does not have that property
    c = Est(fit_intercept=False, lam=a.lam_).fit(10 * X, _ssl_y(y))
    assert not np.allclose(c.coef_, a.coef_ / 10, rtol=1e-2)
    with pytest.raises(ValueError, match='lam must be a number > 0 or "auto"'):
        Est(lam="big").fit(X, _ssl_y(y))


# --------------------------------------------------------------- real data

@pytest.mark.slow
def test_pcmac_transductive_error():
    """pcmac, its 10 splits of 50 labels: TSVM/DA well below the supervised SVM."""
    d = load_shared("pcmac")
    X, yall = d["X"], d["y"]
    yall = (yall > 0).astype(int)       # pcmac's labels are -1/+1: -1 would
    err = {"sup": [], "tsvm": [], "da": []}   # mean "unlabeled" here
    for il, iu in zip(d["idx_lab"], d["idx_unl"]):
        y = np.full(X.shape[0], -1)
        y[il] = yall[il]
        # the paper's balance (the labeled fraction, r=None): with r="auto"
        # (a count of the supervised SVM's positive outputs, 19.5 % error
        # here) TSVM's error is 15.9 % on this balanced set
        ts = TSVM(r=None).fit(X, y)
        # the same labeled loss: lam_ with 1/l costs
        sup = LinearSVM(lam=ts.lam_ * len(il)).fit(X[il], yall[il])
        err["sup"].append(np.mean(sup.predict(X[iu]) != yall[iu]))
        err["tsvm"].append(np.mean(ts.transduction_[iu] != yall[iu]))
        err["da"].append(np.mean(DASVM(r=None).fit(X, y).transduction_[iu] != yall[iu]))
    m = {k: float(np.mean(v)) for k, v in err.items()}
    # measured (lam="auto" = 0.003): supervised 0.195, TSVM 0.089, DA 0.065
    assert m["sup"] > 0.15
    assert m["tsvm"] < 0.10 and m["tsvm"] < m["sup"] - 0.07
    assert m["da"] < 0.08 and m["da"] < m["sup"] - 0.07


# ------------------------------------------------- inexact intermediate solves

def _mfn_objectives(text, prefix):
    """Objectives of the MFN iterations logged at verbose=2, grouped by weight."""
    out = {}
    for line in text.splitlines():
        if prefix in line and " iter " in line and "objective" in line:
            key = line.split(prefix)[1].split(")")[0]
            out.setdefault(key, []).append(float(line.split("objective ")[1].split(",")[0]))
    return out


def test_tsvm_objective_non_increasing_across_switches(caplog):
    """At each unlabeled weight the label objective never rises: switches
    lower it and every (inexact or exact) MFN step lowers it."""
    X, y, _ = make_clusters(0)
    y = np.where(y == -1, 0.0, np.where(y == 1, 1.0, -1.0))
    with caplog.at_level(logging.INFO, logger="semisvm"):
        res = linear.tsvm(X, ssl01(y), verbose=2)
    assert res.n_switches > 10 and "(inexact w)" in caplog.text
    seqs = _mfn_objectives(caplog.text, "TSVM MFN (lam_u=")
    assert len(seqs) == res.lam_u_history.size
    n_checked = 0
    for f in seqs.values():
        f = np.asarray(f)
        assert np.all(np.diff(f) <= 1e-12 * np.abs(f[1:])), f
        n_checked += f.size
    assert n_checked > 40


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_inexact_solves_keep_the_result(seed, monkeypatch):
    """inner_tol (default) vs every solve to tol: same labels on the clusters,
    objectives within 1e-6 (TSVM) / 1e-3 (DA) relative, fewer CGLS iterations."""
    # CGLS Newton steps (2 features would otherwise be factorised exactly)
    monkeypatch.setattr(_rows, "use_direct", lambda X, newton: False)
    X, y, _ = make_clusters(seed)
    y = np.where(y == -1, 0.0, np.where(y == 1, 1.0, -1.0))
    for S in (1, 10000):
        ex = linear.tsvm(X, ssl01(y), S=S, inner_tol=None)
        fast = linear.tsvm(X, ssl01(y), S=S)
        assert fast.converged and ex.converged
        assert fast.objective == pytest.approx(ex.objective, rel=1e-6)
        np.testing.assert_array_equal(fast.labels, ex.labels)
        assert fast.n_cg_iter < ex.n_cg_iter
    # (whole w-steps: one Newton step per w-step leaves CGLS less to save)
    ex = linear.da_s3vm(X, ssl01(y), inner_tol=None, newton_steps=None)
    fast = linear.da_s3vm(X, ssl01(y), newton_steps=None)
    assert fast.objective == pytest.approx(ex.objective, rel=1e-3)
    np.testing.assert_array_equal(fast.labels, ex.labels)
    assert fast.n_cg_iter < 0.6 * ex.n_cg_iter


def test_inexact_tsvm_final_solve_is_exact():
    """The last weight ends on a solve to tol: gradient ~ 0 for the final
    labels even with a very loose inner_tol."""
    X, y, _ = make_problem(3, n=300)
    lam, lam_u = 1e-2, 1.0
    res = linear.tsvm(X, ssl01(y), lam=lam, lam_u=lam_u, tol=1e-12, inner_tol=0.5)
    g = label_gradient(X, y, res.labels, res, lam, lam_u)
    assert np.linalg.norm(g) < 1e-7


def test_inner_tol_bad_input():
    X, y, _ = make_problem(0)
    with pytest.raises(ValueError, match="inner_tol"):
        linear.tsvm(X, ssl01(y), inner_tol=0.0)
    with pytest.raises(ValueError, match="inner_tol"):
        linear.da_s3vm(X, ssl01(y), inner_tol=-1.0)
    with pytest.raises(ValueError, match="inner_tol"):
        TSVM(inner_tol=-1.0).fit(X, _ssl_y(y))


# ------------------------------------------------------- one-vs-rest (K > 2)

def make_three_clusters(seed, n=60, spread=1.2, off=4.0):
    """Three round clusters at the corners of a triangle (each linearly
    separable from the other two), one label each, taken off-centre so that
    the supervised one-vs-rest boundaries cut through the clusters."""
    rng = np.random.default_rng(seed)
    ang = np.deg2rad([90, 210, 330])
    C = 4 * np.c_[np.cos(ang), np.sin(ang)]
    X = np.concatenate([rng.normal(c, spread, (n, 2)) for c in C])
    truth = np.repeat([0, 1, 2], n)
    for k in range(3):
        # the labeled row sits off its centre, turned 90 degrees
        X[k * n] = C[k] + off * np.array([-np.sin(ang[k]), np.cos(ang[k])])
    y = np.full(3 * n, -1)
    y[[0, n, 2 * n]] = [0, 1, 2]
    return X, y, truth


@pytest.mark.parametrize("Est", [TSVM, DASVM])
def test_one_vs_rest_equals_binary_fits(Est):
    """Each one-vs-rest problem is the binary fit of "class k against the other
    labeled rows" with its own r_k (the labeled fraction of class k)."""
    X, y, _ = make_problem(20, n=150, n_lab=18)
    rng = np.random.default_rng(0)
    yc = np.where(y == 0, -1, rng.integers(0, 3, size=y.size))
    yc[np.flatnonzero(y != 0)[:3]] = [0, 1, 2]
    est = Est(r=None).fit(X, yc)
    lab = yc >= 0
    assert est.coef_.shape == (3, 2 * 3) and est.intercept_.shape == (3,)
    assert len(est.result_) == 3
    for k in range(3):
        yk = np.where(yc == k, k, np.where(lab, 9, -1))
        b = Est(r=None).fit(X, yk)
        # binary: classes_ = [k, 9], +1 is 9; OvR: +1 is class k
        np.testing.assert_allclose(est.coef_[k], -b.coef_, rtol=1e-10, atol=1e-12)
        assert est.result_[k].r == pytest.approx(np.mean(yc[lab] == k))
    scores = est.decision_function(X)
    assert scores.shape == (X.shape[0], 3)
    np.testing.assert_array_equal(est.predict(X), np.argmax(scores, axis=1))
    np.testing.assert_array_equal(est.transduction_[lab], yc[lab])
    np.testing.assert_array_equal(est.transduction_[~lab],
                                  np.argmax(scores, axis=1)[~lab])


@pytest.mark.parametrize("Est", [TSVM, DASVM])
@pytest.mark.parametrize("seed", [0, 1])
def test_one_vs_rest_three_clusters_one_label_each(Est, seed):
    X, y, truth = make_three_clusters(seed)
    sup = LinearSVM(lam=3e-3)
    from sklearn.multiclass import OneVsRestClassifier
    sup = OneVsRestClassifier(sup).fit(X[y >= 0], y[y >= 0])
    U = y == -1
    err_sup = np.mean(sup.predict(X[U]) != truth[U])
    est = Est().fit(X, y)
    err = np.mean(est.transduction_[U] != truth[U])
    # measured: supervised 17-20 %, TSVM and DASVM 0.6-2.3 %
    assert err < 0.05 and err_sup > 0.15


@pytest.mark.slow
def test_digits_ten_classes():
    from sklearn.datasets import load_digits
    X, yt = load_digits(return_X_y=True)
    X = X / 16
    rng = np.random.default_rng(0)
    lab = np.concatenate([rng.choice(np.flatnonzero(yt == k), 5, replace=False)
                          for k in range(10)])
    y = np.full(yt.size, -1)
    y[lab] = yt[lab]
    U = y == -1
    from sklearn.multiclass import OneVsRestClassifier
    # r=None: the labeled fractions, exact here (balanced classes, 5 labels
    # each); r="auto" estimates them from the supervised outputs: 14.2 % error
    est = TSVM(r=None).fit(X, y)
    sup = OneVsRestClassifier(LinearSVM(lam=est.lam_ * lab.size)).fit(X[lab], yt[lab])
    err_sup = np.mean(sup.predict(X[U]) != yt[U])
    err = np.mean(est.transduction_[U] != yt[U])
    # measured (lam="auto" = 0.045 here): supervised 15.8 %, TSVM 11.4 %,
    # DASVM 13.0 % (at the former 0.01 mean ||x||^2 = 0.15: DASVM 19.1 %,
    # 5 positives per one-vs-rest problem; see default_lam)
    assert err < 0.13 and err < err_sup - 0.03
    assert np.mean(est.predict(X[U]) != yt[U]) == pytest.approx(err, abs=0.02)
    da = DASVM(r=None).fit(X, y)
    err_da = np.mean(da.transduction_[U] != yt[U])
    assert err_da < 0.14 and err_da < err_sup - 0.02


def test_one_vs_rest_model_file_round_trip(tmp_path):
    from semisvm import io
    X, y, _ = make_three_clusters(0)
    est = TSVM().fit(X, y)
    io.save(est, tmp_path / "m.npz")
    back = io.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(back.coef_, est.coef_)
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    assert isinstance(back.result_, tuple) and len(back.result_) == 3


def test_cholesky_newton_steps_match_cgls(monkeypatch):
    """Few features: TSVM/DA factorise the Newton systems; same answer as CGLS."""
    X, y, _ = make_problem(4, n=300)
    # lam pinned: the CGLS run takes loose intermediate solves (inner_tol)
    # where the factorisation is exact, so on some problems the two paths
    # end a label pair apart; at this lam they coincide
    kw = {"tol": 1e-10, "lam": 1e-3}
    direct_tsvm, direct_da = linear.tsvm(X, ssl01(y), **kw), linear.da_s3vm(X, ssl01(y), **kw)
    assert direct_tsvm.n_cg_iter == 0 and direct_da.n_cg_iter == 0
    monkeypatch.setattr(_rows, "use_direct", lambda X, newton: False)
    cg_tsvm, cg_da = linear.tsvm(X, ssl01(y), **kw), linear.da_s3vm(X, ssl01(y), **kw)
    assert cg_tsvm.n_cg_iter > 0
    np.testing.assert_array_equal(direct_tsvm.labels, cg_tsvm.labels)
    assert direct_tsvm.objective == pytest.approx(cg_tsvm.objective, rel=1e-6)
    assert direct_da.objective == pytest.approx(cg_da.objective, rel=1e-3)


# ---------------------------------------------------------------------------
# r="auto" (class_balance) and the safety net (safe=True)

def _imbalanced_blobs(seed, n=600, frac=0.2, sep=3.0, n_lab=5):
    rng = np.random.default_rng(seed)
    n1 = int(frac * n)
    truth = np.r_[np.ones(n1, int), np.zeros(n - n1, int)]
    X = rng.normal(size=(n, 3))
    X[:n1, 0] += sep
    y = np.full(n, -1)
    for c in (0, 1):
        y[rng.choice(np.flatnonzero(truth == c), n_lab, replace=False)] = c
    return X, y, truth


@pytest.mark.parametrize("frac", [0.2, 0.5, 0.7])
def test_class_balance_recovers_unlabeled_fraction(frac):
    from semisvm.linear import class_balance
    X, y, truth = _imbalanced_blobs(0, frac=frac, n_lab=10)
    u = y < 0
    r = class_balance(X, y)
    true = truth[u].mean()
    # the labeled fraction is 1/2 whatever the truth; counting the supervised
    # model's positive outputs is biased toward 1/2 too, but much less
    assert np.mean(y[~u]) == 0.5
    assert abs(r - true) < max(0.06, 0.5 * abs(0.5 - true))
    for method in ("pcc", "em"):
        assert 0.02 <= class_balance(X, y, method=method) <= 0.98
    with pytest.raises(ValueError, match="method"):
        class_balance(X, y, method="x")


def test_class_balance_multiclass_and_too_few_labels():
    from semisvm.linear import class_balance
    rng = np.random.default_rng(1)
    C = np.array([[0, 0], [4, 0], [0, 4]], float)
    truth = rng.choice(3, size=900, p=[0.6, 0.3, 0.1])
    X = C[truth] + rng.normal(size=(900, 2))
    y = np.full(900, -1)
    for k in range(3):
        y[rng.choice(np.flatnonzero(truth == k), 6, replace=False)] = k
    r = class_balance(X, y)
    assert r.shape == (3,) and r.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(r, np.bincount(truth[y < 0]) / (y < 0).sum(), atol=0.08)
    y1 = y.copy()
    y1[np.flatnonzero(y1 == 2)[1:]] = -1          # one label of class 2
    assert class_balance(X, y1) is None


def test_checked_count_keeps_adjusts_or_falls_back():
    # the binary count is checked against Forman's adjusted count from the
    # out-of-fold outputs of the labeled rows (tpr 0.4, fpr 0.1 here)
    from semisvm._linear_balance import checked_count
    pos = np.r_[np.ones(200, bool), np.zeros(200, bool)]
    oof = np.r_[np.where(np.arange(200) < 80, 1.0, -1.0),
                np.where(np.arange(200) < 20, 1.0, -1.0)]
    info = {}
    # cc 0.25 against adjusted (0.25 - 0.1) / 0.3 = 0.5: far apart, precise
    assert checked_count(0.25, oof, pos, 10000, 0.5, info) == pytest.approx(0.5)
    assert info["source"] == "adjusted count" and info["se"] < 0.1
    # cc 0.16 -> adjusted 0.2: within 2 standard errors, cc kept
    assert checked_count(0.16, oof, pos, 10000, 0.5, info) == 0.16
    assert info["source"] == "cc"
    # the same rates from 100 labeled rows, cc 0.3 -> adjusted 0.67: an
    # imprecise check (standard error 0.16): the count is kept unless the
    # unlabeled outputs sit inside the margin (median |o| below 0.5), where
    # the estimate is uncertain -> the labeled fraction
    pos2 = np.r_[np.ones(50, bool), np.zeros(50, bool)]
    oof2 = np.r_[np.where(np.arange(50) < 20, 1.0, -1.0), np.where(np.arange(50) < 5, 1.0, -1.0)]
    assert checked_count(0.3, oof2, pos2, 10000, 0.45, info, 2.0) == 0.3
    assert info["se"] > 0.1 and info["source"] == "cc"
    got = checked_count(0.3, oof2, pos2, 10000, 0.45, info, 0.2)
    assert got == 0.45 and info["source"].startswith("labeled fraction")
    # a classifier at chance out of fold (tpr - fpr < 0.1): no check either
    assert checked_count(0.3, np.ones(400), pos, 10000, 0.5, info, 2.0) == 0.3
    assert checked_count(0.3, np.ones(400), pos, 10000, 0.5, info, 0.1) == 0.5


@pytest.mark.slow
def test_r_auto_on_the_readme_dask_data():
    # the README's Dask example (in memory): 380 labels in 1000 sparse
    # features; the supervised outputs of the unlabeled rows sit inside the
    # margin near the bias (-0.16), so counting their signs finds 25 %
    # positive where 45 % are; the adjusted count finds 44 %
    rng = np.random.default_rng(0)
    X = sp.random(20_000, 1_000, density=0.01, format="csr", random_state=0)
    truth = np.where(X @ rng.standard_normal(1_000) > 0, 1, 0)
    y = truth.copy()
    y[rng.random(20_000) > 0.02] = -1
    u = y < 0
    clf = TSVM(lam_u=0).fit(X, y)
    assert clf.r_source_ == "adjusted count"
    assert abs(clf.r_ - truth[u].mean()) < 0.03
    assert TSVM(r=None, lam_u=0).fit(X, y).r_source_ == "labeled fraction"


@pytest.mark.parametrize("Est", [TSVM, DASVM])
def test_r_auto_default_fixes_balance(Est):
    X, y, truth = _imbalanced_blobs(2)
    u = y < 0
    auto = Est().fit(X, y)
    labeled = Est(r=None).fit(X, y)
    assert labeled.r_ == 0.5 and abs(auto.r_ - truth[u].mean()) < 0.12
    err_auto = np.mean(auto.transduction_[u] != truth[u])
    err_lab = np.mean(labeled.transduction_[u] != truth[u])
    # measured: r = 1/2 forces ~30 % of the majority class positive (err 0.3);
    # r="auto" 0.07
    assert err_auto < 0.1 and err_lab > 0.2
    # same input, same bits
    again = Est().fit(X, y)
    np.testing.assert_array_equal(again.coef_, auto.coef_)
    with pytest.raises(ValueError, match="r must be"):
        Est(r="labeled").fit(X, y)


@pytest.mark.parametrize("Est", [TSVM, DASVM])
def test_safe_falls_back_to_supervised_when_unlabeled_rows_hurt(Est):
    # a wrong balance (r = 0.9 on a 20/80 set) makes the unlabeled rows hurt
    X, y, truth = _imbalanced_blobs(3, n_lab=6)
    u = y < 0
    bad = Est(r=0.9, safe=True).fit(X, y)
    sup = Est(r=0.9, lam_u=0.0).fit(X, y)
    assert bad.fell_back_ and bad.unlabeled_gain_ < 0
    np.testing.assert_array_equal(bad.coef_, sup.coef_)
    np.testing.assert_array_equal(bad.transduction_[u], sup.predict(X[u]))
    np.testing.assert_array_equal(bad.transduction_[~u], y[~u])
    # the right balance: no fallback, the semi-supervised fit is kept
    good = Est(safe=True).fit(X, y)
    plain = Est().fit(X, y)
    assert not good.fell_back_ and good.unlabeled_gain_ >= 0
    np.testing.assert_array_equal(good.coef_, plain.coef_)
    assert plain.unlabeled_gain_ is None and not plain.fell_back_


@pytest.mark.parametrize("Est", [TSVM, DASVM])
def test_lam_u_zero_transduction_is_the_supervised_prediction(Est):
    # DASVM at lam_u = 0 has p_j = r for every row: its temporary labels were
    # all one class; the supervised model's labels are the output signs
    X, y, truth = _imbalanced_blobs(4)
    u = y < 0
    est = Est(lam_u=0.0, r=0.3).fit(X, y)
    np.testing.assert_array_equal(est.transduction_[u], est.predict(X[u]))
    np.testing.assert_array_equal(est.transduction_[~u], y[~u])
    assert np.mean(est.transduction_[u] != truth[u]) < 0.15


# ---------------------------------------------------------------------------
# LinearSVM with more than two classes: one-vs-rest

def _three_classes(n=240, d=12, seed=0):
    rng = np.random.default_rng(seed)
    centers = 2.0 * rng.standard_normal((3, d))
    y = rng.integers(0, 3, n)
    X = centers[y] + rng.standard_normal((n, d))
    return X, np.array(["a", "b", "c"])[y]


def test_linearsvm_one_vs_rest_matches_liblinear_objective():
    # independent reference: LinearSVC (LIBLINEAR -s 1/-s 2 squared hinge)
    # solves lam * (1/2 ||[w, b]||^2 + C sum l2) per class with C = 1/(2 lam)
    from sklearn.svm import LinearSVC

    X, y = _three_classes()
    lam = 0.05
    clf = LinearSVM(lam=lam).fit(X, y)
    ref = LinearSVC(C=1 / (2 * lam), tol=1e-10, max_iter=100_000,
                    intercept_scaling=1.0).fit(X, y)
    assert clf.coef_.shape == (3, X.shape[1]) and clf.intercept_.shape == (3,)
    np.testing.assert_array_equal(clf.classes_, ref.classes_)
    np.testing.assert_allclose(clf.coef_, ref.coef_, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(clf.intercept_, ref.intercept_, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(clf.predict(X), ref.predict(X))
    assert len(clf.result_) == 3 and all(r.converged for r in clf.result_)
    assert clf.n_iter_ == max(r.n_iter for r in clf.result_)


def test_linearsvm_one_vs_rest_is_k_binary_fits():
    X, y = _three_classes(seed=1)
    w = np.random.default_rng(1).random(X.shape[0]) + 0.5
    clf = LinearSVM(lam=0.1, class_weight={"a": 2.0, "b": 1.0, "c": 0.5}).fit(
        X, y, sample_weight=w)
    cw = np.array([2.0, 1.0, 0.5])[np.searchsorted(clf.classes_, y)]
    scores = clf.decision_function(X)
    assert scores.shape == (X.shape[0], 3)
    for k, c in enumerate(clf.classes_):
        res = l2svm_mfn(X, np.where(y == c, 1.0, -1.0), lam=0.1, costs=w * cw)
        np.testing.assert_array_equal(clf.coef_[k], res.coef)
        assert clf.intercept_[k] == res.intercept
        np.testing.assert_allclose(scores[:, k], X @ res.coef + res.intercept)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[scores.argmax(1)])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_linearsvm_one_vs_rest_dense_csr_same_bits(dtype):
    X, y = _three_classes(seed=2)
    X = X.astype(dtype)
    dense = LinearSVM(lam=0.1, newton="cgls").fit(X, y)
    csr = LinearSVM(lam=0.1, newton="cgls").fit(sp.csr_matrix(X), y)
    assert dense.coef_.dtype == dtype
    if dtype == np.float64:
        np.testing.assert_allclose(dense.coef_, csr.coef_, rtol=1e-10, atol=1e-12)
    for a, b in zip(dense.result_, csr.result_):    # float32: solved to 1e-5
        assert a.objective == pytest.approx(b.objective, rel=1e-4 if dtype ==
                                            np.float32 else 1e-12)
    np.testing.assert_array_equal(dense.predict(X), csr.predict(sp.csr_matrix(X)))
    again = LinearSVM(lam=0.1, newton="cgls").fit(X, y)
    np.testing.assert_array_equal(dense.coef_, again.coef_)     # same input, same bits
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        LinearSVM(lam=1e-4, max_iter=1).fit(X, y)


def test_tsvm_and_da_blocked_passes_same_bits_for_any_n_jobs():
    # TSVM/DA cut their passes into row blocks by size (as LinearSVM), so the
    # thread count changes nothing: many small blocks, 1 vs 4 threads
    from semisvm._core._cgls import _set_blocking
    rng = np.random.RandomState(0)
    X = sp.random(1500, 2100, density=0.02, format="csr", random_state=rng)
    y = np.zeros(1500)
    lab = rng.choice(1500, 100, replace=False)
    y[lab] = np.where(X[lab].sum(axis=1).A.ravel() > np.median(X[lab].sum(axis=1)), 1, -1)
    runs = []
    old = _set_blocking(1, 64, 1)
    try:
        for k in (1, 4):
            runs.append((linear.tsvm(X, ssl01(y), lam=1e-2, lam_u=1.0, n_jobs=k),
                         linear.da_s3vm(X, ssl01(y), lam=1e-2, lam_u=1.0, n_jobs=k)))
    finally:
        _set_blocking(*old)
    for a, b in zip(*runs):
        assert a.coef.tobytes() == b.coef.tobytes()


def test_tsvm_and_da_unlabeled_blocks_same_bits_for_any_n_jobs():
    # the O(u) steps (switching, p-steps, label costs, objectives) run in
    # fixed blocks of unlabeled rows on n_jobs threads: many blocks of 64
    # rows, the same bits for any n_jobs; against one block (the former
    # row-order sums of the p-step) the same labels, objectives to 1e-9
    from semisvm._core import _ssl
    rng = np.random.RandomState(5)
    X = sp.random(1200, 300, density=0.05, format="csr", random_state=rng)
    y = np.where(X @ rng.randn(300) > 0, 1, 0)
    ys = np.where(rng.rand(1200) < 0.05, y, -1)
    runs = []
    old, old_leaf = _ssl._set_block(64), _ssl._set_pw_leaf(128)
    try:
        for k in (1, 2, 3, 8):
            runs.append((linear.tsvm(X, ys, lam=1e-2, lam_u=1.0, n_jobs=k),
                         linear.da_s3vm(X, ys, lam=1e-2, lam_u=1.0, n_jobs=k)))
    finally:
        _ssl._set_block(old)
        _ssl._set_pw_leaf(old_leaf)
    one = (linear.tsvm(X, ys, lam=1e-2, lam_u=1.0),
           linear.da_s3vm(X, ys, lam=1e-2, lam_u=1.0))
    for run in runs[1:]:
        for a, b in zip(runs[0], run):
            assert a.coef.tobytes() == b.coef.tobytes()
            assert a.labels.tobytes() == b.labels.tobytes()
    assert runs[0][1].p.tobytes() == runs[-1][1].p.tobytes()
    for a, b in zip(runs[0], one):
        np.testing.assert_array_equal(a.labels, b.labels)
        assert a.objective == pytest.approx(b.objective, rel=1e-9)
    # TSVM's steps are exact for any block size: its bits too
    assert runs[0][0].coef.tobytes() == one[0].coef.tobytes()


def test_tsvm_and_da_reuse_outputs_across_mfn_calls(monkeypatch):
    # an MFN call from the w the last one ended at (TSVM's switching rounds
    # and annealing steps, DA's p-steps) takes its outputs X w instead of a
    # pass over the rows; against the former arithmetic (a pass per call):
    # the same labels, the objective to 1e-6
    rng = np.random.RandomState(3)
    X = sp.random(800, 300, density=0.05, format="csr", random_state=rng)
    w = rng.randn(300)
    y = np.where(X @ w > 0, 1, 0)
    ys = np.where(rng.rand(800) < 0.1, y, -1)
    passes = []
    outputs = _rows.K.outputs

    def counted(*args):
        passes.append(1)
        return outputs(*args)

    monkeypatch.setattr(_rows.K, "outputs", counted)
    runs = {}
    for reuse in (True, False):
        monkeypatch.setattr(_rows.LocalRows, "reuse_outputs", reuse)
        passes.clear()
        res = (linear.tsvm(X, ys, lam=1e-2, lam_u=1.0),
               linear.da_s3vm(X, ys, lam=1e-2, lam_u=1.0))
        runs[reuse] = res, len(passes)
    (new, n_new), (old, n_old) = runs[True], runs[False]
    # (each fit's first call starts from w = 0: zero outputs, no pass)
    assert n_old == sum(r.n_mfn - 1 for r in old)
    assert n_new == 0                   # no pass after that in float64
    for a, b in zip(new, old):
        np.testing.assert_array_equal(a.labels, b.labels)
        assert a.objective == pytest.approx(b.objective, rel=1e-6)
    # float32: the outputs are recomputed (a pass per MFN call, as before)
    passes.clear()
    monkeypatch.setattr(_rows.LocalRows, "reuse_outputs", True)
    r32 = linear.tsvm(X.astype(np.float32), ys, lam=1e-2, lam_u=1.0)
    assert len(passes) == r32.n_mfn - 1


def test_tsvm_switching_rounds_carry_the_setup_sums(monkeypatch):
    # a switching round's MFN call starts from the w the last one ended at:
    # its first CG solve takes the last solve's setup sums (X_J' A t, the
    # preconditioner's diagonal, the residual) updated for the switched rows
    # instead of a pass over the rows; the same labels and objective (1e-6)
    # as with a setup pass per solve
    res = _tsvm_keep_start_both_ways(monkeypatch, np.float64)
    given = {keep: sum(g for _, _, g, _ in res[keep][1]) for keep in (True, False)}
    assert given[True] > res[True][0].n_mfn / 3 and given[False] == 0
    res = {keep: r for keep, (r, _) in res.items()}
    np.testing.assert_array_equal(res[True].labels, res[False].labels)
    assert res[True].objective == pytest.approx(res[False].objective, rel=1e-6)


def test_float32_never_carries_the_setup_sums(monkeypatch):
    # in float32 no CG solve takes carried setup sums (the rounding of each
    # update, relative 1e-7, moved a few labels of the papers' float32
    # fits): mfn_run gets no old outputs and nothing given, and keep_start
    # on or off gives the same float32 bits
    res = _tsvm_keep_start_both_ways(monkeypatch, np.float32)
    for r, calls in res.values():
        assert len(calls) == r.n_mfn > 3
        assert all(a is None and t is None and not given and n == 0
                   for a, t, given, n in calls)
    res = {keep: r for keep, (r, _) in res.items()}
    assert res[True].coef.dtype == np.float32
    np.testing.assert_array_equal(res[True].coef, res[False].coef)
    assert res[True].intercept == res[False].intercept
    np.testing.assert_array_equal(res[True].labels, res[False].labels)
    assert res[True].objective == res[False].objective


def test_tsvm_switch_tol_both_sides_of_one_pair():
    # a round switching at most int(switch_tol * u) pairs counts as one that
    # switches none: below one pair (switch_tol * u < 1) the same bits as
    # switch_tol=0; above, fewer rounds, and the final w is still the exact
    # minimiser for the labels returned (the last pairs get their solve)
    X, y, _ = make_problem(0, n=3000, d=20, n_lab=30, flip=0.15)
    u = int((y == 0).sum())
    ref = linear.tsvm(X, ssl01(y), lam=1e-2, lam_u=1.0, switch_tol=0)
    below = linear.tsvm(X, ssl01(y), lam=1e-2, lam_u=1.0, switch_tol=0.9 / u)
    above = linear.tsvm(X, ssl01(y), lam=1e-2, lam_u=1.0, switch_tol=3.5 / u)
    np.testing.assert_array_equal(below.coef, ref.coef)
    np.testing.assert_array_equal(below.labels, ref.labels)
    assert below.n_mfn == ref.n_mfn
    assert above.n_mfn < ref.n_mfn / 1.5
    assert above.objective == pytest.approx(ref.objective, rel=0.02)
    for res in (ref, above):
        g = label_gradient(X, y, res.labels, res, 1e-2, 1.0)
        assert np.abs(g).max() < 1e-10
    # the default leaves fewer than 10,000 unlabeled rows untouched
    assert TSVM().switch_tol * u < 1
    with pytest.raises(ValueError, match="switch_tol"):
        linear.tsvm(X, ssl01(y), switch_tol=-1)


def test_tsvm_intermediate_weights_end_on_mid_switch(monkeypatch):
    # at the intermediate weights of the annealing a round switching at most
    # MID_SWITCH * int(switch_tol * u) pairs ends the weight. The default,
    # 1, runs them down to switch_tol as the final weight: a larger factor
    # takes fewer MFN calls but ends on other local minima of the TSVM
    # objective, often higher on noisy problems (this generator, seeds 0-3,
    # MID_SWITCH = 100 against 1: +3.9e-4, +2.6e-2, +1.3e-4, the same; 2:
    # -2.8e-4, +2.3e-2, 0, the same), hence off. Here MID_SWITCH = 100 ends
    # every first round, where the default goes on to rounds of at most 3
    # pairs; after the cut-short weights the final weight still runs its
    # rounds down to switch_tol and ends on the exact minimiser for its
    # labels. Below one pair (int(switch_tol * u) = 0) nothing changes: the
    # same bits as switch_tol=0 (test_tsvm_switch_tol_both_sides_of_one_pair)
    assert _linear_ssl.MID_SWITCH == 1
    X, y, _ = make_problem(0, n=3000, d=20, n_lab=30, flip=0.15)
    kw = dict(lam=1e-2, lam_u=1.0, switch_tol=3.5 / int((y == 0).sum()))
    default = linear.tsvm(X, ssl01(y), **kw)
    monkeypatch.setattr(_linear_ssl, "MID_SWITCH", 100)
    mid = linear.tsvm(X, ssl01(y), **kw)
    assert np.all(mid.mfn_history[:-1] == 1)
    assert np.any(default.mfn_history[:-1] > 1)
    assert mid.n_mfn < default.n_mfn
    np.testing.assert_array_equal(mid.lam_u_history, default.lam_u_history)
    assert mid.objective == pytest.approx(default.objective, rel=1e-3)
    for res in (default, mid):
        g = label_gradient(X, y, res.labels, res, 1e-2, 1.0)
        assert np.abs(g).max() < 1e-10


@pytest.mark.parametrize("k_stop", [0, 3])
def test_tsvm_scale_tiers_both_sides_of_switch_tol(monkeypatch,
                                                              k_stop):
    # the loose tier's tolerance is inner_tol * lam_u' / lam_u at the
    # unlabeled weight lam_u'; at scale (int(switch_tol * u) > 0) the
    # intermediate weights take inner_tol itself (their solves only lead
    # the labels to the final weight), the final weight as before; and the
    # inexact Newton tier's forcing factor is NEWTON_FORCING_SCALE, not 0.1
    X, y, _ = make_problem(0, n=3000, d=20, n_lab=30, flip=0.15)
    u = int((y == 0).sum())
    seen, forcings = [], set()
    mfn = _linear_ssl._Problem.mfn

    def spied(self, cold_start, verbose, label, tol=None, max_iter=None,
              forcing=0.1):
        seen.append((label, tol))
        if tol == "newton":
            forcings.add(forcing)
        return mfn(self, cold_start, verbose, label, tol=tol,
                   max_iter=max_iter, forcing=forcing)

    monkeypatch.setattr(_linear_ssl._Problem, "mfn", spied)
    res = linear.tsvm(X, ssl01(y), lam=1e-2, lam_u=1.0,
                      switch_tol=(k_stop + 0.5) / u)
    mid = [tol for label, tol in seen
           if "lam_u=" in label and "lam_u=1)" not in label]
    final = [tol for label, tol in seen if "lam_u=1)" in label]
    assert len(mid) >= len(res.lam_u_history) - 1
    if k_stop:
        assert all(tol == 1e-2 for tol in mid)
        assert forcings == {_linear_ssl.NEWTON_FORCING_SCALE}
    else:
        assert all(tol < 1e-2 for tol in mid)
        assert forcings == {0.1}
    assert final[0] == 1e-2 and "newton" in [tol for _, tol in seen]


@pytest.mark.parametrize("seed", [0, 4])
def test_da_stops_once_temperatures_settle(seed):
    # DA cools until the mean entropy is below entropy_tol; a few near-tied
    # rows keep it above that for many temperatures that change nothing.
    # settled=2: two temperatures in a row of one round each, the TSVM
    # objective unchanged (1e-9), end the annealing: the same labels and
    # best point as cooling on (seed 4); where the entropy test ends first
    # (seed 0) nothing changes
    rng = np.random.RandomState(seed)
    X = sp.random(3000, 300, density=0.05, format="csr", random_state=rng)
    y = np.where(X @ rng.randn(300) > 0, 1, 0)
    ys = np.where(rng.rand(3000) < 0.03, y, -1)
    a = linear.da_s3vm(X, ys, lam=1e-2, lam_u=1.0)
    b = linear.da_s3vm(X, ys, lam=1e-2, lam_u=1.0, settled=None)
    assert b.status == "entropy" and b.converged and a.converged
    np.testing.assert_array_equal(a.labels, b.labels)
    np.testing.assert_array_equal(a.coef, b.coef)
    assert a.objective == b.objective
    if seed == 0:
        assert a.status == "entropy" and a.n_outer == b.n_outer
    else:
        assert a.status == "settled" and a.n_outer < b.n_outer
        assert list(a.inner_history[-2:]) == [1, 1]
        h = a.history[-3:]
        assert np.all(np.abs(np.diff(h)) <= 1e-9 * np.abs(h[1:]))
    with pytest.raises(ValueError, match="settled"):
        linear.da_s3vm(X, ys, settled=0)


def _exact_residual(rows, w, lam):
    """X_J' A (t - X w) - lam w for the weights and targets of the last solve."""
    X = rows.X_source
    o = X @ w[:-1] + rows.s * w[-1]
    z = rows.a * (rows.t - o)
    r = np.r_[X.T @ z, rows.s * z.sum()] - lam * w
    rhs = np.r_[X.T @ (rows.a * rows.t), rows.s * (rows.a * rows.t).sum()]
    return r, rhs


def test_a_line_search_step_carries_the_residual_along():
    # one inexact Newton step from w = 0 ends on a line-search step: the
    # residual kept for the next call is r_seed + delta (r_end - r_seed),
    # which must be the exact one at the new w (r is affine in w)
    rng = np.random.RandomState(5)
    X = sp.random(600, 80, density=0.1, format="csr", random_state=rng)
    y = np.where(X @ rng.randn(80) + 0.3 * rng.randn(600) > 0, 1.0, -1.0)
    cpos = np.where(y > 0, 1.0 / 600, 0.0)
    cneg = np.where(y < 0, 1.0 / 600, 0.0)
    from semisvm._core._dataset import RowData

    rows = _rows.LocalRows(RowData(X), 1.0, cpos, cneg)
    rows.X_source = X
    rows.keep_start = True
    w = np.zeros(81)
    lam = 1e-3
    out = _rows.run_mfn(rows, lam, w, tol=1e-6, max_iter=1, cg_max_iter=100,
                        cold_start=True, rel_tol=1e-9)
    assert out[2] == _rows.STATUS_MAX_ITER and rows._kept
    # a line search happened (w is not the Newton point: some rows changed
    # side), so the kept residual is the folded one
    D = 81
    r_exact, rhs = _exact_residual(rows, w, lam)
    kept = rows.keep[2 * D:3 * D]
    assert not np.allclose(rows.keep[3 * D:], kept)
    np.testing.assert_allclose(kept, r_exact, atol=1e-12 * np.linalg.norm(rhs))


@pytest.mark.parametrize("period", [2, 10**6])
def test_newton_iterations_of_a_call_carry_the_setup_sums(period):
    # each Newton iteration of an MFN call after the first starts from the
    # setup sums the last one's step left (its residual moved along the line
    # search), brought up to date for the rows that entered or left the
    # active set, in place of a setup pass; the same solution (to the CG
    # tolerance's rounding) and the exact residual at the end. period 2:
    # every other solve makes its setup pass (a run of at most one carried)
    from semisvm._core._dataset import RowData

    rng = np.random.RandomState(5)
    X = sp.random(600, 80, density=0.1, format="csr", random_state=rng)
    y = np.where(X @ rng.randn(80) + 0.3 * rng.randn(600) > 0, 1.0, -1.0)
    cpos = np.where(y > 0, 1.0 / 600, 0.0)
    cneg = np.where(y < 0, 1.0 / 600, 0.0)
    lam = 1e-3
    res = {}
    for keep in (True, False):
        rows = _rows.LocalRows(RowData(X), 1.0, cpos, cneg)
        rows.X_source = X
        rows.keep_start = keep
        rows.carry_period = period
        w = np.zeros(81)
        out = _rows.run_mfn(rows, lam, w, tol=1e-10, max_iter=50,
                            cg_max_iter=1000, cold_start=True, rel_tol=1e-12)
        res[keep] = (w, out, rows)
    (w, out, rows), (w0, out0, _) = res[True], res[False]
    assert out[0] >= 3 and out[2] == _rows.STATUS_OPTIMAL
    # the run of carried solves at the end of the call (the first
    # iterations, from w = 0, move many rows and make their setup pass)
    assert (rows.n_carried <= 1) if period == 2 else rows.n_carried >= 2
    np.testing.assert_allclose(w, w0, rtol=0, atol=1e-8 * np.abs(w0).max())
    assert out[3] == pytest.approx(out0[3], rel=1e-12)
    D = 81
    r_exact, rhs = _exact_residual(rows, w, lam)
    np.testing.assert_allclose(rows.keep[2 * D:3 * D], r_exact,
                               atol=1e-10 * np.linalg.norm(rhs))


@pytest.mark.parametrize("period", [3, 10**6])
def test_carried_setup_sums_are_recomputed_every_carry_period(monkeypatch,
                                                              period):
    # the setup sums carried across switching rounds (and from one Newton
    # iteration of a call to the next) gather rounding (and the CG residual
    # recurrence's drift): every carry_period-th CG solve in a row makes its
    # setup pass afresh; the carried residual stays the exact one to
    # rounding, and the labels and objective are those of a setup pass per
    # solve
    rng = np.random.RandomState(4)
    X = sp.random(1500, 400, density=0.04, format="csr", random_state=rng)
    y = np.where(X @ rng.randn(400) > 0, 1, 0)
    ys = np.where(rng.rand(1500) < 0.05, y, -1)
    used, seen = [], {}
    run = _rows.LocalRows.run

    def spied(self, w, lam, *args, **kw):
        out = run(self, w, lam, *args, **kw)
        # the carried solves in a row at the end of the call
        used.append(self.n_carried)
        seen.update(rows=self, w=w, lam=float(w.dtype.type(lam)))
        return out

    monkeypatch.setattr(_rows.LocalRows, "run", spied)
    monkeypatch.setattr(_rows.LocalRows, "carry_period", period)
    res = linear.tsvm(X, ys, lam=1e-2, lam_u=1.0, S=3)
    if period == 3:
        assert max(used) == 2
    else:
        assert max(used) > 2      # (so the period above is what cut them)
    monkeypatch.setattr(_rows.LocalRows, "run", run)
    monkeypatch.setattr(_rows.LocalSSL, "__init__", _keep_start(False))
    ref = linear.tsvm(X, ys, lam=1e-2, lam_u=1.0, S=3)
    np.testing.assert_array_equal(res.labels, ref.labels)
    assert res.objective == pytest.approx(ref.objective, rel=1e-6)
    rows = seen["rows"]
    assert rows._kept
    rows.X_source = X
    D = X.shape[1] + 1
    r_exact, rhs = _exact_residual(rows, seen["w"], seen["lam"])
    np.testing.assert_allclose(rows.keep[2 * D:3 * D], r_exact,
                               atol=1e-10 * np.linalg.norm(rhs))


def _tsvm_keep_start_both_ways(monkeypatch, dtype):
    """TSVM on 1,500 sparse rows (5 % labeled) with keep_start on and off:
    {keep: (result, [(old outputs, old targets, given, n_carried) of each
    mfn_run call])}."""
    rng = np.random.RandomState(4)
    X = sp.random(1500, 400, density=0.04, format="csr", random_state=rng,
                  dtype=dtype)
    y = np.where(X @ rng.randn(400) > 0, 1, 0)
    ys = np.where(rng.rand(1500) < 0.05, y, -1)
    calls = []
    run = _rows.K.mfn_run

    def spied(*args, **kw):
        calls.append((args[-3], args[-2], bool(args[-1]), kw["n_carried"]))
        return run(*args, **kw)

    monkeypatch.setattr(_rows.K, "mfn_run", spied)
    res = {}
    for keep in (True, False):
        monkeypatch.setattr(_rows.LocalSSL, "__init__", _keep_start(keep))
        calls.clear()
        res[keep] = (linear.tsvm(X, ys, lam=1e-2, lam_u=1.0, S=3), list(calls))
    return res


def _keep_start(flag):
    init = _rows.LocalSSL.__init__

    def patched(self, *args, **kw):
        init(self, *args, **kw)
        self.rows.keep_start = flag
    return patched


def test_da_rounds_carry_the_setup_sums(monkeypatch):
    # a DA round's p-step moves the target of every unlabeled row but, inside
    # the margin, not its weight (lam_u / u): the next call's first CG solve
    # takes the last solve's setup sums brought up to date by one blocked
    # pass over the rows (a third of a setup pass) instead of a setup pass;
    # the same labels and objective (1e-6) as with a setup pass per solve
    rng = np.random.RandomState(4)
    X = sp.random(1500, 400, density=0.04, format="csr", random_state=rng)
    y = np.where(X @ rng.randn(400) > 0, 1, 0)
    ys = np.where(rng.rand(1500) < 0.05, y, -1)
    used = []
    run = _rows.LocalRows.run

    def spied(self, *args, **kw):
        out = run(self, *args, **kw)
        used.append(self.n_carried > 0)
        return out

    monkeypatch.setattr(_rows.LocalRows, "run", spied)
    res = {}
    for keep in (True, False):
        monkeypatch.setattr(_rows.LocalSSL, "__init__", _keep_start(keep))
        used.clear()
        res[keep] = linear.da_s3vm(X, ys, lam=1e-2, lam_u=1.0)
        res[keep, "used"] = sum(used)
    assert res[True, "used"] > res[True].n_mfn / 2 and res[False, "used"] == 0
    np.testing.assert_array_equal(res[True].labels, res[False].labels)
    assert res[True].objective == pytest.approx(res[False].objective, rel=1e-6)


@pytest.mark.parametrize("outside", [False, True])
def test_setup_sums_updated_for_many_rows_are_the_exact_ones(outside):
    # every row's target changes (DA's p-step). Weights unchanged inside the
    # margin: the sums are brought up to date by one blocked pass and are the
    # exact ones for the new weights and targets (to rounding). outside=True:
    # most rows outside the margin, where the weight itself changes: more
    # than a quarter of the entries, so the solve makes its setup pass
    from semisvm._core._dataset import RowData

    rng = np.random.RandomState(6)
    n, d = 800, 60
    X = sp.random(n, d, density=0.1, format="csr", random_state=rng)
    p = rng.rand(n)
    cu = 1.0 / n
    cpos, cneg = cu * p, cu * (1 - p)
    rows = _rows.LocalRows(RowData(X), 1.0, cpos, cneg)
    rows.X_source = X
    rows.keep_start = True
    # outside: from a large w, one CG iteration leaves most outputs outside
    w = rng.randn(d + 1) * 20 if outside else np.zeros(d + 1)
    lam = 1e-3
    kw = dict(tol=1e-3, cg_max_iter=1 if outside else 100, cold_start=False,
              rel_tol=1e-9)
    _rows.run_mfn(rows, lam, w, max_iter=1, **kw)
    assert rows._kept
    o = rows.outputs()
    frac_out = np.mean(np.abs(o) >= 1)
    assert (frac_out > 0.5) if outside else (frac_out < 0.05)
    p[:] = rng.rand(n)
    cpos[:], cneg[:] = cu * p, cu * (1 - p)
    w_start = w.copy()
    _rows.run_mfn(rows, lam, w, max_iter=1, **kw)
    D = d + 1
    assert rows.n_carried == (0 if outside else 1)
    # the sums the first solve started from: rhs, diag and the seed residual
    o0 = X @ w_start[:-1] + w_start[-1]
    z = rows.a * (rows.t - o0)
    r_exact = np.r_[X.T @ z, z.sum()] - lam * w_start
    at = rows.a * rows.t
    rhs = np.r_[X.T @ at, at.sum()]
    diag = np.r_[X.multiply(X).T @ rows.a, rows.a.sum()]
    scale = np.linalg.norm(rhs)
    np.testing.assert_allclose(rows.keep[3 * D:], r_exact, atol=1e-12 * scale)
    np.testing.assert_allclose(rows.keep[:D], rhs, atol=1e-12 * scale)
    np.testing.assert_allclose(rows.keep[D:2 * D], diag, rtol=1e-12,
                               atol=1e-15 * np.abs(diag).max())


def test_da_carried_sums_same_bits_for_any_n_jobs(monkeypatch):
    # the wide update is a blocked pass: the same bits for any thread count,
    # with many small row blocks
    from semisvm._core._cgls import _set_blocking
    rng = np.random.RandomState(2)
    X = sp.random(600, 400, density=0.04, format="csr", random_state=rng)
    y = np.where(X @ rng.randn(400) > 0, 1, 0)
    ys = np.where(rng.rand(600) < 0.05, y, -1)
    used = []
    run = _rows.LocalRows.run

    def spied(self, *args, **kw):
        out = run(self, *args, **kw)
        used.append(self.n_carried > 0)
        return out

    monkeypatch.setattr(_rows.LocalRows, "run", spied)
    old = _set_blocking(1, 64, 1)
    try:
        runs = [linear.da_s3vm(X, ys, lam=1e-2, lam_u=1.0, n_jobs=k)
                for k in (1, 2, 3, 8)]
    finally:
        _set_blocking(*old)
    assert sum(used) > len(used) / 3
    for res in runs[1:]:
        assert res.coef.tobytes() == runs[0].coef.tobytes()
        assert res.p.tobytes() == runs[0].p.tobytes()


@pytest.mark.parametrize("seed", [0, 2])
def test_da_stalled_temperatures_settle_at_scale(monkeypatch, seed):
    # from DA_SCALE_ROWS unlabeled rows on, a temperature of any number of
    # rounds that did not lower the best objective counts as settled once
    # the mean entropy is below STALL_ENTROPY: the annealing stops
    # earlier at the same best point (same bits); below the switch the
    # entropy test ends it (the switch shrunk to this problem's ~2,900
    # unlabeled rows; kl_tol and inner_tol fixed, so only this rule moves)
    from semisvm import _linear_ssl as ls
    rng = np.random.RandomState(seed)
    X = sp.random(3000, 300, density=0.05, format="csr", random_state=rng)
    y = np.where(X @ rng.randn(300) > 0, 1, 0)
    ys = np.where(rng.rand(3000) < 0.03, y, -1)
    kw = dict(lam=1e-2, lam_u=1.0, kl_tol=1e-5, inner_tol=1e-3)
    below = linear.da_s3vm(X, ys, **kw)
    monkeypatch.setattr(ls, "DA_SCALE_ROWS", 2000)
    above = linear.da_s3vm(X, ys, **kw)
    assert below.status == "entropy" and above.status == "settled"
    assert above.n_outer < below.n_outer and above.n_mfn < below.n_mfn
    # (temperatures of several rounds: not the one-round rule)
    assert np.all(above.inner_history[-2:] > 1)
    assert np.all(above.entropy_history[-2:] < ls.STALL_ENTROPY)
    np.testing.assert_array_equal(above.coef, below.coef)
    np.testing.assert_array_equal(above.labels, below.labels)
    assert above.objective == below.objective


@pytest.mark.parametrize("scale_rows", [2000, 3000])
@pytest.mark.parametrize("kl_hot", [False, True])
def test_da_auto_tolerances_both_sides_of_their_size_switch(monkeypatch,
                                                            scale_rows, kl_hot):
    # kl_tol="auto", inner_tol="auto": 1e-5 and 1e-3 below DA_SCALE_ROWS
    # unlabeled rows; from there on 1e-4 and 1e-3 times min(10, max(1, 30 T
    # / lam_u)), the KL test times that factor too where KL_HOT is on (off
    # by default; the switch shrunk to this problem's 2,910 unlabeled)
    from semisvm import _linear_ssl as ls
    assert ls.KL_HOT is False
    monkeypatch.setattr(ls, "KL_HOT", kl_hot)
    rng = np.random.RandomState(4)
    X = sp.random(3000, 300, density=0.05, format="csr", random_state=rng)
    y = np.where(X @ rng.randn(300) > 0, 1, 0)
    ys = np.where(rng.rand(3000) < 0.03, y, -1)
    u = int(np.sum(ys == -1))
    assert 2000 <= u < 3000
    monkeypatch.setattr(ls, "DA_SCALE_ROWS", scale_rows)
    kw = dict(lam=1e-2, lam_u=1.0)
    auto = linear.da_s3vm(X, ys, **kw)
    at_scale = u >= scale_rows
    kl = ls.KL_TOL_SCALE if at_scale else ls.KL_TOL
    fixed = linear.da_s3vm(X, ys, kl_tol=kl, inner_tol=ls.INNER_TOL, **kw)
    # each temperature stopped on its own kl_tol (or its round cap)
    kl_T = np.array([ls._w_step_tol(kl, at_scale and kl_hot, T, 1.0)
                     for T in auto.T_history])
    assert np.all((auto.kl_history < kl_T)[auto.inner_history < 100])
    if at_scale and kl_hot:
        # (the hot temperatures' looser test stopped some of them)
        assert np.any((auto.kl_history >= kl)[auto.inner_history < 100])
    if not at_scale:
        np.testing.assert_array_equal(auto.coef, fixed.coef)
        np.testing.assert_array_equal(auto.labels, fixed.labels)
        assert auto.n_cg_iter == fixed.n_cg_iter
        assert auto.objective == fixed.objective
        # (1e-4 would have stopped other rounds on this problem)
        other = linear.da_s3vm(X, ys, kl_tol=ls.KL_TOL_SCALE, **kw)
        assert other.n_mfn != auto.n_mfn
    else:
        # the hot w-steps are looser: fewer CG iterations (on this small
        # problem the objective moves by 0.4 %, hence the switch by size)
        assert auto.n_cg_iter < fixed.n_cg_iter
        assert auto.objective == pytest.approx(fixed.objective, rel=1e-2)
        # without the hot factor "auto" is the fixed pair, bit for bit
        monkeypatch.setattr(ls, "HOT_FACTOR", 1.0)
        flat = linear.da_s3vm(X, ys, **kw)
        np.testing.assert_array_equal(flat.coef, fixed.coef)
        assert flat.n_cg_iter == fixed.n_cg_iter
    # the estimator passes "auto" through
    est = DASVM(lam=1e-2, lam_u=1.0, r=None).fit(X, ys)
    assert est.result_.n_cg_iter == linear.da_s3vm(X, ys, **kw).n_cg_iter
    for bad in ("kl_tol", "inner_tol"):
        with pytest.raises(ValueError, match=bad):
            linear.da_s3vm(X, ys, **{bad: "fast"})
        with pytest.raises(ValueError, match=bad):
            linear.da_s3vm(X, ys, **{bad: 0.0})
    assert DASVM().kl_tol == DASVM().inner_tol == "auto"


def test_da_w_step_tolerance_follows_the_temperature():
    from semisvm._linear_ssl import HOT_FACTOR, HOT_SLOPE, _w_step_tol
    assert (HOT_FACTOR, HOT_SLOPE) == (10.0, 30.0)
    assert _w_step_tol(1e-3, False, 5.0, 1.0) == 1e-3
    assert _w_step_tol(None, True, 5.0, 1.0) is None
    assert _w_step_tol(1e-3, True, 5.0, 1.0) == pytest.approx(1e-2)
    assert _w_step_tol(1e-3, True, 1 / 3, 1.0) == pytest.approx(1e-2)
    assert _w_step_tol(1e-3, True, 0.1, 1.0) == pytest.approx(3e-3)
    assert _w_step_tol(1e-3, True, 1 / 30, 1.0) == pytest.approx(1e-3)
    assert _w_step_tol(1e-3, True, 0.01, 1.0) == pytest.approx(1e-3)
    assert _w_step_tol(1e-3, True, 0.1, 2.0) == pytest.approx(1.5e-3)


# -- the gradient test's fits from MFN_QTEST_MIN_ENTRIES stored entries on --
def _spy_runs(monkeypatch):
    """Record (prec_mix, keep_start, eta, grad_decrease) of every in-memory
    MFN call."""
    seen = []
    orig = _rows.LocalRows.run

    def run(self, w, lam, tol, eta, *args, **kw):
        seen.append((self.prec_mix, self.keep_start, eta,
                     kw.get("grad_decrease", -1.0)))
        return orig(self, w, lam, tol, eta, *args, **kw)
    monkeypatch.setattr(_rows.LocalRows, "run", run)
    return seen


def _grad_norm(X, y, coef, b, lam):
    """||grad F|| of the objective at (coef, b) (bias scale 1), from scratch."""
    Xa = sp.hstack([X, np.ones((X.shape[0], 1))]).tocsr().astype(np.float64)
    w = np.r_[coef, b].astype(np.float64)
    xi = np.maximum(0.0, 1.0 - y * (Xa @ w))
    return float(np.linalg.norm(lam * w - Xa.T @ (y * xi)))


def test_mfn_model_decrease_rule_on_both_sides_of_min_entries(dtype, monkeypatch):
    X, y = make_classification(n=3000, d=300, seed=21, density=0.1)
    S = sp.csr_matrix(X.astype(dtype))
    seen = _spy_runs(monkeypatch)
    lam = 0.05
    n_pos = int(np.sum(y > 0))
    g_rel = 0.01 * min(n_pos, y.size - n_pos) / y.size
    g0 = _grad_norm(S, y, np.zeros(300), 0.0, lam)
    ref = l2svm_mfn(S.astype(np.float64), y, lam=lam, newton="cgls", tol=1e-12,
                    grad_tol=0)
    out = {}
    for side, at in (("on", S.nnz), ("off", S.nnz + 1)):
        monkeypatch.setattr(linear, "MFN_QTEST_MIN_ENTRIES", at)
        seen.clear()
        r = l2svm_mfn(S, y, lam=lam, newton="cgls")
        mix, keep, eta, dec = seen[0]
        if side == "on":
            assert (mix, keep, dec) == (linear.MFN_PREC_MIX, True,
                                        linear.MFN_GRAD_DECREASE)
            assert eta == pytest.approx(-linear.MFN_CG_QTOL)
        else:
            assert (mix, keep, eta, dec) == (-1.0, False, pytest.approx(0.1),
                                             -1.0)
        assert r.status == "gradient"
        # LIBLINEAR's test holds at the returned point (computed afresh)
        assert _grad_norm(S, y, r.coef, r.intercept, lam) <= g_rel * g0 * 1.001
        assert r.objective == pytest.approx(ref.objective, rel=1e-3)
        out[side] = r
    # the two rules take different steps
    assert out["on"].cg_history.tolist() != out["off"].cg_history.tolist()
    # grad_tol=0 (every solve to tol) and dense rows keep the former rule
    # at any size
    monkeypatch.setattr(linear, "MFN_QTEST_MIN_ENTRIES", 0)
    seen.clear()
    l2svm_mfn(S, y, lam=lam, newton="cgls", grad_tol=0)
    assert seen[0] == (-1.0, False, pytest.approx(0.1), -1.0)
    seen.clear()
    l2svm_mfn(S.toarray(), y, lam=lam, newton="cgls")
    assert seen[0] == (-1.0, False, pytest.approx(0.1), -1.0)


def test_mfn_model_decrease_rule_same_bits_for_any_n_jobs(dtype, monkeypatch):
    from semisvm._core._cgls import _set_blocking
    X, y = make_classification(n=3000, d=300, seed=22, density=0.1)
    S = sp.csr_matrix(X.astype(dtype))
    monkeypatch.setattr(linear, "MFN_QTEST_MIN_ENTRIES", 0)
    old = _set_blocking(2000, 16)      # several row blocks even at this size
    try:
        res = [LinearSVM(lam=0.05, newton="cgls", n_jobs=k).fit(S, y).result_
               for k in (1, 2, 3, 8)]
    finally:
        _set_blocking(*old)
    assert res[0].n_iter >= 2
    for r in res[1:]:
        assert r.coef.tobytes() == res[0].coef.tobytes()
        assert r.decision.tobytes() == res[0].decision.tobytes()
        assert r.objective == res[0].objective
