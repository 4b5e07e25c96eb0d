"""The TV / Cheeger RKHS step through a kernel factor K = Z Z' (Nystroem).

The low-rank path is checked against the exact (n, n) path with m = n
landmarks, where Z Z' = K: same objective (to 1e-6), same iterates. The size
switch of ``n_components="auto"`` and the memory check of the path taken are
tested on both sides with the threshold shrunk and the memory faked small.
"""
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs, make_moons

import semisvm._validation as _validation
import semisvm.graph_tv as gt
from semisvm import TVRLS, TVSVM, CheegerRLS, CheegerSVM
from semisvm._lowrank import nystroem_features
from semisvm._tv_solvers import RKHS
from semisvm._validation import NotEnoughMemoryError
from semisvm.graph import knn_affinity
from semisvm.graph_tv import graph_cheeger, graph_tv
from semisvm.kernels import kernel_matrix

ESTIMATORS = [TVRLS, TVSVM, CheegerRLS, CheegerSVM]


def _problem(n_classes, n=60, per_class=2):
    if n_classes == 2:
        X, yt = make_moons(n, noise=0.1, random_state=0)
    else:
        X, yt = make_blobs(n, centers=n_classes, random_state=1)
    y = np.full(n, -1)
    for c in range(n_classes):
        y[np.flatnonzero(yt == c)[:per_class]] = c
    return X, y, yt


def _features(X, m):
    def kern(A, B):
        return kernel_matrix(A, B, gamma=0.5)
    Z, _, _ = nystroem_features(X, kern, m, random_state=0)
    return kern(X, X), Z


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("loss", ["squared", "hinge"])
@pytest.mark.parametrize("normalize", [None, "n"])
@pytest.mark.parametrize("fn", [graph_tv, graph_cheeger])
def test_factor_path_equals_exact_path_with_m_equal_n(fn, normalize, loss, n_classes):
    X, y, _ = _problem(n_classes)
    K, Z = _features(X, X.shape[0])
    assert np.abs(Z @ Z.T - K).max() < 1e-8
    W = knn_affinity(X, 6)
    # a tight SMO tolerance (its stopping point must not depend on rounding);
    # the ROF tolerance stays at its default: tight ROF solves leave flat
    # regions whose ties make the Cheeger median flip on rounding
    kw = dict(loss=loss, normalize=normalize, max_iter=15, smo_tol=1e-12)
    a = fn(K, W, y, **kw)
    b = fn(None, W, y, Z=Z, **kw)
    assert a.n_iter == b.n_iter
    assert abs(a.objective - b.objective) <= 1e-6 * abs(a.objective)
    if loss == "squared":
        # (hinge: an SMO solution without free variables leaves the bias
        # anywhere in an interval, and the reported objective of the early
        # iterates with it; the iterates themselves agree, below)
        np.testing.assert_allclose(b.history, a.history, rtol=1e-6)
    np.testing.assert_allclose(b.decision, a.decision, rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(b.labels, a.labels)


def test_low_rank_factor_solves_the_regularised_systems():
    # lam I + r K and lam I + D K with K = Z Z' of rank m < n: the Woodbury
    # solves against dense solves of the same n x n systems
    rng = np.random.default_rng(0)
    Z = rng.standard_normal((40, 7))
    K = Z @ Z.T
    B = rng.standard_normal((40, 3))
    lab = np.zeros(40, dtype=bool)
    lab[:5] = True
    rk = RKHS(Z=Z)
    alpha, f = rk.factor(0.3, 2.0).solve(B)
    ref = np.linalg.solve(0.3 * np.eye(40) + 2.0 * K, B)
    np.testing.assert_allclose(alpha, ref, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(f, K @ ref, rtol=1e-9, atol=1e-10)
    d = 2.0 + 10.0 * lab
    alpha, f = rk.weighted_factor(0.3, 2.0, 10.0, lab).solve(B)
    ref = np.linalg.solve(0.3 * np.eye(40) + d[:, None] * K, B)
    np.testing.assert_allclose(alpha, ref, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(f, K @ ref, rtol=1e-9, atol=1e-10)
    G = K @ np.linalg.inv(0.3 * np.eye(40) + 2.0 * K)
    np.testing.assert_allclose(rk.factor(0.3, 2.0).kernel_columns(np.arange(5)),
                               G[:, :5], rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("Est", ESTIMATORS)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_estimator_nystroem_with_m_equal_n_is_the_exact_fit(Est, n_classes):
    X, y, _ = _problem(n_classes)
    n = X.shape[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # max_iter: same in both fits
        a = Est(n_components=None, max_iter=15, normalize=None).fit(X, y)
        b = Est(n_components=n, max_iter=15, normalize=None).fit(X, y)
    assert a.mode_ == "exact" and a.landmarks_ is None
    assert b.mode_ == "nystroem" and b.n_components_ == n
    assert abs(a.result_.objective - b.result_.objective) <= (
        1e-6 * abs(a.result_.objective))
    np.testing.assert_array_equal(a.transduction_, b.transduction_)
    # the landmark expansion predicts what the exact expansion predicts
    Xt = X + 0.05
    np.testing.assert_allclose(b.decision_function(Xt), a.decision_function(Xt),
                               rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_auto_size_switch_both_sides(Est, monkeypatch):
    monkeypatch.setattr(gt, "LOWRANK_MIN_SAMPLES", 50)
    monkeypatch.setattr(gt, "AUTO_COMPONENTS", 20)
    X, y, yt = _problem(2, n=50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        at = Est(max_iter=30).fit(X, y)
        X2, y2, yt2 = _problem(2, n=51)
        above = Est(max_iter=30).fit(X2, y2)
        exact = Est(max_iter=30, n_components=None).fit(X2, y2)
    assert at.mode_ == "exact" and at.n_components_ is None
    assert at.X_fit_.shape[0] == 50
    assert above.mode_ == "nystroem" and above.n_components_ == 20
    assert above.X_fit_.shape == (20, 2) and above.alpha_.shape == (20,)
    # the labeled rows are landmarks
    assert set(np.flatnonzero(y2 != -1)) <= set(above.landmarks_)
    unl = y2 == -1
    # 20 landmarks of 51 rows: the labels the exact fit gives, give or take
    assert np.mean(above.transduction_[unl] != exact.transduction_[unl]) < 0.1
    assert above.predict(X2).shape == (51,)


@pytest.mark.parametrize("Est", [TVRLS, CheegerRLS])
def test_memory_check_is_for_the_path_taken(Est, monkeypatch):
    X, y, _ = _problem(2, n=60)
    n = X.shape[0]
    # room for the Nystroem path (n x 20 features), not for 2 n^2 floats
    budget = 2 * n * 20 * 8 + 4 * 20 * 20 * 8 + 32 * n * 8 + 1
    assert budget < 2 * n * n * 8
    monkeypatch.setattr(_validation, "memory_budget",
                        lambda: (float(budget), "available RAM"))
    with pytest.raises(NotEnoughMemoryError, match="n_components"):
        Est(n_components=None).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = Est(n_components=20, max_iter=20).fit(X, y)
    assert est.mode_ == "nystroem"
    with pytest.raises(NotEnoughMemoryError, match="Nystroem"):
        Est(n_components=40).fit(X, y)


def test_bad_n_components_and_factor_arguments():
    X, y, _ = _problem(2, n=30)
    with pytest.raises(ValueError, match="n_components"):
        TVRLS(n_components="big").fit(X, y)
    with pytest.raises(ValueError, match="n_components"):
        TVRLS(n_components=31).fit(X, y)
    with pytest.raises(ValueError, match="n_components"):
        TVRLS(n_components=0).fit(X, y)
    with pytest.raises(TypeError, match="n_components"):
        TVRLS(n_components=2.5).fit(X, y)
    K, Z = _features(X, 10)
    W = knn_affinity(X, 5)
    with pytest.raises(ValueError, match="not both"):
        graph_tv(K, W, y, Z=Z)
    with pytest.raises(ValueError, match="Z must be finite"):
        graph_cheeger(None, W, y, Z=np.full_like(Z, np.nan))
    with pytest.raises(ValueError, match="W must have shape"):
        graph_tv(None, W, y, Z=Z[:20])


def test_float32_nystroem_path_stays_float32():
    X, y, yt = _problem(2, n=80)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = TVRLS(n_components=30).fit(X.astype(np.float32), y)
        again = TVRLS(n_components=30).fit(X.astype(np.float32), y)
    assert est.alpha_.dtype == np.float32
    assert est.decision_function(X.astype(np.float32)).dtype == np.float32
    np.testing.assert_array_equal(est.alpha_, again.alpha_)
