"""Selection of the graph TV / Cheeger estimators that reuses work.

Fits on a user-given shared :class:`~semisvm.graph.KNNGraph` (a grid
search's grid points on one fold) read their set-up (the fold's graph,
kernel width, kernel matrix or Nystroem features, solve cache) from the
graph instead of computing it again: the same bits as a new set-up. The
warm starts of the TV models (a grid's fits from each other's iterate,
safe=True's fold fits from the checked fit's) are off by default; these
tests run them both ways.
"""
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV

import semisvm._tv_check as tv_check
import semisvm._tv_setup as tv_setup
from semisvm import TVRLS, TVSVM, CheegerRLS, CheegerSVM
from semisvm.graph import KNNGraph
from semisvm.model_selection import LabeledStratifiedKFold

MODELS = [TVRLS, TVSVM, CheegerRLS, CheegerSVM]


def _blobs(n=90, n_classes=3, per_class=4, seed=0, std=2.0):
    X, yt = make_blobs(n, centers=n_classes, cluster_std=std, random_state=seed)
    rng = np.random.default_rng(seed)
    y = np.full(n, -1)
    for c in range(n_classes):
        y[rng.choice(np.flatnonzero(yt == c), per_class, replace=False)] = c
    return X, y, yt


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y)


def _no_store(monkeypatch):
    """A graph that keeps no work: every fit sets itself up anew."""
    monkeypatch.setattr(KNNGraph, "_store", lambda self, key, value, nbytes: None)


@pytest.mark.parametrize("m", [None, 40])
@pytest.mark.parametrize("Est", MODELS)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_shared_set_up_same_bits_as_a_new_one(monkeypatch, Est, m, n_classes):
    X, y, _ = _blobs(n=90, n_classes=n_classes, std=3.0)
    rows = np.arange(5, 90)            # a fold: some rows held out
    g = KNNGraph(10, weight="self-tuning").fit(X)
    kw = dict(n_components=m, safe=False, max_iter=15)
    _fit(Est(graph=g, lam=0.5, **kw), X[rows], y[rows])
    hits = g._work_hits
    shared = _fit(Est(graph=g, lam=2.0, **kw), X[rows], y[rows])
    # the second grid point read the first one's set-up
    assert g._work_hits == hits + 1
    # ... and is the fit that a new set-up gives, to the bit
    monkeypatch.setattr(tv_setup.TVSetupMixin, "_shared_work_key",
                        lambda self, X, W, lab: None)
    cold = _fit(Est(graph=g, lam=2.0, **kw), X[rows], y[rows])
    assert np.array_equal(shared.result_.decision, cold.result_.decision)
    assert np.array_equal(shared.alpha_, cold.alpha_)
    assert np.array_equal(shared.transduction_, cold.transduction_)
    assert shared._kernel_gamma == cold._kernel_gamma
    assert shared.nugget_ == cold.nugget_


def test_shared_set_up_keyed_by_rows_labels_and_parameters():
    X, y, _ = _blobs(n=90)
    g = KNNGraph(10, weight="self-tuning").fit(X)
    kw = dict(n_components=40, safe=False, max_iter=10)
    _fit(TVRLS(graph=g, **kw), X, y)
    base = g._work_hits
    # other labeled rows, another kernel width, another seed, another rank,
    # other rows: a set-up of their own (no hit)
    y2 = y.copy()
    y2[np.flatnonzero(y == -1)[0]] = 0
    _fit(TVRLS(graph=g, **kw), X, y2)
    _fit(TVRLS(graph=g, kernel_gamma=0.3, **kw), X, y)
    _fit(TVRLS(graph=g, random_state=1, **kw), X, y)
    _fit(TVRLS(graph=g, **dict(kw, n_components=30)), X, y)
    _fit(TVRLS(graph=g, **kw), X[1:], y[1:])
    # another model class on the same rows: its own (the default width differs)
    _fit(TVSVM(graph=g, **kw), X, y)
    assert g._work_hits == base
    # the same rows, labeled rows and set-up parameters: shared (lam and the
    # labels' values do not enter the set-up)
    y3 = y.copy()
    y3[y == 0], y3[y == 1] = 1, 0
    _fit(TVRLS(graph=g, lam=3.0, **kw), X, y3)
    assert g._work_hits == base + 1
    # a RandomState seed or a callable kernel: never shared
    _fit(TVRLS(graph=g, random_state=np.random.RandomState(0), **kw), X, y)
    _fit(TVRLS(graph=g, random_state=np.random.RandomState(0), **kw), X, y)
    assert g._work_hits == base + 1


@pytest.mark.slow
@pytest.mark.parametrize("Est", [TVRLS, CheegerSVM])
def test_grid_search_shared_set_up_chooses_what_a_cold_one_chooses(monkeypatch, Est):
    X, y, _ = _blobs(n=120, n_classes=3, per_class=6, std=3.5, seed=1)
    cv = LabeledStratifiedKFold(3, random_state=0)
    grid = {"lam": [0.1, 1.0, 10.0]}
    kw = dict(n_components=40, safe=False, max_iter=15)
    g = KNNGraph(10, weight="self-tuning").fit(X)
    shared = _fit(GridSearchCV(Est(graph=g, **kw), grid, cv=cv), X, y)
    # each fold set up once: 3 folds x 2 later grid points read it
    assert g._work_hits == 6
    _no_store(monkeypatch)
    g2 = KNNGraph(10, weight="self-tuning").fit(X)
    cold = _fit(GridSearchCV(Est(graph=g2, **kw), grid, cv=cv), X, y)
    assert g2._work_hits == 0
    assert shared.best_params_ == cold.best_params_
    assert np.array_equal(shared.cv_results_["mean_test_score"],
                          cold.cv_results_["mean_test_score"])
    assert np.array_equal(shared.best_estimator_.decision_function(X),
                          cold.best_estimator_.decision_function(X))


# ------------------------------------------------------------ warm starts
def _solve_starts(monkeypatch):
    """``(gamma, warm start)`` of each solve of the TV solver."""
    import semisvm.graph_tv as gt
    seen = []
    orig = gt.graph_tv

    def spy(*a, **k):
        seen.append((k.get("gamma"), k.get("_init")))
        return orig(*a, **k)

    monkeypatch.setattr(gt, "graph_tv", spy)
    return seen


def _start_of(res, y):
    """The solve's final iterate as the next solve reads it: the fit runs on
    the labels' codes in the order of each class's first labeled row
    (``semisvm._fallback.to_codes``), so where that order is not the sorted
    one its iterate is ``result_``'s negated (two classes) or with its
    columns permuted (more)."""
    from semisvm._validation import class_codes
    y = np.asarray(y)
    order = class_codes(np.unique(y[y != -1], return_inverse=True)[1])[1]
    want = np.asarray(res.decision, dtype=np.float64)
    if want.ndim == 1:
        return (want - float(res.intercept)) * (-1.0 if order[0] == 1 else 1.0)
    return want[:, order]


@pytest.mark.parametrize("Est", [TVRLS, TVSVM])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_grid_warm_start_both_ways(monkeypatch, Est, n_classes):
    X, y, _ = _blobs(n=90, n_classes=n_classes, std=3.0)
    kw = dict(n_components=40, safe=False, max_iter=30)
    seen = _solve_starts(monkeypatch)
    out = {}
    for warm in (False, True):
        monkeypatch.setattr(tv_setup, "GRID_WARM_START", warm)
        g = KNNGraph(10, weight="self-tuning").fit(X)
        seen.clear()
        first = _fit(Est(graph=g, lam=0.5, **kw), X, y)
        n_first = len(seen)
        second = _fit(Est(graph=g, lam=0.6, **kw), X, y)
        out[warm] = (first, second)
        # the first grid point starts cold; the second from the first one's
        # final iterate when warm (its first solve), else cold
        assert all(s is None for _, s in seen[:n_first])
        got = seen[n_first][1]
        if warm:
            assert np.array_equal(got, _start_of(first.result_, y))
        else:
            assert got is None
        # a later solve of a fit (the convex refit, the augmented iteration
        # after a rejected penalty one) starts cold
        assert all(s is None for _, s in seen[n_first + 1:])
    # the first fit is the same either way; on these blobs the
    # warm-started neighbour ends on the same labels as the cold one
    assert np.array_equal(out[False][0].result_.decision, out[True][0].result_.decision)
    assert np.array_equal(out[False][1].transduction_, out[True][1].transduction_)


def test_grid_warm_start_not_for_cheeger(monkeypatch):
    monkeypatch.setattr(tv_setup, "GRID_WARM_START", True)
    X, y, _ = _blobs(n=90)
    g = KNNGraph(10, weight="self-tuning").fit(X)
    kw = dict(n_components=40, safe=False, max_iter=10)
    _fit(CheegerRLS(graph=g, lam=0.5, **kw), X, y)
    est = _fit(CheegerRLS(graph=g, lam=0.6, **kw), X, y)
    # the set-up is shared; no warm start is kept or taken
    assert g._work_hits == 1
    assert not any(k[0] == "tv-warm" for k in g._work)
    assert not hasattr(est, "_fold_init")


@pytest.mark.slow
@pytest.mark.parametrize("Est", [TVRLS, TVSVM])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_safe_warm_start_both_ways(monkeypatch, Est, n_classes):
    X, y, _ = _blobs(n=90, n_classes=n_classes, per_class=6, std=2.0)
    kw = dict(safe=True, safe_cv=2, max_iter=30, n_components=40)
    seen = _solve_starts(monkeypatch)
    out = {}
    for warm in (False, True):
        monkeypatch.setattr(tv_check, "SAFE_WARM_START", warm)
        seen.clear()
        out[warm] = est = _fit(Est(**kw), X, y)
        # the fit's own solves cold; the supervised counterpart's (gamma =
        # 0) never warm; the model's fold fits (2 folds x 2 repeats) each
        # start from the fit's iterate on their rows when warm
        assert seen[0][1] is None
        assert all(s is None for gamma, s in seen if gamma == 0)
        warm_starts = [s for gamma, s in seen if s is not None]
        assert len(warm_starts) == (4 if warm else 0)
        for s in warm_starts:
            assert s.shape[0] < X.shape[0]            # the fold's rows only
        assert not hasattr(est, "_safety_start")
    a, b = out[False], out[True]
    # the fit itself does not change; nor do the counterpart's fold scores
    assert np.array_equal(a.result_.decision, b.result_.decision)
    assert np.array_equal(a.safe_scores_[1], b.safe_scores_[1])
    # on these well-separated blobs the warm-started check decides as the
    # cold one (on harder problems it does not always: bench/RESULTS.md)
    assert a.fell_back_ == b.fell_back_


@pytest.mark.parametrize("loss", ["squared", "hinge"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_solver_warm_start_from_its_own_solution(loss, n_classes):
    # graph_tv's private warm start: started from its own converged iterate
    # a solve ends on (about) the same labels in fewer iterations; None is
    # the cold solve (the same bits as no argument)
    from semisvm.graph import knn_affinity
    from semisvm.graph_tv import graph_tv
    from semisvm.kernels import kernel_matrix
    X, y, _ = _blobs(n=90, n_classes=n_classes, std=1.5)
    K = kernel_matrix(X, gamma=0.5)
    W = knn_affinity(X, 8, weight="self-tuning")
    yy = np.where(y == -1, -1, y)
    kw = dict(loss=loss, gamma=0.3, lam=0.1, eta=10.0, mu=1.0, tol=1e-5,
              max_iter=300, scheme="penalty" if n_classes > 2 else "augmented")
    cold = graph_tv(K, W, yy, **kw)
    assert np.array_equal(graph_tv(K, W, yy, _init=None, **kw).decision, cold.decision)
    start = np.asarray(cold.decision, dtype=np.float64)
    if start.ndim == 1:
        start = start - float(cold.intercept)
    warm = graph_tv(K, W, yy, _init=start, **kw)
    if loss == "squared":
        assert np.array_equal(warm.labels, cold.labels)
    else:
        # (the hinge duals and intercepts are not carried over: a few
        # boundary rows may settle on the other side)
        assert np.mean(warm.labels == cold.labels) >= 0.97
    assert warm.n_iter < cold.n_iter


def test_graph_work_kept_least_recently_used_first_out_both_sides_of_its_size(monkeypatch):
    # a fitted graph keeps up to _WORK_BYTES of shared work: at the cap
    # nothing leaves, one byte above it the least recently used (stored or
    # read) entry leaves; an entry of more than half the cap is not kept
    X, _, _ = _blobs(n=60)
    g = KNNGraph(5).fit(X)
    monkeypatch.setattr(KNNGraph, "_WORK_BYTES", 100)
    g._store("a", 1, 40)
    g._store("b", 2, 40)
    assert g._recall("a") == 1              # "b" is now the least recent
    g._store("c", 3, 20)                    # 100 bytes: at the cap
    assert [g._recall(k) for k in "bac"] == [2, 1, 3]
    g._store("d", 4, 1)                     # 101 bytes: "b" leaves
    assert g._recall("b") is None
    assert [g._recall(k) for k in "acd"] == [1, 3, 4]
    g._store("e", 5, 51)                    # more than half the cap
    assert g._recall("e") is None
    g._store("f", 6, 50)                    # half the cap: kept
    assert g._recall("f") == 6


def test_safe_true_with_a_graph_given():
    # safe=True on a shared fitted graph: the check's fits set themselves
    # up from the graph (no shared set-up of the fit's own), exact and
    # Nystroem paths
    X, y, _ = _blobs(n=120, per_class=6, std=3.0)
    g = KNNGraph(10, weight="self-tuning").fit(X)
    for m in (40, None):
        est = _fit(TVRLS(graph=g, safe=True, safe_cv=2, n_components=m, max_iter=15), X, y)
        assert est.safe_check_ is None and est.unlabeled_gain_ is not None
        assert est.predict(X).shape == (120,)


def test_shared_set_up_skipped_for_unhashable_parameters():
    # a parameter given as an array (coef0, unused by the RBF kernel): the
    # fit on a shared graph runs without sharing its set-up, as without graph=
    X, y, _ = _blobs(n=60)
    g = KNNGraph(5).fit(X)
    a = _fit(TVRLS(graph=g, coef0=np.array(1.0), safe=False, max_iter=10), X, y)
    b = _fit(TVRLS(graph=g, safe=False, max_iter=10), X, y)
    np.testing.assert_array_equal(a.result_.decision, b.result_.decision)


@pytest.mark.parametrize("m", [40, None])
def test_shared_set_up_keeps_only_the_label_free_solve_cache(m):
    # the first fit's solve cache, stored on the graph, is cut at the end of
    # its fit to what later fits read (ROF edges and step bound, Z'Z): its
    # lam-specific factorisations are not held by the graph
    X, y, _ = _blobs(n=90)
    g = KNNGraph(10, weight="self-tuning").fit(X)
    _fit(TVRLS(graph=g, n_components=m, safe=False, max_iter=10), X, y)
    (entry,) = [v for k, v in g._work.items() if k[0] == "tv-set-up"]
    cache = entry[0][2]
    assert cache and all(k[0] == "rof" or (k[0] == "rkhs" and set(v["data"]) == {"gram"})
                         for k, v in cache.items())
    assert tv_setup.TVSetupMixin._shared_solve_cache(cache) == cache
