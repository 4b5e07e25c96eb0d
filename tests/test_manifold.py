"""LapSVM / LapRLS: solvers against independent references, estimators, data."""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from _reference import ssl01
from scipy.optimize import minimize
from sklearn.datasets import load_digits, make_blobs, make_moons
from sklearn.exceptions import ConvergenceWarning

from semisvm import LapRLS, LapSVM
from semisvm.graph import graph_laplacian
from semisvm.kernels import kernel_matrix
from semisvm.manifold import _lapsvm_multi, lapsvm_primal


def _problem(n=40, n_lab=10, seed=0, normalized=True, dtype=np.float64):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, 3)
    K = kernel_matrix(X.astype(dtype), gamma=0.3)
    L = graph_laplacian(X.astype(dtype), n_neighbors=5, normalized=normalized)
    y = np.zeros(n)
    y[:n_lab] = np.where(X[:n_lab, 0] + 0.1 * rng.randn(n_lab) > 0, 1.0, -1.0)
    return X, K, L, y


def _reference(K, L, y, gA, gI, fit_b, hinge=True):
    """scipy BFGS on the same objective in (alpha, b), with its gradient."""
    K = K.astype(float)
    L = L.toarray().astype(float)
    n = K.shape[0]
    lab = y != 0

    def F(z):
        a, b = z[:n], (z[n] if fit_b else 0.0)
        f = K @ a + b
        r = np.where(lab, f - y, 0.0)
        if hinge:
            r = np.where(y * f < 1, r, 0.0)
        Lf = L @ f
        g = gA * a + r + gI * Lf
        gb = (r + gI * Lf).sum() if fit_b else 0.0
        return 0.5 * (r @ r + gA * a @ K @ a + gI * f @ Lf), np.r_[K @ g, gb]

    res = minimize(F, np.zeros(n + 1), jac=True, method="BFGS",
                   options={"maxiter": 20000, "gtol": 1e-12})
    return res.fun, res.x


# ---------------------------------------------------------------------------
# solvers

@pytest.mark.parametrize("solver", ["newton", "pcg"])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("normalized", [True, False])
def test_lapsvm_objective_matches_scipy(solver, fit_intercept, normalized, seed):
    _, K, L, y = _problem(seed=seed, normalized=normalized)
    ref, _ = _reference(K, L, y, 1e-2, 0.5, fit_intercept)
    res = lapsvm_primal(K, L, ssl01(y), gamma_A=1e-2, gamma_I=0.5, solver=solver,
                        stop="none", fit_intercept=fit_intercept)
    assert res.converged and res.status in ("optimal", "tol")
    # objective agreement, 1e-6 relative
    assert abs(res.objective - ref) <= 1e-6 * abs(ref)
    # the reported objective is the objective of the returned point
    f = K @ res.alpha + res.intercept
    np.testing.assert_allclose(res.decision, f, rtol=1e-8, atol=1e-10)


def test_newton_terminates_finitely_and_pcg_history_decreases():
    _, K, L, y = _problem(n=60, n_lab=20, seed=3)
    res = lapsvm_primal(K, L, ssl01(y), gamma_A=1e-3, gamma_I=0.1, solver="newton")
    assert res.status == "optimal" and res.n_iter < 10
    # the error-vector set at the solution is the one the last step solved on
    assert res.error_set_history[-1] == res.n_error_vectors
    pcg = lapsvm_primal(K, L, ssl01(y), gamma_A=1e-3, gamma_I=0.1, solver="pcg", stop="none")
    assert np.all(np.diff(pcg.history) <= 1e-12 * abs(pcg.history[0]))
    assert pcg.objective == pytest.approx(res.objective, rel=1e-6)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_laprls_matches_closed_form(fit_intercept):
    _, K, L, y = _problem(seed=1)
    gA, gI = 1e-2, 0.3
    n = K.shape[0]
    Ld = L.toarray()
    J = np.diag((y != 0).astype(float))
    one = np.ones(n)
    # normal equations of the quadratic in z = (alpha, b) (symmetric form)
    H = K @ J @ K + gA * K + gI * K @ Ld @ K
    r = K @ J @ y
    if fit_intercept:
        c = K @ (J @ one + gI * Ld @ one)
        H = np.block([[H, c[:, None]],
                      [c[None], np.array([[one @ J @ one + gI * one @ Ld @ one]])]])
        r = np.r_[r, one @ J @ y]
    z = np.linalg.lstsq(H, r, rcond=None)[0]
    f_ref = K @ z[:n] + (z[n] if fit_intercept else 0.0)
    for solver, kw in (("closed", {}), ("pcg", {"stop": "none"})):
        res = lapsvm_primal(K, L, ssl01(y), gamma_A=gA, gamma_I=gI, loss="squared",
                            solver=solver, fit_intercept=fit_intercept, **kw)
        np.testing.assert_allclose(res.decision, f_ref, rtol=1e-6, atol=1e-7)
    ref, _ = _reference(K, L, y, gA, gI, fit_intercept, hinge=False)
    assert res.objective == pytest.approx(ref, rel=1e-6)


def test_gamma_I_zero_is_supervised_kernel_svm():
    X, K, L, y = _problem(seed=2)
    lab = np.flatnonzero(y)
    Kl = K[np.ix_(lab, lab)]
    yl = y[lab]
    gA = 1e-2

    def F(z):  # supervised squared-hinge kernel SVM on the labeled rows only
        a, b = z[:-1], z[-1]
        f = Kl @ a + b
        r = np.where(yl * f < 1, f - yl, 0.0)
        return 0.5 * (r @ r + gA * a @ Kl @ a), np.r_[Kl @ (r + gA * a), r.sum()]

    z = minimize(F, np.zeros(lab.size + 1), jac=True, method="BFGS",
                 options={"gtol": 1e-12, "maxiter": 10000}).x
    f_ref = K[:, lab] @ z[:-1] + z[-1]
    for solver in ("newton", "pcg"):
        res = lapsvm_primal(K, L, ssl01(y), gamma_A=gA, gamma_I=0.0, solver=solver,
                            stop="none")
        np.testing.assert_allclose(res.decision, f_ref, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.delete(res.alpha, lab), 0, atol=1e-6)


def test_float32_close_to_float64():
    _, K, L, y = _problem(seed=0)
    r64 = lapsvm_primal(K, L, ssl01(y), gamma_A=1e-2, gamma_I=0.5, solver="pcg", stop="none")
    r32 = lapsvm_primal(K.astype(np.float32), L.astype(np.float32), ssl01(y),
                        gamma_A=1e-2, gamma_I=0.5, solver="pcg", stop="pnorm",
                        tol=1e-4)
    assert r32.alpha.dtype == np.float32
    assert r32.objective == pytest.approx(r64.objective, rel=1e-4)
    n32 = lapsvm_primal(K.astype(np.float32), L.astype(np.float32), ssl01(y),
                        gamma_A=1e-2, gamma_I=0.5, solver="newton")
    assert n32.objective == pytest.approx(r64.objective, rel=1e-4)


@pytest.mark.parametrize("stop", ["gradient", "pgradient", "pnorm", "objective"])
def test_classical_rules_stop_with_tol_status(stop):
    _, K, L, y = _problem(n=80, n_lab=20)
    res = lapsvm_primal(K, L, ssl01(y), gamma_A=1e-3, gamma_I=0.5, stop=stop)
    ref = lapsvm_primal(K, L, ssl01(y), gamma_A=1e-3, gamma_I=0.5, solver="newton")
    assert res.status in ("tol", "optimal") and res.converged
    # the objective-decrease rule is the loosest one (it stops on a plateau)
    rel = 1e-2 if stop == "objective" else 1e-4
    assert res.objective == pytest.approx(ref.objective, rel=rel)
    assert res.objective >= ref.objective * (1 - 1e-9)


def test_validation_rule_records_errors():
    X, K, L, y = _problem(n=80, n_lab=20)
    Xv = np.random.RandomState(9).randn(30, 3)
    Kv = kernel_matrix(Xv, X, gamma=0.3)
    yv = np.where(Xv[:, 0] > 0, 1.0, -1.0)
    res = lapsvm_primal(K, L, ssl01(y), gamma_A=1e-3, gamma_I=0.5, stop="validation",
                        K_val=Kv, y_val=yv, check_every=2)
    assert res.status == "validation" and res.val_history.size >= 1
    assert np.all((res.val_history >= 0) & (res.val_history <= 1))
    with pytest.raises(ValueError, match="needs K_val and y_val"):
        lapsvm_primal(K, L, ssl01(y), stop="mixed")


@pytest.mark.parametrize("stop", ["stability", "none"])
def test_lockstep_multi_problem_pcg_equals_separate_runs(stop):

    X, K, L, y = _problem(n=80, n_lab=30)
    lab = y != 0
    ys = [y, np.where(lab, np.where(X[:, 1] > 0, 1.0, -1.0), 0.0),
          np.where(lab, np.where(X[:, 2] > 0.3, 1.0, -1.0), 0.0)]
    kw = dict(gamma_A=1e-3, gamma_I=0.5, loss="squared_hinge", solver="pcg",
              fit_intercept=True, stop=stop, tol=None, max_iter=None,
              check_every=3, eta=0.015)
    multi = _lapsvm_multi(K, L, [ssl01(v) for v in ys], **kw)
    for yj, rm in zip(ys, multi, strict=True):
        r1 = _lapsvm_multi(K, L, [ssl01(v) for v in [yj]], **kw)[0]
        assert rm.n_iter == r1.n_iter and rm.status == r1.status
        np.testing.assert_allclose(rm.alpha, r1.alpha, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("gamma_I", [0.0, 0.5])
@pytest.mark.parametrize("loss", ["squared_hinge", "squared"])
def test_multi_problem_newton_equals_separate_runs(loss, gamma_I, fit_intercept):
    # the one-vs-rest problems share one factorisation for the first Newton
    # step (LapRLS: the solution); each must still equal its own run

    X, K, L, y = _problem(n=60, n_lab=24)
    lab = y != 0
    ys = [y, np.where(lab, np.where(X[:, 1] > 0, 1.0, -1.0), 0.0),
          np.where(lab, np.where(X[:, 2] > 0.3, 1.0, -1.0), 0.0)]
    solver = "closed" if loss == "squared" else "newton"
    kw = dict(gamma_A=1e-3, gamma_I=gamma_I, loss=loss, solver=solver,
              fit_intercept=fit_intercept, stop="stability", tol=None,
              max_iter=None, check_every=None, eta=0.015)
    multi = _lapsvm_multi(K, L, [ssl01(v) for v in ys], **kw)
    for yj, rm in zip(ys, multi, strict=True):
        r1 = lapsvm_primal(K, L, ssl01(yj), **{k: v for k, v in kw.items()
                                        if k != "fit_intercept"},
                           fit_intercept=fit_intercept)
        assert rm.n_iter == r1.n_iter and rm.status == r1.status == "optimal"
        np.testing.assert_allclose(rm.alpha, r1.alpha, rtol=1e-8, atol=1e-10)
        assert abs(rm.intercept - r1.intercept) < 1e-10
        ref, _ = _reference(K, L, yj, 1e-3, gamma_I, fit_intercept,
                            hinge=loss == "squared_hinge")
        assert abs(rm.objective - ref) <= 1e-6 * abs(ref)


def test_max_iter_is_reported():
    _, K, L, y = _problem(n=80, n_lab=20)
    res = lapsvm_primal(K, L, ssl01(y), gamma_A=1e-4, gamma_I=0.5, stop="none", max_iter=2)
    assert res.status == "max_iter" and not res.converged and res.n_iter == 2


def test_solver_input_errors():
    _, K, L, y = _problem()
    with pytest.raises(ValueError, match="no labeled rows"):
        lapsvm_primal(K, L, ssl01(np.zeros_like(y)))
    with pytest.raises(ValueError, match="square"):
        lapsvm_primal(K[:, :-1], L, ssl01(y))
    with pytest.raises(ValueError, match=r"L must have shape"):
        lapsvm_primal(K, L[:-1, :-1], ssl01(y))
    with pytest.raises(ValueError, match="symmetric"):
        lapsvm_primal(K, sp.triu(L).tocsr(), ssl01(y))
    with pytest.raises(ValueError, match="gamma_A"):
        lapsvm_primal(K, L, ssl01(y), gamma_A=0.0)
    with pytest.raises(ValueError, match="stop must be one of"):
        lapsvm_primal(K, L, ssl01(y), stop="patience")
    with pytest.raises(ValueError, match="closed"):
        lapsvm_primal(K, L, ssl01(y), solver="closed")
    with pytest.raises(ValueError, match=r"only 1, 0 \(labeled"):
        lapsvm_primal(K, L, ssl01(y) * 2)
    Kn = K.copy()
    Kn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        lapsvm_primal(Kn, L, ssl01(y))


# ---------------------------------------------------------------------------
# estimators

def _moons(seed, n=400, noise=0.1):
    X, y = make_moons(n, noise=noise, random_state=seed)
    rng = np.random.RandomState(seed)
    yl = np.full_like(y, -1)
    for c in (0, 1):
        yl[rng.choice(np.flatnonzero(y == c))] = c
    return X, y, yl


@pytest.mark.parametrize("Est", [LapSVM, LapRLS])
def test_two_moons_one_label_per_class_defaults(Est):
    errs, test_errs = [], []
    for seed in range(4):
        X, y, yl = _moons(seed)
        clf = Est().fit(X, yl)
        errs.append(np.mean(clf.transduction_ != y))
        Xt, yt = make_moons(200, noise=0.1, random_state=100 + seed)
        test_errs.append(1 - clf.score(Xt, yt))
    assert np.mean(errs) < 0.05 and np.mean(test_errs) < 0.05
    # the manifold term is what helps: a supervised fit (gamma_I = 0) does worse
    sup = LapSVM(gamma_I=0.0).fit(X, yl)
    assert np.mean(sup.transduction_ != y) > errs[-1]


def test_auto_power_follows_intrinsic_dimension():
    # two moons (dimension ~2): p = 1; digits (~7): the iterated p = 2
    X, y, yl = _moons(0)
    assert LapSVM().fit(X, yl).p_ == 1
    Xd, yd, yld = _digits_split(n=300, n_lab_per_class=2)
    clf = LapSVM().fit(Xd, yld)
    assert clf.p_ == 2 and clf.intrinsic_dim_ > 4
    assert LapSVM(p=1).fit(Xd, yld).p_ == 1
    from semisvm.graph import knn_affinity
    assert LapSVM().fit(Xd, yld, affinity=knn_affinity(Xd, 5)).p_ == 1


def test_default_eta_is_a_rate_per_iteration():
    # eta=None: min(0.015, 3e-4 * check period); n = 400 -> period 10, 0.003
    X, y, yl = _moons(0)
    a = LapSVM().fit(X, yl)
    b = LapSVM(eta=0.003).fit(X, yl)
    c = LapSVM(eta=0.015).fit(X, yl)
    assert a.n_iter_ == b.n_iter_ and a.n_iter_ > c.n_iter_
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)


def _demo_task(seed):
    # the `semisvm demo` task: digits 2,3,5 vs 6,8,9, 20 labels, 1/3 test
    from semisvm.cli import _demo_splits

    X, y, lab, Xt, yt = _demo_splits(20, seed, 1)[0]
    yl = np.full_like(y, -1)
    yl[lab] = y[lab]
    return X, y, yl, Xt, yt


@pytest.mark.parametrize("Est", [LapSVM, LapRLS])
def test_defaults_beat_supervised_on_demo_digits(Est):
    from semisvm import LinearSVM

    err, sup = [], []
    for seed in (0, 1):
        X, y, yl, Xt, yt = _demo_task(seed)
        err.append(np.mean(Est().fit(X, yl).predict(Xt) != yt))
        lab = yl != -1
        sup.append(np.mean(LinearSVM(lam=1e-2).fit(X[lab], y[lab]).predict(Xt) != yt))
    # measured: LapSVM 5.3 %, LapRLS 4.6 %, linear SVM 13.5 % (p = 1: 19 %)
    assert np.mean(err) < 0.08 and np.mean(err) < np.mean(sup) - 0.04


def test_newton_and_pcg_estimators_agree_and_expose_result():
    X, y, yl = _moons(0, n=200)
    a = LapSVM(solver="newton").fit(X, yl)
    b = LapSVM(solver="pcg", stop="none").fit(X, yl)
    assert a.result_.objective == pytest.approx(b.result_.objective, rel=1e-6)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X),
                               atol=1e-4)
    assert a.transduction_.shape == y.shape and set(a.transduction_) <= {0, 1}
    assert a.n_iter_ == a.result_.n_iter


def test_multiclass_one_vs_rest_and_string_free_labels():
    X, y = make_blobs(150, centers=3, cluster_std=0.6, random_state=0)
    yl = np.full_like(y, -1)
    for c in range(3):
        yl[np.flatnonzero(y == c)[:2]] = c
    clf = LapSVM().fit(X, yl)
    assert clf.dual_coef_.shape == (3, 150) and len(clf.result_) == 3
    assert clf.decision_function(X[:5]).shape == (5, 3)
    assert np.mean(clf.transduction_ == y) > 0.95
    assert np.mean(clf.predict(X) == y) > 0.95


def test_precomputed_kernel_equals_rbf():
    X, y, yl = _moons(1, n=150)
    gamma = 2.0
    from semisvm.graph import knn_affinity
    W = knn_affinity(X, 10)  # the default graph on a precomputed kernel differs
    a = LapSVM(gamma=gamma, solver="newton").fit(X, yl, affinity=W)
    K = kernel_matrix(X, gamma=gamma)
    b = LapSVM(kernel="precomputed", solver="newton").fit(K, yl, affinity=W)
    # without an affinity the graph is built on kernel-induced distances
    c = LapSVM(kernel="precomputed").fit(K, yl)
    assert abs(np.mean(c.transduction_ == y) - np.mean(a.transduction_ == y)) < 0.05
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(K),
                               atol=1e-6)
    with pytest.raises(ValueError, match="square"):
        LapSVM(kernel="precomputed").fit(K[:, :-1], yl)
    with pytest.raises(ValueError, match="149 features"):
        b.predict(K[:, :-1])


def test_sparse_equals_dense_and_user_affinity():
    X, y, yl = _moons(2, n=150)
    a = LapSVM(solver="newton").fit(X, yl)
    b = LapSVM(solver="newton").fit(sp.csr_matrix(X), yl)
    np.testing.assert_allclose(a.decision_function(X),
                               b.decision_function(sp.csr_matrix(X)), atol=1e-8)
    from semisvm.graph import knn_affinity
    W = knn_affinity(X, 10)
    c = LapSVM(solver="newton").fit(X, yl, affinity=W)
    np.testing.assert_allclose(a.decision_function(X), c.decision_function(X),
                               atol=1e-8)
    with pytest.raises(ValueError, match="affinity must have shape"):
        LapSVM().fit(X, yl, affinity=W[:10, :10])


def test_fit_intercept_false_has_zero_intercept():
    X, y, yl = _moons(3, n=150)
    clf = LapRLS(fit_intercept=False).fit(X, yl)
    np.testing.assert_array_equal(clf.intercept_, 0)


def test_estimator_validation_stop():
    X, y, yl = _moons(4, n=300)
    Xv, yv = make_moons(40, noise=0.1, random_state=7)
    clf = LapSVM(stop="validation").fit(X, yl, X_val=Xv, y_val=yv)
    assert clf.result_.status in ("validation", "optimal", "tol")
    assert clf.score(X, y) > 0.9


def test_estimator_convergence_warning():
    X, y, yl = _moons(0, n=100)
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        LapSVM(stop="none", max_iter=1).fit(X, yl)


def test_estimator_input_errors():
    X, y, yl = _moons(0, n=50)
    with pytest.raises(ValueError, match="no labeled sample"):
        LapSVM().fit(X, np.full_like(y, -1))
    with pytest.raises(ValueError, match="at least 2"):
        LapSVM().fit(X, np.where(yl == 1, -1, yl))
    Xn = X.copy()
    Xn[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        LapSVM().fit(Xn, yl)
    with pytest.raises(ValueError, match="n_neighbors=60 must be smaller"):
        LapSVM(n_neighbors=60).fit(X, yl)
    with pytest.raises(ValueError, match="kernel must be one of"):
        LapSVM(kernel="sigmoid").fit(X, yl)
    with pytest.raises(ValueError, match="solver must be"):
        LapSVM(solver="smo").fit(X, yl)
    with pytest.raises(ValueError, match="X_val=..., y_val=..."):
        LapSVM(stop="validation").fit(X, yl)


def _digits_split(seed=0, n_lab_per_class=5, n=600):
    X, y = load_digits(return_X_y=True)
    X, y = X[:n] / 16.0, y[:n]
    rng = np.random.RandomState(seed)
    yl = np.full_like(y, -1)
    for c in range(10):
        yl[rng.choice(np.flatnonzero(y == c), n_lab_per_class, replace=False)] = c
    return X, y, yl


@pytest.mark.slow
def test_early_stopped_pcg_within_one_point_of_converged_on_digits():
    X, y, yl = _digits_split()
    unl = yl == -1
    conv = LapSVM(solver="newton").fit(X, yl)
    early = LapSVM(solver="pcg", stop="stability").fit(X, yl)
    err_conv = np.mean(conv.transduction_[unl] != y[unl])
    err_early = np.mean(early.transduction_[unl] != y[unl])
    assert err_early <= err_conv + 0.01
    assert err_conv < 0.15


@pytest.mark.slow
def test_multiclass_pcg_early_stop_tests_the_class_decision():
    # one-vs-rest signs are -1 on most points: tested per problem, the
    # paper's stability threshold (eta = 0.015) stops every problem at its
    # second check, before the classes settle (9.5 % against Newton's 8.4 %
    # here; 22 % against 12.6 % on COIL20). The multi-class fit tests the
    # argmax decision and stops all the problems together.

    X, y, yl = _digits_split()
    unl = yl == -1
    clf = LapSVM(solver="newton").fit(X, yl)
    err_newton = np.mean(clf.transduction_[unl] != y[unl])
    K, L = clf._kernel_and_laplacian(np.asarray(X, dtype=np.float64), None)
    ys = [np.where(yl == -1, 0.0, np.where(yl == c, 1.0, -1.0)) for c in range(10)]
    kw = dict(gamma_A=clf.gamma_A, gamma_I=clf.gamma_I, loss="squared_hinge",
              solver="pcg", fit_intercept=True, stop="stability", tol=None,
              max_iter=None, check_every=None, eta=0.015, power=clf.p_)
    res = _lapsvm_multi(K, L, [ssl01(v) for v in ys], joint_stop=True, **kw)
    assert len({r.n_iter for r in res}) == 1
    assert all(r.status == "stability" for r in res)
    F = np.column_stack([r.decision for r in res])
    err_joint = np.mean(F[unl].argmax(1) != y[unl])
    assert err_joint <= err_newton + 0.01
    # a single problem (binary fit) is unaffected by joint_stop
    r1 = _lapsvm_multi(K, L, [ssl01(v) for v in ys[:1]], joint_stop=True, **kw)[0]
    r0 = _lapsvm_multi(K, L, [ssl01(v) for v in ys[:1]], **kw)[0]
    assert r1.n_iter == r0.n_iter
    np.testing.assert_array_equal(r1.alpha, r0.alpha)


# ---------------------------------------------------------------------------
# real data (../shared/data): the original 50-label splits, error on the
# unlabeled points against Melacci & Belkin's Table 4 (LapSVM primal Newton,
# error on U: g50c 6.16, uspst 14.98, pcmac 9.68). Graph and kernel as in
# Sindhwani & Rosenberg (2008): (k, p, sigma) = (50, 5, 17.5), (10, 2, 9.4),
# (50, 5, 2.7); gamma_A = 1e-6, gamma_I = 1.

_SHARED = {"g50c": (50, 5, 17.5, 6.16), "uspst": (10, 2, 9.4, 14.98),
           "pcmac": (50, 5, 2.7, 9.68)}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(_SHARED))
def test_shared_split_error_close_to_paper(name):
    from tests.conftest import load_shared

    d = load_shared(name)
    k, p, sigma, paper_u = _SHARED[name]
    X, y = d["X"], d["y"]
    if name != "uspst":
        y = (y > 0).astype(int)  # -1/+1 data: -1 would read as unlabeled
    lab, unl = d["idx_lab"][0], d["idx_unl"][0]
    yl = np.full_like(y, -1)
    yl[lab] = y[lab]
    clf = LapSVM(gamma_A=1e-6, gamma_I=1.0, gamma=1 / (2 * sigma**2),
                 n_neighbors=k, p=p).fit(X, yl)
    err_u = 100 * np.mean(clf.transduction_[unl] != y[unl])
    assert err_u < paper_u + 2.0, f"{name}: {err_u:.2f}% on U (paper {paper_u}%)"


def test_newton_tiny_gamma_A_emits_no_linalg_warning():
    _, K, L, y = _problem(n=60, n_lab=20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = lapsvm_primal(K, L, ssl01(y), gamma_A=1e-12, gamma_I=1.0, solver="newton")
    assert np.isfinite(res.objective)


@pytest.mark.parametrize("solver", ["pcg", "newton"])
def test_power_applies_the_iterated_laplacian(solver):
    # power=2 with L gives the solution of the explicit L @ L
    X, K, L, y = _problem(n=50, n_lab=12)
    L2 = sp.csr_matrix(L @ L)
    a = lapsvm_primal(K, L, ssl01(y), gamma_A=1e-2, gamma_I=0.5, power=2, stop="none",
                      solver=solver)
    b = lapsvm_primal(K, L2, ssl01(y), gamma_A=1e-2, gamma_I=0.5, stop="none", solver=solver)
    ref, _ = _reference(K, L2, y, 1e-2, 0.5, True)
    assert abs(a.objective - ref) <= 1e-6 * abs(ref)
    np.testing.assert_allclose(a.decision, b.decision, atol=1e-6)
    with pytest.raises(ValueError, match="power"):
        lapsvm_primal(K, L, ssl01(y), power=0)


def test_dense_laplacian_path_equals_sparse():
    # p = 4 on a small graph fills L^p: the solver switches to the dense path
    X, K, _, y = _problem(n=40)
    Lfull = graph_laplacian(X, n_neighbors=8, p=4)
    assert Lfull.nnz > 0.5 * 40 * 40
    a = lapsvm_primal(K, Lfull, ssl01(y), gamma_A=1e-2, gamma_I=0.5, stop="none")
    ref, _ = _reference(K, Lfull, y, 1e-2, 0.5, True)
    assert abs(a.objective - ref) <= 1e-6 * abs(ref)


@pytest.mark.parametrize("Est", [LapSVM, LapRLS])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_defaults_deterministic(Est, n_classes):
    # same input -> same bits with every parameter at its default
    X, yt = make_blobs(120, centers=n_classes, cluster_std=2.0, random_state=0)
    y = np.full(120, -1)
    rng = np.random.default_rng(0)
    for c in range(n_classes):
        y[rng.choice(np.flatnonzero(yt == c), 4, replace=False)] = c
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = Est().fit(X, y)
        b = Est().fit(X, y)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    np.testing.assert_array_equal(a.intercept_, b.intercept_)
    np.testing.assert_array_equal(a.transduction_, b.transduction_)
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))


def _nested_clouds(n=200, seed=0):
    # two concentric Gaussian clouds (std 1 and 3): the graph term hurts
    rng = np.random.RandomState(seed)
    yt = np.arange(n) % 2
    X = rng.randn(n, 5) * np.where(yt == 1, 3.0, 1.0)[:, None]
    y = np.full(n, -1)
    r = np.random.default_rng(seed)
    for c in (0, 1):
        y[r.choice(np.flatnonzero(yt == c), 5, replace=False)] = c
    return X, y, yt


@pytest.mark.parametrize("Est", [LapSVM, LapRLS])
def test_safety_net_falls_back(Est):
    X, y, yt = _nested_clouds()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        semi = Est(safe=False).fit(X, y)
        safe = Est(safe=True).fit(X, y)
        # the supervised model: gamma_I = 0, solved exactly (alpha = 0 off
        # the labeled rows), with the kernel width of the fit on all rows
        solver = "newton" if Est is LapSVM else "closed"
        sup = Est(gamma_I=0.0, solver=solver, safe=False).fit(X, y)
        sup_l = Est(gamma_I=0.0, solver=solver, gamma=semi._gamma, safe=False).fit(
            X[y != -1], y[y != -1])
    assert semi.unlabeled_gain_ is None and not semi.fell_back_
    assert safe.unlabeled_gain_ < 0 and safe.fell_back_
    # the fallback is the supervised model, in and out of sample: fitted on
    # the labeled rows, the same function as on all rows
    np.testing.assert_array_equal(safe.dual_coef_, sup_l.dual_coef_)
    np.testing.assert_allclose(np.abs(sup.dual_coef_[:, y == -1]).max(), 0,
                               atol=1e-8)
    np.testing.assert_allclose(safe.decision_function(X), sup.decision_function(X),
                               atol=1e-6)
    np.testing.assert_array_equal(safe.predict(X), sup.predict(X))
    lab = y != -1
    np.testing.assert_array_equal(safe.transduction_[lab], y[lab])
    np.testing.assert_array_equal(safe.transduction_[~lab], sup.transduction_[~lab])
    err = np.mean(safe.transduction_[~lab] != yt[~lab])
    assert err < np.mean(semi.transduction_[~lab] != yt[~lab]) - 0.1
    with pytest.raises(ValueError, match="safe=True"):
        Est(safe=True).fit(X, y, affinity=graph_laplacian(X) * 0 + sp.eye(200))


# ------------------------------------------------ one graph, built once, shared

def _count_searches(monkeypatch):
    import semisvm.graph as g
    calls = []
    real = g.knn_search
    monkeypatch.setattr(g, "knn_search",
                        lambda *a, **k: calls.append(a[0].shape[0]) or real(*a, **k))
    return calls


@pytest.mark.parametrize("Est", [LapSVM, LapRLS])
@pytest.mark.parametrize("n_components", [None, 40])
def test_graph_argument_one_search_across_classes_and_refits(monkeypatch, Est,
                                                             n_components):
    from sklearn.base import clone

    from semisvm.graph import KNNGraph
    rng = np.random.RandomState(0)
    yt = np.arange(240) % 3
    X = rng.randn(240, 4) + 4 * np.eye(4)[yt]
    y = np.where(np.arange(240) < 12, yt, -1)
    calls = _count_searches(monkeypatch)
    g = KNNGraph(10).fit(X)
    assert calls == [240]
    est = Est(graph=g, n_components=n_components, p=1)
    a = est.fit(X, y)
    b = clone(est).fit(X, y)                 # a clone holds the same graph
    c = Est(graph=g, n_components=n_components, p=1, gamma_A=1e-3).fit(X, y)
    assert calls == [240]                    # three classes, three fits: no search
    assert a.graph_ is g and b.graph_ is g and c.graph_ is g
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    assert np.mean(a.transduction_ == yt) > 0.95
    # the same model as the estimator's own graph with the same settings
    # (the Nystroem path builds a KNNGraph itself)
    own = Est(n_components=n_components, p=1).fit(X, y)
    if n_components is not None:
        np.testing.assert_array_equal(own.dual_coef_, a.dual_coef_)
    np.testing.assert_array_equal(own.transduction_, a.transduction_)
    # an unfitted graph is fitted on X (a copy: the argument stays unfitted)
    u = KNNGraph(10)
    d = Est(graph=u, n_components=n_components, p=1).fit(X, y)
    assert not hasattr(u, "affinity_") and d.graph_.is_fitted_on(X)
    # a graph of other rows, with affinity=, with a precomputed kernel: errors
    with pytest.raises(ValueError, match="graph was fitted on 240 rows"):
        Est(graph=g).fit(X[:100] + 1, y[:100])
    with pytest.raises(ValueError, match="not both"):
        Est(graph=g).fit(X, y, affinity=g.affinity_)
    with pytest.raises(TypeError, match="KNNGraph"):
        Est(graph=g.affinity_).fit(X, y)


def _three_blobs(n=240, seed=0):
    rng = np.random.RandomState(seed)
    yt = np.arange(n) % 3
    X = rng.randn(n, 4) + 4 * np.eye(4)[yt]
    y = np.full(n, -1)
    for c in range(3):
        y[np.flatnonzero(yt == c)[:6]] = c
    return X, y, yt


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
@pytest.mark.parametrize("Est", [LapSVM, LapRLS])
def test_one_graph_search_across_folds_and_grid_points(monkeypatch, Est, kernel):
    from sklearn.model_selection import GridSearchCV

    from semisvm.graph import KNNGraph
    from semisvm.model_selection import LabeledStratifiedKFold
    X, y, yt = _three_blobs()
    calls = _count_searches(monkeypatch)
    g = KNNGraph(10).fit(X)
    grid = {"gamma_A": [1e-4, 1e-2], "gamma_I": [0.0, 1.0]}
    cv = LabeledStratifiedKFold(3, random_state=0)
    kw = dict(p=1, n_components=60 if kernel == "rbf" else "auto", kernel=kernel)
    search = GridSearchCV(Est(graph=g, **kw), grid, cv=cv).fit(X, y)
    # 3 classes x 3 folds x 4 grid points + the refit: the one search of fit
    assert calls == [240] and g.n_builds_ == 1
    assert search.best_estimator_.graph_ is g
    # the grid points of a fold share its kernel features and warm-start
    # from each other's solutions (3 folds x 3 later grid points x 3 classes)
    assert g._work_hits >= 27
    # each fold's graph is the one a new search over its rows gives: the
    # same choice, and the same scores, as the cold search without it
    calls.clear()
    cold = GridSearchCV(Est(**kw), grid, cv=cv).fit(X, y)
    # without it: one per fold and grid point with gamma_I > 0, and the refit
    assert len(calls) == 3 * 2 + (cold.best_params_["gamma_I"] > 0)
    assert cold.best_params_ == search.best_params_
    np.testing.assert_allclose(cold.cv_results_["mean_test_score"],
                               search.cv_results_["mean_test_score"])


@pytest.mark.parametrize("Est", [LapSVM, LapRLS])
def test_safe_fit_one_graph_search(monkeypatch, Est):
    import semisvm.manifold as m
    X, y, yt = _three_blobs()
    monkeypatch.setattr(m, "LOWRANK_MIN_SAMPLES", 100)      # Nystroem
    monkeypatch.setattr(m, "AUTO_COMPONENTS", 60)
    calls = _count_searches(monkeypatch)
    est = Est(p=1, safe=True, safe_cv=3).fit(X, y)
    # the fit's graph; the 6 semi-supervised refits read it, the supervised
    # counterparts (gamma_I = 0, labeled rows) need none
    assert calls == [240] and est.graph_.n_builds_ == 1
    assert est.unlabeled_gain_ is not None and not est.fell_back_
    assert est.mode_ == "nystroem"
