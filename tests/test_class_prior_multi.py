"""The class-prior shift of the six graph / kernel estimators' multi-class
fits (semisvm._fallback: bbse_multi_estimate, offsets_for_counts, the
multi-class branch of class_prior_shift; bench/RESULTS.md, "The multi-class
class-prior shift on the fallback's model ..."): the estimate against a hand
computation, the offsets reaching their counts, the rule firing on a built
imbalanced problem whose fit fell back (the class fractions moved toward the
truth, predict agreeing, the bench replay's labels), silent on balanced
blobs and where the model is the fit's own, on both sides of its z,
determinism."""
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import make_blobs, make_classification

import semisvm._fallback as fb
from semisvm import TVRLS, TVSVM, CheegerRLS, CheegerSVM, LapRLS, LapSVM

SIX = [LapSVM, LapRLS, TVRLS, TVSVM, CheegerRLS, CheegerSVM]


def _bench():
    root = Path(__file__).resolve().parents[1]
    if not (root / "bench" / "bench_class_prior.py").is_file():
        pytest.skip("bench/ is not beside the tests (not a source checkout)")
    sys.path.insert(0, str(root / "bench"))
    import bench_class_prior
    return bench_class_prior


def _imbalanced(seed, n=600, per_class=25):
    """Three classes 70 / 20 / 10 (make_classification, one cluster per
    class), ``per_class`` labels each: a balanced draw of an imbalanced set."""
    X, y = make_classification(n, n_features=20, n_informative=6, n_redundant=4,
                               n_classes=3, weights=[0.7, 0.2, 0.1],
                               n_clusters_per_class=1, random_state=seed)
    rng = np.random.RandomState(seed)
    y_semi = np.full(n, -1)
    for c in range(3):
        y_semi[rng.choice(np.flatnonzero(y == c), per_class, replace=False)] = c
    return X, y, y_semi


def test_bbse_multi_estimate_by_hand():
    # held out: 4 rows of each of 3 classes; the classifier's labels of them
    y_held = np.repeat([0, 1, 2], 4)
    pred = np.array([0, 0, 0, 1, 1, 1, 1, 0, 2, 2, 2, 2])
    unl = np.array([0] * 6 + [1] * 3 + [2] * 1)
    p, se = fb.bbse_multi_estimate(y_held, pred, unl, np.array([0, 1, 2]))
    C = np.array([[0.75, 0.25, 0.0], [0.25, 0.75, 0.0], [0.0, 0.0, 1.0]])
    q = np.array([0.6, 0.3, 0.1])
    want = np.linalg.solve(C, q)
    assert p == pytest.approx(want)
    pc = np.clip(want, 0, 1)
    V = sum(pc[j] ** 2 * (np.diag(C[:, j]) - np.outer(C[:, j], C[:, j]) + np.eye(3) / 4) / 4
            for j in range(3))
    Ci = np.linalg.inv(C)
    assert se == pytest.approx(np.sqrt(np.diag(Ci @ V @ Ci.T)))
    # a class not held out, or a singular confusion matrix: None
    assert fb.bbse_multi_estimate(np.repeat([0, 1], 6), pred, unl, np.arange(3)) is None
    assert fb.bbse_multi_estimate(y_held, np.zeros(12), unl, np.arange(3)) is None


def test_offsets_reach_the_counts():
    rng = np.random.RandomState(0)
    S = rng.randn(200, 4)
    for counts in ([50, 50, 50, 50], [140, 30, 20, 10], [0, 100, 100, 0], [200, 0, 0, 0]):
        b = fb.offsets_for_counts(S, counts)
        assert np.bincount(np.argmax(S + b, axis=1), minlength=4).tolist() == counts
    # piecewise constant scores (a TV solve's): as near as the ties allow,
    # never farther than no offsets at all
    T = np.round(S, 0)
    counts = np.array([140, 30, 20, 10])
    b = fb.offsets_for_counts(T, counts)
    d = lambda b: np.abs(np.bincount(np.argmax(T + b, axis=1), minlength=4)  # noqa: E731
                         - counts).sum()
    assert d(b) <= d(np.zeros(4))


@pytest.mark.parametrize("cls", [LapRLS, TVRLS], ids=lambda c: c.__name__)
def test_fires_on_the_fallback_and_moves_the_fractions_toward_the_truth(cls, monkeypatch):
    """A 70 / 20 / 10 draw with 25 labels per class where both fall back to
    the check's SVC: the estimate lies > 4.5 se from the labeled rows' 1/3
    each; the unlabeled rows' class fractions move toward the truth (L1
    0.187 -> 0.072; draw 10: draw 7's folds changed when they came to
    follow the classes' first labeled rows), half way to the estimate;
    predict agrees; the labels are the bench replay's ("multi z2 lab half fb") of the fit without it;
    the same bits twice; on both sides of the z. With ``PLAIN_FALLBACK`` off
    (on, the fallback's model is ``SVC()``, after which no shift follows:
    tests/test_plain_fallback.py)."""
    monkeypatch.setattr(fb, "PLAIN_FALLBACK", False)
    B = _bench()
    X, y, y_semi = _imbalanced(10)
    unl = y_semi == -1
    on = cls().fit(X, y_semi)
    info = on.class_prior_
    assert on.fell_back_ and info["shifted"]
    trans = np.asarray(on.transduction_)[unl]
    true = np.bincount(y[unl], minlength=3) / unl.sum()
    new = np.bincount(trans, minlength=3) / unl.sum()
    assert np.abs(new - true).sum() < 0.6 * np.abs(info["fit"] - true).sum()
    assert np.allclose(new, info["target"], atol=1.5 / unl.sum())
    assert info["labeled"] == pytest.approx([1 / 3] * 3)
    # (4.9 se on this draw: far past PRIOR_Z = 2)
    assert np.max(np.abs(info["estimate"] - info["labeled"]) / info["se"]) > 4.5
    assert np.array_equal(on.predict(X[unl]), trans)
    assert np.array_equal(np.asarray(on.transduction_)[~unl], y_semi[~unl])
    # the bench replay of the fit without the shift
    monkeypatch.setattr(fb, "RECORD_FOLDS", True)
    monkeypatch.setattr(fb, "PRIOR_Z", None)
    off = cls().fit(X, y_semi)
    assert off.class_prior_ is None
    # (and it lowered the error here)
    assert np.mean(trans != y[unl]) < np.mean(np.asarray(off.transduction_)[unl] != y[unl])
    rec = dict(pred=np.asarray(off.transduction_)[unl], n_classes=3, y_lab=y_semi[~unl],
               score=B._scores(cls.__name__, off, X, unl), folds=off._check_folds,
               fell_back=bool(off.fell_back_),
               guard=bool(getattr(off, "laplacian_fallback_", False)))
    rule = B.RULES["multi z2 lab half fb"]
    assert rule["z"] == 2.0
    want, p = B.apply_rule(rec, rule)
    assert p == pytest.approx(info["estimate"])
    assert np.array_equal(trans, want)
    monkeypatch.setattr(fb, "RECORD_FOLDS", False)
    # determinism
    monkeypatch.setattr(fb, "PRIOR_Z", 2.0)
    again = cls().fit(X, y_semi)
    assert np.array_equal(again.transduction_, on.transduction_)
    assert np.array_equal(np.asarray(again.intercept_), np.asarray(on.intercept_))
    assert np.array_equal(again.decision_function(X[:50]), on.decision_function(X[:50]))
    # both sides of the z, read from this fit's estimate
    ratio = np.max(np.abs(info["estimate"] - info["labeled"]) / info["se"])
    monkeypatch.setattr(fb, "PRIOR_Z", ratio * (1 + 1e-9))
    same = cls().fit(X, y_semi)
    assert not same.class_prior_["shifted"]
    assert np.array_equal(same.transduction_, off.transduction_)
    monkeypatch.setattr(fb, "PRIOR_Z", ratio * (1 - 1e-9))
    assert cls().fit(X, y_semi).class_prior_["shifted"]


def test_silent_where_the_fit_is_its_own_model():
    """LapRLS on a draw where it keeps its own model (no fallback): the
    estimate is > 5 se from the labeled fractions, and nothing moves."""
    X, y, y_semi = _imbalanced(6)
    e = LapRLS().fit(X, y_semi)
    info = e.class_prior_
    assert not e.fell_back_ and not info["shifted"]
    assert np.max(np.abs(info["estimate"] - info["labeled"]) / info["se"]) > 5
    assert np.array_equal(info["offset"], np.zeros(3))
    fb_z = fb.PRIOR_Z
    try:
        fb.PRIOR_Z = None
        off = LapRLS().fit(X, y_semi)
    finally:
        fb.PRIOR_Z = fb_z
    assert np.array_equal(off.transduction_, e.transduction_)


@pytest.mark.parametrize("cls", SIX, ids=lambda c: c.__name__)
def test_silent_on_balanced_blobs(cls):
    """Three equal blobs, 10 labels per class: the unlabeled rows' mix is
    the labeled rows', and no fit shifts (the fit equals the one without
    the rule, bit for bit)."""
    X, y = make_blobs(300, centers=3, cluster_std=2.5, random_state=3)
    rng = np.random.RandomState(3)
    y_semi = np.full(300, -1)
    for c in range(3):
        y_semi[rng.choice(np.flatnonzero(y == c), 10, replace=False)] = c
    e = cls().fit(X, y_semi)
    assert e.class_prior_ is not None and not e.class_prior_["shifted"]
    fb_z = fb.PRIOR_Z
    try:
        fb.PRIOR_Z = None
        off = cls().fit(X, y_semi)
    finally:
        fb.PRIOR_Z = fb_z
    assert np.array_equal(off.transduction_, e.transduction_)


def test_bbse_multi_se_against_simulation():
    """The delta-method se against the spread of the estimate over 4,000
    simulated held-out draws (an independent reference: each class's
    held-out rows labeled by a multinomial of the true confusion matrix's
    column; the unlabeled fractions fixed at ``C p``, whose noise the se
    leaves out)."""
    rng = np.random.RandomState(0)
    C = np.array([[0.8, 0.15, 0.1], [0.12, 0.75, 0.2], [0.08, 0.1, 0.7]])
    p = np.array([0.6, 0.3, 0.1])
    n_held = np.array([150, 120, 90])
    q = C @ p
    classes = np.arange(3)
    unl = np.repeat(classes, np.round(q * 10_000).astype(int))
    y_held = np.repeat(classes, n_held)
    est, ses = [], []
    for _ in range(4000):
        pred = np.concatenate([rng.choice(3, size=n_held[j], p=C[:, j]) for j in range(3)])
        got = fb.bbse_multi_estimate(y_held, pred, unl, classes)
        est.append(got[0])
        ses.append(got[1])
    sd = np.std(est, axis=0)
    assert np.median(ses, axis=0) == pytest.approx(sd, rel=0.12)
    # and not the se without the inverse's spread (C taken as known): far smaller
    assert np.all(sd > 3 * np.sqrt(q * (1 - q) / 10_000))


def test_fires_on_the_laplacian_guards_model(monkeypatch):
    """CheegerRLS on a 70 / 20 / 10 draw of three blobs, 10 labels per
    class, where the check keeps the fit and the Laplacian guard takes
    LapRLS over (no fallback): the shift acts on the guard's model (z made
    small to fire here), and predict gives the shifted labels. The
    reweighted SVC() comparison (``ADOPT_W_SHRINK``) off: on, LapRLS's check
    takes SVC() here, and no shift follows it (below); so with
    ``PLAIN_FALLBACK`` on (the default: LapRLS's fallback is ``SVC()``)."""
    monkeypatch.setattr(fb, "PLAIN_FALLBACK", False)
    monkeypatch.setattr(fb, "ADOPT_W_SHRINK", None)
    # (MISS_FALLBACK off: on, the CheegerRLS check itself falls back here)
    monkeypatch.setattr(fb, "MISS_FALLBACK", {"laplacian": None, "tv": None})
    X, y = make_blobs(600, centers=[[0, 0], [3, 0], [0, 3]], cluster_std=1.3, random_state=0)
    rng = np.random.RandomState(0)
    keep = np.r_[np.flatnonzero(y == 0), np.flatnonzero(y == 1)[:57], np.flatnonzero(y == 2)[:29]]
    X, y = X[keep], y[keep]
    y_semi = np.full(y.size, -1)
    for c in range(3):
        y_semi[rng.choice(np.flatnonzero(y == c), 10, replace=False)] = c
    unl = y_semi == -1
    z = fb.PRIOR_Z
    try:
        fb.PRIOR_Z = 1e-3
        e = CheegerRLS().fit(X, y_semi)
    finally:
        fb.PRIOR_Z = z
    info = e.class_prior_
    assert e.laplacian_fallback_ and not e.fell_back_
    assert info["shifted"]
    trans = np.asarray(e.transduction_)[unl]
    assert np.abs(np.bincount(trans, minlength=3) / unl.sum() - info["target"]).sum() \
        < np.abs(info["fit"] - info["target"]).sum()
    assert np.array_equal(e.predict(X[unl]), trans)
    # the rule on (its default, 0.5): the guard's LapRLS took SVC() on the
    # reweighted held-out rows, and the guard drops the fit's estimate
    monkeypatch.setattr(fb, "ADOPT_W_SHRINK", 0.5)
    try:
        fb.PRIOR_Z = 1e-3
        on = CheegerRLS().fit(X, y_semi)
    finally:
        fb.PRIOR_Z = z
    assert on.laplacian_fallback_ and not on.fell_back_
    assert on.safe_counterpart_ == "rbf SVC (C=1, gamma=scale)"
    assert on.class_prior_ is None
    # PLAIN_FALLBACK on, ADOPT_W_SHRINK off: the same model (one-vs-rest:
    # PLAIN_FALLBACK_OVO off), no shift
    monkeypatch.setattr(fb, "PLAIN_FALLBACK", True)
    monkeypatch.setattr(fb, "PLAIN_FALLBACK_OVO", False)
    monkeypatch.setattr(fb, "ADOPT_W_SHRINK", None)
    try:
        fb.PRIOR_Z = 1e-3
        plain = CheegerRLS().fit(X, y_semi)
    finally:
        fb.PRIOR_Z = z
    assert plain.laplacian_fallback_ and not plain.fell_back_
    assert plain.safe_counterpart_ == "rbf SVC (C=1, gamma=scale)"
    assert plain.class_prior_ is None
    assert np.array_equal(plain.transduction_, on.transduction_)


@pytest.mark.parametrize("kind", ["float32", "csr"])
@pytest.mark.parametrize("cls", [LapSVM, TVSVM, CheegerSVM], ids=lambda c: c.__name__)
def test_shifted_labels_are_predicts_for_float32_and_sparse_rows(cls, kind, monkeypatch):
    """The fallback's shifted model on float32 / sparse rows: predict and
    the argmax of decision_function give the unlabeled rows' transduction_
    (the labels are read off the model with its intercepts as stored). With
    ``PLAIN_FALLBACK`` off (on, no shift follows the fallback)."""
    import scipy.sparse as sp
    monkeypatch.setattr(fb, "PLAIN_FALLBACK", False)
    X, y, y_semi = _imbalanced(10)
    X = X.astype(np.float32) if kind == "float32" else sp.csr_matrix(X)
    unl = np.flatnonzero(y_semi == -1)
    e = cls().fit(X, y_semi)
    assert e.fell_back_ and e.class_prior_["shifted"]
    trans = np.asarray(e.transduction_)[unl]
    assert np.array_equal(e.predict(X[unl]), trans)
    assert np.array_equal(e.classes_[np.argmax(e.decision_function(X[unl]), axis=1)], trans)
