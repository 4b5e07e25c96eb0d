"""The fallback's weak model (``semisvm._fallback.WEAK_GAP``): on a fallback
whose check's RBF SVC hardly tells the classes apart on its held-out rows,
the fallback's model is that SVC at ``WEAK_C`` (scikit-learn's ``SVC()``)."""
import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.svm import SVC

import semisvm._fallback as fb
from semisvm import TVRLS, LapRLS


@pytest.fixture(autouse=True)
def _plain_off(monkeypatch):
    # WEAK_GAP is read only with PLAIN_FALLBACK off (on, every RBF
    # fallback's model is SVC(): tests/test_plain_fallback.py)
    monkeypatch.setattr(fb, "PLAIN_FALLBACK", False)


def _weak_case(seed=4, n=400, frac=0.1, shift=0.6, d=8, lab=(30, 12)):
    """Two 8-d unit Gaussians, the second (10 %) shifted by 0.6: weakly
    separated and imbalanced; 30 / 12 labels (fewer of the minority than a
    balanced draw asks, more than its share)."""
    rng = np.random.RandomState(seed)
    n1 = int(round(frac * n))
    y = np.r_[np.zeros(n - n1, int), np.ones(n1, int)]
    u = rng.randn(d)
    u /= np.linalg.norm(u)
    X = rng.randn(n, d) + shift * y[:, None] * u
    ys = -np.ones(n, int)
    for c in (0, 1):
        ys[rng.choice(np.flatnonzero(y == c), lab[c], replace=False)] = c
    return X, y, ys


def _fit(model, X, ys, weak, monkeypatch):
    monkeypatch.setattr(fb, "WEAK_GAP", weak)
    return model().fit(X, ys)


def test_held_gap_by_hand():
    y = np.array([0, 0, 0, 0, 1, 1])
    # recalls 3/4 and 1/2: b = 0.625, two classes: 2 b - 1 = tpr - fpr
    p = np.array([0, 0, 0, 1, 1, 0])
    assert fb.held_gap(y, p) == pytest.approx(0.5 - 0.25)
    assert fb.held_gap(y, np.zeros(6, int)) == pytest.approx(0.0)
    assert fb.held_gap(y, y) == pytest.approx(1.0)
    y3 = np.array([0, 1, 2, 2])
    p3 = np.array([0, 2, 2, 1])
    # recalls 1, 0, 1/2: b = 1/2, (1/2 - 1/3) / (2/3)
    assert fb.held_gap(y3, p3) == pytest.approx(0.25)
    assert fb.held_gap(np.zeros(3, int), np.zeros(3, int)) is None


@pytest.mark.parametrize("model", [LapRLS, TVRLS])
def test_fires_on_a_weak_imbalanced_fallback(model, monkeypatch):
    X, y, ys = _weak_case()
    unl = ys == -1
    off = _fit(model, X, ys, None, monkeypatch)
    on = _fit(model, X, ys, 0.2, monkeypatch)
    assert off.fell_back_ and on.fell_back_
    gap = on._check_stats["weak_gap"]
    assert gap is not None and gap < 0.2
    assert on.safe_counterpart_ == "rbf SVC (C=1, gamma=scale)"
    assert off.safe_counterpart_ != on.safe_counterpart_
    err_off = np.mean(np.asarray(off.transduction_)[unl] != y[unl])
    err_on = np.mean(np.asarray(on.transduction_)[unl] != y[unl])
    assert err_on < err_off - 0.05
    # the model is scikit-learn's SVC() on the labeled rows
    svc = SVC().fit(X[~unl], ys[~unl])
    assert np.array_equal(np.asarray(on.transduction_)[unl], svc.predict(X[unl]))
    # predict on the unlabeled rows gives transduction_ back
    assert np.array_equal(on.predict(X[unl]), np.asarray(on.transduction_)[unl])
    # the same bits twice
    again = _fit(model, X, ys, 0.2, monkeypatch)
    assert np.array_equal(again.transduction_, on.transduction_)
    assert np.array_equal(again.decision_function(X), on.decision_function(X))
    # no class-prior shift after it
    assert on.class_prior_ is None


def test_both_sides_of_its_threshold(monkeypatch):
    X, y, ys = _weak_case()
    on = _fit(LapRLS, X, ys, 0.2, monkeypatch)
    gap = on._check_stats["weak_gap"]
    off = _fit(LapRLS, X, ys, None, monkeypatch)
    eps = 1e-6
    above = _fit(LapRLS, X, ys, gap + eps, monkeypatch)     # gap < threshold: fires
    below = _fit(LapRLS, X, ys, gap - eps, monkeypatch)     # gap >= threshold: silent
    assert above.safe_counterpart_ == "rbf SVC (C=1, gamma=scale)"
    assert np.array_equal(above.transduction_, on.transduction_)
    assert below.safe_counterpart_ == off.safe_counterpart_
    assert np.array_equal(below.transduction_, off.transduction_)


@pytest.mark.parametrize("model", [LapRLS, TVRLS])
def test_silent_on_separated_balanced_data(model, monkeypatch):
    X, y = make_blobs(n_samples=300, centers=[[0, 0], [6, 0]], cluster_std=1.0,
                      random_state=3)
    rng = np.random.RandomState(0)
    ys = -np.ones_like(y)
    for c in (0, 1):
        ys[rng.choice(np.flatnonzero(y == c), 10, replace=False)] = c
    off = _fit(model, X, ys, None, monkeypatch)
    on = _fit(model, X, ys, 0.2, monkeypatch)
    assert np.array_equal(on.transduction_, off.transduction_)
    assert np.array_equal(on.decision_function(X), off.decision_function(X))
    assert on.safe_counterpart_ == off.safe_counterpart_


def test_silent_on_a_fallback_whose_svc_separates(monkeypatch):
    """A fallback whose check's SVC tells the classes apart (held-out
    separation 0.35 >= 0.2) keeps the chosen candidate."""
    X, y, ys = _weak_case(seed=6, frac=0.06, lab=(20, 20))
    off = _fit(LapRLS, X, ys, None, monkeypatch)
    on = _fit(LapRLS, X, ys, 0.2, monkeypatch)
    assert off.fell_back_ and on.fell_back_
    assert on._check_stats["weak_gap"] == pytest.approx(0.35)
    assert on.safe_counterpart_ == off.safe_counterpart_
    assert np.array_equal(on.transduction_, off.transduction_)
    assert np.array_equal(on.decision_function(X), off.decision_function(X))
