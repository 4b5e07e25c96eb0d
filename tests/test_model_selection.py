"""semisvm.model_selection: labeled-only test folds, default grids, the safety
net, class-prior estimators."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics import accuracy_score, make_scorer
from sklearn.model_selection import (
    GridSearchCV,
    RandomizedSearchCV,
    cross_val_score,
    cross_validate,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from semisvm import DASVM, PUSVM, TSVM, TVRLS, CheegerRLS, LapRLS, LapSVM, LinearSVM
from semisvm.model_selection import (
    LabeledOnly,
    LabeledStratifiedKFold,
    RepeatedLabeledStratifiedKFold,
    SafeSemiSupervisedMixin,
    default_param_grid,
    em_class_prior,
    estimate_class_prior,
    labeled_mask,
    platt_calibrate,
    unlabeled_gain,
)


def _two_blobs(n=120, n_lab=6, seed=0, d=2):
    rng = np.random.RandomState(seed)
    X = np.r_[rng.normal(-2, 1, (n // 2, d)), rng.normal(2, 1, (n // 2, d))]
    truth = np.repeat([0, 1], n // 2)
    y = np.full(n, -1)
    for c in (0, 1):
        rows = rng.choice(np.flatnonzero(truth == c), n_lab, replace=False)
        y[rows] = c
    return X, y, truth


def _no_unlabeled_scorer():
    """A scorer that fails if an unlabeled row ever reaches it."""
    def acc(y_true, y_pred):
        assert not np.any(np.asarray(y_true) == -1), "an unlabeled row was scored"
        return accuracy_score(y_true, y_pred)
    return make_scorer(acc)


# ------------------------------------------------------------------ splitters
@pytest.mark.parametrize("cv", [LabeledStratifiedKFold(3),
                                LabeledStratifiedKFold(4, shuffle=False),
                                RepeatedLabeledStratifiedKFold(3, n_repeats=4)])
def test_splits_test_folds_hold_only_labeled_rows(cv):
    X, y, _ = _two_blobs(n=100, n_lab=9)
    lab = np.flatnonzero(y >= 0)
    unl = np.flatnonzero(y < 0)
    splits = list(cv.split(X, y))
    assert len(splits) == cv.get_n_splits(X, y)
    k = cv.get_n_splits(X, y) // getattr(cv, "n_repeats", 1)
    for i, (train, test) in enumerate(splits):
        assert np.all(y[test] >= 0)
        assert np.intersect1d(train, test).size == 0
        assert np.all(np.isin(unl, train))                  # every unlabeled row trains
        assert set(np.unique(y[test])) == {0, 1}            # stratified
        assert np.union1d(train, test).size == y.size
    # each repetition covers every labeled row exactly once
    for rep in range(len(splits) // k):
        tests = np.concatenate([t for _, t in splits[rep * k:(rep + 1) * k]])
        assert np.array_equal(np.sort(tests), lab)


def test_splits_deterministic_and_repeats_differ():
    X, y, _ = _two_blobs(n=80, n_lab=10)
    cv = RepeatedLabeledStratifiedKFold(5, n_repeats=2, random_state=3)
    a = [t for _, t in cv.split(X, y)]
    b = [t for _, t in cv.split(X, y)]
    assert all(np.array_equal(p, q) for p, q in zip(a, b))
    assert not all(np.array_equal(p, q) for p, q in zip(a[:5], a[5:]))


def test_n_splits_lowered_to_smallest_class():
    y = np.r_[[0] * 3, [1] * 8, [-1] * 10]
    cv = LabeledStratifiedKFold(5)
    assert cv.get_n_splits(y=y) == 3
    assert len(list(cv.split(None, y))) == 3
    assert cv.get_n_splits() == 5


@pytest.mark.parametrize("y, msg", [
    (np.full(10, -1), "no labeled row"),
    (np.r_[[0] * 5, [-1] * 5], "two labeled classes"),
    (np.r_[[0] * 5, [1], [-1] * 5], "at least 2 labeled rows"),
])
def test_splitter_bad_labels(y, msg):
    with pytest.raises(ValueError, match=msg):
        list(LabeledStratifiedKFold(3).split(None, y))


def test_splitter_bad_arguments():
    y = np.r_[[0] * 5, [1] * 5, [-1] * 5]
    with pytest.raises(ValueError, match="n_splits"):
        list(LabeledStratifiedKFold(1).split(None, y))
    with pytest.raises(ValueError, match="n_repeats"):
        list(RepeatedLabeledStratifiedKFold(2, n_repeats=0).split(None, y))
    with pytest.raises(ValueError, match="rows"):
        list(LabeledStratifiedKFold(2).split(np.zeros((4, 1)), y))
    with pytest.raises(ValueError, match="y is required"):
        list(LabeledStratifiedKFold(2).split(np.zeros((4, 1)), None))


def test_labeled_mask_string_labels():
    y = np.array(["a", "b", "-1", "a"], dtype=object)
    assert labeled_mask(y).tolist() == [True, True, False, True]


# ------------------------------------------------ inside scikit-learn's tools
def test_grid_search_with_pipeline_never_scores_unlabeled():
    X, y, truth = _two_blobs(n=160, n_lab=6, d=3)
    X = X * [1.0, 100.0, 0.01]
    pipe = make_pipeline(StandardScaler(), TSVM())
    grid = default_param_grid(pipe, StandardScaler().fit_transform(X))
    assert set(grid) == {"tsvm__lam", "tsvm__lam_u"}
    cv = LabeledStratifiedKFold(3, random_state=0)
    search = GridSearchCV(pipe, grid, cv=cv, scoring=_no_unlabeled_scorer(),
                          error_score="raise").fit(X, y)
    assert len(search.cv_results_["params"]) == 9
    best = search.best_estimator_[-1]
    assert np.mean(best.transduction_ == truth) > 0.9
    assert search.score(X[y >= 0], y[y >= 0]) > 0.9


def test_randomized_search_and_cross_val_score_with_any_scorer():
    X, y, _ = _two_blobs(n=120, n_lab=6)
    cv = RepeatedLabeledStratifiedKFold(3, n_repeats=2, random_state=0)
    rs = RandomizedSearchCV(DASVM(), default_param_grid(DASVM(), X), n_iter=3, cv=cv,
                            scoring=_no_unlabeled_scorer(), random_state=0,
                            error_score="raise").fit(X, y)
    assert len(rs.cv_results_["params"]) == 3
    scores = cross_val_score(TSVM(), X, y, cv=cv, scoring="f1_macro", error_score="raise")
    assert scores.shape == (6,) and np.all(scores > 0.8)
    res = cross_validate(LabeledOnly(SVC()), X, y, cv=cv, scoring=_no_unlabeled_scorer(),
                         error_score="raise")
    assert res["test_score"].shape == (6,)


def test_sparse_input_in_search():
    X, y, _ = _two_blobs(n=100, n_lab=5)
    Xs = sp.csr_matrix(np.abs(X))
    cv = LabeledStratifiedKFold(5)
    s = cross_val_score(TSVM(), Xs, y, cv=cv, error_score="raise")
    assert s.shape == (5,)


# ---------------------------------------------------------------- LabeledOnly
def test_labeled_only_fits_on_labeled_rows():
    X, y, _ = _two_blobs(n=100, n_lab=5)
    lo = LabeledOnly(SVC(C=10.0)).fit(X, y)
    ref = SVC(C=10.0).fit(X[y >= 0], y[y >= 0])
    assert np.array_equal(lo.predict(X), ref.predict(X))
    assert np.allclose(lo.decision_function(X), ref.decision_function(X))
    assert lo.classes_.tolist() == [0, 1]
    with pytest.raises(ValueError, match="no labeled row"):
        LabeledOnly(SVC()).fit(X, np.full(100, -1))


# -------------------------------------------------------------- default grids
@pytest.mark.parametrize("est, key, sup_value", [
    (TSVM(), "lam_u", 0.0), (DASVM(), "lam_u", 0.0),
    (LapSVM(), "gamma_I", 0.0), (LapRLS(), "gamma_I", 0.0)])
def test_default_grid_holds_the_supervised_setting(est, key, sup_value):
    grid = default_param_grid(est)
    assert sup_value in grid[key]
    for k in grid:
        assert k in est.get_params()


@pytest.mark.parametrize("est", [LinearSVM(), TVRLS(), CheegerRLS(), PUSVM(), SVC()])
def test_default_grid_names_real_parameters(est):
    grid = default_param_grid(est, np.ones((5, 3)))
    assert grid and all(k in est.get_params() for k in grid)


def test_default_grid_scale_aware():
    X = np.random.RandomState(0).randn(50, 4)
    g1 = default_param_grid(TSVM(), X)["lam"]
    g2 = default_param_grid(TSVM(), 10 * X)["lam"]
    assert np.allclose(np.array(g2) / np.array(g1), 100.0)
    gs = default_param_grid(SVC(), X)["gamma"]
    gs10 = default_param_grid(SVC(), 10 * X)["gamma"]
    assert np.allclose(np.array(gs) / np.array(gs10), 100.0)
    assert set(default_param_grid(LabeledOnly(SVC()), X)) == {"estimator__C", "estimator__gamma"}
    with pytest.raises(TypeError, match="no default search space"):
        default_param_grid(StandardScaler())


# ------------------------------------------------------------ the safety net
def test_unlabeled_gain_is_paired():
    X, y, _ = _two_blobs(n=100, n_lab=6)
    gain, s, b = unlabeled_gain(TSVM(), TSVM(), X, y, cv=3)
    assert gain == 0.0 and np.array_equal(s, b) and s.shape == (3,)
    gain, s, b = unlabeled_gain(TSVM(), LabeledOnly(SVC()), X, y)
    assert s.shape == b.shape == (10,)       # default: 5 folds x 2 repeats
    assert gain == pytest.approx(np.mean(s - b))


class _Toy(SafeSemiSupervisedMixin, ClassifierMixin, BaseEstimator):
    """Semi-supervised stand-in: predicts a constant class (harmful) unless
    ``harm`` is False; its supervised counterpart is a labeled-only SVC."""

    def __init__(self, harm=True, safe=True, safe_cv=3, safe_margin=0.0):
        self.harm = harm
        self.safe = safe
        self.safe_cv = safe_cv
        self.safe_margin = safe_margin

    def fit(self, X, y):
        self.classes_ = np.unique(y[y >= 0])
        self.model_ = None if self.harm else SVC().fit(X[y >= 0], y[y >= 0])
        return self._safe_fit(X, y)

    def predict(self, X):
        if self.model_ is None:
            return np.full(X.shape[0], self.classes_[0])
        return self.model_.predict(X)

    def _supervised_counterpart(self):
        return LabeledOnly(SVC())

    def _adopt_supervised(self, X, y):
        self.model_ = SVC().fit(X[y >= 0], y[y >= 0])


def test_safety_net_mixin_falls_back_only_when_unlabeled_rows_hurt():
    X, y, truth = _two_blobs(n=100, n_lab=6)
    bad = _Toy(harm=True).fit(X, y)
    assert bad.fell_back_ and bad.unlabeled_gain_ < -0.3
    assert np.mean(bad.predict(X) == truth) > 0.9
    good = _Toy(harm=False).fit(X, y)
    assert not good.fell_back_ and good.unlabeled_gain_ == 0.0
    off = _Toy(harm=True, safe=False).fit(X, y)
    assert off.unlabeled_gain_ is None and not off.fell_back_
    with pytest.raises(ValueError, match="safe_margin"):
        _Toy(safe_margin=-1).fit(X, y)


# ----------------------------------------------------------- class priors
def test_platt_matches_scipy_reference():
    rng = np.random.RandomState(0)
    y = rng.rand(60) < 0.4
    f = rng.normal(np.where(y, 1.0, -0.5), 1.0)
    a, b = platt_calibrate(f, y)
    npos, nneg = y.sum(), (~y).sum()
    t = np.where(y, (npos + 1.0) / (npos + 2), 1.0 / (nneg + 2))

    def nll(v):
        z = v[0] * f + v[1]
        return np.sum(np.logaddexp(0, z) - t * z)
    ref = minimize(nll, [0.0, 0.0], method="BFGS", options={"gtol": 1e-10}).x
    assert np.allclose([a, b], ref, atol=1e-5)
    # separable scores: a stays finite
    a, b = platt_calibrate(np.array([-3.0, -2, 2, 3]), np.array([0, 0, 1, 1]))
    assert np.isfinite(a) and 0 < a < 20


@pytest.mark.parametrize("prior", [0.1, 0.3, 0.5, 0.8])
def test_em_class_prior_recovers_known_binary_prior(prior):
    rng = np.random.RandomState(1)
    y = rng.rand(40000) < prior
    f = rng.normal(np.where(y, 1.0, -1.0))
    p = 1.0 / (1.0 + np.exp(-2.0 * f))           # exact posterior under prior 0.5
    assert em_class_prior(p, 0.5) == pytest.approx(prior, abs=0.015)
    # the same rows scored by a model trained at prior 0.25
    p25 = 1.0 / (1.0 + 3.0 * np.exp(-2.0 * f))
    assert em_class_prior(p25, 0.25) == pytest.approx(prior, abs=0.015)


def test_em_class_prior_multiclass():
    rng = np.random.RandomState(2)
    pi = np.array([0.6, 0.3, 0.1])
    y = rng.choice(3, size=30000, p=pi)
    means = np.array([[0, 0], [2, 0], [0, 2]], float)
    X = means[y] + rng.randn(30000, 2)
    ll = -0.5 * ((X[:, None, :] - means[None]) ** 2).sum(-1)
    P = np.exp(ll - ll.max(1, keepdims=True))
    P /= P.sum(1, keepdims=True)                 # posterior under uniform priors
    est = em_class_prior(P, np.full(3, 1 / 3))
    assert np.allclose(est, pi, atol=0.02)
    with pytest.raises(ValueError, match="prior_train"):
        em_class_prior(P, np.array([0.5, 0.5, 0.0]))
    with pytest.raises(ValueError, match="probabilities"):
        em_class_prior(P * 2, np.full(3, 1 / 3))


def test_estimate_class_prior_em_beats_classify_and_count():
    rng = np.random.RandomState(3)
    yl = np.r_[np.zeros(40), np.ones(40)]
    fl = rng.normal(2 * yl - 1, 1.2)
    yu = rng.rand(4000) < 0.2
    fu = rng.normal(np.where(yu, 1.0, -1.0), 1.2)
    em = estimate_class_prior(fl, yl, fu, method="em")
    cc = estimate_class_prior(fl, yl, fu, method="cc")
    assert abs(em - 0.2) < 0.05
    assert abs(cc - 0.2) > abs(em - 0.2)         # counting is biased toward 1/2
    with pytest.raises(ValueError, match="method"):
        estimate_class_prior(fl, yl, fu, method="x")
