"""LinearSVM: the estimator over L2-SVM-MFN."""
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from _reference import l2svm_lbfgs, l2svm_objective, make_classification
from conftest import load_shared
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning

from semisvm import LinearSVM
from semisvm.solvers import l2svm_mfn


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
        (np.ones((6, 2)), [0, 1, 2, 0, 1, 2], ValueError,
         "Only binary classification is supported"),
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
