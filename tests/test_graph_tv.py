"""Tests of semisvm.graph_tv: TV-RLS, TV-SVM, Cheeger-RLS, Cheeger-SVM."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from semisvm import TVRLS, TVSVM, CheegerRLS, CheegerSVM
from semisvm._results import GraphTVResult
from semisvm._tv_setup import knn_graph
from semisvm._tv_solvers import hinge_prox
from semisvm.graph import knn_affinity
from semisvm.graph_tv import graph_cheeger, graph_tv

cp = pytest.importorskip("cvxpy")


def _problem(n=60, n_lab=12, seed=0):
    X, yt = make_moons(n, noise=0.1, random_state=seed)
    rng = np.random.default_rng(seed)
    lab = np.concatenate([rng.choice(np.flatnonzero(yt == c), n_lab // 2, replace=False)
                          for c in (0, 1)])
    y = np.full(n, -1)
    y[lab] = yt[lab]
    return X, y, yt, lab


def test_tvrls_gamma0_is_kernel_rls():
    X, y, _, lab = _problem()
    K = rbf_kernel(X, gamma=1.0)
    res = graph_tv(K, knn_graph(X), y, gamma=0.0, lam=0.5, eta=2.0,
                   normalize=None, tol=1e-10, n_stable=0, max_iter=5000)
    J = (y != -1).astype(float)
    ypm = np.where(y == 1, 1.0, np.where(y == 0, -1.0, 0.0))
    alpha = np.linalg.solve(2.0 * J[:, None] * K + 0.5 * np.eye(60), 2.0 * ypm)
    assert isinstance(res, GraphTVResult) and res.converged
    np.testing.assert_allclose(K @ res.alpha, K @ alpha, atol=1e-6)


def test_tvsvm_gamma0_is_svm():
    X, y, _, lab = _problem()
    K = rbf_kernel(X, gamma=1.0)
    res = graph_tv(K, knn_graph(X), y, loss="hinge", gamma=0.0, lam=0.5,
                   mu=1.0, normalize=None, tol=1e-10, n_stable=0, max_iter=10000)
    svc = SVC(C=1.0 / 0.5, kernel="precomputed", tol=1e-10)
    svc.fit(K[np.ix_(lab, lab)], y[lab])
    np.testing.assert_allclose(res.decision, svc.decision_function(K[:, lab]),
                               atol=1e-4)
    assert res.intercept == pytest.approx(svc.intercept_[0], abs=1e-4)


def test_hinge_prox_matches_cvxpy(seed):
    rng = np.random.default_rng(seed)
    e = rng.standard_normal(15)
    y = np.where(rng.random(15) < 0.5, -1.0, 1.0)
    y[:2] = [1, -1]
    h, b, _ = hinge_prox(e, y, 2.0, 0.7)
    hv, bv = cp.Variable(15), cp.Variable()
    prob = cp.Problem(cp.Minimize(0.7 * cp.sum(cp.pos(1 - cp.multiply(y, hv + bv)))
                                  + cp.sum_squares(hv - e)))
    prob.solve(solver=cp.CLARABEL)
    obj = 0.7 * np.maximum(0, 1 - y * (h + b)).sum() + np.sum((h - e) ** 2)
    assert obj == pytest.approx(prob.value, abs=1e-6)


def _fit_quiet(est, X, y, W=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y, W=W)


TWO_MOONS_MODELS = [TVRLS(), TVSVM(), CheegerRLS(), CheegerSVM()]


@pytest.mark.parametrize("est", TWO_MOONS_MODELS, ids=lambda e: type(e).__name__)
def test_two_moons_one_label_per_class(est):
    X, yt = make_moons(200, noise=0.05, random_state=0)
    y = np.full(200, -1)
    for c in (0, 1):
        i = np.flatnonzero(yt == c)[0]
        y[i] = c
    _fit_quiet(est, X, y)
    assert np.mean(est.transduction_ != yt) <= 0.02
    assert isinstance(est.result_, GraphTVResult)
    assert est.result_.history.shape == (est.n_iter_,)


def _moons_one_label(n, noise, seed):
    X, yt = make_moons(n, noise=noise, random_state=seed)
    rng = np.random.default_rng(seed)
    y = np.full(n, -1)
    for c in (0, 1):
        y[rng.choice(np.flatnonzero(yt == c))] = c
    return X, y, yt


@pytest.mark.parametrize("n, noise, seed", [(200, 0.05, 1), (300, 0.05, 2),
                                            (200, 0.1, 0), (300, 0.1, 0)])
def test_tv_defaults_two_moons(n, noise, seed):
    # the default RBF width for two classes is min(median distance, 2 x mean
    # 10-NN distance); with the median width alone (the previous default) the
    # RKHS term pulls towards a near-linear cut: 13-27% error on these draws.
    # (The draw (200, 0.1, 1) was here: with one label per class its split
    # follows the inner ROF solver's inexact answers, TVRLS 1.0 % with the
    # accelerated steps, 9.1 % with the constant ones, TVSVM 10.1 / 0.5 %;
    # over 40 such draws TVRLS 0.57 / 0.73, TVSVM 0.99 / 0.72 % mean error,
    # bench/RESULTS.md, "Constant graph-ROF steps")
    X, y, yt = _moons_one_label(n, noise, seed)
    unl = y == -1
    est = _fit_quiet(TVRLS(), X, y)
    assert np.mean(est.transduction_[unl] != yt[unl]) <= 0.02
    assert not est.refit_convex_
    assert est.label_conflict_ == 0.0


def test_tv_median_width_fails_two_moons():
    # the cause of the old defaults' failure: the median-width kernel
    from semisvm._tv_setup import median_rbf_gamma
    X, y, yt = _moons_one_label(300, 0.1, 0)
    # (safe=False: the solve itself; the Laplacian guard of safe="auto"
    # takes LapRLS over here)
    est = _fit_quiet(TVRLS(kernel_gamma=median_rbf_gamma(X, 0), safe=False), X, y)
    assert np.mean(est.transduction_ != yt) > 0.05


def test_tv_label_conflict_refits_convex():
    # digits {2,3,5} vs {6,8,9} (the demo task), 10 labels per class: each
    # class is a union of three clusters and the balanced graph cut splits
    # the clusters otherwise; the normalised fit contradicts 30% of the
    # labels (33% error) and the convex refit follows them (14%)
    from sklearn.datasets import load_digits
    X, d = load_digits(return_X_y=True)
    keep = np.isin(d, (2, 3, 5, 6, 8, 9))
    X, d = X[keep][::2] / 16.0, d[keep][::2]
    yt = np.isin(d, (6, 8, 9)).astype(int)
    rng = np.random.default_rng(0)
    y = np.full(yt.shape[0], -1)
    for c in (0, 1):
        y[rng.choice(np.flatnonzero(yt == c), 10, replace=False)] = c
    off = _fit_quiet(TVRLS(conflict_tol=None, safe=False), X, y)
    on = _fit_quiet(TVRLS(safe=False), X, y)
    assert off.label_conflict_ > 0.1 and not off.refit_convex_
    assert on.refit_convex_
    assert np.mean(on.transduction_ != yt) <= 0.2
    assert np.mean(on.transduction_ != yt) < np.mean(off.transduction_ != yt) - 0.1


@pytest.mark.slow
@pytest.mark.parametrize("Est", [TVRLS, TVSVM, CheegerRLS, CheegerSVM])
def test_three_blobs_one_label_per_class(Est):
    X, yt = make_blobs(150, centers=[[0, 0], [6, 0], [0, 6]], random_state=0)
    y = np.full(150, -1)
    for c in range(3):
        y[np.flatnonzero(yt == c)[0]] = c
    est = _fit_quiet(Est(), X, y)
    assert np.mean(est.transduction_ != yt) <= 0.02
    assert np.mean(est.predict(X) != yt) <= 0.05
    assert est.decision_function(X).shape == (150, 3)


def test_user_affinity_is_used():
    X, y, yt, _ = _problem(80, 4)
    # an affinity that joins every point to its true class only
    W = sp.csr_matrix((yt[:, None] == yt[None, :]).astype(float))
    est = _fit_quiet(CheegerRLS(), X, y, W=W)
    np.testing.assert_array_equal(est.transduction_, yt)


def test_labels_returned_in_user_coding():
    X, y, yt, _ = _problem()
    y2 = np.where(y == -1, -1, np.where(y == 1, 7, 3))
    est = _fit_quiet(TVSVM(gamma=1.0, normalize=None), X, y2)
    assert set(np.unique(est.transduction_)) <= {3, 7}
    assert set(np.unique(est.predict(X))) <= {3, 7}


def test_convergence_warning_and_status():
    X, y, _, _ = _problem()
    # (safe=False: the solve is the model; with the default safe="auto" a
    # safety net replaces a fit of two iterations here, and then does not
    # warn: test_tv_convergence_warning_only_where_the_solve_is_the_model)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        est = TVRLS(max_iter=2, safe=False).fit(X, y)
    assert est.result_.status == "max_iter" and not est.result_.converged
    assert est.n_iter_ == 2


def test_bad_input():
    X, y, _, _ = _problem()
    with pytest.raises(ValueError, match="no labeled"):
        TVRLS().fit(X, np.full(60, -1))
    with pytest.raises(ValueError, match="2 classes"):
        TVSVM().fit(X, np.where(y == 1, 1, -1))
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        CheegerRLS().fit(Xn, y)
    with pytest.raises(ValueError, match=r"W must have shape \(60, 60\)"):
        CheegerSVM().fit(X, y, W=sp.eye(59, format="csr"))
    K = rbf_kernel(X)
    with pytest.raises(ValueError, match="non-negative"):
        graph_cheeger(K, -sp.eye(60, format="csr"), y)
    with pytest.raises(ValueError, match="square"):
        graph_tv(K[:, :5], sp.eye(60), y)
    with pytest.raises(ValueError, match="loss"):
        graph_tv(K, sp.eye(60), y, loss="log")
    with pytest.raises(ValueError, match="normalize"):
        graph_tv(K, sp.eye(60), y, normalize="yes")
    with pytest.raises(ValueError, match="lam"):
        graph_tv(K, sp.eye(60), y, lam=0)
    with pytest.raises(ValueError, match="label_tol"):
        graph_cheeger(K, sp.eye(60), y, label_tol=1.5)


def test_labels_stable_stop():
    # the normalised scheme stalls above tol; label stability ends it early
    X, yt = make_blobs(100, centers=[[0, 0], [8, 0]], random_state=0)
    y = np.full(100, -1)
    y[:4] = yt[:4]
    est = TVRLS(tol=1e-12, n_stable=4, max_iter=500).fit(X, y)
    assert est.result_.status == "labels_stable" and est.result_.converged
    assert est.n_iter_ < 500
    assert est.result_.residual_history[-1] > 1e-12


def test_sparse_input_matches_dense():
    X, y, _, _ = _problem()
    a = _fit_quiet(CheegerRLS(random_state=0), X, y)
    b = _fit_quiet(CheegerRLS(random_state=0), sp.csr_matrix(X), y)
    np.testing.assert_array_equal(a.transduction_, b.transduction_)
    np.testing.assert_allclose(a.decision_function(X[:5]),
                               b.decision_function(sp.csr_matrix(X[:5])), atol=1e-8)


def test_self_tuning_knn_affinity():
    X, _, _, _ = _problem()
    W = knn_affinity(X, 5, weight="self-tuning")
    # local scale: distance to the 5th neighbour (n_scale=7 capped at k=5)
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    s = np.sort(D, axis=1)[:, 5]
    i, j = W.nonzero()
    np.testing.assert_allclose(W.data, np.exp(-D[i, j] ** 2 / (s[i] * s[j])),
                               rtol=1e-10)
    assert (W != W.T).nnz == 0
    assert W.diagonal().max() == 0
    assert np.all(np.diff(W.indptr) >= 5)
    assert np.all((W.data > 0) & (W.data <= 1))


@pytest.mark.slow
def test_uspst_accuracy():
    from conftest import load_shared
    d = load_shared("uspst")
    X, yt = d["X"].astype(np.float64), d["y"]
    m = np.isin(yt, [4, 9])          # digits 4 vs 9, as in the paper's Table 1
    X, yt = X[m], yt[m]
    rng = np.random.default_rng(0)
    y = np.full(yt.shape[0], -1)
    for c in (4, 9):
        y[rng.choice(np.flatnonzero(yt == c), 5, replace=False)] = c
    unl = y == -1
    # the fit itself (safe=False): a paper's set pins the solver, not the
    # default check's decision, which is chosen on the benchmark suite only
    # (with safe="auto" this draw ends as an SVC: the Laplacian guard's
    # LapRLS gets 4 of its 10 held-out labels right, the check's SVC(C=10) 5,
    # and a fit that missed more than a quarter of them falls back on a
    # one-row lead; the guard takes that over although CheegerRLS's own check
    # scored 8 of 10 against it; 13.1 % error, SVC() 12.0 %)
    est = _fit_quiet(CheegerRLS(safe=False), X, y)
    # measured 9.0% (seed 0, 5 labels per class, 366 points)
    assert np.mean(est.transduction_[unl] != yt[unl]) < 0.12
    # the defaults keep what they promise: no worse than the RBF SVC on the
    # labels by more than 2 points (here they fall back to the check's SVC)
    from sklearn.svm import SVC
    lab = ~unl
    svc = SVC().fit(X[lab], y[lab]).predict(X[unl])
    dflt = _fit_quiet(CheegerRLS(), X, y)
    assert (np.mean(dflt.transduction_[unl] != yt[unl])
            <= np.mean(svc != yt[unl]) + 0.02)
    # the guard took LapRLS's model, which was its check's SVC: named
    assert dflt.laplacian_fallback_ and dflt.safe_counterpart_ is not None


def test_lambda_median_balance():
    from semisvm._tv_solvers import balance_subgradient, lambda_median
    rng = np.random.default_rng(0)
    f = rng.standard_normal(40)
    # lam_b = 1: the plain median and sum |f - med|
    v, B = balance_subgradient(f, 1.0)
    assert B == pytest.approx(np.abs(f - np.median(f)).sum())
    assert v.sum() == pytest.approx(0.0, abs=1e-12)
    # lam_b = 3: the (floor(40/4) + 1) = 11th largest entry
    m = lambda_median(f, 3.0)
    assert m == np.sort(f)[::-1][10]
    v, B = balance_subgradient(f, 3.0)
    d = f - m
    assert B == pytest.approx(3 * d[d > 0].sum() - d[d < 0].sum())
    assert v.sum() == pytest.approx(0.0, abs=1e-12)
    # an indicator of a set A: B = min(3|A|, |A^c|), largest at |A| = n/4
    vals = [balance_subgradient((np.arange(40) < a).astype(float), 3.0)[1]
            for a in (5, 10, 20)]
    assert vals == [15.0, 30.0, 20.0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(1,), (2,), (7,), (40,), (41,), (40, 3), (41, 3)])
def test_median_is_np_median_bit_for_bit(shape, dtype):
    # lambda_median's plain median (lam_b = 1) skips np.median's generic
    # reduction: the same value, dtype and shape, ties and NaN included
    from semisvm._tv_solvers import _median, lambda_median
    rng = np.random.default_rng(0)
    cases = [rng.standard_normal(shape),
             np.round(rng.standard_normal(shape), 1),      # ties
             np.zeros(shape)]
    nan = rng.standard_normal(shape)
    nan.flat[-1] = np.nan
    cases.append(nan)
    cases.append(-np.zeros(shape))                       # -0.0 in the middle
    for F in cases:
        F = F.astype(dtype)
        want = np.median(F, axis=0)
        for got in (_median(F), lambda_median(F, 1.0)):
            assert np.asarray(got).dtype == np.asarray(want).dtype
            assert np.shape(got) == np.shape(want)
            np.testing.assert_array_equal(got, want)
            assert np.asarray(got).tobytes() == np.asarray(want).tobytes()


def test_float32_input():
    X, y, yt, _ = _problem()
    # the paper's median balance: with balance="auto" (lambda = 1.14 here)
    # the iteration takes 26 / 41 steps in float64 / float32 and 3 of the
    # 60 labels differ (errors 20.0 / 18.3%)
    a = _fit_quiet(CheegerSVM(random_state=0, balance="median"), X, y)
    b = _fit_quiet(CheegerSVM(random_state=0, balance="median"),
                   X.astype(np.float32), y)
    assert b.result_.decision.dtype == np.float32
    assert np.mean(a.transduction_ != b.transduction_) <= 0.02
    assert b.predict(X.astype(np.float32)).shape == (60,)


@pytest.mark.parametrize("Est", [CheegerRLS, CheegerSVM])
def test_two_moons_defaults_converge(Est):
    # the label-spreading start: 300 points, one label per class (the kernel
    # start ended in the wrong basin here, 39% error)
    X, yt = make_moons(300, noise=0.05, random_state=0)
    y = np.full(300, -1)
    for c in (0, 1):
        y[np.flatnonzero(yt == c)[0]] = c
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = Est().fit(X, y)
    assert est.result_.converged
    assert np.mean(est.transduction_ != yt) <= 0.01


# ------------------------------------------------------------- defaults


@pytest.mark.parametrize("n_lab", [10, 6])
@pytest.mark.parametrize("Est", [TVRLS, TVSVM, CheegerRLS, CheegerSVM])
def test_defaults_deterministic(Est, n_lab):
    # same input -> same bits, with every parameter at its default (5 labels
    # per class: the check runs; 3: it does not)
    X, y, _, _ = _problem(n=80, n_lab=n_lab, seed=3)
    a = _fit_quiet(Est(), X, y)
    b = _fit_quiet(Est(), X, y)
    np.testing.assert_array_equal(a.alpha_, b.alpha_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)
    np.testing.assert_array_equal(a.transduction_, b.transduction_)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def test_default_kernel_width_has_no_random_subsample():
    from semisvm._tv_setup import median_rbf_gamma
    rng = np.random.default_rng(0)
    X = rng.standard_normal((1500, 4))
    g = median_rbf_gamma(X, None)
    assert g == median_rbf_gamma(X, None)
    # the evenly spaced 1000 rows, computed independently
    rows = np.linspace(0, 1499, 1000).round().astype(int)
    d = X[rows][:, None, :] - X[rows][None, :, :]
    d2 = np.sum(d * d, axis=-1)[np.triu_indices(1000, 1)]
    assert g == pytest.approx(1.0 / (2.0 * np.median(d2)), rel=1e-10)
    # an explicit seed still draws its rows (and differs from the default)
    assert median_rbf_gamma(X, 0) == median_rbf_gamma(X, 0) != g


@pytest.mark.parametrize("Est", [CheegerRLS, CheegerSVM])
def test_cheeger_balance_follows_the_data(Est):
    # 240 / 60 points in two separated blobs, 3 labels per class: the
    # median balance forces an even split (about 30% error); balance="auto"
    # takes the class fractions from label spreading (measured 2.7-5.1% over
    # seeds 0-3), the true fraction gives 2%
    X, yt = make_blobs([240, 60], centers=[[0, 0], [5, 0]], random_state=0)
    rng = np.random.default_rng(1)
    y = np.full(300, -1)
    for c in (0, 1):
        y[rng.choice(np.flatnonzero(yt == c), 3, replace=False)] = c
    unl = y == -1
    # (safe=False: the solves themselves; the Laplacian guard of safe="auto"
    # takes LapRLS over from the median-balance fit)
    med = _fit_quiet(Est(balance="median", safe=False), X, y)
    auto = _fit_quiet(Est(balance="auto", safe=False), X, y)
    true = _fit_quiet(Est(balance=0.2, safe=False), X, y)
    assert abs(med.transduction_.mean() - 0.5) < 0.02
    assert np.mean(med.transduction_[unl] != yt[unl]) > 0.25
    assert np.mean(auto.transduction_[unl] != yt[unl]) < 0.08
    assert np.mean(true.transduction_[unl] != yt[unl]) < 0.04
    assert abs(true.transduction_.mean() - 0.2) < 0.02
    with pytest.raises(ValueError, match="balance"):
        Est(balance=1.5).fit(X, y)
    with pytest.raises(ValueError, match="balance"):
        Est(balance="even").fit(X, y)


@pytest.mark.parametrize("Est", [TVRLS, TVSVM, CheegerRLS, CheegerSVM])
def test_defaults_converge_multiclass(Est):
    X, yt = make_blobs(150, centers=[[0, 0], [5, 0], [0, 5]], random_state=0)
    rng = np.random.default_rng(0)
    y = np.full(150, -1)
    for c in range(3):
        y[rng.choice(np.flatnonzero(yt == c), 5, replace=False)] = c
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = Est().fit(X, y)
    assert est.result_.converged and est.n_iter_ < est.max_iter
    assert np.mean(est.transduction_ != yt) < 0.05


@pytest.mark.parametrize("Est", [CheegerRLS,
                                 pytest.param(TVSVM, marks=pytest.mark.slow)])
def test_safety_net(Est):
    # XOR with noise features, 5 labels per class: the graph models lose to
    # the kernel machine on the labels and the safety net falls back to it
    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, size=(200, 2))
    yt = ((X[:, 0] > 0) ^ (X[:, 1] > 0)).astype(int)
    X = np.hstack([X, 0.3 * rng.randn(200, 3)])
    y = np.full(200, -1)
    r = np.random.default_rng(0)
    for c in (0, 1):
        y[r.choice(np.flatnonzero(yt == c), 5, replace=False)] = c
    # (TVSVM with the weights of 300 rows, gamma = mu = 1: with its
    # scale-free defaults on these 200 rows it ties with the kernel SVM)
    kw = {"gamma": 1.0, "mu": 1.0} if Est is TVSVM else {}
    semi = _fit_quiet(Est(safe=False, **kw), X, y)
    safe = _fit_quiet(Est(safe=True, **kw), X, y)
    assert semi.unlabeled_gain_ is None and not semi.fell_back_
    assert safe.unlabeled_gain_ < 0 and safe.fell_back_
    sup = _fit_quiet(safe._supervised_counterpart(), X, y)
    assert sup.gamma == 0 and sup.normalize is None
    np.testing.assert_array_equal(safe.alpha_, sup.alpha_)
    np.testing.assert_array_equal(safe.predict(X), sup.predict(X))
    lab = y != -1
    np.testing.assert_array_equal(safe.transduction_[lab], y[lab])
    with pytest.raises(ValueError, match="safe=True"):
        Est(safe=True).fit(X, y, W=knn_graph(X))


def test_tv_no_improvement_stop():
    # breast cancer (standardised), 25 labels per class: the normalised
    # TV-RLS iteration cycles (objective 364-431 after iteration 20, a few
    # labels flickering) and used to run into max_iter=300
    from sklearn.datasets import load_breast_cancer
    d = load_breast_cancer()
    X = (d.data - d.data.mean(0)) / d.data.std(0)
    rng = np.random.RandomState(0)
    y = np.full(X.shape[0], -1)
    for c in (0, 1):
        pick = rng.choice(np.flatnonzero(d.target == c), 25, replace=False)
        y[pick] = c
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = TVRLS().fit(X, y)
    assert est.result_.status == "no_improvement" and est.n_iter_ < 300
    hist = est.result_.history
    # no new minimum in the last 5 n_stable = 50 iterations
    assert hist[-50:].min() >= hist[:-50].min() * (1 - est.tol)
    unl = y == -1
    assert np.mean(est.transduction_[unl] != d.target[unl]) < 0.1


def _quantiles3(n=200, per_class=3):
    # a disc and two rings of one Gaussian in 2-D (three classes, no gap
    # between them), per_class labels each: the multi-class augmented
    # iteration runs into max_iter at any r (the kernel cannot represent them)
    from sklearn.datasets import make_gaussian_quantiles
    X, yt = make_gaussian_quantiles(n_samples=n, n_features=2, n_classes=3,
                                    random_state=0)
    rng = np.random.default_rng(0)
    y = np.full(n, -1)
    for c in range(3):
        y[rng.choice(np.flatnonzero(yt == c), per_class, replace=False)] = c
    return X, y, yt


@pytest.mark.parametrize("Est", [TVRLS, TVSVM])
def test_tv_convergence_warning_only_where_the_solve_is_the_model(Est):
    # a disc and two rings of one Gaussian (no gap between the classes), 3
    # labels per class: the penalty iteration is rejected and the normalised
    # multi-class augmented iteration runs into max_iter, its labels still
    # moving. With safe=False that solve is the model: warned. With the
    # default safe="auto" the Laplacian guard replaces it by LapRLS's fit
    # (which converged): no warning, the status kept in result_
    X, y, yt = _quantiles3()
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        own = Est(safe=False).fit(X, y)
    assert own.result_.status == "max_iter" and own.result_.scheme == "augmented"
    assert not own.fell_back_ and not own.laplacian_fallback_
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = Est().fit(X, y)
    assert est.result_.status == "max_iter" and est.n_iter_ == est.max_iter
    assert est.fell_back_ or est.laplacian_fallback_
    # the model is the replacement, not the unconverged solve
    assert not np.array_equal(est.transduction_, own.transduction_)
    np.testing.assert_array_equal(est.result_.labels, own.result_.labels)


def _blobs4(n=200, per_class=5, seed=0):
    X, yt = make_blobs(n, centers=[[0, 0], [6, 0], [0, 6], [6, 6]],
                       random_state=seed)
    rng = np.random.default_rng(seed)
    y = np.full(n, -1)
    for c in range(4):
        y[rng.choice(np.flatnonzero(yt == c), per_class, replace=False)] = c
    return X, y, yt


def test_penalty_scheme_is_augmented_without_the_multiplier():
    # the two multi-class schemes share their first iteration (U starts at
    # 0) and part from the second, where only the augmented one has U != 0
    X, y, _ = _blobs4()
    K, W = rbf_kernel(X, gamma=0.1), knn_affinity(X, 8)
    kw = dict(gamma=0.3, lam=0.1, eta=10.0, normalize="sqrt")
    one = [graph_tv(K, W, y, max_iter=1, scheme=s, **kw) for s in ("augmented", "penalty")]
    np.testing.assert_array_equal(one[0].decision, one[1].decision)
    two = [graph_tv(K, W, y, max_iter=2, scheme=s, **kw) for s in ("augmented", "penalty")]
    assert not np.array_equal(two[0].decision, two[1].decision)
    assert two[1].scheme == "penalty" and two[0].scheme == "augmented"
    # the penalty iteration's RKHS step at its last graph iterate G: the
    # kernel RLS fit of (eta Y_L + r G) with U = 0, checked by a direct solve
    res = graph_tv(K, W, y, max_iter=3, scheme="penalty", **kw)
    prev = graph_tv(K, W, y, max_iter=2, scheme="penalty", **kw)
    lab = y != -1
    Y1 = np.zeros((200, 4))
    Y1[lab, y[lab]] = 1.0
    D = np.diag(10.0 * lab + 1.0)
    alpha = np.linalg.solve(D @ K + 0.1 * np.eye(200), 10.0 * Y1 + prev.decision)
    np.testing.assert_allclose(res.alpha, alpha, rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError, match="scheme"):
        graph_tv(K, W, y, scheme="admm")


def test_tv_scheme_auto_keeps_the_penalty_iteration_when_it_settles():
    X, y, yt = _blobs4()
    est = TVRLS(safe=False).fit(X, y)
    assert est.result_.scheme == "penalty" and est.result_.converged
    assert est.result_.label_conflict <= 0.1
    assert np.mean(est.transduction_ != yt) <= 0.02
    # "auto" runs it with at most PENALTY_ROF_MAX_ITER = 20 ROF steps
    fixed = TVRLS(safe=False, scheme="penalty", rof_max_iter=20).fit(X, y)
    np.testing.assert_array_equal(fixed.result_.decision, est.result_.decision)
    with pytest.raises(ValueError, match="scheme"):
        TVRLS(scheme="admm").fit(X, y)


@pytest.mark.parametrize("what", ["budget", "share", "conflict"])
def test_tv_scheme_auto_falls_back_to_the_augmented_iteration(what, monkeypatch):
    # each of the three conditions on its failing side: not settled within
    # the budget, a class below the smallest share, labels contradicted
    import semisvm._tv_schemes as schemes
    X, y, _ = _blobs4()
    kw = {}
    if what == "budget":
        monkeypatch.setattr(schemes, "PENALTY_BUDGET", 2)
    elif what == "share":
        monkeypatch.setattr(schemes, "PENALTY_MIN_SHARE", 1.5)
    else:
        # one labeled row of class 0 relabeled 1: the kernel fit contradicts
        # it (1 of 20 labels), kept at conflict_tol=0.1, not at 0.04
        y = y.copy()
        y[np.flatnonzero(y == 0)[0]] = 1
        keep = _fit_quiet(TVRLS(safe=False), X, y)
        assert keep.result_.scheme == "penalty"
        assert keep.result_.label_conflict == pytest.approx(0.05)
        kw["conflict_tol"] = 0.04
    est = _fit_quiet(TVRLS(safe=False, **kw), X, y)
    aug = _fit_quiet(TVRLS(safe=False, scheme="augmented", **kw), X, y)
    assert est.result_.scheme == "augmented"
    np.testing.assert_array_equal(est.result_.decision, aug.result_.decision)


def test_tv_start_and_center():
    # two classes, normalised iteration: the iterate is centred at its
    # median ("median") or its mean ("mean", the paper's constraint); the
    # start changes the first iterate (one iteration gives another result)
    X, y, _, _ = _problem(80, 10)
    K = rbf_kernel(X, gamma=1.0)
    W = knn_affinity(X, 5)
    for center, stat in (("mean", np.mean), ("median", np.median)):
        res = graph_tv(K, W, y, normalize="sqrt", center=center, max_iter=5)
        assert abs(stat(res.decision)) < 1e-9
    one = {st: graph_tv(K, W, y, normalize="sqrt", start=st, max_iter=1).decision
           for st in ("zero", "spread")}
    assert not np.allclose(one["zero"], one["spread"])
    with pytest.raises(ValueError, match="start"):
        graph_tv(K, W, y, start="kernel")
    with pytest.raises(ValueError, match="center"):
        graph_tv(K, W, y, center="max")
    # the estimators pass them on (and refuse bad values)
    a = TVRLS(safe=False, center="median", start="spread").fit(X, y)
    assert abs(np.median(a.result_.decision)) < 1e-9
    with pytest.raises(ValueError, match="center"):
        TVRLS(safe=False, center="max").fit(X, y)


@pytest.mark.slow
@pytest.mark.parametrize("constant", [False, True])
def test_tv_spread_median_two_moons_1500(constant, monkeypatch):
    # make_moons(1500, noise=0.15), 3 labels per class (the moons bench's
    # draw 1): with the accelerated ROF steps the mean-centred iteration from
    # zero ends at a 78 / 22 cut (28% error, contradicting half the labels);
    # from label spreading, median-centred, at the class boundary. With the
    # constant steps (TVRLS's default) both reach the boundary here (1.1%)
    import semisvm._tv_solvers as ts
    monkeypatch.setattr(ts, "ROF_CONSTANT_LOSSES", ("squared",) if constant else ())
    X, yt = make_moons(1500, noise=0.15, random_state=0)
    rng = np.random.RandomState(1)
    y = np.full(1500, -1)
    for c in (0, 1):
        y[rng.choice(np.flatnonzero(yt == c), 3, replace=False)] = c
    unl = y == -1
    err = {}
    for st, ce in (("zero", "mean"), ("spread", "median")):
        est = TVRLS(safe=False, conflict_tol=None, start=st, center=ce).fit(X, y)
        err[st] = np.mean(est.transduction_[unl] != yt[unl])
    assert err["spread"] < 0.03
    assert err["zero"] < 0.03 if constant else err["zero"] > 0.2


def test_tv_auto_start_center_both_sides(monkeypatch):
    # shipped: "auto" is zero and the mean for both estimators at any
    # number of labels
    X, y, _, _ = _problem(60, 6)        # 3 labels per class
    X5, y5, _, _ = _problem(60, 8)      # 4 labels per class
    kw = dict(safe=False, conflict_tol=None)
    for Est in (TVRLS, TVSVM):
        a = Est(**kw).fit(X, y).result_.decision
        b = Est(start="zero", center="mean", **kw).fit(X, y).result_.decision
        assert np.array_equal(a, b)
    # the few-labels rule (measured, off: worse on the report part): with
    # it on, label spreading and the median with at most 3 labels of a
    # class (two classes, TVRLS), zero and the mean with more (and always
    # for TVSVM); the same bits as the explicit values on each side
    monkeypatch.setattr(TVRLS, "_few_labels_spread", True)
    for Est, (Xs, ys, st, ce) in ((TVRLS, (X, y, "spread", "median")),
                                  (TVSVM, (X, y, "zero", "mean")),
                                  (TVRLS, (X5, y5, "zero", "mean"))):
        kw = dict(safe=False, conflict_tol=None)
        a = Est(**kw).fit(Xs, ys).result_.decision
        b = Est(start=st, center=ce, **kw).fit(Xs, ys).result_.decision
        assert np.array_equal(a, b)
        if st == "spread":
            c = Est(start="zero", center="mean", **kw).fit(Xs, ys).result_.decision
            assert not np.array_equal(a, c)
    with pytest.raises(ValueError, match="start"):
        TVRLS(safe=False, start="kernel").fit(X, y)


def test_tv_check_folds_keep_the_fits_start_center(monkeypatch):
    # with the few-labels rule on, 5 labels per class: the fit starts from
    # zero, mean-centred; the check's held-out folds (2-3 labels of a
    # class, where the rule would switch) keep that choice
    import semisvm.graph_tv as gt
    monkeypatch.setattr(TVRLS, "_few_labels_spread", True)
    seen = []
    real = gt.graph_tv

    def spy(*a, **kw):
        if kw.get("normalize") is not None:
            seen.append((kw["start"], kw["center"]))
        return real(*a, **kw)

    monkeypatch.setattr(gt, "graph_tv", spy)
    X, y, _, _ = _problem(60, 10)
    est = TVRLS().fit(X, y)
    assert est.safe_check_ is not None and len(seen) >= 3
    assert set(seen) == {("zero", "mean")}


@pytest.mark.parametrize("losses", [(), ("squared",), ("hinge",),
                                    ("squared", "hinge")])
def test_rof_constant_steps_for_the_listed_two_class_losses(losses, monkeypatch):
    # the two-class TV iteration's ROF solves take the constant scalar
    # steps (accelerate=False, step_ratio=ROF_CONSTANT_RATIO) for the losses
    # in ROF_CONSTANT_LOSSES (TVRLS "squared", TVSVM "hinge"), the
    # accelerated ones for the others; the Cheeger and multi-class solves
    # keep the accelerated steps whatever the list
    import semisvm._tv_solvers as ts
    monkeypatch.setattr(ts, "ROF_CONSTANT_LOSSES", losses)
    seen = []
    real = ts.rof_pd_multi

    def spy(*args, **kw):
        seen.append((kw.get("accelerate", True), kw.get("step_ratio", 1.0)))
        return real(*args, **kw)
    monkeypatch.setattr(ts, "rof_pd_multi", spy)
    X, y, _, _ = _problem(n=80, n_lab=6, seed=2)
    X3, y3 = make_blobs(90, centers=3, random_state=0)
    y3 = np.where(np.arange(90) < 9, y3, -1)
    fits = [(TVRLS, X, y, "squared"), (TVSVM, X, y, "hinge"),
            (CheegerRLS, X, y, None), (CheegerSVM, X, y, None),
            (TVRLS, X3, y3, None), (TVSVM, X3, y3, None)]
    for Est, Xe, ye, loss in fits:
        seen.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            Est(safe=False, max_iter=8).fit(Xe, ye)
        constant = loss in losses
        assert seen and set(seen) == {(False, ts.ROF_CONSTANT_RATIO) if constant
                                      else (True, 1.0)}, (Est, loss)


def _classif4(per_class=5):
    # four classes of two clusters each in 20 dimensions (7 informative), 200
    # rows: the multi-class augmented iteration at r = 1 runs into max_iter
    # (its labels flipping back and forth), at 10 r it settles
    from sklearn.datasets import make_classification
    X, yt = make_classification(200, 20, n_informative=6, n_classes=4,
                                n_clusters_per_class=2, random_state=2)
    rng = np.random.default_rng(0)
    y = np.full(200, -1)
    for c in range(4):
        y[rng.choice(np.flatnonzero(yt == c), per_class, replace=False)] = c
    return X, y, yt


def test_augmented_retry_settles_where_the_first_solve_does_not(monkeypatch):
    import semisvm._tv_solvers as S
    X, y, yt = _classif4()
    unl = y == -1
    # without the retry (AUG_RETRY_R = 0): max_iter, warned
    monkeypatch.setattr(S, "AUG_RETRY_R", 0)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        before = TVRLS(safe=False, scheme="augmented").fit(X, y)
    assert before.result_.status == "max_iter" and before.n_iter_ == before.max_iter
    assert before.result_.penalty_r == 1.0 and before.result_.n_iter_retry == 0
    monkeypatch.setattr(S, "AUG_RETRY_R", 10.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = TVRLS(safe=False, scheme="augmented").fit(X, y)
        again = TVRLS(safe=False, scheme="augmented").fit(X, y)
    res = est.result_
    assert res.converged and res.status in ("converged", "labels_stable")
    assert res.n_iter < est.max_iter and res.n_iter_retry == est.max_iter
    assert res.penalty_r == 10.0
    # the same solve as a fit with r = 10 from the start
    direct = TVRLS(safe=False, scheme="augmented", r=10.0).fit(X, y)
    np.testing.assert_array_equal(est.result_.decision, direct.result_.decision)
    # it settled and labels better than the unsettled solve (55.5 -> 45.0 %)
    err = [np.mean(e.transduction_[unl] != yt[unl]) for e in (before, est)]
    assert err[1] < err[0] - 0.05
    # determinism: the same bits twice
    np.testing.assert_array_equal(again.result_.decision, res.decision)
    np.testing.assert_array_equal(again.transduction_, est.transduction_)


def test_augmented_retry_only_where_the_first_solve_runs_into_max_iter(monkeypatch):
    import semisvm._tv_solvers as S
    K_X, y, _ = _blobs4()
    # a solve that settles: no retry, the same bits as without it
    kw = dict(gamma=0.3, lam=0.1, eta=10.0, normalize="sqrt")
    base = graph_tv(rbf_kernel(K_X, gamma=0.1), knn_affinity(K_X, 8), y, **kw)
    assert base.converged and base.penalty_r == 1.0 and base.n_iter_retry == 0
    monkeypatch.setattr(S, "AUG_RETRY_R", 0)
    off = graph_tv(rbf_kernel(K_X, gamma=0.1), knn_affinity(K_X, 8), y, **kw)
    np.testing.assert_array_equal(base.decision, off.decision)
    assert base.n_iter == off.n_iter
    # a solve whose retry does not settle either (three classes of one
    # Gaussian in 2-D: the kernel cannot represent them at any r): the
    # first solve's result is kept, bit for bit
    X, y3, _ = _quantiles3()
    with pytest.warns(ConvergenceWarning):
        first = TVRLS(safe=False).fit(X, y3)
    monkeypatch.setattr(S, "AUG_RETRY_R", 10.0)
    with pytest.warns(ConvergenceWarning):
        kept = TVRLS(safe=False).fit(X, y3)
    assert kept.result_.status == "max_iter" and kept.result_.penalty_r == 1.0
    assert kept.result_.n_iter_retry == S.AUG_RETRY_MAX_ITER < kept.max_iter
    np.testing.assert_array_equal(kept.result_.decision, first.result_.decision)
    # the penalty scheme (no multiplier) is never retried
    pen = graph_tv(rbf_kernel(K_X, gamma=0.1), knn_affinity(K_X, 8), y,
                   max_iter=2, scheme="penalty", **kw)
    assert pen.status == "max_iter" and pen.n_iter_retry == 0 and pen.penalty_r == 1.0


def test_augmented_retry_off_where_asked():
    # graph_tv(_retry=False) (the check's budgeted folds and the folds of a
    # fit whose retry did not settle): no retry
    X, y, _ = _classif4()
    res = graph_tv(rbf_kernel(X, gamma=0.05), knn_affinity(X, 10), y, eta=10.0,
                   gamma=0.3, max_iter=5, _retry=False)
    assert res.status == "max_iter" and res.n_iter_retry == 0
    assert res.penalty_r == 1.0


def test_augmented_retry_has_its_own_budget(monkeypatch, caplog):
    # the retry runs at most AUG_RETRY_MAX_ITER iterations (the first
    # solve's max_iter if smaller): on _classif4 it settles in about 30, so
    # a budget of 20 leaves it unsettled (the first solve kept, bit for bit)
    # and the default (100) settles it; verbose logs the retry
    import logging

    import semisvm._tv_solvers as S
    X, y, _ = _classif4()
    assert S.AUG_RETRY_MAX_ITER == 100
    with caplog.at_level(logging.INFO, logger="semisvm"):
        est = TVRLS(safe=False, scheme="augmented", verbose=1).fit(X, y)
    assert est.result_.converged and 20 < est.n_iter_ <= S.AUG_RETRY_MAX_ITER
    assert est.result_.n_iter_retry == est.max_iter
    msgs = [r.getMessage() for r in caplog.records]
    assert any("retry at r = 10 (at most 100 iterations)" in m for m in msgs)
    assert any("the retry settled in" in m for m in msgs)
    monkeypatch.setattr(S, "AUG_RETRY_MAX_ITER", 20)
    with pytest.warns(ConvergenceWarning):
        short = TVRLS(safe=False, scheme="augmented").fit(X, y)
    assert short.result_.status == "max_iter" and short.result_.penalty_r == 1.0
    assert short.result_.n_iter_retry == 20 and short.n_iter_ == short.max_iter
    monkeypatch.setattr(S, "AUG_RETRY_R", 0)
    with pytest.warns(ConvergenceWarning):
        off = TVRLS(safe=False, scheme="augmented").fit(X, y)
    np.testing.assert_array_equal(short.result_.decision, off.result_.decision)
    # a max_iter below the retry's budget bounds the retry too
    monkeypatch.setattr(S, "AUG_RETRY_R", 10.0)
    monkeypatch.setattr(S, "AUG_RETRY_MAX_ITER", 100)
    with pytest.warns(ConvergenceWarning):
        low = TVRLS(safe=False, scheme="augmented", max_iter=7).fit(X, y)
    assert low.result_.n_iter_retry == 7


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_augmented_retry_tvsvm_and_float32_one_factor_held(dtype, monkeypatch):
    # TVSVM's retry (hinge loss: the exact path's Cholesky factor of
    # lam I + r K kept in the solve cache) settles as TVRLS's does, in X's
    # dtype, the same bits as r = 10 from the start; the first solve's factor
    # is dropped before the retry factors at 10 r (at most one n x n factor
    # alive, as the memory checks count)
    import weakref

    import semisvm._tv_solvers as S
    X, y, yt = _classif4()
    X = X.astype(dtype)
    alive, seen = weakref.WeakSet(), []
    real = S._Factor

    class Spy(real):
        def __init__(self, K, lam, r):
            seen.append((r, len(alive)))
            super().__init__(K, lam, r)
            alive.add(self)
    monkeypatch.setattr(S, "_Factor", Spy)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = TVSVM(safe=False, scheme="augmented").fit(X, y)
    res = est.result_
    assert est.mode_ == "exact"
    assert res.converged and res.penalty_r == 10.0 and res.n_iter_retry == est.max_iter
    assert res.decision.dtype == dtype and est.alpha_.dtype == dtype
    assert seen == [(1.0, 0), (10.0, 0)]
    direct = TVSVM(safe=False, scheme="augmented", r=10.0).fit(X, y)
    np.testing.assert_array_equal(res.decision, direct.result_.decision)
    # TVRLS in float32 too
    rls = TVRLS(safe=False, scheme="augmented").fit(X, y)
    assert rls.result_.converged and rls.result_.penalty_r == 10.0
    assert rls.result_.decision.dtype == dtype
    unl = y == -1
    assert np.mean(est.transduction_[unl] != yt[unl]) < 0.5


def test_check_folds_skip_the_retry_where_the_fits_retry_failed(monkeypatch):
    # the safe="auto" check's fold solves of a fit whose retry did not
    # settle (three classes of one Gaussian in 2-D) skip the retry; those of
    # a fit whose retry settled (_classif4) keep it
    import semisvm.graph_tv as gt
    Xq, yq, _ = _quantiles3(per_class=5)
    Xc, yc, _ = _classif4(per_class=6)
    seen = []
    f = gt.graph_tv

    def solve(*a, **k):
        res = f(*a, **k)
        seen.append((k.get("_retry"), k.get("gamma"), res))
        return res
    monkeypatch.setattr(gt, "graph_tv", solve)
    out = {}
    for name, X, y in (("failed", Xq, yq), ("settled", Xc, yc)):
        seen.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est = TVRLS(scheme="augmented").fit(X, y)
        assert est.safe_check_.startswith("two folds")
        out[name] = (est, list(seen))
    est, calls = out["failed"]
    fit_retry, _, first = calls[0]
    assert fit_retry and first.status == "max_iter" and first.n_iter_retry > 0
    folds = [(rt, res) for rt, g, res in calls[1:] if g and g > 0]
    assert folds and all(rt is False and res.n_iter_retry == 0 for rt, res in folds)
    est, calls = out["settled"]
    assert calls[0][0] and calls[0][2].converged and calls[0][2].penalty_r == 10.0
    folds = [rt for rt, g, _ in calls[1:] if g and g > 0]
    assert folds and all(folds)


def test_augmented_retry_on_the_nystroem_path_keeps_the_first_solve(monkeypatch):
    # the other side of the exact / low-rank switch: on the Nystroem path (no
    # n x n factor to drop) a retry that does not settle (three classes of
    # one Gaussian in 2-D) runs its own budget and leaves the first solve's
    # bits, as a fit without the retry
    import semisvm._tv_solvers as S
    X, y, _ = _quantiles3(300, per_class=5)
    made = []
    real = S._Factor

    class Spy(real):
        def __init__(self, K, lam, r):
            made.append(r)
            super().__init__(K, lam, r)
    monkeypatch.setattr(S, "_Factor", Spy)
    kw = dict(safe=False, scheme="augmented", n_components=60)
    with pytest.warns(ConvergenceWarning):
        est = TVSVM(**kw).fit(X, y)
    res = est.result_
    assert est.mode_ == "nystroem" and made == []
    assert res.status == "max_iter" and res.penalty_r == 1.0
    assert res.n_iter_retry == S.AUG_RETRY_MAX_ITER
    monkeypatch.setattr(S, "AUG_RETRY_R", 0)
    with pytest.warns(ConvergenceWarning):
        base = TVSVM(**kw).fit(X, y)
    assert base.result_.n_iter_retry == 0
    np.testing.assert_array_equal(base.result_.decision, res.decision)
    np.testing.assert_array_equal(base.transduction_, est.transduction_)


def _median_rbf_gamma_reference(X, random_state, n_max=1000):
    # the former form: six temporaries and the upper triangle's indices
    from sklearn.metrics.pairwise import pairwise_kernels
    n = X.shape[0]
    if n > n_max:
        rows = (np.linspace(0, n - 1, n_max).round().astype(np.intp)
                if random_state is None else
                np.random.RandomState(random_state).choice(n, n_max, replace=False))
        X = X[rows]
    D = pairwise_kernels(X, metric="linear", n_jobs=1)
    sq = np.diag(D)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2 * D, 0)
    iu = np.triu_indices(X.shape[0], 1)
    med = float(np.median(d2[iu])) if iu[0].size else 1.0
    return 1.0 / (2.0 * med) if med > 0 else 1.0


@pytest.mark.parametrize("n", [1, 2, 3, 8, 1000, 1001])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_median_rbf_gamma_same_bits_as_the_former_form(n, dtype):
    # d2 in two arrays (add.outer, then 2 D subtracted in place) and the
    # upper triangle by a mask: the same float, bit for bit, as before;
    # duplicated rows (zero distances), integer-valued rows (ties at the
    # median), sparse rows, a drawn subsample
    from semisvm._tv_setup import median_rbf_gamma
    rng = np.random.default_rng(n)
    X = (rng.standard_normal((n, 7)) * 30).astype(dtype)
    if n > 3:
        X[2] = X[0]
    for A in (X, np.round(X), sp.csr_matrix(np.where(np.abs(X) > 20, X, 0))):
        for rs in (None, 4):
            got = median_rbf_gamma(A, rs, n_max=1000 if n != 1001 else 999)
            ref = _median_rbf_gamma_reference(A, rs, n_max=1000 if n != 1001 else 999)
            assert type(got) is float and got == ref
    assert median_rbf_gamma(np.zeros((5, 2)), None) == 1.0     # all distances 0
