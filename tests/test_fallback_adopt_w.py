"""The fallback's model against ``SVC()`` on held-out rows reweighted to the
unlabeled rows' estimated class mix (``semisvm._fallback.ADOPT_W_SHRINK``,
``ADOPT_W_Z``, ``adopt_weights``): a held-out row of class c counts p_unl(c)
/ p_lab(c); ``SVC()`` becomes the model where right on more weighted rows."""
import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.svm import SVC

import semisvm._fallback as fb
from semisvm import TVRLS, LapRLS


@pytest.fixture(autouse=True)
def _rule_on(monkeypatch):
    # the rule is off by default (ADOPT_W_SHRINK None); these tests switch
    # it on at the value chosen on the tune part
    monkeypatch.setattr(fb, "ADOPT_W_SHRINK", 0.5)


def test_adopt_weights_two_classes_by_hand(monkeypatch):
    y = np.array([0, 0, 0, 1])                 # p_lab = (.75, .25)
    est = (0.05, 0.01, 0.6)                    # p_unl(class 1) = .05, far off
    w = fb.adopt_weights(y, np.array([0, 1]), est, shrink=1.0, z=2.0)
    assert w[:3] == pytest.approx([0.95 / 0.75] * 3)
    assert w[3] == pytest.approx(0.05 / 0.25)
    # shrunk half-way toward the labeled mix
    w = fb.adopt_weights(y, np.array([0, 1]), est, shrink=0.5, z=2.0)
    assert w[3] == pytest.approx(0.15 / 0.25)
    # clipped to [PRIOR_CLIP, 1 - PRIOR_CLIP]
    w = fb.adopt_weights(y, np.array([0, 1]), (-0.3, 0.01, 0.6), shrink=1.0, z=0.0)
    assert w[3] == pytest.approx(fb.PRIOR_CLIP / 0.25)
    # within z standard errors of the labeled mix: unweighted (None)
    assert fb.adopt_weights(y, np.array([0, 1]), (0.2, 0.1, 0.6), shrink=1.0, z=1.0) is None
    assert fb.adopt_weights(y, np.array([0, 1]), (0.2, 0.1, 0.6), shrink=1.0,
                            z=0.0) is not None
    # the chosen value (0.5; the library's default is off), off, or no estimate
    assert fb.ADOPT_W_Z == 0.0
    assert fb.adopt_weights(y, np.array([0, 1]), est)[3] == pytest.approx(0.15 / 0.25)
    monkeypatch.setattr(fb, "ADOPT_W_SHRINK", None)
    assert fb.adopt_weights(y, np.array([0, 1]), est) is None
    assert fb.adopt_weights(y, np.array([0, 1]), None, shrink=1.0) is None


def test_adopt_weights_multi_class_by_hand():
    y = np.array([0, 1, 2, 2])                 # p_lab = (.25, .25, .5)
    est = (np.array([0.1, 0.2, 0.7]), np.array([0.01, 0.01, 0.01]))
    w = fb.adopt_weights(y, np.array([0, 1, 2]), est, shrink=1.0, z=2.0)
    assert w == pytest.approx([0.4, 0.8, 1.4, 1.4])
    # the weighted count sums to the rows' number when the estimate is the
    # labeled mix's
    w = fb.adopt_weights(y, np.array([0, 1, 2]), (np.array([.25, .25, .5]),
                                                  np.zeros(3)), shrink=1.0, z=-1.0)
    assert w.sum() == pytest.approx(4.0)


def _imb_case(seed, n=500, frac=0.1, shift=1.0, d=6, lab=(10, 10)):
    """Two 6-d unit Gaussians, the second (10 %) shifted: imbalanced, a
    balanced label draw (the suite's 'labels per class' schemes)."""
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


def _fit(model, X, ys, shrink, monkeypatch, z=0.0):
    monkeypatch.setattr(fb, "ADOPT_W_SHRINK", shrink)
    monkeypatch.setattr(fb, "ADOPT_W_Z", z)
    return model().fit(X, ys)


@pytest.mark.parametrize("model", [LapRLS, TVRLS])
def test_silent_on_separated_balanced_data(model, monkeypatch):
    X, y = make_blobs(n_samples=300, centers=[[0, 0], [6, 0]], cluster_std=1.0,
                      random_state=3)
    rng = np.random.RandomState(0)
    ys = -np.ones_like(y)
    for c in (0, 1):
        ys[rng.choice(np.flatnonzero(y == c), 10, replace=False)] = c
    off = _fit(model, X, ys, None, monkeypatch)
    on = _fit(model, X, ys, 0.5, monkeypatch)
    assert np.array_equal(on.transduction_, off.transduction_)
    assert np.array_equal(on.decision_function(X), off.decision_function(X))
    assert on.safe_counterpart_ == off.safe_counterpart_


def test_fires_on_an_imbalanced_fallback_and_moves_toward_the_right_c(monkeypatch):
    """A 90 / 10 draw with 10 labels per class: the check keeps the wide RBF
    SVC at C = 10 (14 held-out rows right, 13 at C = 1); weighted to the
    estimated unlabeled mix (mostly the majority) SVC() wins, and the
    unlabeled error falls (51 % -> 26 %)."""
    X, y, ys = _imb_case(33, shift=1.5)
    unl = ys == -1
    off = _fit(LapRLS, X, ys, None, monkeypatch)
    on = _fit(LapRLS, X, ys, 0.5, monkeypatch)
    assert off.fell_back_ and on.fell_back_
    assert off._check_stats["adopt_c"] == (1.0, 13, 14)
    assert "adopt_w" not in off._check_stats
    w_svc, w_took = on._check_stats["adopt_w"]
    assert w_svc > w_took
    assert off.safe_counterpart_ == "rbf SVC (C=10, gamma=3 x scale)"
    assert on.safe_counterpart_ == "rbf SVC (C=1, gamma=scale)"
    err_off = np.mean(np.asarray(off.transduction_)[unl] != y[unl])
    err_on = np.mean(np.asarray(on.transduction_)[unl] != y[unl])
    assert err_on < err_off - 0.05
    # the model is scikit-learn's SVC() on the labeled rows, no shift after it
    svc = SVC().fit(X[~unl], ys[~unl])
    assert np.array_equal(np.asarray(on.transduction_)[unl], svc.predict(X[unl]))
    assert on.class_prior_ is None
    # more of the unlabeled rows labeled the majority (the truth's mix: 90 %)
    assert (np.mean(np.asarray(on.transduction_)[unl] == 0)
            > np.mean(np.asarray(off.transduction_)[unl] == 0))
    assert np.array_equal(on.predict(X[unl]), np.asarray(on.transduction_)[unl])
    again = _fit(LapRLS, X, ys, 0.5, monkeypatch)
    assert np.array_equal(again.transduction_, on.transduction_)
    assert np.array_equal(again.decision_function(X), on.decision_function(X))


def test_both_sides_of_its_z_threshold(monkeypatch):
    X, y, ys = _imb_case(33, shift=1.5)
    on = _fit(LapRLS, X, ys, 0.5, monkeypatch)
    zmax = on._check_stats["adopt_w_z"]
    off = _fit(LapRLS, X, ys, None, monkeypatch)
    eps = 1e-6
    fires = _fit(LapRLS, X, ys, 0.5, monkeypatch, z=zmax - eps)
    silent = _fit(LapRLS, X, ys, 0.5, monkeypatch, z=zmax + eps)
    assert fires.safe_counterpart_ == on.safe_counterpart_
    assert np.array_equal(fires.transduction_, on.transduction_)
    assert "adopt_w" not in silent._check_stats
    assert silent.safe_counterpart_ == off.safe_counterpart_
    assert np.array_equal(silent.transduction_, off.transduction_)
