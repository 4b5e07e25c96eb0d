"""PUSVM / solvers.usmo: the double-hinge PU SVM trained by USMO."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import pairwise_kernels

from semisvm import PUSVM
from semisvm.pu import usmo

from .conftest import load_shared

PRIOR, LAM = 0.37, 0.05   # 2 * prior * n is not an integer: b is unique


def _pu_problem(seed=0, n=40, d=2, n_pos=8):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, d)
    X[: n // 3] += 1.5               # positives: the first third
    y = -np.ones(n)
    y[:n_pos] = 1                    # labeled positives, all others unlabeled
    return X, y


def _cvxpy_decision(X, y, prior, lam, kernel, gamma):
    """Independent reference: the primal objective over f = K a + b (cvxpy)."""
    cp = pytest.importorskip("cvxpy")
    K = pairwise_kernels(X, metric=kernel, gamma=gamma, filter_params=True)
    P, U = y == 1, y != 1
    L = np.linalg.cholesky(K + 1e-10 * np.eye(K.shape[0]))
    a, b = cp.Variable(K.shape[0]), cp.Variable()
    f = K @ a + b
    obj = (-prior / P.sum() * cp.sum(f[P])
           + cp.sum(cp.maximum(f[U], cp.maximum(0, 0.5 + 0.5 * f[U]))) / U.sum()
           + lam * cp.sum_squares(L.T @ a))
    prob = cp.Problem(cp.Minimize(obj))
    prob.solve(solver=cp.CLARABEL)
    return K @ a.value + b.value, prob.value


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_usmo_matches_cvxpy_primal(kernel):
    X, y = _pu_problem()
    res = usmo(X, y, prior=PRIOR, lam=LAM, kernel=kernel, gamma=0.5, tol=1e-9)
    f_ref, obj_ref = _cvxpy_decision(X, y, PRIOR, LAM, kernel, 0.5)
    assert res.converged
    # objective to 1e-6 relative, decision values to 1e-3 of their scale
    assert res.objective == pytest.approx(obj_ref, rel=1e-6, abs=1e-8)
    np.testing.assert_allclose(res.decision, f_ref, atol=1e-3 * np.abs(f_ref).max())


def test_usmo_duality_gap_and_equality_constraint():
    X, y = _pu_problem(seed=3, n=60)
    res = usmo(X, y, prior=PRIOR, lam=LAM, kernel="rbf", gamma=1.0, tol=1e-8)
    p = int((y == 1).sum())
    assert res.s.sum() == pytest.approx(res.c1 * p, rel=1e-12)
    assert np.all(res.s >= 0) and np.all(res.s <= res.c2)
    gap = res.objective - res.dual_objective
    assert -1e-12 <= gap <= 1e-6 * max(1.0, abs(res.objective))


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
def test_usmo_kkt_conditions_hold_at_exit(kernel):
    X, y = _pu_problem(seed=1, n=80)
    tol = 1e-4
    res = usmo(X, y, prior=PRIOR, lam=0.01, kernel=kernel, gamma=0.5, coef0=1.0, tol=tol)
    assert res.converged and res.violation <= tol
    f = res.decision[y != 1]
    s, c2, eps = res.s, res.c2, tol * (1 + 1e-9)
    half = c2 / 2
    # eq. (11): slope 0 -> f <= -1, between -> f = -1, kink -> |f| <= 1, ...
    assert np.all(f[s == 0] <= -1 + eps)
    assert np.all(np.abs(f[(s > 0) & (s < half)] + 1) <= eps)
    assert np.all(np.abs(f[s == half]) <= 1 + eps)
    assert np.all(np.abs(f[(s > half) & (s < c2)] - 1) <= eps)
    assert np.all(f[s == c2] >= 1 - eps)
    # the test is not vacuous: several groups are populated
    assert np.count_nonzero(s == 0) + np.count_nonzero(s == c2) > 0


def test_usmo_tiny_cache_equals_unlimited_cache():
    X, y = _pu_problem(seed=2, n=120)
    big = usmo(X, y, prior=PRIOR, lam=0.01, kernel="rbf", gamma=0.5, tol=1e-6,
               cache_size=1000)
    tiny = usmo(X, y, prior=PRIOR, lam=0.01, kernel="rbf", gamma=0.5, tol=1e-6,
                cache_size=1e-6)
    assert tiny.n_cache_columns == 2 and big.n_cache_columns == 112
    assert tiny.cache_misses > big.cache_misses      # evictions happened
    np.testing.assert_array_equal(tiny.s, big.s)
    np.testing.assert_array_equal(tiny.decision, big.decision)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_usmo_dense_equals_csr(kernel, container):
    X, y = _pu_problem(seed=4, n=50, d=5)
    X[np.abs(X) < 0.5] = 0.0
    ref = usmo(X, y, prior=PRIOR, lam=LAM, kernel=kernel, gamma=0.3, tol=1e-8)
    res = usmo(container(X), y, prior=PRIOR, lam=LAM, kernel=kernel, gamma=0.3, tol=1e-8)
    np.testing.assert_allclose(res.decision, ref.decision, rtol=1e-6, atol=1e-7)
    assert res.objective == pytest.approx(ref.objective, rel=1e-8)


def test_usmo_float32_close_to_float64(container):
    X, y = _pu_problem(seed=5, n=50, d=4)
    r64 = usmo(container(X), y, prior=PRIOR, lam=LAM, kernel="rbf", gamma=0.5, tol=1e-6)
    r32 = usmo(container(X.astype(np.float32)), y, prior=PRIOR, lam=LAM, kernel="rbf",
               gamma=0.5, tol=1e-6)
    assert r32.objective == pytest.approx(r64.objective, rel=1e-4)
    np.testing.assert_allclose(r32.decision, r64.decision, atol=1e-3)


def test_pusvm_is_deterministic():
    X, y = _pu_problem(seed=6, n=70)
    a = PUSVM(prior=PRIOR, lam=0.01).fit(X, y)
    b = PUSVM(prior=PRIOR, lam=0.01).fit(X, y)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    assert a.intercept_ == b.intercept_


@pytest.mark.parametrize("kernel", ["linear", "rbf", "poly"])
def test_pusvm_decision_function_matches_training_decision(kernel, container):
    X, y = _pu_problem(seed=7, n=60, d=3)
    clf = PUSVM(prior=PRIOR, lam=0.02, kernel=kernel, coef0=0.5,
                tol=1e-6).fit(container(X), y)
    np.testing.assert_allclose(clf.decision_function(container(X)),
                               clf.result_.decision, rtol=1e-7, atol=1e-7)


def test_pusvm_precomputed_equals_rbf():
    X, y = _pu_problem(seed=8, n=50)
    rbf = PUSVM(prior=PRIOR, lam=0.02, gamma=0.7, tol=1e-7).fit(X, y)
    K = pairwise_kernels(X, metric="rbf", gamma=0.7)
    pre = PUSVM(prior=PRIOR, lam=0.02, kernel="precomputed", tol=1e-7).fit(K, y)
    np.testing.assert_allclose(pre.decision_function(K), rbf.decision_function(X),
                               atol=1e-6)


def test_pusvm_gamma_none_is_scale():
    X, y = _pu_problem(seed=9, n=30, d=3)
    X = 3.0 * X
    clf = PUSVM(prior=PRIOR).fit(X, y)
    assert clf.gamma_ == pytest.approx(1.0 / (3 * X.var()))
    Xs = sp.csr_matrix(X)
    assert PUSVM(prior=PRIOR).fit(Xs, y).gamma_ == pytest.approx(clf.gamma_)


def test_pusvm_duplicate_points_converge():
    # identical rows make eta = 0 for their pairs
    X, y = _pu_problem(seed=10, n=30)
    X = np.vstack([X, X, X])
    y = np.concatenate([y, -np.ones(60)])
    clf = PUSVM(prior=PRIOR, lam=0.01, kernel="rbf", gamma=0.5,
                tol=1e-6).fit(X, y)
    assert clf.result_.converged and clf.result_.violation <= 1e-6


def test_pusvm_labels_and_attributes():
    X, y = _pu_problem(seed=11, n=60)
    y01 = np.where(y == 1, 1, 0)
    clf = PUSVM(prior=PRIOR, lam=0.01, kernel="linear").fit(X, y01)
    assert clf.classes_.tolist() == [0, 1]
    assert set(np.unique(clf.predict(X))) <= {0, 1}
    assert clf.n_support_[1] == 8 and clf.n_support_[0] == np.count_nonzero(
        clf.result_.s)
    assert clf.coef_.shape == (2,)
    np.testing.assert_allclose(clf.decision_function(X), X @ clf.coef_ +
                               clf.intercept_)
    assert clf.result_.n_pass > 0 and clf.result_.cache_misses == 0
    assert clf.transduction_.shape == (60,)


def test_pusvm_max_iter_warns():
    X, y = _pu_problem(seed=12, n=60)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        clf = PUSVM(prior=PRIOR, lam=1e-3, max_iter=2).fit(X, y)
    assert not clf.result_.converged and clf.n_iter_ == 2
    assert clf.result_.status == "max_iter"


@pytest.mark.parametrize("prior", [0.0, 1.0, -0.2, 1.5, float("nan")])
def test_pusvm_rejects_prior_outside_unit_interval(prior):
    X, y = _pu_problem()
    with pytest.raises(ValueError, match="prior"):
        PUSVM(prior=prior).fit(X, y)


def test_pusvm_prior_none_is_rejected_and_auto_is_the_default():
    X, y = _pu_problem()
    with pytest.raises(ValueError, match="prior is required"):
        PUSVM(prior=None).fit(X, y)
    assert PUSVM().prior == "auto"


@pytest.mark.parametrize("labels, match", [
    ("none_pos", "no labeled positive"),
    ("none_unl", "no unlabeled row"),
    ("other", "only 1"),
])
def test_usmo_rejects_bad_labels(labels, match):
    X, y = _pu_problem()
    if labels == "none_pos":
        y = -np.ones_like(y)
    elif labels == "none_unl":
        y = np.ones_like(y)
    else:
        y = y.copy()
        y[5] = 2
    with pytest.raises(ValueError, match=match):
        usmo(X, y, prior=PRIOR, lam=LAM)


@pytest.mark.parametrize("kwargs, match", [
    ({"lam": -1.0}, "lam"),
    ({"lam": 0.0}, "lam"),
    ({"kernel": "sigmoid"}, "kernel"),
    ({"gamma": -1.0}, "gamma"),
    ({"cache_size": 0}, "cache_size"),
    ({"tol": -1e-3}, "tol"),
    ({"degree": -1}, "degree"),
])
def test_usmo_rejects_bad_parameters(kwargs, match):
    X, y = _pu_problem()
    args = {"lam": LAM, **kwargs}
    lam = args.pop("lam")
    with pytest.raises(ValueError, match=match):
        usmo(X, y, prior=PRIOR, lam=lam, **args)


def test_usmo_rejects_nan_and_nonsquare_precomputed():
    X, y = _pu_problem()
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        usmo(Xn, y, prior=PRIOR, lam=LAM)
    with pytest.raises(ValueError, match="square"):
        usmo(X, y, prior=PRIOR, lam=LAM, kernel="precomputed")


def test_usmo_warm_start_is_checked_and_used():
    X, y = _pu_problem(seed=13, n=50)
    res = usmo(X, y, prior=PRIOR, lam=LAM, tol=1e-6)
    again = usmo(X, y, prior=PRIOR, lam=LAM, tol=1e-6, s0=res.s)
    assert again.n_iter <= 1
    with pytest.raises(ValueError, match="s0 must sum"):
        usmo(X, y, prior=PRIOR, lam=LAM, s0=res.s * 0.5)


def _pu_split(y01, prior, seed):
    """The paper's protocol: floor(N pi 0.2) positives labeled, the rest U."""
    rng = np.random.RandomState(seed)
    pos = rng.permutation(np.flatnonzero(y01 == 1))
    n_lab = int(np.floor(y01.shape[0] * prior * 0.2))
    y_pu = -np.ones(y01.shape[0], dtype=np.int64)
    y_pu[pos[:n_lab]] = 1
    return y_pu


@pytest.mark.parametrize("name, prior, min_acc", [
    ("australian", 0.56, 0.75),
    ("diabetes", 0.35, 0.72),
    ("ionosphere", 0.64, 0.75),
])
def test_pusvm_accuracy_on_usmo_data(name, prior, min_acc):
    """Transductive accuracy on U (scored correctly), three seeded splits.

    Measured (linear, lam = 1e-3, 5 splits): australian 0.79 (F1 0.79),
    diabetes 0.75 (F1 0.35; predicting the majority class gives 0.70; on
    some splits the PU risk's minimiser predicts almost no positive, which
    a cvxpy solve of the same objective confirms),
    ionosphere 0.81 (F1 0.84).
    """
    data = load_shared(name)
    X, y01 = np.ascontiguousarray(data["X"], dtype=np.float64), data["y"]
    accs, majority = [], []
    for seed in range(3):
        y_pu = _pu_split(y01, prior, seed)
        u = y_pu != 1
        # the prior among U (the protocol's U excludes the labeled positives)
        prior_u = y01[u].mean()
        clf = PUSVM(prior=prior_u, lam=1e-3, kernel="linear").fit(X, y_pu)
        pred = clf.predict(X[u]) == 1
        accs.append(np.mean(pred == (y01[u] == 1)))
        majority.append(max(prior_u, 1 - prior_u))
    assert np.mean(accs) >= min_acc
    assert np.mean(accs) >= np.mean(majority) + 0.02


@pytest.mark.parametrize("init", ["parzen", "ocsvm"])
def test_usmo_sparse_starts_reach_the_same_optimum(init):
    X, y = _pu_problem(seed=14, n=90)
    ref = usmo(X, y, prior=PRIOR, lam=0.01, gamma=0.5, tol=1e-8)
    res = usmo(X, y, prior=PRIOR, lam=0.01, gamma=0.5, tol=1e-8, init=init)
    assert res.converged
    assert res.objective == pytest.approx(ref.objective, rel=1e-7)
    np.testing.assert_allclose(res.decision, ref.decision, atol=1e-5)


def test_usmo_parzen_start_is_sparse_and_feasible():
    X, y = _pu_problem(seed=15, n=90)
    res = usmo(X, y, prior=PRIOR, lam=0.01, gamma=0.5, max_iter=0, init="parzen")
    s, c2 = res.s, res.c2
    assert res.n_iter == 0
    assert np.count_nonzero((s > 0) & (s < c2)) <= 1
    assert s.sum() == pytest.approx(res.c1 * 8, rel=1e-12)


def test_usmo_rejects_unknown_init():
    X, y = _pu_problem()
    with pytest.raises(ValueError, match="init"):
        usmo(X, y, prior=PRIOR, lam=LAM, init="random")


def test_usmo_linear_solver_matches_cvxpy_and_kernel_solver(container, dtype):
    X, y = _pu_problem(seed=16, n=60, d=4)
    X[np.abs(X) < 0.4] = 0.0
    f_ref, obj_ref = _cvxpy_decision(X, y, PRIOR, LAM, "linear", None)
    lin = usmo(container(X.astype(dtype)), y, prior=PRIOR, lam=LAM, kernel="linear",
               solver="linear", tol=1e-9)
    ker = usmo(X, y, prior=PRIOR, lam=LAM, kernel="linear", solver="kernel", tol=1e-9)
    assert lin.converged and lin.n_pass > 0 and lin.cache_misses == 0
    rel = 1e-6 if dtype == np.float64 else 1e-4
    assert lin.objective == pytest.approx(obj_ref, rel=rel, abs=1e-8)
    assert lin.objective == pytest.approx(ker.objective, rel=rel)
    scale = np.abs(f_ref).max()
    np.testing.assert_allclose(lin.decision, f_ref, atol=1e-3 * scale)
    np.testing.assert_allclose(lin.coef, ker.coef, atol=1e-3 * scale)


def test_usmo_linear_solver_kkt_and_max_iter():
    X, y = _pu_problem(seed=17, n=200, d=5)
    res = usmo(X, y, prior=PRIOR, lam=1e-3, kernel="linear", tol=1e-5)
    assert res.converged and res.violation <= 1e-5
    np.testing.assert_allclose(res.decision, X @ res.coef + res.intercept,
                               atol=1e-10)
    assert res.s.sum() == pytest.approx(res.c1 * 8, rel=1e-12)
    short = usmo(X, y, prior=PRIOR, lam=1e-3, kernel="linear", max_iter=3)
    assert short.status == "max_iter" and short.n_iter == 3
    with pytest.raises(ValueError, match="solver='linear' needs"):
        usmo(X, y, prior=PRIOR, lam=1e-3, kernel="rbf", solver="linear")


@pytest.mark.parametrize("solver", ["kernel", "linear"])
def test_usmo_csr_int64_unsorted_and_empty_rows(solver):
    X, y = _pu_problem(seed=18, n=50, d=6)
    X[np.abs(X) < 0.6] = 0.0
    X[10] = 0.0                                   # an empty unlabeled row
    ref = usmo(X, y, prior=PRIOR, lam=LAM, kernel="linear", solver=solver, tol=1e-8)
    A = sp.csr_matrix(X)
    # reverse the column order inside every row and use int64 indices
    for r in range(A.shape[0]):
        sl = slice(A.indptr[r], A.indptr[r + 1])
        A.indices[sl] = A.indices[sl][::-1].copy()
        A.data[sl] = A.data[sl][::-1].copy()
    A.has_sorted_indices = False
    A.indices = A.indices.astype(np.int64)
    A.indptr = A.indptr.astype(np.int64)
    res = usmo(A, y, prior=PRIOR, lam=LAM, kernel="linear", solver=solver, tol=1e-8)
    np.testing.assert_allclose(res.decision, ref.decision, rtol=1e-9, atol=1e-9)


def test_pusvm_two_threads_give_the_serial_result():
    from concurrent.futures import ThreadPoolExecutor

    X, y = _pu_problem(seed=19, n=150)
    serial = PUSVM(prior=PRIOR, lam=1e-3).fit(X, y).dual_coef_
    with ThreadPoolExecutor(2) as ex:
        fits = list(ex.map(lambda _: PUSVM(prior=PRIOR, lam=1e-3).fit(X, y),
                           range(2)))
    for clf in fits:
        np.testing.assert_array_equal(clf.dual_coef_, serial)


def test_pusvm_verbose_logs_a_summary(caplog):
    X, y = _pu_problem(seed=20, n=40)
    with caplog.at_level("INFO", logger="semisvm"):
        PUSVM(prior=PRIOR, lam=0.01, verbose=1).fit(X, y)
    assert any("USMO optimal" in r.getMessage() for r in caplog.records)


# ---- shrinking, gamma="scale", prior="auto", the PU scorer ----

@pytest.mark.parametrize("seed", range(6))
def test_usmo_shrinking_keeps_the_unshrunk_optimum(seed):
    rng = np.random.RandomState(seed)
    n = 300
    X = rng.randn(n, 3)
    X[: n // 3] += 1.0
    y = -np.ones(n)
    y[rng.choice(n // 3, 30, replace=False)] = 1
    kw = dict(prior=0.3, lam=[1e-3, 1e-2, 1e-1][seed % 3], kernel="rbf",
              gamma=0.7, tol=1e-9, init=["uniform", "parzen"][seed % 2],
              cache_size=[200, 0.05][seed % 2])
    ref = usmo(X, y, shrinking=False, **kw)
    res = usmo(X, y, shrinking=True, **kw)
    assert ref.converged and res.converged
    assert res.objective == pytest.approx(ref.objective, rel=1e-8)
    assert res.violation <= 1e-9
    np.testing.assert_allclose(res.decision, ref.decision, atol=1e-6)


def test_usmo_shrinking_stops_on_the_whole_set_at_max_iter():
    X, y = _pu_problem(seed=7, n=200)
    res = usmo(X, y, prior=PRIOR, lam=1e-3, gamma=0.5, max_iter=300, tol=1e-12,
               shrinking=True)
    assert res.status == "max_iter"
    # F is exact on every variable at exit (also the shrunk ones): the
    # decision values equal those recomputed from the dual coefficients
    K = pairwise_kernels(X, metric="rbf", gamma=0.5)
    f = K @ res.dual_coef + res.intercept
    np.testing.assert_allclose(res.decision, f, atol=1e-8)


@pytest.mark.parametrize("scale", [1e-3, 7.0, 1e4])
def test_pusvm_default_gamma_follows_the_scale_of_x(scale):
    X, y = _pu_problem(seed=8, n=80, d=3)
    ref = PUSVM(prior=PRIOR, tol=1e-8).fit(X, y)
    res = PUSVM(prior=PRIOR, tol=1e-8).fit(X * scale, y)
    assert PUSVM().gamma == "scale"
    assert res.gamma_ == pytest.approx(ref.gamma_ / scale**2, rel=1e-12)
    np.testing.assert_allclose(res.result_.decision, ref.result_.decision,
                               atol=1e-6)
    np.testing.assert_array_equal(res.predict(X * scale), ref.predict(X))


def test_pu_score_recovers_the_error_on_unlabeled_rows():
    # 1-D Gaussians N(+1, 1) (positives) and N(-1, 1); f(x) = x; SCAR labels
    from scipy.stats import norm

    from semisvm.pu import pu_score

    rng = np.random.RandomState(0)
    n_pos, n_neg, prior = 60000, 140000, 0.3
    x = np.r_[rng.randn(n_pos) + 1, rng.randn(n_neg) - 1][:, None]
    y = -np.ones(n_pos + n_neg)
    y[rng.choice(n_pos, n_pos // 4, replace=False)] = 1
    truth = np.r_[np.ones(n_pos), np.zeros(n_neg)]
    U = y != 1
    pi_u = truth[U].mean()

    class Thresh:
        prior_ = pi_u

        def decision_function(self, X):
            return X[:, 0]

    err_true = np.mean((x[U, 0] > 0) != (truth[U] == 1))
    exact = pi_u * norm.cdf(-1) + (1 - pi_u) * norm.cdf(-1)
    score = pu_score(Thresh(), x, y)
    assert -score == pytest.approx(err_true, abs=0.01)
    assert -score == pytest.approx(exact, abs=0.01)
    assert prior == pytest.approx(n_pos / (n_pos + n_neg))


def test_pu_score_in_grid_search_with_default_grid():
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    from semisvm.pu import default_param_grid, pu_score

    X, y = _pu_problem(seed=9, n=120)
    grid = default_param_grid(X)
    assert grid["lam"] == [1e-4, 1e-3, 1e-2, 1e-1] and len(grid["gamma"]) == 3
    gs = GridSearchCV(PUSVM(prior=PRIOR), grid, scoring=pu_score,
                      cv=StratifiedKFold(3)).fit(X, y)
    assert gs.best_params_["lam"] in grid["lam"]
    assert np.isfinite(gs.best_score_)
    with pytest.raises(ValueError, match="no labeled positive"):
        pu_score(gs.best_estimator_, X[y != 1], y[y != 1])


@pytest.mark.parametrize("prior", [0.2, 0.5])
def test_estimate_prior_on_separated_classes(prior):
    from semisvm.pu import estimate_prior

    rng = np.random.RandomState(1)
    n_u = 1000
    n_pos_u = int(prior * n_u)
    n_lab = 200
    X = np.r_[rng.randn(n_lab + n_pos_u, 4) + 2.5,
              rng.randn(n_u - n_pos_u, 4) - 2.5]
    y = -np.ones(X.shape[0])
    y[:n_lab] = 1
    est = estimate_prior(X, y)
    assert est == pytest.approx(prior, abs=0.05)
    m = PUSVM().fit(X, y)
    assert m.prior_ == est
    with pytest.raises(ValueError, match="n_splits"):
        estimate_prior(X[:n_lab + 3], y[:n_lab + 3])
