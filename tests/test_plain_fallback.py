"""The fallback's model is ``SVC()`` (``semisvm._fallback.PLAIN_FALLBACK``):
on a fallback of an RBF estimator the model taken is the first candidate
(RBF, ``gamma="scale"`` on the labeled rows) at ``C = WEAK_C`` -- one SVC per
class against the rest with more than two classes -- with no width / C choice
after the decision and no class-prior shift after it; the decision itself,
the linear kernel and the fits that do not fall back are unchanged. Both
sides of the switch."""
import pickle

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC

import semisvm._fallback as fb
from semisvm import TVRLS, TVSVM, CheegerRLS, CheegerSVM, LapRLS, LapSVM

SVC_NAME = "rbf SVC (C=1, gamma=scale)"


def _nested(seed, n=240, d=5, lab=10):
    """Concentric Gaussian clouds (the classes are not the graph's
    clusters), ``lab`` labels per class."""
    rng = np.random.RandomState(seed)
    y = np.arange(n) % 2
    X = rng.randn(n, d) * np.where(y == 1, 3.0, 1.0)[:, None]
    ys = np.full(n, -1)
    draw = np.random.default_rng(seed)
    for c in (0, 1):
        ys[draw.choice(np.flatnonzero(y == c), lab, replace=False)] = c
    return X, y, ys


def _imb(seed, n=500, frac=0.1, shift=1.5, d=6, lab=(20, 8)):
    """Two 6-d unit Gaussians, the second (10 %) shifted: overlapping,
    imbalanced."""
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


def _multi(seed=2, n=600, fracs=(0.8, 0.12, 0.08), shift=1.5, d=6, lab=10):
    """Three classes, 80 / 12 / 8, the two small ones shifted from the
    large one; 10 labels per class."""
    rng = np.random.RandomState(seed)
    counts = np.round(np.array(fracs) * n).astype(int)
    counts[0] += n - counts.sum()
    y = np.repeat(np.arange(3), counts)
    U = rng.randn(3, d)
    U /= np.linalg.norm(U, axis=1)[:, None]
    X = rng.randn(n, d) + shift * (y[:, None] > 0) * U[y]
    ys = -np.ones(n, int)
    for c in range(3):
        ys[rng.choice(np.flatnonzero(y == c), lab, replace=False)] = c
    return X, y, ys


def _blobs():
    # two separated clusters, 10 labels each: no fallback
    X, y = make_blobs(n_samples=300, centers=[[0, 0], [6, 0]], cluster_std=1.0,
                      random_state=3)
    rng = np.random.RandomState(0)
    ys = -np.ones_like(y)
    for c in (0, 1):
        ys[rng.choice(np.flatnonzero(y == c), 10, replace=False)] = c
    return X, y, ys


def _fit(model, X, ys, plain, monkeypatch, **kw):
    monkeypatch.setattr(fb, "PLAIN_FALLBACK", plain)
    return model(**kw).fit(X, ys)


def _svc_decision(X, ys):
    """SVC()'s two-class decision on the labeled rows as the library fits
    it: the classes in the order of their first labeled row, the binary
    problem "the second of them" (decision > 0), its sign turned to the
    sorted classes' convention (> 0: the larger label). Where the first
    labeled row has the smaller label this is ``SVC().fit(...)`` itself;
    otherwise libsvm solves the swapped problem, the same model up to its
    tolerance (1e-3)."""
    lab = ys != -1
    first = ys[lab][0]
    classes = np.unique(ys[lab])
    second = classes[classes != first][0]
    svc = SVC().fit(X[lab], (ys[lab] == second).astype(int))
    d = svc.decision_function(X)
    return d if second == classes[1] else -d


# -- two classes

@pytest.mark.parametrize("model, data", [
    (LapRLS, lambda: _imb(1)),            # first labeled row of class 0
    (LapSVM, lambda: _imb(1)),
    (LapRLS, lambda: _nested(1)),         # first labeled row of class 1
    (LapSVM, lambda: _nested(1)),
])
def test_on_the_model_is_svc(model, data, monkeypatch):
    X, y, ys = data()
    lab = ys != -1
    unl = ~lab
    svc = SVC().fit(X[lab], ys[lab])
    off = _fit(model, X, ys, False, monkeypatch)
    on = _fit(model, X, ys, True, monkeypatch)
    assert off.fell_back_ and on.fell_back_
    # the decision is unchanged: the same folds, the same scores
    assert on.unlabeled_gain_ == off.unlabeled_gain_
    assert len(on.safe_scores_) == len(off.safe_scores_)
    for a, b in zip(on.safe_scores_, off.safe_scores_):
        assert np.array_equal(a, b)
    # off: a chosen candidate at C = 10; on: SVC()
    assert off.safe_counterpart_.startswith("rbf SVC (C=10, gamma=")
    assert on.safe_counterpart_ == SVC_NAME
    # SVC()'s labels on every row, in and out of sample
    assert np.array_equal(on.predict(X), svc.predict(X))
    assert np.array_equal(np.asarray(on.transduction_)[unl], svc.predict(X[unl]))
    assert np.array_equal(np.asarray(on.transduction_)[lab], ys[lab])
    # its decision function (> 0: classes_[1]), to the bits of libsvm's
    # solution of the problem the library poses, and SVC()'s own to libsvm's
    # tolerance (equal where the first labeled row is of classes_[0])
    assert np.array_equal(on.classes_, svc.classes_)
    d = on.decision_function(X)
    np.testing.assert_allclose(d, _svc_decision(X, ys), rtol=0, atol=1e-10)
    np.testing.assert_allclose(d, svc.decision_function(X), rtol=0,
                               atol=1e-10 if ys[lab][0] == 0 else 1e-2)
    # the other side differs from SVC() (the test can tell the two apart)
    assert not np.array_equal(off.predict(X), svc.predict(X))
    # no class-prior shift after it
    assert on.class_prior_ is None


def test_on_no_class_prior_shift_where_off_shifts(monkeypatch):
    # the shift made to fire wherever estimated: off, the chosen candidate
    # is shifted; on, SVC() as it stands
    X, y, ys = _imb(1)
    lab = ys != -1
    monkeypatch.setattr(fb, "PRIOR_Z", 0.0)
    monkeypatch.setattr(fb, "PRIOR_GAP", -1.0)
    off = _fit(LapRLS, X, ys, False, monkeypatch)
    on = _fit(LapRLS, X, ys, True, monkeypatch)
    assert off.fell_back_ and on.fell_back_
    assert off.class_prior_ is not None and off.class_prior_["shifted"]
    assert on.class_prior_ is None
    assert on._check_stats.get("no_prior_shift")
    svc = SVC().fit(X[lab], ys[lab])
    assert np.array_equal(on.predict(X), svc.predict(X))
    np.testing.assert_allclose(on.decision_function(X), svc.decision_function(X),
                               rtol=0, atol=1e-10)


def test_on_ignores_the_other_model_rules(monkeypatch):
    # on, the model is SVC() whatever ADOPT_C, ADOPT_W_SHRINK and WEAK_GAP
    # say (they are skipped); off, they move the model
    X, y, ys = _nested(1)
    base = _fit(LapRLS, X, ys, True, monkeypatch)
    monkeypatch.setattr(fb, "ADOPT_C", {"laplacian": None, "tv": None})
    monkeypatch.setattr(fb, "ADOPT_W_SHRINK", None)
    monkeypatch.setattr(fb, "WEAK_GAP", 0.99)
    other = _fit(LapRLS, X, ys, True, monkeypatch)
    assert other.safe_counterpart_ == base.safe_counterpart_ == SVC_NAME
    assert np.array_equal(other.transduction_, base.transduction_)
    assert np.array_equal(other.decision_function(X), base.decision_function(X))
    assert "adopt_c" not in other._check_stats and "adopt_w" not in other._check_stats
    # off with WEAK_GAP 0.99: the weak model, SVC() as well (the same path)
    weak = _fit(LapRLS, X, ys, False, monkeypatch)
    assert weak.safe_counterpart_ == SVC_NAME
    assert np.array_equal(weak.decision_function(X), base.decision_function(X))


# -- more than two classes: one SVC() per class against the rest

def test_on_three_classes_one_vs_rest_svc(monkeypatch):
    # (PLAIN_FALLBACK_OVO off: one SVC() per class against the rest; on, the
    # one-vs-one SVC() itself: tests/test_plain_fallback_ovo.py)
    monkeypatch.setattr(fb, "PLAIN_FALLBACK_OVO", False)
    X, y, ys = _multi()
    lab = ys != -1
    off = _fit(LapRLS, X, ys, False, monkeypatch)
    on = _fit(LapRLS, X, ys, True, monkeypatch)
    assert off.fell_back_ and on.fell_back_
    assert off.safe_counterpart_ == "rbf SVC (C=10, gamma=scale)"
    assert on.safe_counterpart_ == SVC_NAME
    assert on.class_prior_ is None
    ovr = OneVsRestClassifier(SVC()).fit(X[lab], ys[lab])
    assert np.array_equal(on.predict(X), ovr.predict(X))
    np.testing.assert_allclose(on.decision_function(X), ovr.decision_function(X),
                               rtol=0, atol=1e-10)
    assert not np.array_equal(off.predict(X), ovr.predict(X))


# -- what the switch leaves alone

def test_linear_kernel_unaffected(monkeypatch):
    # a linear LapRLS made to fall back (its held-out solves wrong on
    # purpose): the linear SVC at C = 10 on both sides, bit for bit
    import semisvm.manifold as manifold
    X, y, ys = _blobs()
    real = fb.auto_fallback

    def wrong(est, X_, y_, solve, adopt, **kw):
        return real(est, X_, y_, lambda yh: 1 - y, adopt, **kw)
    monkeypatch.setattr(manifold, "auto_fallback", wrong)
    off = _fit(LapRLS, X, ys, False, monkeypatch, kernel="linear")
    on = _fit(LapRLS, X, ys, True, monkeypatch, kernel="linear")
    assert off.fell_back_ and on.fell_back_
    assert on.safe_counterpart_ == off.safe_counterpart_ == "linear SVC"
    assert np.array_equal(on.transduction_, off.transduction_)
    assert np.array_equal(on.decision_function(X), off.decision_function(X))


@pytest.mark.parametrize("model, data", [
    (LapRLS, lambda: _nested(0)),       # the check keeps the fit
    (LapSVM, _blobs),
    (TVRLS, _blobs),
])
def test_no_fallback_bit_identical(model, data, monkeypatch):
    X, y, ys = data()
    off = _fit(model, X, ys, False, monkeypatch)
    on = _fit(model, X, ys, True, monkeypatch)
    assert not off.fell_back_ and not on.fell_back_
    assert not getattr(on, "laplacian_fallback_", False)
    assert on.safe_counterpart_ == off.safe_counterpart_
    assert np.array_equal(on.transduction_, off.transduction_)
    assert np.array_equal(on.decision_function(X), off.decision_function(X))
    assert on.unlabeled_gain_ == off.unlabeled_gain_


def test_cut_check_fallback_unaffected(monkeypatch):
    # one label per class: no label folds, the label-free cut check falls
    # back; its model (the first candidate at C = 10) is outside the switch
    # (as built and as judged on the twelfth part), bit for bit on both sides;
    # its own switch, PLAIN_CUT_FALLBACK (tests/test_plain_cut_fallback.py),
    # pinned off here
    monkeypatch.setattr(fb, "PLAIN_CUT_FALLBACK", False)
    X, y, ys = _nested(2, lab=1)
    off = _fit(LapRLS, X, ys, False, monkeypatch)
    on = _fit(LapRLS, X, ys, True, monkeypatch)
    assert off.fell_back_ and on.fell_back_
    assert on.safe_check_.startswith("graph cut")
    assert on.safe_counterpart_ == off.safe_counterpart_ == "rbf SVC (C=10, gamma=scale)"
    assert np.array_equal(on.transduction_, off.transduction_)
    assert np.array_equal(on.decision_function(X), off.decision_function(X))


# -- TV / Cheeger fits

def _guard_case():
    # overlapping imbalanced clouds, 25 labels per class: the TV / Cheeger
    # fits keep their own model at their check but disagree with LapRLS,
    # whose check falls back; with ADOPT_W_SHRINK off its model (and the
    # guard's) is the RBF SVC at C = 10, 3 x "scale", class-prior shifted
    return _imb(114, n=800, lab=(25, 25))


@pytest.mark.parametrize("model", [TVRLS, CheegerRLS,
                                   pytest.param(CheegerSVM, marks=pytest.mark.slow)])
def test_guard_takes_svc_over(model, monkeypatch):
    X, y, ys = _guard_case()
    lab = ys != -1
    monkeypatch.setattr(fb, "ADOPT_W_SHRINK", None)
    off = _fit(model, X, ys, False, monkeypatch)
    on = _fit(model, X, ys, True, monkeypatch)
    for est in (off, on):
        assert est.laplacian_fallback_ and not est.fell_back_
    assert off.safe_counterpart_ == "rbf SVC (C=10, gamma=3 x scale)"
    assert off.class_prior_ is not None and off.class_prior_["shifted"]
    assert on.safe_counterpart_ == SVC_NAME
    assert on.class_prior_ is None
    svc = SVC().fit(X[lab], ys[lab])
    assert np.array_equal(on.predict(X), svc.predict(X))
    assert np.array_equal(np.asarray(on.transduction_)[~lab], svc.predict(X[~lab]))
    np.testing.assert_allclose(on.decision_function(X), _svc_decision(X, ys),
                               rtol=0, atol=1e-10)
    # the same model as LapRLS's alone
    lap = _fit(LapRLS, X, ys, True, monkeypatch)
    assert np.array_equal(on.transduction_, lap.transduction_)


@pytest.mark.parametrize("model", [TVRLS, pytest.param(TVSVM, marks=pytest.mark.slow),
                                   CheegerRLS])
def test_tv_own_fallback_is_svc(model, monkeypatch):
    X, y, ys = _nested(1)
    lab = ys != -1
    off = _fit(model, X, ys, False, monkeypatch)
    on = _fit(model, X, ys, True, monkeypatch)
    assert off.fell_back_ and on.fell_back_
    assert off.safe_counterpart_ != SVC_NAME
    assert on.safe_counterpart_ == SVC_NAME and on.class_prior_ is None
    svc = SVC().fit(X[lab], ys[lab])
    assert np.array_equal(on.predict(X), svc.predict(X))
    np.testing.assert_allclose(on.decision_function(X), _svc_decision(X, ys),
                               rtol=0, atol=1e-10)


# -- model files, same bits

def test_on_pickle_and_model_file_round_trip(monkeypatch, tmp_path):
    from semisvm.io import load, save
    X, y, ys = _nested(1)
    on = _fit(LapRLS, X, ys, True, monkeypatch)
    assert on.fell_back_ and on.safe_counterpart_ == SVC_NAME
    pred, dec = on.predict(X), on.decision_function(X)
    back = pickle.loads(pickle.dumps(on))
    assert np.array_equal(back.predict(X), pred)
    assert np.array_equal(back.decision_function(X), dec)
    save(on, tmp_path / "m.semisvm")
    got = load(tmp_path / "m.semisvm")
    assert got.fell_back_ and got.safe_counterpart_ == SVC_NAME
    assert np.array_equal(got.predict(X), pred)
    assert np.array_equal(got.decision_function(X), dec)


@pytest.mark.parametrize("data", [lambda: _nested(1), _multi])
def test_on_same_input_same_bits(data, monkeypatch):
    X, y, ys = data()
    a = _fit(LapRLS, X, ys, True, monkeypatch)
    b = _fit(LapRLS, X, ys, True, monkeypatch)
    assert a.fell_back_
    assert np.array_equal(a.transduction_, b.transduction_)
    assert np.array_equal(a.decision_function(X), b.decision_function(X))
    assert np.array_equal(a.dual_coef_, b.dual_coef_)
    assert np.array_equal(a.intercept_, b.intercept_)
