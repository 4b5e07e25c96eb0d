"""The cut check's fallback model (``_fallback.PLAIN_CUT_FALLBACK``), both sides.

Where the label folds cannot run (fewer than ``MIN_LABELS`` labels in a
class) the label-free cut check may fall back; with the switch on its model is
scikit-learn's ``SVC()`` on the labeled rows, off the first candidate at
``COUNTERPART_C``. The decision (the cut ratios) is the same on both sides.
"""
import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.svm import SVC

from semisvm import TVRLS, CheegerSVM, LapRLS, LapSVM, _fallback


def _data():
    X, y = make_blobs(300, centers=[[0, 0], [1.5, 0]], cluster_std=1.0, random_state=0)
    X = (X - X.mean(0)) / X.std(0)
    rng = np.random.RandomState(0)
    y_semi = np.full(y.shape[0], -1)
    idx = np.concatenate([rng.choice(np.flatnonzero(y == c), 3, replace=False)
                          for c in (0, 1)])
    y_semi[idx] = y[idx]
    return X, y_semi, idx


@pytest.mark.parametrize("cls", [LapSVM, LapRLS, TVRLS, CheegerSVM])
@pytest.mark.parametrize("plain", [False, True])
def test_cut_fallback_model_both_sides(monkeypatch, cls, plain):
    # force the cut check to fall back (any fit's cut "loses")
    monkeypatch.setattr(_fallback, "CUT_FLOOR", 0.0)
    monkeypatch.setattr(_fallback, "CUT_RATIO", 100.0)
    monkeypatch.setattr(_fallback, "PLAIN_CUT_FALLBACK", plain)
    X, y_semi, idx = _data()
    est = cls().fit(X, y_semi)
    assert est.fell_back_
    assert est.safe_check_.startswith("graph cut")
    C = 1.0 if plain else _fallback.COUNTERPART_C
    ref = SVC(C=C).fit(X[idx], y_semi[idx])
    assert f"C={C:g}" in est.safe_counterpart_
    np.testing.assert_array_equal(est.predict(X), ref.predict(X))
    # (at C = 10 the library may solve the small SVC more exactly than
    # libsvm's 1e-3 stopping tolerance: close, not equal)
    np.testing.assert_allclose(est.decision_function(X), ref.decision_function(X),
                               rtol=0, atol=1e-9 if plain else 1e-2)
    unl = y_semi == -1
    np.testing.assert_array_equal(est.transduction_[unl], ref.predict(X[unl]))


def test_cut_fallback_decision_is_the_same_on_both_sides(monkeypatch):
    monkeypatch.setattr(_fallback, "CUT_FLOOR", 0.0)
    X, y_semi, _ = _data()
    cuts = []
    for plain in (False, True):
        monkeypatch.setattr(_fallback, "PLAIN_CUT_FALLBACK", plain)
        est = LapRLS().fit(X, y_semi)
        cuts.append((est.graph_cut_, est.fell_back_))
    assert cuts[0] == cuts[1]


@pytest.mark.parametrize("cls", [LapRLS, TVRLS, CheegerSVM])
@pytest.mark.parametrize("ovo", [False, True])
def test_cut_fallback_multiclass_one_vs_one_both_sides(monkeypatch, cls, ovo):
    # three classes, 3 labels each (the label folds cannot run): the cut
    # check's SVC() is scikit-learn's one-vs-one SVC with PLAIN_FALLBACK_OVO,
    # one binary SVC() per class against the rest without it
    monkeypatch.setattr(_fallback, "CUT_FLOOR", 0.0)
    monkeypatch.setattr(_fallback, "CUT_RATIO", 100.0)
    monkeypatch.setattr(_fallback, "PLAIN_CUT_FALLBACK", True)
    monkeypatch.setattr(_fallback, "PLAIN_FALLBACK_OVO", ovo)
    X, y = make_blobs(300, centers=[[0, 0], [1.5, 0], [0.7, 1.3]], cluster_std=1.0,
                      random_state=1)
    X = (X - X.mean(0)) / X.std(0)
    rng = np.random.RandomState(1)
    y = np.array([10, 20, 30])[y]
    y_semi = np.full(y.shape[0], -1)
    idx = np.concatenate([rng.choice(np.flatnonzero(y == c), 3, replace=False)
                          for c in (10, 20, 30)])
    y_semi[idx] = y[idx]
    # the labeled rows first, by class: the fit's class order (by first
    # labeled row) is the sorted labels', scikit-learn's
    order = np.r_[idx, np.setdiff1d(np.arange(y.shape[0]), idx)]
    X, y_semi = X[order], y_semi[order]
    idx = np.arange(idx.shape[0])
    est = cls().fit(X, y_semi)
    assert est.fell_back_ and est.safe_check_.startswith("graph cut")
    unl = y_semi == -1
    if ovo:
        ref = SVC().fit(X[idx], y_semi[idx])
        np.testing.assert_array_equal(est.predict(X), ref.predict(X))
        np.testing.assert_allclose(est.decision_function(X), ref.decision_function(X),
                                   rtol=0, atol=1e-10)
        np.testing.assert_array_equal(est.transduction_[unl], ref.predict(X[unl]))
    else:
        assert getattr(est, "_ovo", None) is None
        D = np.column_stack([SVC().fit(X[idx], (y_semi[idx] == c).astype(int))
                             .decision_function(X) for c in (10, 20, 30)])
        # (the library may solve these small SVCs more exactly than libsvm's
        # 1e-3 stopping tolerance: close, not equal)
        F = est.decision_function(X)
        np.testing.assert_allclose(F, D, rtol=0, atol=1e-2)
        np.testing.assert_array_equal(est.transduction_[unl],
                                      np.array([10, 20, 30])[np.argmax(F[unl], axis=1)])
