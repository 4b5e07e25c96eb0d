"""The TV / Cheeger fits' shortcuts that keep the same bits.

* the graph ROF solver's one-thread passes (one column: the two-class
  iterations; up to 16 columns in local arrays, and their C passes of 2-16
  columns with and without AVX2; the gap's sums in local arrays) against
  the general pass, the parallel pass (two threads) and each column solved
  alone: the same iterates to the bit;
* the thread pools held through one controller (``limit_api``): no scan of
  the loaded libraries per call, the pools held as threadpoolctl's own
  ``threadpool_limits`` holds them;
* the Laplacian guard's LapRLS graph read from the fit's own exact search
  (one search for both), on both sides of its size switch and of the
  exact / approximate search switch: the same graph and the same LapRLS fit
  as a search of its own.
"""
import platform
import sys
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons

import semisvm._fallback as fb
import semisvm.graph as graph_mod
from semisvm import TVRLS, TVSVM, CheegerRLS, CheegerSVM, LapRLS
from semisvm._core._graph_tv import _rof_column_kernels, edge_incidence, rof_pd_multi
from semisvm._tv_setup import knn_graph
from semisvm._tv_solvers import _edges, _grad_norm
from semisvm.graph import KNNGraph


def _moons(n=150, per_class=5, seed=0):
    X, yt = make_moons(n, noise=0.12, random_state=seed)
    rng = np.random.default_rng(seed)
    y = np.full(n, -1)
    for c in (0, 1):
        y[rng.choice(np.flatnonzero(yt == c), per_class, replace=False)] = c
    return X, y, yt


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y)


# ------------------------------------------------------- one-column ROF pass

def _rof_graph(n_rows, n_neighbors, dtype):
    # a kNN graph of two moons as the ROF passes take it: its edges, the
    # number of rows, the gradient's norm and the incidence matrix
    X, _, _ = _moons(n_rows)
    W = knn_graph(X, n_neighbors=n_neighbors)
    src, dst, w = _edges(W, dtype)
    n = X.shape[0]
    return src, dst, w, n, _grad_norm(src, dst, w, n), edge_incidence(src, dst, w, n)


# the accelerated steps (the default) and the constant scalar steps
STEPS = [{}, {"accelerate": False, "step_ratio": 0.5}]


@pytest.mark.parametrize("steps", STEPS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rof_one_column_pass_same_bits_as_the_general_passes(dtype, steps):
    src, dst, w, n, L, inc = _rof_graph(300, 8, dtype)
    z = np.random.default_rng(3).standard_normal(n).astype(dtype)

    def run(cols, threads, max_iter):
        Z = np.ascontiguousarray(np.repeat(z[:, None], cols, axis=1))
        G = np.zeros((n, cols), dtype=dtype)
        P = np.zeros((src.shape[0], cols), dtype=dtype)
        out = []
        for rho in (1.0, 2.5):          # warm started from the first solve
            it, gap, primal, status = rof_pd_multi(
                src, dst, w, Z, 0.4, rho, G, P, tol=1e-6, max_iter=max_iter,
                L=L, incidence=inc, n_threads=threads, **steps)
            out.append((G[:, 0].copy(), P[:, 0].copy(), it, gap[0], primal[0]))
        return out

    for max_iter in (7, 3000):         # stopped mid-way (no gap check) and converged
        one = run(1, 1, max_iter)
        for other in (run(2, 1, max_iter), run(1, 2, max_iter)):
            for a, b in zip(one, other):
                assert a[0].tobytes() == b[0].tobytes()
                assert a[1].tobytes() == b[1].tobytes()
                assert a[2:] == b[2:]
    # and a solution: the gap closed below tol x primal
    assert one[-1][3] <= 1e-6 * abs(one[-1][4])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("c", [1, 3])
def test_rof_warm_duals_clipped_to_a_smaller_box(c, dtype):
    # a warm start from a solve with a larger TV weight: the duals outside
    # the new box [-gamma, gamma] are clipped to it first (the same bits as
    # clipping them beforehand with NumPy), then the solve runs
    src, dst, w, n, L, inc = _rof_graph(150, 6, dtype)
    Z = np.random.default_rng(c).standard_normal((n, c)).astype(dtype)
    G = np.zeros((n, c), dtype=dtype)
    P = np.zeros((src.shape[0], c), dtype=dtype)
    rof_pd_multi(src, dst, w, Z, 0.9, 1.0, G, P, tol=1e-6, max_iter=200, L=L,
                 incidence=inc)
    gamma = 0.25
    assert np.any(P > gamma) and np.any(P < -gamma)
    P[0, 0] = dtype(gamma)          # at the bound: kept
    runs = []
    for P0 in (P.copy(), np.clip(P, dtype(-gamma), dtype(gamma))):
        for max_iter in (0, 30):
            P1 = P0.copy()
            G1 = G.copy()
            rof_pd_multi(src, dst, w, Z, gamma, 1.0, G1, P1, tol=0.0,
                         max_iter=max_iter, L=L, incidence=inc)
            runs.append((G1.tobytes(), P1.tobytes()))
    assert runs[0] == runs[2] and runs[1] == runs[3]
    assert np.abs(np.frombuffer(runs[0][1], dtype=dtype)).max() <= dtype(gamma)


@pytest.mark.parametrize("steps", STEPS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("c", [3, 16, 17])
def test_rof_column_passes_same_bits_as_each_column_alone(c, dtype, steps):
    # one thread, c <= COL_BLOCK (16) columns: the local-array pass (its dual
    # clip as selects); 17: the general pass; each column's iterates are
    # those of its own one-column solve (a fixed number of steps: no column
    # waits on another's gap), with duals at both ends of the box
    src, dst, w, n, L, inc = _rof_graph(200, 6, dtype)
    rng = np.random.default_rng(c)
    Z = rng.standard_normal((n, c)).astype(dtype)
    rho = rng.uniform(0.5, 3.0, c)

    def solve(Zc, rhoc, threads):
        G = np.zeros((n, Zc.shape[1]), dtype=dtype)
        P = np.zeros((src.shape[0], Zc.shape[1]), dtype=dtype)
        for scale in (1.0, 1.7):        # a warm-started second solve
            rof_pd_multi(src, dst, w, np.ascontiguousarray(scale * Zc), 0.3,
                         rhoc, G, P, tol=0.0, max_iter=23, L=L, incidence=inc,
                         n_threads=threads, **steps)
        return G, P
    G, P = solve(Z, rho, 1)
    gamma = dtype(0.3)
    assert np.any(P == gamma) and np.any(P == -gamma)
    G2, P2 = solve(Z, rho, 2)
    assert G.tobytes() == G2.tobytes() and P.tobytes() == P2.tobytes()
    for k in range(c):
        gk, pk = solve(Z[:, [k]], rho[k], 1)
        assert G[:, k].tobytes() == gk[:, 0].tobytes()
        assert P[:, k].tobytes() == pk[:, 0].tobytes()


# every setting of the C passes of 2-16 columns (with / without their AVX2
# copies) and of the gap's local sums, against _pd_step_columns and the
# gap's sums into ``part``
_KERNELS = [(False, False, False), (True, False, False), (True, True, False),
            (False, False, True), (True, True, True)]




def _cpu_has_avx2():
    """Whether this is an x86-64 CPU with AVX2 (NumPy's own CPU probe)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:                 # NumPy < 2
        from numpy.core._multiarray_umath import __cpu_features__
    return (platform.machine().lower() in ("x86_64", "amd64")
            and bool(__cpu_features__.get("AVX2", False)))


def _check_avx2_flag(requested, got):
    # the AVX2 copies are in use exactly where asked for and the CPU has
    # AVX2: a broken dispatch fails here instead of running the plain copy.
    # (On Windows an MSVC build has no AVX2 copy, a GCC / clang one has it.)
    expected = bool(requested) and _cpu_has_avx2()
    if sys.platform == "win32":
        assert got in (expected, False)
    else:
        assert got == expected


@pytest.fixture
def rof_kernels():
    saved = _rof_column_kernels()
    yield _rof_column_kernels
    _rof_column_kernels(*saved)


@pytest.mark.parametrize("steps", STEPS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("c", range(1, 18))
def test_rof_c_passes_same_bits_as_the_cython_pass(c, dtype, steps, rof_kernels):
    # the C pass of each column count 2-16 (each count's own function,
    # unrolled, fused, prefetching; its plain copy and, where the CPU has
    # AVX2, its AVX2 copy) and the gap's sums in local arrays (1-16
    # columns): the same iterates, duals, gaps and iterations as the Cython
    # passes, on a warm-started second solve too, with the gap test deciding
    # (tol > 0: it stops the solve and swaps in the dual's primal point);
    # 17 columns keep the general pass (the settings must not matter there)
    src, dst, w, n, L, inc = _rof_graph(300, 7, dtype)
    rng = np.random.default_rng(c + 100)
    Z = rng.standard_normal((n, c)).astype(dtype)
    rho = rng.uniform(0.5, 3.0, c)
    runs = []
    for setting in _KERNELS:
        got = rof_kernels(*setting)
        assert got[0::2] == (setting[0], setting[2])
        _check_avx2_flag(setting[1], got[1])
        G = np.zeros((n, c), dtype=dtype)
        P = np.zeros((src.shape[0], c), dtype=dtype)
        out = []
        for scale, tol in ((1.0, 2e-2), (1.7, 0.0), (0.6, 1e-3)):
            it, gap, primal, status = rof_pd_multi(
                src, dst, w, np.ascontiguousarray(scale * Z), 0.3, rho, G, P,
                tol=tol, max_iter=60, L=L, incidence=inc, n_threads=1, **steps)
            out.append((it, gap.tobytes(), primal.tobytes(), status,
                        G.tobytes(), P.tobytes()))
        runs.append(out)
    assert np.any(P == dtype(0.3)) and np.any(P == -dtype(0.3))
    # (the gap test stopped a solve before max_iter)
    assert min(r[0] for r in runs[0]) < 60
    for r in runs[1:]:
        assert r == runs[0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rof_multi_of_no_columns(dtype):
    # zero columns (the passes index column 0): nothing solved, nothing read
    X, _, _ = _moons(60)
    src, dst, w = _edges(knn_graph(X, n_neighbors=4), dtype)
    n = X.shape[0]
    G = np.zeros((n, 0), dtype=dtype)
    P = np.zeros((src.shape[0], 0), dtype=dtype)
    it, gap, primal, status = rof_pd_multi(
        src, dst, w, np.zeros((n, 0), dtype=dtype), 0.3, 1.0, G, P, n_threads=1)
    assert (it, status, gap.shape, primal.shape) == (0, 0, (0,), (0,))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rof_c_pass_declined_for_an_edge_to_itself(dtype, rof_kernels):
    # the C passes scatter into both end rows of an edge at once: an edge
    # (i, i) keeps the Cython pass (the same bits with the C passes on or off)
    X, _, _ = _moons(120)
    W = knn_graph(X, n_neighbors=5)
    src, dst, w = _edges(W, dtype)
    src = np.ascontiguousarray(np.r_[src, 7], dtype=np.int32)
    dst = np.ascontiguousarray(np.r_[dst, 7], dtype=np.int32)
    w = np.ascontiguousarray(np.r_[w, 0.8], dtype=dtype)
    n, c = X.shape[0], 4
    L = _grad_norm(src, dst, w, n)
    Z = np.random.default_rng(1).standard_normal((n, c)).astype(dtype)
    runs = []
    for setting in ((False, False, False), (True, True, True)):
        rof_kernels(*setting)
        G = np.zeros((n, c), dtype=dtype)
        P = np.full((src.shape[0], c), 0.1, dtype=dtype)
        rof_pd_multi(src, dst, w, Z, 0.3, 1.0, G, P, tol=0.0, max_iter=15, L=L,
                     n_threads=1)
        runs.append((G.tobytes(), P.tobytes()))
    assert runs[0] == runs[1]


@pytest.mark.parametrize("Est", [TVRLS, CheegerSVM])
def test_multi_class_fit_same_bits_with_the_cython_passes(Est, rof_kernels):
    # a default three-class fit (its check's folds and the guard included)
    # with the C passes and the gap's local sums on and off: the same bits
    from sklearn.datasets import make_blobs
    X, yt = make_blobs(240, centers=3, cluster_std=1.6, random_state=0)
    y = np.full(yt.shape[0], -1)
    rng = np.random.default_rng(0)
    for k in range(3):
        y[rng.choice(np.flatnonzero(yt == k), 5, replace=False)] = k
    fits = []
    for setting in ((False, False, False), (True, True, True)):
        rof_kernels(*setting)
        est = _fit(Est(), X, y)
        fits.append((np.asarray(est.result_.decision).tobytes(),
                     est.transduction_.tobytes(), est.n_iter_,
                     est.result_.n_rof_iter))
    assert fits[0] == fits[1]


@pytest.mark.parametrize("constant", [(), ("squared", "hinge")])
@pytest.mark.parametrize("Est", [TVRLS, TVSVM, CheegerRLS, CheegerSVM])
def test_two_class_fits_same_bits_for_any_n_jobs(Est, constant, monkeypatch):
    # n_jobs=1 takes the one-column pass, 2 the parallel passes (the
    # two-class TV solves with accelerated and with constant steps; the
    # ROF's thread switch lowered so that a one-column solve on this small
    # graph takes two threads)
    import semisvm._tv_solvers as ts
    monkeypatch.setattr(ts, "ROF_CONSTANT_LOSSES", constant)
    monkeypatch.setattr(ts, "ROF_THREADS_MIN_WORK", 1)
    monkeypatch.setattr(ts, "ROF_ONE_COLUMN_MIN_THREADS", 2)
    assert ts._rof_threads(2, 1000, 1) == 2
    X, y, _ = _moons(160)
    fits = []
    for n_jobs in (None, 2):
        est = _fit(Est(safe=False, n_jobs=n_jobs, max_iter=12), X, y)
        fits.append((est.transduction_.tobytes(),
                     np.asarray(est.result_.decision).tobytes(), est.n_iter_))
    assert fits[0] == fits[1]


# ------------------------------------------------------ one thread controller


def test_limit_api_holds_the_pool_without_a_new_scan(monkeypatch):
    import threadpoolctl

    from semisvm import _threads
    X, y, _ = _moons(120)
    _fit(TVRLS(), X, y)                 # the controller exists for these modules
    made = []
    real = threadpoolctl.ThreadpoolController

    class Counting(real):
        def __init__(self, *a, **k):
            made.append(1)
            super().__init__(*a, **k)
    monkeypatch.setattr(threadpoolctl, "ThreadpoolController", Counting)
    _fit(CheegerSVM(), X, y)
    assert made == []
    blas = [i for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
    if not blas:
        pytest.skip("no BLAS library reported by threadpoolctl")
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        with _threads.limit_api(1, "blas"):
            inside = [i["num_threads"] for i in threadpoolctl.threadpool_info()
                      if i["user_api"] == "blas"]
    assert set(inside) == {1}


# ------------------------------------------- the guard's graph, one search


def _count_searches(monkeypatch):
    calls = []
    real = graph_mod._exact_search

    def counting(X, k, threads):
        calls.append(k)
        return real(X, k, threads)
    monkeypatch.setattr(graph_mod, "_exact_search", counting)
    return calls


@pytest.mark.parametrize("Est", [TVRLS, CheegerRLS])
def test_guard_reads_the_fit_search_both_sides_of_its_size(Est, monkeypatch):
    import semisvm.manifold as man
    X, y, _ = _moons(150)
    n = X.shape[0]
    monkeypatch.setattr(fb, "GUARD_AGREEMENT", 1.01)     # LapRLS always taken over
    # LapRLS's Nystroem path (its exact path reads the kNN lists off its
    # kernel matrix: no search to share)
    monkeypatch.setattr(man, "LOWRANK_MIN_SAMPLES", 100)
    # (the guard's landmark count: _tv_check.GUARD_COMPONENTS_RATIO)
    from semisvm.graph_tv import _guard_components
    lap = _fit(LapRLS(safe=False, n_components=_guard_components("auto", "rbf", n)), X, y)
    for limit, shared in ((n, True), (n - 1, False)):
        monkeypatch.setattr(fb, "GUARD_MAX_ROWS", limit)
        calls = _count_searches(monkeypatch)
        est = _fit(Est(), X, y)
        off = _fit(Est(safe=False), X, y)
        assert (est._knn_lists is not None) == shared
        if shared:
            # one search (k + spare) for the fit and the guard, then the
            # safe=False fit's own (k)
            assert calls == [15, 10]
            assert est.laplacian_fallback_
            np.testing.assert_array_equal(est.transduction_, lap.transduction_)
            np.testing.assert_array_equal(est.decision_function(X),
                                          lap.decision_function(X))
        else:
            # above the guard's size: no guard, the search for k alone
            assert calls == [10, 10]
            assert est.laplacian_agreement_ is None
            np.testing.assert_array_equal(est.decision_function(X),
                                          off.decision_function(X))
        np.testing.assert_array_equal(est._semi_transduction
                                      if est._semi_transduction is not None
                                      else est.transduction_, off.transduction_)


def test_shared_search_same_graph_as_a_search_for_k():
    X, _, _ = _moons(200)
    # ties: duplicated rows and a grid (equal distances) in the lists
    X = np.vstack([X, X[:20], np.round(X[20:60], 1)])
    est = TVRLS()
    est.weights = "self-tuning"
    for k in (3, 10):
        W0, d0 = knn_graph(X, n_neighbors=k, return_distances=True)
        W1, d1, lists = est._own_graph(X, k, "auto")
        assert lists is not None and lists[0].shape[1] == k + 5
        assert (W0 != W1).nnz == 0 and W0.dtype == W1.dtype
        assert d0.tobytes() == d1.tobytes()
        # the guard's LapRLS graph from those lists: a KNNGraph's own search
        g0 = KNNGraph(k).fit(X)
        g1 = KNNGraph(k)._fit_lists(X, *lists, "exact")
        assert (g0.affinity_ != g1.affinity_).nnz == 0
        assert g0._dist_all.tobytes() == g1._dist_all.tobytes()
        assert g0._ind_all.tobytes() == g1._ind_all.tobytes()
    with pytest.raises(ValueError, match="kNN lists"):
        KNNGraph(10)._fit_lists(X, lists[0][:, :4], lists[1][:, :4], "exact")


def test_shared_search_only_where_exact_and_guarded(monkeypatch):
    X, _, _ = _moons(200)
    est = TVRLS()
    assert est._own_graph(X, 10, "auto")[2] is not None
    # safe=False / True: no guard; the approximate search (its lists for k
    # and for k + spare differ): a search for k alone
    assert est._own_graph(X, 10, False)[2] is None
    assert est._own_graph(X, 10, True)[2] is None
    monkeypatch.setattr(graph_mod, "ANN_MIN_SAMPLES", 150)
    W, d, lists = est._own_graph(X, 10, "auto")
    assert lists is None
    W0, d0 = knn_graph(X, n_neighbors=10, return_distances=True)
    assert (W0 != W).nnz == 0


# -------------------------------------- safe=True: one set-up per fold


@pytest.mark.parametrize("Est,n_classes,m", [
    (TVRLS, 2, 40), pytest.param(CheegerSVM, 3, 40, marks=pytest.mark.slow),
    pytest.param(CheegerRLS, 2, None, marks=pytest.mark.slow)])
def test_safe_true_fold_set_up_shared_by_model_and_counterpart(Est, n_classes, m,
                                                               monkeypatch):
    # the model's and the counterpart's fits on one fold read one set-up
    # (graph, features or kernel matrix, Z'Z, edge lists): the same fold
    # scores, gain and fit as each fit setting up its own, with one fold
    # Z'Z per fold instead of two (and the fit's own)
    from sklearn.datasets import make_blobs

    import semisvm._tv_solvers as tsol
    import semisvm.model_selection as ms
    from semisvm._tv_check import TVCheckMixin
    X, yt = make_blobs(120, centers=n_classes, cluster_std=2.5, random_state=1)
    rng = np.random.default_rng(1)
    y = np.full(120, -1)
    for c in range(n_classes):
        y[rng.choice(np.flatnonzero(yt == c), 6, replace=False)] = c
    import semisvm._tv_check as tc
    # (both repeats in one _paired_scores call each: the counts below)
    monkeypatch.setattr(tc, "SAFE_FIRST_REPEAT_MIN_GAIN", None)
    # (each fold's own Z'Z counted: not the fit's downdated,
    # test_safe_true_fold_gram_downdated_both_sides)
    monkeypatch.setattr(tc, "SAFE_GRAM_DOWNDATE", False)
    # (three classes: the counterpart's splitting loop, which reads the
    # shared set-up; solved directly it needs no Z'Z,
    # test_safe_true_counterpart_direct_multi_both_sides)
    monkeypatch.setattr(tc, "SAFE_COUNTERPART_DIRECT_MULTI", False)
    grams, scores = [], []
    real_gram, real_scores = tsol.feature_gram, ms._paired_scores
    monkeypatch.setattr(tsol, "feature_gram",
                        lambda *a: grams.append(1) or real_gram(*a))
    monkeypatch.setattr(ms, "_paired_scores",
                        lambda *a, **k: scores.append(real_scores(*a, **k))
                        or scores[-1])
    real_set_up = TVCheckMixin._fold_set_up

    def own_set_up(self, X, k, lab):
        self._safety_setup.pop("fold", None)        # nothing to share
        return real_set_up(self, X, k, lab)
    out = []
    for shared in (True, False):
        if not shared:
            monkeypatch.setattr(TVCheckMixin, "_fold_set_up", own_set_up)
        grams.clear()
        est = _fit(Est(safe=True, max_iter=12, n_components=m), X, y)
        assert est.mode_ == ("exact" if m is None else "nystroem")
        out.append((len(grams), est.unlabeled_gain_,
                    est.decision_function(X).tobytes()))
    n_folds = scores[0][0].size
    if m is not None:
        # (two classes: the counterpart solved directly needs no Z'Z,
        # SAFE_COUNTERPART_DIRECT)
        own = 0 if n_classes == 2 and tc.SAFE_COUNTERPART_DIRECT else n_folds
        assert out[0][0] == 1 + n_folds and out[1][0] == 1 + n_folds + own
    else:
        assert out[0][0] == out[1][0] == 0
    assert out[0][1:] == out[1][1:]
    for a, b in zip(scores[0], scores[1]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("c", [1, 3, 10])
def test_tv_of_all_columns_same_bits_as_each_column_alone(dtype, c):
    # graph_tv_values: the TV of every column in one pass over the edges,
    # each the same value (bit for bit) as graph_tv_value of that column;
    # reference: the sum over the edges in NumPy (to rounding)
    from semisvm._core._graph_tv import graph_tv_value, graph_tv_values
    X, _, _ = _moons(120)
    src, dst, w = _edges(knn_graph(X, n_neighbors=5), dtype)
    G = np.random.default_rng(c).standard_normal((X.shape[0], c)).astype(dtype)
    out = graph_tv_values(src, dst, w, G)
    assert out.dtype == np.float64 and out.shape == (c,)
    for k in range(c):
        one = graph_tv_value(src, dst, w, np.ascontiguousarray(G[:, k]))
        assert out[k].tobytes() == np.float64(one).tobytes()
        ref = np.sum(w.astype(np.float64) * np.abs(
            G[dst, k].astype(np.float64) - G[src, k]))
        np.testing.assert_allclose(out[k], ref, rtol=1e-12)
    with pytest.raises(ValueError, match="out of range"):
        graph_tv_values(src, dst, w, G[:10])
    with pytest.raises(ValueError, match="same length"):
        graph_tv_values(src, dst[:-1], w, G)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_tv_objective_without_tv_term_is_fit_plus_rkhs(n_classes):
    # gamma = 0 (the supervised counterpart of safe=True): the TV value is
    # not computed; the objective is the data fit plus the RKHS term
    from semisvm.graph_tv import graph_tv
    from semisvm.kernels import kernel_matrix
    X, y, _ = _moons(90, per_class=4)
    if n_classes == 3:
        y = np.where(y == 1, 1, y)
        y[np.flatnonzero(y == -1)[:4]] = 2
    K = kernel_matrix(X, gamma=0.5)
    W = knn_graph(X, n_neighbors=5)
    res = graph_tv(K, W, y, gamma=0.0, normalize=None, eta=2.0, lam=0.7,
                   max_iter=15, tol=1e-12, n_stable=0)
    lab = y != -1
    G = np.asarray(res.decision, dtype=np.float64)
    if n_classes == 2:
        f = K @ res.alpha
        fit = 0.5 * 2.0 * np.sum((np.where(y[lab] == 1, 1.0, -1.0) - G[lab]) ** 2)
        ref = fit + 0.5 * 0.7 * res.alpha @ f
    else:
        Y1 = np.eye(3)[y[lab]]
        F = K @ res.alpha
        ref = 0.5 * 2.0 * np.sum((Y1 - G[lab]) ** 2) + 0.5 * 0.7 * np.sum(res.alpha * F)
    np.testing.assert_allclose(res.objective, ref, rtol=1e-8)


# ------------------- safe=True's folds: Z'Z, G[:, L], rows and graph shared


@pytest.mark.parametrize("low_rank", [True, False])
def test_kernel_columns_kept_only_where_the_cache_asks(low_rank):
    # G[:, L] of a factorisation read back (the same array, read-only) for
    # the same labeled rows where the solve cache sets KEEP_COLUMNS (a
    # safe=True fold's: its model's and counterpart's hinge fits), else
    # computed per call; always the values of factor.kernel_columns
    from semisvm._tv_solvers import KEEP_COLUMNS, RKHS, kernel_columns
    from semisvm.kernels import kernel_matrix
    X, _, _ = _moons(80)
    if low_rank:
        Z = np.ascontiguousarray(X @ np.random.default_rng(1).standard_normal((2, 6)))
        make = lambda cache: RKHS(Z=Z, delta=0.05, cache=cache)   # noqa: E731
    else:
        K = kernel_matrix(X, gamma=1.0)
        make = lambda cache: RKHS(K=K, cache=cache)   # noqa: E731
    lab, lab2 = np.array([0, 5, 9, 30]), np.array([1, 5, 9, 30])
    kept = make({KEEP_COLUMNS: True}).factor(0.1, 1.0)
    a = kernel_columns(kept, lab)
    assert a.tobytes() == kept.kernel_columns(lab).tobytes()
    assert kernel_columns(kept, lab) is a and not a.flags.writeable
    b = kernel_columns(kept, lab2)
    assert b.tobytes() == kept.kernel_columns(lab2).tobytes()
    assert kernel_columns(kept, lab) is not a        # (one kept: the last)
    plain = make({}).factor(0.1, 1.0)
    assert getattr(plain, "columns_memo", None) is None
    c = kernel_columns(plain, lab)
    assert c.tobytes() == a.tobytes() and kernel_columns(plain, lab) is not c


@pytest.mark.parametrize("layout", ["C", "F", "float32", "strided"])
def test_feature_weights_same_bits_as_the_float64_copy(layout):
    # Z' alpha of a Nystroem fit: Z' itself (no copy) where Z is contiguous
    # float64, the bits of the former product of Z.T.astype(float64)
    from semisvm.graph_tv import _feature_weights
    rng = np.random.default_rng(2)
    Z = rng.standard_normal((700, 60))
    if layout == "F":
        Z = np.asfortranarray(Z)
    elif layout == "float32":
        Z = Z.astype(np.float32)
    elif layout == "strided":
        Z = Z[::2, ::3]
    for alpha in (rng.standard_normal(Z.shape[0]),
                  rng.standard_normal((Z.shape[0], 4))):
        ref = Z.T.astype(np.float64) @ alpha
        assert _feature_weights(Z, alpha).tobytes() == ref.tobytes()


def test_fold_graph_from_known_rows_is_graph_for():
    # a safe=True fold's graph read with its rows (found once per fold):
    # the arrays graph_for builds from X alone
    X, _, _ = _moons(200)
    g = KNNGraph(8).fit(X)
    rows = np.sort(np.random.default_rng(0).choice(200, 170, replace=False))
    W0, d0 = g.graph_for(X[rows])
    W1, d1, r1 = g._graph_and_rows(X[rows], rows=g.rows_of(X[rows]))
    assert np.array_equal(r1, rows) and np.array_equal(d0, d1)
    assert (W0 != W1).nnz == 0 and W0.dtype == W1.dtype


@pytest.mark.parametrize("Est", [TVSVM, pytest.param(CheegerRLS, marks=pytest.mark.slow)])
def test_safe_true_folds_read_rows_and_kernel_columns_once(Est, monkeypatch):
    # one Z'Z per check (the fit's; the folds' downdated from it); rows_of
    # once per fold (model and counterpart read it), G[:, L] computed once
    # per fold for TVSVM
    from sklearn.datasets import make_blobs

    import semisvm._tv_solvers as tsol
    X, yt = make_blobs(150, centers=3, cluster_std=2.0, random_state=3)
    rng = np.random.default_rng(3)
    y = np.full(150, -1)
    for c in range(3):
        y[rng.choice(np.flatnonzero(yt == c), 6, replace=False)] = c
    calls = {"gram": 0, "rows_of": 0, "columns": 0}
    real_gram, real_rows = tsol.feature_gram, KNNGraph.rows_of

    def count(name, f):
        def g(*a, **k):
            calls[name] += 1
            return f(*a, **k)
        return g
    monkeypatch.setattr(tsol, "feature_gram", count("gram", real_gram))
    monkeypatch.setattr(KNNGraph, "rows_of", count("rows_of", real_rows))
    for cls in (tsol._LowRankFactor, tsol._Factor):
        monkeypatch.setattr(cls, "kernel_columns",
                            count("columns", cls.kernel_columns))
    est = _fit(Est(safe=True, max_iter=15, n_components=30), X, y)
    assert est.mode_ == "nystroem"
    n_folds = est.safe_scores_[0].size
    # the fit's Z'Z, which each fold's is downdated from
    # (SAFE_GRAM_DOWNDATE; off: each fold's own,
    # test_safe_true_fold_gram_downdated_both_sides)
    assert calls["gram"] == 1
    # the fit's graph, then once per fold
    assert calls["rows_of"] == 1 + n_folds
    if Est is TVSVM:
        # the fit's, then one per fold (model and counterpart alike)
        assert calls["columns"] == 1 + n_folds


@pytest.mark.parametrize("Est", [TVSVM, CheegerSVM])
def test_safe_true_fallback_refit_holds_no_fold_set_up(Est, monkeypatch):
    # where safe=True falls back, the supervised refit runs after the folds:
    # the last fold's set-up (graph, solve cache, kept G[:, L]) is freed
    # before it, not held through it
    import semisvm.model_selection as ms
    from semisvm._tv_check import TVCheckMixin
    X, y = make_moons(300, noise=0.15, random_state=0)
    ys = np.full(300, -1)
    rng = np.random.default_rng(0)
    for k in (0, 1):
        ys[rng.choice(np.flatnonzero(y == k), 8, replace=False)] = k
    real_gain, real_adopt = ms.unlabeled_gain, TVCheckMixin._adopt_supervised
    seen, adopting = [], []

    def gain(*a, **k):
        g, s, b = real_gain(*a, **k)
        return -1.0, s, b          # the safety net fires

    def adopt(self, X_, y_):
        adopting.append(True)
        try:
            return real_adopt(self, X_, y_)
        finally:
            adopting.pop()
    real_counterpart = Est._supervised_counterpart

    def counterpart(self):
        if adopting:
            # (the refit's own estimator is made here, just before its fit)
            seen.append(sorted(getattr(self, "_safety_setup", {}) or {}))
        return real_counterpart(self)
    monkeypatch.setattr(ms, "unlabeled_gain", gain)
    # (one unlabeled_gain call over both repeats: its gain is the check's)
    import semisvm._tv_check as tc
    monkeypatch.setattr(tc, "SAFE_FIRST_REPEAT_MIN_GAIN", None)
    monkeypatch.setattr(TVCheckMixin, "_adopt_supervised", adopt)
    monkeypatch.setattr(Est, "_supervised_counterpart", counterpart)
    est = _fit(Est(safe=True, max_iter=15, n_components=30), X, ys)
    assert est.fell_back_ and len(seen) == 1
    assert "fold" not in seen[0] and "fold_rows" not in seen[0]
    assert "Z" in seen[0]          # (the set-up itself was still there)


@pytest.fixture
def gap_by_edges():
    from semisvm._core._graph_tv import _rof_gap_by_edges
    saved = _rof_gap_by_edges()
    yield _rof_gap_by_edges
    _rof_gap_by_edges(saved)


@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("c", [1, 2, 10, 16, 17])
def test_rof_gap_sums_by_edge_runs_same_bits(c, dtype, n_threads, gap_by_edges):
    # the gap's TV sums of <= 16 columns walk each row's run of edges in the
    # edge list (sorted by src, positive weights) instead of its incidence
    # run: the same iterates, duals, gaps, primal values, iterations and
    # status, on one and two threads, with the gap test stopping a solve;
    # 17 columns keep the general sums (the switch must not matter there).
    # The row blocks of the sums (NODE_BLOCK = 1,024 rows): 2,500 rows.
    from semisvm._core._graph_tv import _gap_walks_edges
    src, dst, w, n, L, inc = _rof_graph(2500, 7, dtype)
    assert _gap_walks_edges(src, w)
    rng = np.random.default_rng(c)
    Z = rng.standard_normal((n, c)).astype(dtype)
    runs = []
    for on in (False, True):
        assert gap_by_edges(on) is on
        G = np.zeros((n, c), dtype=dtype)
        P = np.zeros((src.shape[0], c), dtype=dtype)
        out = []
        for scale, tol in ((1.0, 2e-2), (1.7, 0.0)):
            it, gap, primal, status = rof_pd_multi(
                src, dst, w, np.ascontiguousarray(scale * Z), 0.3, 1.0, G, P,
                tol=tol, max_iter=40, L=L, incidence=inc, n_threads=n_threads)
            out.append((it, gap.tobytes(), primal.tobytes(), status,
                        G.tobytes(), P.tobytes()))
        runs.append(out)
    assert runs[0][0][0] < 40            # (the gap test stopped the first solve)
    assert runs[0] == runs[1]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_rof_gap_sums_keep_the_incidence_runs_where_edges_do_not_fit(dtype, gap_by_edges):
    # the edge walk needs the edges sorted by src and every weight > 0: a
    # shuffled edge list, and one with a negative weight (whose src entry the
    # incidence sums skip), keep the incidence runs: the same bits with the
    # switch on and off (walking these lists would give other sums)
    from semisvm._core._graph_tv import _gap_walks_edges
    src, dst, w, n, L, _ = _rof_graph(400, 6, dtype)
    order = np.random.default_rng(0).permutation(src.shape[0])
    neg = w.copy()
    neg[5] = -0.2
    zero = w.copy()
    zero[3] = 0
    cases = [(src[order], dst[order], w[order]), (src, dst, neg)]
    assert not any(_gap_walks_edges(np.ascontiguousarray(s), np.ascontiguousarray(v))
                   for s, _, v in cases)
    assert not _gap_walks_edges(src, zero) and _gap_walks_edges(src, w)
    Z = np.random.default_rng(2).standard_normal((n, 3)).astype(dtype)
    for s, d, v in cases:
        s, d, v = (np.ascontiguousarray(a) for a in (s, d, v))
        runs = []
        for on in (False, True):
            gap_by_edges(on)
            G = np.zeros((n, 3), dtype=dtype)
            P = np.zeros((s.shape[0], 3), dtype=dtype)
            it, gap, primal, status = rof_pd_multi(s, d, v, Z, 0.3, 1.0, G, P,
                                                   tol=0.0, max_iter=20, L=L)
            runs.append((it, gap.tobytes(), primal.tobytes(), G.tobytes(), P.tobytes()))
        assert runs[0] == runs[1]


@pytest.mark.parametrize("Est", [TVRLS, TVSVM, CheegerRLS, CheegerSVM])
def test_safe_true_with_a_duplicated_row_sets_its_folds_up_itself(Est, monkeypatch):
    # two equal rows: a fold's rows are not matched among the graph's
    # (KNNGraph.rows_of is None: the match is ambiguous), so the folds cannot
    # read their graph or features from the fit's; they set themselves up
    # (this raised "graph was fitted on ... rows" before). Without the
    # duplicate they share the fit's set-up (the other side)
    import semisvm._tv_check as tc
    from semisvm._tv_check import TVCheckMixin
    # (both repeats: the fold counts below)
    monkeypatch.setattr(tc, "SAFE_FIRST_REPEAT_MIN_GAIN", None)
    X, y, _ = _moons(120, per_class=5)
    shared = {"n": 0}
    real = TVCheckMixin._fold_set_up

    def fold_set_up(self, *a, **k):
        shared["n"] += 1
        return real(self, *a, **k)
    monkeypatch.setattr(TVCheckMixin, "_fold_set_up", fold_set_up)
    est = _fit(Est(safe=True, max_iter=15), X, y)
    assert not est.graph_._has_duplicate_rows()
    assert est.safe_scores_[0].size == 10 and shared["n"] == 20
    Xd = X.copy()
    Xd[7] = Xd[90]              # two unlabeled rows made equal
    assert y[7] == -1 and y[90] == -1
    shared["n"] = 0
    est = _fit(Est(safe=True, max_iter=15), Xd, y)
    assert est.graph_._has_duplicate_rows()
    assert est.safe_scores_[0].size == 10 and shared["n"] == 0
    assert isinstance(est.unlabeled_gain_, float)


def _moons_labels(n, per_class, seed):
    X, yt = make_moons(n, noise=0.12, random_state=seed)
    rng = np.random.default_rng(seed)
    y = np.full(n, -1)
    for c in (0, 1):
        y[rng.choice(np.flatnonzero(yt == c), per_class, replace=False)] = c
    return X, y


def test_safe_true_later_folds_are_the_splitters_after_the_first_repeat():
    from semisvm._tv_check import _LaterFolds
    from semisvm.model_selection import RepeatedLabeledStratifiedKFold
    _, y = _moons_labels(150, 6, 1)
    cv = RepeatedLabeledStratifiedKFold(5, n_repeats=2, random_state=0)
    first = RepeatedLabeledStratifiedKFold(5, n_repeats=1, random_state=0)
    folds = list(cv.split(None, y))
    got = list(first.split(None, y)) + list(_LaterFolds(cv, 5).split(None, y))
    assert len(folds) == len(got) == 10
    for (a, b), (c, d) in zip(folds, got):
        assert np.array_equal(a, c) and np.array_equal(b, d)
    # the two repeats differ (a later fold is not a first-repeat one)
    assert not np.array_equal(folds[0][1], folds[5][1])


@pytest.mark.parametrize("Est, seed, stops", [
    (CheegerSVM, 1, True),      # first repeat's differences 0 0 0 0 +0.5
    (CheegerRLS, 1, True),      # 0 0 0 -0.5 0: falls back either way
    (TVRLS, 1, False),          # 0 +1/3 0 -0.5 +0.5: mixed signs
])
def test_safe_true_first_repeat_stop_both_sides(Est, seed, stops, monkeypatch):
    # SAFE_FIRST_REPEAT_MIN_GAIN: the second repeat only where the first does
    # not decide. Off (None) and above the first repeat's mean gain: both
    # repeats, the same bits; at 0 a decisive first repeat stops, its five
    # scores those of the full check's first five, the gain their mean
    import semisvm._tv_check as tc
    X, y = _moons_labels(150, 6, seed)
    # (the fold differences below are those of the splitting loop's
    # counterpart: the stop's logic does not depend on the counterpart)
    monkeypatch.setattr(tc, "SAFE_COUNTERPART_DIRECT", False)
    monkeypatch.setattr(tc, "SAFE_FIRST_REPEAT_MIN_GAIN", None)
    full = _fit(Est(safe=True, max_iter=15), X, y)
    s, b = full.safe_scores_
    assert s.size == 10
    d1 = (s - b)[:5]
    monkeypatch.setattr(tc, "SAFE_FIRST_REPEAT_MIN_GAIN", abs(float(d1.mean())) + 0.01)
    above = _fit(Est(safe=True, max_iter=15), X, y)
    assert np.array_equal(above.safe_scores_[0], s) and np.array_equal(above.safe_scores_[1], b)
    assert above.unlabeled_gain_ == full.unlabeled_gain_
    assert np.array_equal(above.transduction_, full.transduction_)
    monkeypatch.setattr(tc, "SAFE_FIRST_REPEAT_MIN_GAIN", 0.0)
    est = _fit(Est(safe=True, max_iter=15), X, y)
    if stops:
        assert est.safe_scores_[0].size == 5
        assert np.array_equal(est.safe_scores_[0], s[:5])
        assert np.array_equal(est.safe_scores_[1], b[:5])
        assert est.unlabeled_gain_ == float(np.mean(d1))
        assert est.fell_back_ == (d1.mean() < 0) == full.fell_back_
    else:
        assert np.array_equal(est.safe_scores_[0], s)
        assert est.unlabeled_gain_ == full.unlabeled_gain_
        # the mixed signs decide nothing with SAFE_FIRST_REPEAT_ONE_SIGN;
        # without it the first repeat's mean (not 0) does
        monkeypatch.setattr(tc, "SAFE_FIRST_REPEAT_ONE_SIGN", False)
        mixed = _fit(Est(safe=True, max_iter=15), X, y)
        assert d1.mean() != 0 and not (np.all(d1 >= 0) or np.all(d1 <= 0))
        assert mixed.safe_scores_[0].size == 5
        assert mixed.unlabeled_gain_ == float(np.mean(d1))
        monkeypatch.setattr(tc, "SAFE_FIRST_REPEAT_ONE_SIGN", True)
    assert np.array_equal(est.transduction_, full.transduction_)
    # a user splitter (or safe_cv given as a splitter) runs all its folds
    from semisvm.model_selection import RepeatedLabeledStratifiedKFold
    cv = RepeatedLabeledStratifiedKFold(5, n_repeats=2, random_state=0)
    user = _fit(Est(safe=True, max_iter=15, safe_cv=cv), X, y)
    assert np.array_equal(user.safe_scores_[0], s)
    # fewer labels in a class than the folds (4 of 5): both repeats
    X4, y4 = _moons_labels(150, 4, seed)
    few = _fit(Est(safe=True, max_iter=15), X4, y4)
    assert few.safe_scores_[0].size == 8


def test_safe_true_first_repeat_stop_centred_on_the_margin_and_min_splits(monkeypatch, caplog):
    # the stop decides on which side of -safe_margin the first repeat's fold
    # gains lie (the fallback's threshold), not of 0; and only for k >=
    # SAFE_FIRST_REPEAT_MIN_SPLITS folds (the value it was chosen at)
    import logging

    import semisvm._tv_check as tc
    X, y = _moons_labels(150, 6, 1)
    # (the fold differences of the splitting loop's counterpart, as above)
    monkeypatch.setattr(tc, "SAFE_COUNTERPART_DIRECT", False)
    monkeypatch.setattr(tc, "SAFE_FIRST_REPEAT_MIN_GAIN", None)
    full = _fit(CheegerRLS(safe=True, max_iter=15), X, y)
    d1 = (full.safe_scores_[0] - full.safe_scores_[1])[:5]
    assert d1.min() < 0 and d1.max() == 0        # 0 0 0 -0.5 0
    monkeypatch.setattr(tc, "SAFE_FIRST_REPEAT_MIN_GAIN", 0.0)
    with caplog.at_level(logging.INFO, logger="semisvm"):
        stop = _fit(CheegerRLS(safe=True, max_iter=15, verbose=1), X, y)
    assert stop.safe_scores_[0].size == 5
    assert "the first repeat's 5 folds decide" in caplog.text
    # a margin between the folds' gains: on both sides of -margin, no stop
    m = float(-d1.min()) / 2
    both = _fit(CheegerRLS(safe=True, max_iter=15, safe_margin=m), X, y)
    assert both.safe_scores_[0].size == 10
    assert both.unlabeled_gain_ == full.unlabeled_gain_
    assert both.fell_back_ == (full.unlabeled_gain_ < -m)
    # the fewest folds the stop takes: 5 stops, 6 required runs both repeats
    monkeypatch.setattr(tc, "SAFE_FIRST_REPEAT_MIN_SPLITS", 6)
    assert _fit(CheegerRLS(safe=True, max_iter=15), X, y).safe_scores_[0].size == 10


# ------------------------------- safe=True's counterpart solved directly

@pytest.mark.parametrize("low_rank", [False, True])
@pytest.mark.parametrize("loss", ["squared", "hinge"])
def test_direct_counterpart_is_kernel_ridge_and_svc(loss, low_rank):
    # the gamma = 0, normalize=None problem solved on the labeled rows
    # against sklearn's KernelRidge / SVC on the same (precomputed) kernel,
    # and against the splitting loop run to convergence
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.svm import SVC

    from semisvm._lowrank import nystroem_features
    from semisvm.graph import knn_affinity
    from semisvm.graph_tv import graph_tv
    from semisvm.kernels import kernel_matrix
    X, y, _ = _moons(120, 5, seed=2)
    lab = y != -1
    if low_rank:
        Z = nystroem_features(X, lambda A, B=None: kernel_matrix(A, B, gamma=2.0), 40,
                              random_state=0)[0]
        delta = 0.05
        K, kw = Z @ Z.T + delta * np.eye(120), dict(Z=Z, nugget=delta)
    else:
        K = kernel_matrix(X, gamma=2.0)
        kw = dict()
    W = knn_affinity(X, 8)
    lam, eta, mu = 0.1, 10.0, 3.0
    d = graph_tv(None if low_rank else K, W, y, loss=loss, gamma=0.0, normalize=None,
                 lam=lam, eta=eta, mu=mu, _direct=True, **kw)
    assert d.status == "direct" and d.converged
    ypm = np.where(y[lab] == 1, 1.0, -1.0)
    if loss == "squared":
        ref = KernelRidge(alpha=lam / eta, kernel="precomputed").fit(K[np.ix_(lab, lab)], ypm)
        dec = ref.predict(K[:, lab])
        assert d.intercept == 0.0
    else:
        ref = SVC(kernel="precomputed", C=mu / lam, tol=1e-10).fit(K[np.ix_(lab, lab)], ypm)
        dec = ref.decision_function(K[:, lab])
        assert abs(d.intercept - ref.intercept_[0]) < 1e-5
    np.testing.assert_allclose(d.decision, dec, atol=1e-5)
    np.testing.assert_array_equal(d.labels, (dec > 0).astype(int))
    assert np.all(d.alpha[~lab] == 0)
    # the splitting loop converges to it (slowly: its unlabeled rows)
    loop = graph_tv(None if low_rank else K, W, y, loss=loss, gamma=0.0, normalize=None,
                    lam=lam, eta=eta, mu=mu, tol=1e-12, n_stable=10**6, max_iter=6000,
                    **kw)
    np.testing.assert_allclose(loop.decision, d.decision, atol=2e-2)
    assert abs(loop.objective - d.objective) <= 1e-3 * abs(d.objective)


def test_direct_counterpart_only_at_its_problem():
    from semisvm.graph import knn_affinity
    from semisvm.graph_tv import graph_tv
    from semisvm.kernels import kernel_matrix
    X, y, _ = _moons(60, 4)
    K, W = kernel_matrix(X, gamma=2.0), knn_affinity(X, 6)
    for kw in (dict(gamma=0.1, normalize=None), dict(gamma=0.0, normalize="n")):
        with pytest.raises(ValueError, match="_direct"):
            graph_tv(K, W, y, _direct=True, **kw)
    # three classes: one class against the rest (supervised_multi)
    y3 = y.copy()
    y3[np.flatnonzero(y == -1)[:3]] = 2
    d3 = graph_tv(K, W, y3, gamma=0.0, normalize=None, _direct=True)
    assert d3.status == "direct" and d3.decision.shape == (60, 3)


@pytest.mark.parametrize("Est", [TVRLS, TVSVM, CheegerRLS, CheegerSVM])
@pytest.mark.parametrize("direct", [True, False])
def test_safe_true_counterpart_direct_both_sides(Est, direct, monkeypatch):
    # SAFE_COUNTERPART_DIRECT on: every counterpart fold fit of a two-class
    # check and the counterpart adopted where it falls back are solved
    # directly; off: by the splitting loop; more than two classes: the loop
    import semisvm._tv_check as tc
    import semisvm.graph_tv as gt
    monkeypatch.setattr(tc, "SAFE_COUNTERPART_DIRECT", direct)
    monkeypatch.setattr(tc, "SAFE_FIRST_REPEAT_MIN_GAIN", None)
    seen = []
    real = gt.graph_tv

    def spy(*a, **k):
        res = real(*a, **k)
        if k.get("gamma") == 0:
            seen.append(res.status)
        return res
    monkeypatch.setattr(gt, "graph_tv", spy)
    X, y, _ = _moons(150, 6, seed=1)
    est = _fit(Est(safe=True, max_iter=30), X, y)
    # (the ten folds, and the counterpart adopted where it fell back)
    assert len(seen) == est.safe_scores_[0].size + est.fell_back_ == 10 + est.fell_back_
    assert all((s == "direct") == direct for s in seen)
    # the adopted counterpart: the same solve as its folds'
    sup = est._supervised_counterpart()
    assert sup._direct_counterpart
    from sklearn.base import clone
    assert clone(sup)._direct_counterpart
    seen.clear()
    _fit(sup, X, y)
    assert len(seen) == 1 and (seen[0] == "direct") == direct
    # three classes: the splitting loop whatever the switch
    from sklearn.datasets import make_blobs
    X3, yt3 = make_blobs(120, centers=3, random_state=0)
    y3 = np.full(120, -1)
    rng = np.random.default_rng(0)
    for c in range(3):
        y3[rng.choice(np.flatnonzero(yt3 == c), 5, replace=False)] = c
    seen.clear()
    monkeypatch.setattr(tc, "SAFE_COUNTERPART_DIRECT_MULTI", False)
    _fit(Est(safe=True, max_iter=20), X3, y3)
    assert seen and "direct" not in seen


def _blobs3(n=150, per=6, seed=0):
    from sklearn.datasets import make_blobs
    X, yt = make_blobs(n, centers=3, cluster_std=2.5, random_state=seed)
    y = np.full(n, -1)
    rng = np.random.default_rng(seed)
    for c in range(3):
        y[rng.choice(np.flatnonzero(yt == c), per, replace=False)] = c
    return X, y, yt


@pytest.mark.parametrize("low_rank", [False, True])
@pytest.mark.parametrize("loss", ["squared", "hinge"])
def test_direct_counterpart_multi_is_one_vs_rest(loss, low_rank):
    # more than two classes (SAFE_COUNTERPART_DIRECT_MULTI): each class
    # against the rest on the labeled rows, sklearn's KernelRidge / SVC on
    # the same (precomputed) kernel, labels their argmax
    from sklearn.kernel_ridge import KernelRidge
    from sklearn.svm import SVC

    from semisvm._lowrank import nystroem_features
    from semisvm.graph import knn_affinity
    from semisvm.graph_tv import graph_tv
    from semisvm.kernels import kernel_matrix
    X, y, _ = _blobs3()
    lab = y != -1
    if low_rank:
        Z = nystroem_features(X, lambda A, B=None: kernel_matrix(A, B, gamma=0.5), 40,
                              random_state=0)[0]
        delta = 0.05
        K, kw = Z @ Z.T + delta * np.eye(150), dict(Z=Z, nugget=delta)
    else:
        K = kernel_matrix(X, gamma=0.5)
        kw = dict()
    W = knn_affinity(X, 8)
    lam, eta, mu = 0.1, 10.0, 3.0
    d = graph_tv(None if low_rank else K, W, y, loss=loss, gamma=0.0, normalize=None,
                 lam=lam, eta=eta, mu=mu, _direct=True, **kw)
    assert d.status == "direct" and d.converged and d.decision.shape == (150, 3)
    dec = np.empty((150, 3))
    for k in range(3):
        t = np.where(y[lab] == k, 1.0, -1.0)
        if loss == "squared":
            ref = KernelRidge(alpha=lam / eta, kernel="precomputed").fit(
                K[np.ix_(lab, lab)], t)
            dec[:, k] = ref.predict(K[:, lab])
        else:
            ref = SVC(kernel="precomputed", C=mu / lam, tol=1e-10).fit(K[np.ix_(lab, lab)], t)
            dec[:, k] = ref.decision_function(K[:, lab])
            assert abs(d.intercept[k] - ref.intercept_[0]) < 1e-5
    np.testing.assert_allclose(d.decision, dec, atol=1e-5)
    np.testing.assert_array_equal(d.labels, np.argmax(dec, axis=1))
    assert np.all(d.alpha[~lab] == 0)
    if loss == "squared":
        # the 0/1 one-hot targets of the splitting loop give the same argmax
        onehot = KernelRidge(alpha=lam / eta, kernel="precomputed").fit(
            K[np.ix_(lab, lab)], np.eye(3)[y[lab]]).predict(K[:, lab])
        np.testing.assert_array_equal(np.argmax(onehot, axis=1), d.labels)


@pytest.mark.parametrize("Est", [TVRLS, TVSVM, CheegerRLS, CheegerSVM])
@pytest.mark.parametrize("on", [True, False])
def test_safe_true_counterpart_direct_multi_both_sides(Est, on, monkeypatch):
    # SAFE_COUNTERPART_DIRECT_MULTI on: every counterpart fold fit of a
    # three-class check (and the counterpart adopted) solved directly; off: the
    # splitting loop; the labeled-rows cap applies to it too; two classes
    # follow SAFE_COUNTERPART_DIRECT alone
    import semisvm._tv_check as tc
    import semisvm.graph_tv as gt
    monkeypatch.setattr(tc, "SAFE_COUNTERPART_DIRECT_MULTI", on)
    monkeypatch.setattr(tc, "SAFE_FIRST_REPEAT_MIN_GAIN", None)
    seen = []
    real = gt.graph_tv

    def spy(*a, **k):
        res = real(*a, **k)
        if k.get("gamma") == 0:
            seen.append(res.status)
        return res
    monkeypatch.setattr(gt, "graph_tv", spy)
    X, y, _ = _blobs3()
    est = _fit(Est(safe=True, max_iter=20), X, y)
    # (the ten folds, and the counterpart adopted where it fell back; the
    # loop may take two solves a fold: the penalty, then the augmented scheme)
    assert est.safe_scores_[0].size == 10
    if on:
        assert len(seen) == 10 + est.fell_back_
    else:
        assert len(seen) >= 10 + est.fell_back_
    assert all((s == "direct") == on for s in seen)
    sup = est._supervised_counterpart()
    seen.clear()
    _fit(sup, X, y)
    assert seen and all((s == "direct") == on for s in seen)
    if on:
        # the labeled-rows cap: below the fit's 18 labels, the loop
        monkeypatch.setattr(tc, "SAFE_COUNTERPART_DIRECT_MAX_LABELED", 17)
        seen.clear()
        _fit(est._supervised_counterpart(), X, y)
        assert seen and "direct" not in seen
        monkeypatch.setattr(tc, "SAFE_COUNTERPART_DIRECT_MAX_LABELED", 18)
        seen.clear()
        _fit(est._supervised_counterpart(), X, y)
        assert seen == ["direct"]
    # two classes: SAFE_COUNTERPART_DIRECT's (on by default) whatever this switch
    X2, y2, _ = _moons(150, 6, seed=1)
    seen.clear()
    _fit(Est(safe=True, max_iter=30), X2, y2)
    assert seen and all(s == "direct" for s in seen)


@pytest.mark.parametrize("Est", [TVRLS, TVSVM])
@pytest.mark.parametrize("cap", [12, 11])
def test_direct_counterpart_labeled_rows_cap_both_sides(Est, cap, monkeypatch):
    # the direct solve forms l x l matrices: on more than
    # SAFE_COUNTERPART_DIRECT_MAX_LABELED labeled rows the counterpart is
    # solved by the splitting loop (here the fit's 12 labels against the cap)
    import semisvm._tv_check as tc
    import semisvm.graph_tv as gt
    monkeypatch.setattr(tc, "SAFE_COUNTERPART_DIRECT_MAX_LABELED", cap)
    seen = []
    real = gt.graph_tv

    def spy(*a, **k):
        res = real(*a, **k)
        seen.append(res.status)
        return res
    monkeypatch.setattr(gt, "graph_tv", spy)
    X, y, _ = _moons(150, 6, seed=1)
    assert np.count_nonzero(y != -1) == 12
    sup = Est(safe=True, max_iter=30)._supervised_counterpart()
    _fit(sup, X, y)
    assert len(seen) == 1
    assert (seen[0] == "direct") == (cap >= 12)


@pytest.mark.parametrize("loss", ["squared", "hinge"])
def test_direct_counterpart_float32_blocks_same_bits(loss, monkeypatch):
    # float32 features: the decision's product takes float64 copies of a
    # block of rows at a time; the block size does not change a bit
    import semisvm._tv_solvers as tsv
    from semisvm._lowrank import nystroem_features
    from semisvm.graph import knn_affinity
    from semisvm.graph_tv import graph_tv
    from semisvm.kernels import kernel_matrix
    X, y, _ = _moons(120, 5, seed=2)
    Z = nystroem_features(X, lambda A, B=None: kernel_matrix(A, B, gamma=2.0), 40,
                          random_state=0)[0].astype(np.float32)
    W = knn_affinity(X, 8)

    def run():
        return graph_tv(None, W, y, loss=loss, gamma=0.0, normalize=None, Z=Z,
                        nugget=0.05, _direct=True)
    one = run()
    monkeypatch.setattr(tsv, "DIRECT_BLOCK_ENTRIES", 7 * 40)
    many = run()
    assert one.decision.dtype == np.float32
    np.testing.assert_array_equal(one.decision, many.decision)
    d64 = graph_tv(None, W, y, loss=loss, gamma=0.0, normalize=None,
                   Z=Z.astype(np.float64), nugget=0.05, _direct=True)
    np.testing.assert_allclose(one.decision, d64.decision, atol=1e-4)


def test_safe_true_fallback_adopts_the_direct_counterpart(monkeypatch):
    import semisvm.model_selection as ms
    real_gain = ms.unlabeled_gain

    def gain(*a, **k):
        g, s, b = real_gain(*a, **k)
        return -1.0, s, b          # the safety net fires
    import semisvm._tv_check as tc
    monkeypatch.setattr(tc, "SAFE_FIRST_REPEAT_MIN_GAIN", None)
    monkeypatch.setattr(ms, "unlabeled_gain", gain)
    X, y, _ = _moons(150, 6, seed=1)
    est = _fit(TVSVM(safe=True, max_iter=30), X, y)
    assert est.fell_back_ and est.result_.status == "direct"
    sup = _fit(est._supervised_counterpart(), X, y)
    np.testing.assert_array_equal(est.transduction_, sup.transduction_)
    np.testing.assert_array_equal(est.predict(X), sup.predict(X))


# --------------------------------- the guard's LapRLS on fewer landmarks


def test_guard_components_rule_both_sides(monkeypatch):
    import semisvm._tv_check as tv_check
    import semisvm.manifold as man
    from semisvm.graph_tv import _guard_components
    monkeypatch.setattr(man, "LOWRANK_MIN_SAMPLES", 100)
    monkeypatch.setattr(man, "AUTO_COMPONENTS", 80)
    monkeypatch.setattr(tv_check, "GUARD_COMPONENTS_RATIO", None)
    assert _guard_components("auto", "rbf", 101) == "auto"
    monkeypatch.setattr(tv_check, "GUARD_COMPONENTS_RATIO", 0.5)
    # at the switch: LapRLS's exact path, unchanged; one row above: half of
    # its landmark count (at most n), at least one
    assert _guard_components("auto", "rbf", 100) == "auto"
    assert _guard_components("auto", "rbf", 101) == 40
    monkeypatch.setattr(man, "AUTO_COMPONENTS", 1000)
    assert _guard_components("auto", "rbf", 101) == 50
    monkeypatch.setattr(tv_check, "GUARD_COMPONENTS_RATIO", 1e-9)
    assert _guard_components("auto", "rbf", 101) == 1
    monkeypatch.setattr(tv_check, "GUARD_COMPONENTS_RATIO", 0.5)
    # the user's own count, None (exact), other kernels: unchanged
    assert _guard_components(30, "rbf", 101) == 30
    assert _guard_components(None, "rbf", 101) is None
    assert _guard_components("auto", "linear", 101) == "auto"
    assert _guard_components("auto", "poly", 101) == "auto"


@pytest.mark.parametrize("Est", [TVRLS, CheegerSVM])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("sparse", [False, True])
def test_guard_components_fit_both_sides(Est, dtype, sparse, monkeypatch):
    import scipy.sparse as sp

    import semisvm._tv_check as tv_check
    import semisvm.manifold as man
    X, y, _ = _moons(150)
    X = X.astype(dtype)
    if sparse:
        X = sp.csr_matrix(X)
    n = X.shape[0]
    monkeypatch.setattr(fb, "GUARD_AGREEMENT", 1.01)     # LapRLS always taken over
    monkeypatch.setattr(man, "AUTO_COMPONENTS", 60)
    monkeypatch.setattr(tv_check, "GUARD_COMPONENTS_RATIO", 0.5)
    laps = []
    real = Est._fit_laplacian

    def spy(self, *a, **k):
        lap = real(self, *a, **k)
        laps.append(lap)
        return lap
    monkeypatch.setattr(Est, "_fit_laplacian", spy)
    outs = {}
    for limit, mode, m in ((n, "exact", None), (n - 1, "nystroem", 30)):
        monkeypatch.setattr(man, "LOWRANK_MIN_SAMPLES", limit)
        laps.clear()
        est = _fit(Est(), X, y)
        again = _fit(Est(), X, y)
        lap, = laps[:1]
        assert (lap.mode_, lap.n_components_) == (mode, m)
        assert est.laplacian_fallback_
        np.testing.assert_array_equal(est.transduction_, lap.transduction_)
        if mode == "nystroem":
            assert lap.X_fit_.shape[0] == m
            assert sp.issparse(lap.X_fit_) == sparse
        dec = est.decision_function(X)
        assert dec.dtype == dtype
        # the same input, the same bits
        assert dec.tobytes() == again.decision_function(X).tobytes()
        outs[mode] = dec
        # off: LapRLS's own count above the switch too
        monkeypatch.setattr(tv_check, "GUARD_COMPONENTS_RATIO", None)
        laps.clear()
        _fit(Est(), X, y)
        assert laps[0].n_components_ == (None if mode == "exact" else 60)
        monkeypatch.setattr(tv_check, "GUARD_COMPONENTS_RATIO", 0.5)
    assert outs["exact"].tobytes() != outs["nystroem"].tobytes()
@pytest.mark.parametrize("Est", [TVRLS, CheegerSVM])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_guard_fit_features_both_sides(Est, dtype, monkeypatch):
    # GUARD_FIT_FEATURES: the guard's LapRLS on the fit's own Nystroem
    # features (landmarks, width, Z'Z) where the fit took its Nystroem path
    # and LapRLS would take its two-stage Nystroem path; off, or on either
    # side of either switch, LapRLS's own
    import semisvm._tv_check as tv_check
    import semisvm._tv_setup as tv_setup
    import semisvm.manifold as man
    X, y, _ = _moons(150)
    X = X.astype(dtype)
    n = X.shape[0]
    monkeypatch.setattr(fb, "GUARD_AGREEMENT", 1.01)     # LapRLS always taken over
    monkeypatch.setattr(man, "AUTO_COMPONENTS", 60)
    monkeypatch.setattr(tv_setup, "AUTO_COMPONENTS", 40)
    seen = []
    real = Est._fit_laplacian

    def spy(self, *a, **k):
        feats = getattr(self, "_guard_features", None)
        lap = real(self, *a, **k)
        seen.append((lap, feats, self._kernel_gamma, self.mode_))
        return lap
    monkeypatch.setattr(Est, "_fit_laplacian", spy)
    ridges = []
    real_ridge = man.LapRLS._feature_ridge

    def ridge_spy(self, feats, T, gA):
        out = real_ridge(self, feats, T, gA)
        ridges.append((feats[0], T, gA, out[:2]))
        return out
    monkeypatch.setattr(man.LapRLS, "_feature_ridge", ridge_spy)
    for on in (True, False):
        monkeypatch.setattr(tv_check, "GUARD_FIT_FEATURES", on)
        for tv_limit, lap_limit in ((n - 1, n - 1), (n - 1, n), (n, n - 1)):
            monkeypatch.setattr(tv_setup, "LOWRANK_MIN_SAMPLES", tv_limit)
            monkeypatch.setattr(man, "LOWRANK_MIN_SAMPLES", lap_limit)
            seen.clear()
            ridges.clear()
            est = _fit(Est(), X, y)
            (lap, feats, width, mode), = seen
            assert mode == ("nystroem" if tv_limit < n else "exact")
            assert est.laplacian_fallback_
            np.testing.assert_array_equal(est.transduction_, lap.transduction_)
            if on and tv_limit < n and lap_limit < n:
                Z, landmarks, N = feats
                assert lap.n_components_ == Z.shape[1] == 40
                np.testing.assert_array_equal(lap.landmarks_, landmarks)
                assert lap._gamma == width
                # the ridge ran on the fit's own Z (and its Z'Z): min ||Z w +
                # b - t||^2 + gamma_A ||w||^2, beta = N w, solved here directly
                (Zr, T, gA, (beta, b)), = ridges
                assert Zr is Z
                Zb = np.hstack([np.asarray(Z, dtype=np.float64), np.ones((n, 1))])
                H = Zb.T @ Zb
                H[np.arange(40), np.arange(40)] += gA
                sol = np.linalg.solve(H, Zb.T @ T)
                np.testing.assert_allclose(beta, np.asarray(N, np.float64) @ sol[:40],
                                           rtol=1e-6, atol=1e-8)
                np.testing.assert_allclose(b, sol[40], rtol=1e-6, atol=1e-8)
                # the same bits on a refit, and with the guard fitted beside
                # the solve (n_jobs=2: _tv_check.GUARD_AHEAD)
                again = _fit(Est(), X, y)
                assert (est.decision_function(X).tobytes()
                        == again.decision_function(X).tobytes())
                ridges.clear()
                two = _fit(Est(n_jobs=2), X, y)
                assert len(ridges) == 1
                assert (est.decision_function(X).tobytes()
                        == two.decision_function(X).tobytes())
            else:
                assert not ridges
            if lap_limit >= n:
                assert lap.mode_ == "exact"
            elif not (on and tv_limit < n):
                # LapRLS's own landmarks and width
                assert (lap.mode_, lap.n_components_) == ("nystroem", 60)
                assert lap.gamma is None


def _two_blobs(n=240, per_class=6, seed=0):
    from sklearn.datasets import make_blobs
    X, yt = make_blobs(n, centers=[[-3, 0], [3, 0]], cluster_std=1.0, random_state=0)
    rng = np.random.default_rng(seed)
    y = np.full(n, -1)
    for c in (0, 1):
        y[rng.choice(np.flatnonzero(yt == c), per_class, replace=False)] = c
    return X, y


def _spy_fold_iterations(monkeypatch):
    # the outer iterations of every safe=True fold fit: (model?, counterpart?, n_iter)
    import semisvm.graph_tv as gt
    seen = []
    for base in (gt._TVBase, gt._CheegerBase):
        real = base._solve

        def spy(self, *a, _real=real, **k):
            res = _real(self, *a, **k)
            seen.append((getattr(self, "_safe_fold_model", False),
                         getattr(self, "_safety_counterpart", False), res.n_iter))
            return res
        monkeypatch.setattr(base, "_solve", spy)
    return seen


@pytest.mark.parametrize("Est", [TVRLS, TVSVM])
@pytest.mark.parametrize("seed", [0, 1])
def test_safe_true_two_class_tv_fold_budget_both_sides(Est, seed, monkeypatch):
    # SAFE_TV_FOLD_MAX_ITER_TWO: the model's fold fits on more than
    # SAFE_FOLD_BUDGET_MIN_ROWS rows stop after at most that many outer
    # iterations; at or below the switch (or off) they run their stop rule
    # (here 21 iterations). Where the held-out labels settle within the
    # budget (two blobs) the budgeted check reads the same fold scores, gain
    # and decision as the full one, and the fit's bits do not move
    import semisvm._tv_check as tc
    monkeypatch.setattr(tc, "SAFE_FIRST_REPEAT_MIN_GAIN", None)
    seen = _spy_fold_iterations(monkeypatch)
    X, y = _two_blobs(seed=seed)
    # (a fold leaves out 2-4 of the 12 labels: its rows n - 4 .. n - 2)
    n = X.shape[0]
    out = {}
    for name, switch, budget in (("off", 0, None), ("at", n - 2, 10),
                                 ("below", n - 5, 10)):
        monkeypatch.setattr(tc, "SAFE_TV_FOLD_MAX_ITER_TWO", budget)
        monkeypatch.setattr(tc, "SAFE_FOLD_BUDGET_MIN_ROWS", switch)
        seen.clear()
        est = _fit(Est(safe=True), X, y)
        model = [it for m, c, it in seen if m]
        counter = [it for m, c, it in seen if c]
        assert len(model) == len(counter) == 10
        out[name] = (est, model)
        if name == "below":
            assert max(model) == 10
        else:
            assert min(model) > 10
        # the counterpart (solved directly) and the fit itself: no budget
        assert all(it == 1 for it in counter)
        assert [it for m, c, it in seen if not (m or c)][0] > 10
    full, cut = out["off"][0], out["below"][0]
    np.testing.assert_array_equal(out["at"][0].safe_scores_[0], full.safe_scores_[0])
    np.testing.assert_array_equal(cut.safe_scores_[0], full.safe_scores_[0])
    np.testing.assert_array_equal(cut.safe_scores_[1], full.safe_scores_[1])
    assert cut.unlabeled_gain_ == full.unlabeled_gain_
    assert cut.fell_back_ == full.fell_back_
    np.testing.assert_array_equal(cut.result_.decision, full.result_.decision)
    np.testing.assert_array_equal(cut.transduction_, full.transduction_)


@pytest.mark.parametrize("Est", [CheegerRLS, TVRLS])
def test_safe_true_tv_fold_budget_not_for_cheeger_nor_three_classes(Est, monkeypatch):
    # the budget is the two-class TV pair's: the Cheeger pair's model folds
    # and three-class TV folds run their own rules whatever the switch
    from sklearn.base import clone
    from sklearn.datasets import make_blobs

    import semisvm._tv_check as tc
    monkeypatch.setattr(tc, "SAFE_FIRST_REPEAT_MIN_GAIN", None)
    monkeypatch.setattr(tc, "SAFE_FOLD_BUDGET_MIN_ROWS", 0)
    monkeypatch.setattr(tc, "SAFE_TV_FOLD_MAX_ITER_TWO", 2)
    seen = _spy_fold_iterations(monkeypatch)
    if Est is CheegerRLS:
        X, y = _two_blobs()
    else:
        X, yt = make_blobs(150, centers=3, random_state=0)
        y = np.full(150, -1)
        rng = np.random.default_rng(0)
        for c in range(3):
            y[rng.choice(np.flatnonzero(yt == c), 5, replace=False)] = c
    est = _fit(Est(safe=True, max_iter=40), X, y)
    model = [it for m, c, it in seen if m]
    assert len(model) == est.safe_scores_[0].size and min(model) > 2
    # the marker stays on the model's fold clones only
    semi = est._safe_semi()
    assert semi._safe_fold_model and clone(semi)._safe_fold_model
    assert not getattr(est._supervised_counterpart(), "_safe_fold_model", False)
    # and never on the user's fitted estimator nor its clone / pickle
    import pickle
    for other in (est, clone(est), pickle.loads(pickle.dumps(est))):
        assert not hasattr(other, "_safe_fold_model")


@pytest.mark.parametrize("Est", [TVRLS, TVSVM, CheegerRLS, CheegerSVM])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_safe_true_fold_gram_downdated_both_sides(Est, n_classes, monkeypatch):
    # SAFE_GRAM_DOWNDATE: on the checked fit's Nystroem features a fold's
    # Z'Z is the fit's less its held-out rows' (one feature_gram per check,
    # the fit's); off, each fold computes its own. The two agree to
    # rounding, and the check reads the same fold scores and decision
    from sklearn.datasets import make_blobs

    import semisvm._tv_check as tc
    import semisvm._tv_solvers as tsv
    monkeypatch.setattr(tc, "SAFE_FIRST_REPEAT_MIN_GAIN", None)
    calls, grams = [], []
    real = tsv.feature_gram

    def spy(Z):
        calls.append(Z.shape[0])
        return real(Z)
    monkeypatch.setattr(tsv, "feature_gram", spy)
    monkeypatch.setattr(tc, "feature_gram", spy)
    real_fold = tc.TVCheckMixin._fold_gram

    def fold_gram(self, rows):
        G = real_fold(self, rows)
        if G is not None:
            grams.append((G, real(self._safety_setup["Z"][rows])))
        return G
    monkeypatch.setattr(tc.TVCheckMixin, "_fold_gram", fold_gram)
    X, yt = make_blobs(180, centers=n_classes, cluster_std=2.0, random_state=1)
    rng = np.random.default_rng(0)
    y = np.full(180, -1)
    for c in range(n_classes):
        y[rng.choice(np.flatnonzero(yt == c), 6, replace=False)] = c
    out = {}
    for on in (False, True):
        monkeypatch.setattr(tc, "SAFE_GRAM_DOWNDATE", on)
        calls.clear()
        grams.clear()
        est = _fit(Est(safe=True, n_components=40, max_iter=40), X, y)
        assert est.mode_ == "nystroem"
        n_folds = est.safe_scores_[0].size
        out[on] = est
        if on:
            # the fit's own Z'Z only (its solve's, read from its cache)
            assert calls == [180]
            assert len(grams) == n_folds
            for G, own in grams:
                np.testing.assert_allclose(G, own, rtol=1e-10, atol=1e-10)
                np.testing.assert_array_equal(G, G.T)
        else:
            assert calls[0] == 180 and len(calls) == 1 + n_folds
            assert not grams
    np.testing.assert_array_equal(out[True].safe_scores_[0], out[False].safe_scores_[0])
    np.testing.assert_array_equal(out[True].safe_scores_[1], out[False].safe_scores_[1])
    assert out[True].fell_back_ == out[False].fell_back_
    np.testing.assert_array_equal(out[True].transduction_, out[False].transduction_)


# ------------------------------------- hinge_prox's phi table, in blocks


@pytest.mark.parametrize("block", [1 << 20, 7, 1], ids=["one-block", "blocks-of-7-entries", "row-by-row"])
def test_hinge_phi_table_is_the_loops_bits_on_both_sides_of_its_block(block, monkeypatch):
    """TVSVM's exact hinge step evaluates phi at every break point as one
    table (in blocks of ``_PHI_BLOCK`` entries): the same bits as phi
    evaluated one break point at a time, with one block and with many."""
    from semisvm import _tv_solvers as ts
    monkeypatch.setattr(ts, "_PHI_BLOCK", block)
    rng = np.random.RandomState(0)
    for _ in range(40):
        n_lab = rng.randint(1, 120)
        e = rng.randn(n_lab) * rng.choice([1e-3, 1.0, 100.0])
        yl = rng.choice([-1.0, 1.0], n_lab)
        r, mu = float(rng.choice([0.1, 1.0, 10.0])), float(rng.choice([0.01, 1.0, 100.0]))
        bps = np.sort(np.concatenate([yl - e, yl * (1.0 - mu / r) - e]), kind="stable")
        want = np.array([np.sum(yl * np.clip(r * (1.0 - yl * (e + b)), 0.0, mu)) for b in bps])
        got = ts._hinge_phi(e, yl, r, mu, bps)
        assert np.array_equal(got.view(np.int64), want.view(np.int64))
