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

import semisvm._tv_check as tv_check
import semisvm._tv_inputs as tv_inputs
import semisvm._tv_schemes as tv_schemes
import semisvm._tv_setup as tv_setup
import semisvm._tv_solvers as tv_solvers
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
def test_estimator_nystroem_with_m_equal_n_is_the_exact_fit(Est, n_classes,
                                                           monkeypatch):
    # the hinge step's SMO solved to 1e-10: at its default tolerance (1e-6)
    # a degenerate dual (every labeled multiplier at a bound, the intercept
    # anywhere in an interval) can end on either side of a bound depending
    # on the last bits of the two paths' arithmetic, which differ by
    # processor (seen on an AMD EPYC without AVX-512: one class's intercept
    # 0.06 apart after two iterations, 1.2 % in the objective after 15)
    smo_qp = tv_solvers.smo_qp

    def tight(*args, **kw):
        kw["tol"] = min(kw.get("tol", 1e-6), 1e-10)
        return smo_qp(*args, **kw)
    monkeypatch.setattr(tv_solvers, "smo_qp", tight)
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
    monkeypatch.setattr(tv_setup, "LOWRANK_MIN_SAMPLES", 50)
    monkeypatch.setattr(tv_setup, "AUTO_COMPONENTS", 20)
    X, y, yt = _problem(2, n=50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # (safe=False: the paths themselves, not the default fallback)
        at = Est(max_iter=30, safe=False).fit(X, y)
        X2, y2, yt2 = _problem(2, n=51)
        above = Est(max_iter=30, safe=False).fit(X2, y2)
        exact = Est(max_iter=30, n_components=None, safe=False).fit(X2, y2)
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
    # no room for LapRLS's path: the Laplacian guard of safe="auto" is skipped
    assert est.laplacian_agreement_ is None and not est.laplacian_fallback_
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


# --- one kNN graph shared by the fit, the safety check's folds, a grid ------

def _xor(n=200, per_class=5, noise=True):
    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, size=(n, 2))
    yt = ((X[:, 0] > 0) ^ (X[:, 1] > 0)).astype(int)
    if noise:
        X = np.hstack([X, 0.3 * rng.randn(n, 3)])
    y = np.full(n, -1)
    r = np.random.default_rng(0)
    for c in (0, 1):
        y[r.choice(np.flatnonzero(yt == c), per_class, replace=False)] = c
    return X, y, yt


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_given_graph_is_the_default_graph(Est):
    from semisvm.graph import KNNGraph
    X, y, _ = _problem(2, n=80)
    g = KNNGraph(10, weight="self-tuning").fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = Est(max_iter=30).fit(X, y)
        b = Est(max_iter=30, graph=g).fit(X, y)
    assert b.graph_ is g and a.graph_ is None
    # the same graph (float32 weights against float64): the same labels
    np.testing.assert_array_equal(a.transduction_, b.transduction_)
    with pytest.raises(ValueError, match="not both"):
        Est(graph=g).fit(X, y, affinity=g.affinity_)
    with pytest.raises(TypeError, match="KNNGraph"):
        Est(graph=g.affinity_).fit(X, y)


@pytest.mark.parametrize("Est", [TVRLS, CheegerRLS])
@pytest.mark.parametrize("noise", [True, False])
def test_safe_check_shares_the_graph_and_chooses_as_cold_selection(Est, noise, monkeypatch):
    # the check's folds read their graph from the fit's neighbour lists
    # (one search) and take the fit's kernel width; the choice is that of a
    # check whose folds search their own graphs and compute their own widths
    # (the check as it ran before), the fold scores within one held-out row
    # (these folds hold out 2 rows: 0.5) and the gain within 0.05
    from sklearn.base import clone

    import semisvm._tv_check as tc
    from semisvm.model_selection import unlabeled_gain

    # (both repeats, as the cold check below)
    monkeypatch.setattr(tc, "SAFE_FIRST_REPEAT_MIN_GAIN", None)
    X, y, _ = _xor(noise=noise)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        safe = Est(safe=True).fit(X, y)
        cold = Est(safe=False)
        sup = cold._supervised_counterpart()
        gain, s, b = unlabeled_gain(clone(cold), sup, X, y, cv=safe._safe_cv())
    assert safe.graph is None and safe.graph_.n_samples_fit_ == X.shape[0]
    assert safe.graph_.n_builds_ <= 2     # one search (+ a partial one)
    assert safe.fell_back_ == (gain < -safe.safe_margin)
    np.testing.assert_allclose(safe.safe_scores_[0], s, atol=0.5 + 1e-9)
    np.testing.assert_allclose(safe.safe_scores_[1], b, atol=0.5 + 1e-9)
    assert abs(safe.unlabeled_gain_ - gain) <= 0.05 + 1e-9


def test_multi_class_tv_switches_at_its_own_size(monkeypatch):
    # multi-class TV with the augmented scheme keeps the exact path up to
    # LOWRANK_MIN_SAMPLES_MULTI_TV; multi-class Cheeger and two-class TV
    # switch at LOWRANK_MIN_SAMPLES
    monkeypatch.setattr(tv_setup, "LOWRANK_MIN_SAMPLES", 40)
    monkeypatch.setattr(tv_setup, "LOWRANK_MIN_SAMPLES_MULTI_TV", 60)
    monkeypatch.setattr(tv_setup, "AUTO_COMPONENTS", 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n, tv_mode in ((60, "exact"), (61, "nystroem")):
            X, y, _ = _problem(3, n=n)
            assert TVRLS(max_iter=5, scheme="augmented").fit(X, y).mode_ == tv_mode
            assert CheegerRLS(max_iter=5).fit(X, y).mode_ == "nystroem"
        X, y, _ = _problem(2, n=60)
        assert TVSVM(max_iter=5).fit(X, y).mode_ == "nystroem"


def test_low_rank_factor_with_a_nugget():
    # K = Z Z' + delta I: the Woodbury solves against dense solves
    rng = np.random.default_rng(1)
    Z = rng.standard_normal((30, 5))
    K = Z @ Z.T + 0.07 * np.eye(30)
    B = rng.standard_normal((30, 2))
    lab = np.zeros(30, dtype=bool)
    lab[::7] = True
    rk = RKHS(Z=Z, delta=0.07)
    alpha, f = rk.factor(0.2, 3.0).solve(B)
    ref = np.linalg.solve(0.2 * np.eye(30) + 3.0 * K, B)
    np.testing.assert_allclose(alpha, ref, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(f, K @ ref, rtol=1e-9, atol=1e-10)
    d = 3.0 + 5.0 * lab
    alpha, f = rk.weighted_factor(0.2, 3.0, 5.0, lab).solve(B)
    ref = np.linalg.solve(0.2 * np.eye(30) + d[:, None] * K, B)
    np.testing.assert_allclose(alpha, ref, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(f, K @ ref, rtol=1e-9, atol=1e-10)
    with pytest.raises(ValueError, match="nugget"):
        graph_tv(None, knn_affinity(rng.standard_normal((30, 2)), 4),
                 np.r_[0, 1, [-1] * 28], Z=Z, nugget=-1.0)


def test_label_spreading_cg_above_the_switch_is_the_lu_below(monkeypatch):
    # the Cheeger start / balance: conjugate gradients above
    # SPREAD_CG_MIN_SAMPLES, the sparse LU at or below it; same solution
    import semisvm._tv_solvers as ts
    X, y, _ = _problem(3, n=120)
    W = knn_affinity(X, 8, weight="self-tuning")
    Y = np.zeros((120, 3))
    Y[y >= 0, y[y >= 0]] = 1.0
    monkeypatch.setattr(ts, "SPREAD_CG_MIN_SAMPLES", 120)
    lu = ts._label_spreading(W, Y)
    monkeypatch.setattr(ts, "SPREAD_CG_MIN_SAMPLES", 119)
    cg = ts._label_spreading(W, Y)
    S = W.toarray() / np.sqrt(np.outer(W.sum(1), W.sum(1)))
    ref = np.linalg.solve(np.eye(120) - 0.99 * S, Y)
    np.testing.assert_allclose(lu, ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(cg, ref, rtol=1e-7, atol=1e-9 * np.abs(ref).max())
    assert not np.array_equal(cg, lu)     # the other solver did run
    np.testing.assert_allclose(ts._label_spreading(W, Y[:, 0]), ref[:, 0],
                               rtol=1e-7, atol=1e-9 * np.abs(ref).max())


@pytest.mark.parametrize("Est", ESTIMATORS)
def test_n_jobs_gives_the_same_bits(Est):
    # the graph-ROF solver's threads change no bit of the fit (two and three
    # classes: one and several dual columns)
    for n_classes in (2, 3):
        X, y, _ = _problem(n_classes, n=80, per_class=3)
        fits = []
        for n_jobs in (None, 2, 3):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = Est(safe=False, n_jobs=n_jobs, max_iter=20).fit(X, y)
            fits.append((est.transduction_.tobytes(), np.asarray(est.alpha_).tobytes(),
                         np.asarray(est.result_.decision).tobytes(), est.n_iter_))
        assert fits[0] == fits[1] == fits[2]


def _blobs4(n):
    X, yt = make_blobs(n, centers=[[0, 0], [6, 0], [0, 6], [6, 6]], random_state=0)
    rng = np.random.default_rng(0)
    y = np.full(n, -1)
    for c in range(4):
        y[rng.choice(np.flatnonzero(yt == c), 5, replace=False)] = c
    return X, y, yt


@pytest.mark.parametrize("n", [120, 121])
def test_multi_class_tv_auto_scheme_takes_the_exact_kernel_when_rejected(n, monkeypatch):
    # scheme="auto" starts on the Nystroem path above LOWRANK_MIN_SAMPLES;
    # when its penalty iteration is rejected (here: the smallest class share
    # raised out of reach) the augmented one takes the exact kernel up to
    # LOWRANK_MIN_SAMPLES_MULTI_TV rows (= the exact augmented fit, to the
    # bit) and stays on the Nystroem path above
    monkeypatch.setattr(tv_setup, "LOWRANK_MIN_SAMPLES", 40)
    monkeypatch.setattr(tv_setup, "LOWRANK_MIN_SAMPLES_MULTI_TV", 120)
    monkeypatch.setattr(tv_setup, "AUTO_COMPONENTS", 20)
    X, y, yt = _blobs4(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kept = TVRLS(safe=False).fit(X, y)
        assert kept.mode_ == "nystroem" and kept.result_.scheme == "penalty"
        monkeypatch.setattr(tv_schemes, "PENALTY_MIN_SHARE", 1.5)
        est = TVRLS().fit(X, y)
        if n <= 120:
            ref = TVRLS(scheme="augmented", n_components=None).fit(X, y)
        else:
            ref = TVRLS(scheme="augmented").fit(X, y)
    assert est.result_.scheme == "augmented"
    assert est.mode_ == ("exact" if n <= 120 else "nystroem")
    assert (est.landmarks_ is None) == (n <= 120)
    assert not hasattr(est, "_exact_K") and not hasattr(est, "_exact_rows")
    np.testing.assert_array_equal(est.result_.decision, ref.result_.decision)
    np.testing.assert_array_equal(est.decision_function(X), ref.decision_function(X))
    assert est.safe_check_ == ref.safe_check_


def test_multi_class_tv_auto_scheme_stays_low_rank_without_memory(monkeypatch):
    # the exact kernel is taken only when 2 n^2 floats fit in memory
    monkeypatch.setattr(tv_setup, "LOWRANK_MIN_SAMPLES", 40)
    monkeypatch.setattr(tv_setup, "AUTO_COMPONENTS", 20)
    monkeypatch.setattr(tv_schemes, "PENALTY_MIN_SHARE", 1.5)
    X, y, _ = _blobs4(100)
    budget = 2 * 100 * 100 * 8 - 1
    monkeypatch.setattr(_validation, "memory_budget",
                        lambda: (float(budget), "available RAM"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = TVRLS(safe=False).fit(X, y)
    assert est.mode_ == "nystroem" and est.result_.scheme == "augmented"
    monkeypatch.setattr(_validation, "memory_budget",
                        lambda: (float(budget + 1), "available RAM"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert TVRLS(safe=False).fit(X, y).mode_ == "exact"


@pytest.mark.parametrize("Est,n_classes,n_components", [
    (TVRLS, 2, None), (CheegerSVM, 2, 20), (TVSVM, 3, None), (CheegerRLS, 3, 20)])
def test_check_folds_share_the_solve_cache_same_bits(Est, n_classes, n_components,
                                                     monkeypatch):
    # the check's fold solves reuse the fit's edge list, step bound, Z'Z and
    # label-independent factorisations: the same bits as solving cold, and
    # each is computed once per fit
    import semisvm._tv_solvers as ts
    X, y, _ = _problem(n_classes, n=80, per_class=6)
    calls = {"grad": 0, "chol": 0}
    grad, cho = ts._grad_norm, ts.sla.cho_factor

    def count_grad(*a, **k):
        calls["grad"] += 1
        return grad(*a, **k)

    def count_chol(*a, **k):
        calls["chol"] += 1
        return cho(*a, **k)
    monkeypatch.setattr(ts, "_grad_norm", count_grad)
    monkeypatch.setattr(ts.sla, "cho_factor", count_chol)
    kw = dict(n_components=n_components, max_iter=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warm = Est(**kw).fit(X, y)
        shared = dict(calls)
        monkeypatch.setattr(tv_inputs, "shared_cache", lambda *a, **k: None)
        calls.update(grad=0, chol=0)
        cold = Est(**kw).fit(X, y)
    assert warm.safe_check_ == cold.safe_check_ and warm.safe_check_.startswith("two folds")
    np.testing.assert_array_equal(warm.result_.decision, cold.result_.decision)
    assert warm.unlabeled_gain_ == cold.unlabeled_gain_
    assert warm.fell_back_ == cold.fell_back_
    assert shared["grad"] == 1 and calls["grad"] == 3
    assert shared["chol"] < calls["chol"]


@pytest.mark.parametrize("n,steps", [(100, 200), (101, 20)])
def test_cheeger_rof_budget_auto_both_sides(n, steps, monkeypatch):
    # rof_max_iter="auto": 200 ROF steps per solve up to LOWRANK_MIN_SAMPLES
    # rows, CHEEGER_ROF_MAX_ITER = 20 above (the same bits as given by hand)
    monkeypatch.setattr(tv_setup, "LOWRANK_MIN_SAMPLES", 100)
    monkeypatch.setattr(tv_setup, "AUTO_COMPONENTS", 20)
    X, y, _ = _problem(3, n=n, per_class=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = CheegerRLS(safe=False).fit(X, y)
        given = CheegerRLS(safe=False, rof_max_iter=steps).fit(X, y)
        other = CheegerRLS(safe=False, rof_max_iter=220 - steps).fit(X, y)
    np.testing.assert_array_equal(auto.result_.decision, given.result_.decision)
    assert auto.result_.n_rof_iter == given.result_.n_rof_iter
    assert auto.result_.n_rof_iter != other.result_.n_rof_iter
    with pytest.raises(ValueError, match="rof_max_iter"):
        CheegerRLS(rof_max_iter="fast").fit(X, y)


@pytest.mark.parametrize("above", [True, False])
@pytest.mark.parametrize("Est,n_classes,tol,n_stable", [
    (TVRLS, 2, 1e-4, 10), (TVRLS, 3, 0.05, 3), (TVSVM, 3, 1e-4, 10),
    (TVSVM, 2, 1e-4, 3),
    (CheegerRLS, 2, 1e-6, 10), (CheegerSVM, 3, 1e-6, 3)])
def test_check_folds_stop_settings_both_sides(Est, n_classes, tol, n_stable,
                                              above, monkeypatch):
    # above FOLD_MIN_ROWS rows, the safe="auto" check's fold solves stop at
    # a tolerance of at least FOLD_TOL (multi-class TV; Cheeger keeps its
    # tol) after at most FOLD_N_STABLE quiet iterations (Cheeger,
    # multi-class TV; two-class TV keeps its rule); at or below it the
    # folds keep the fit's rule; the fit keeps the estimator's (same bits
    # as safe=False)
    X, y, _ = _problem(n_classes, n=80, per_class=6)
    monkeypatch.setattr(tv_check, "FOLD_MIN_ROWS", 79 if above else 80)
    seen = []

    def wrap(f):
        def solve(*a, **k):
            seen.append((k["tol"], k["n_stable"]))
            return f(*a, **k)
        return solve
    monkeypatch.setattr(gt, "graph_tv", wrap(gt.graph_tv))
    monkeypatch.setattr(gt, "graph_cheeger", wrap(gt.graph_cheeger))
    kw = dict(tol=tol, n_stable=n_stable, max_iter=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = Est(safe=False, **kw).fit(X, y)
        n_plain = len(seen)
        est = Est(**kw).fit(X, y)
    assert est.safe_check_.startswith("two folds")
    assert not hasattr(est, "_fold_solve")
    fit, folds = seen[n_plain:2 * n_plain], seen[2 * n_plain:]
    assert fit == seen[:n_plain] == [(tol, n_stable)] * n_plain and folds
    if not above or (Est in (TVRLS, TVSVM) and n_classes == 2):
        assert set(folds) == {(tol, n_stable)}
    else:
        fold_tol = tol if Est in (CheegerRLS, CheegerSVM) else max(tol, tv_check.FOLD_TOL)
        assert set(folds) == {(fold_tol, min(n_stable, tv_check.FOLD_N_STABLE))}
    if not est.fell_back_:
        np.testing.assert_array_equal(est.result_.decision, plain.result_.decision)
