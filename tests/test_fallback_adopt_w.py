"""The fallback's model against ``SVC()`` on held-out rows reweighted to the
unlabeled rows' estimated class mix (``semisvm._fallback.ADOPT_W_SHRINK``,
``ADOPT_W_Z``, ``adopt_weights``): a held-out row of class c counts p_unl(c)
/ p_lab(c); ``SVC()`` becomes the model where right on more weighted rows."""
import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.svm import SVC

import semisvm._fallback as fb
from semisvm import TVRLS, TVSVM, CheegerRLS, CheegerSVM, LapRLS


@pytest.fixture(autouse=True)
def _rule_on(monkeypatch):
    # the rule at the value chosen on the tune part (the default, 0.5: these
    # tests hold it there whatever the default), with PLAIN_FALLBACK off (it
    # is read only then; on, every RBF fallback's model is SVC():
    # tests/test_plain_fallback.py)
    monkeypatch.setattr(fb, "ADOPT_W_SHRINK", 0.5)
    monkeypatch.setattr(fb, "PLAIN_FALLBACK", False)


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
    # the chosen value (0.5), off, or no estimate
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


# -- the Laplacian guard of a TV / Cheeger fit that takes over a LapRLS whose
# check adopted SVC(): no class-prior shift follows (the fit's own estimate
# is dropped with it)

def _guard_case():
    return _imb_case(114, n=800, shift=1.5, lab=(25, 25))


@pytest.mark.parametrize("model", [TVRLS, CheegerRLS, CheegerSVM])
def test_guard_taking_an_adopted_svc_drops_the_class_prior_shift(model, monkeypatch):
    X, y, ys = _guard_case()
    unl = ys == -1
    lap = _fit(LapRLS, X, ys, 0.5, monkeypatch)
    assert lap.fell_back_ and lap._check_stats.get("no_prior_shift")
    assert lap.safe_counterpart_ == "rbf SVC (C=1, gamma=scale)"
    est = _fit(model, X, ys, 0.5, monkeypatch)
    assert est.laplacian_fallback_ and not est.fell_back_
    assert est.safe_counterpart_ == "rbf SVC (C=1, gamma=scale)"
    assert est.class_prior_ is None
    # the model is SVC() on the labeled rows, as LapRLS's alone
    svc = SVC().fit(X[~unl], ys[~unl])
    assert np.array_equal(np.asarray(est.transduction_)[unl], svc.predict(X[unl]))
    assert np.array_equal(np.asarray(est.transduction_), np.asarray(lap.transduction_))
    assert np.array_equal(est.predict(X[unl]), np.asarray(est.transduction_)[unl])
    np.testing.assert_allclose(est.decision_function(X), svc.decision_function(X),
                               atol=1e-6)


@pytest.mark.parametrize("model", [TVRLS, pytest.param(CheegerSVM, marks=pytest.mark.slow)])
def test_guard_keeps_the_shift_where_laprls_did_not_adopt_svc(model, monkeypatch):
    # the other side: where LapRLS's check did not mark the adoption (the
    # mark removed here), the guard's fit keeps its own estimate and the
    # two-class shift moves the model taken over (the behaviour the mark
    # switches off)
    import semisvm.manifold as mf
    X, y, ys = _guard_case()
    real = mf.auto_fallback

    def unmarked(est, *a, **kw):
        out = real(est, *a, **kw)
        getattr(est, "_check_stats", {}).pop("no_prior_shift", None)
        return out
    monkeypatch.setattr(mf, "auto_fallback", unmarked)
    est = _fit(model, X, ys, 0.5, monkeypatch)
    assert est.laplacian_fallback_
    assert est.safe_counterpart_ == "rbf SVC (C=1, gamma=scale)"
    assert est.class_prior_ is not None and est.class_prior_["shifted"]


# -- more than two classes: the library's SVC() is one SVC(C=1, gamma="scale")
# per class against the rest (every fallback model of the library is
# one-vs-rest: its decision an argmax over one expansion per class)

def _multi_case(seed=20, n=600, fracs=(0.8, 0.12, 0.08), shift=1.5, d=6, lab=10):
    """Three classes, 80 / 12 / 8, the two small ones shifted from the large
    one along their own directions; 10 labels per class."""
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


def test_three_classes_the_model_is_one_vs_rest_svc(monkeypatch):
    from sklearn.multiclass import OneVsRestClassifier
    X, y, ys = _multi_case()
    unl = ys == -1
    off = _fit(LapRLS, X, ys, None, monkeypatch)
    on = _fit(LapRLS, X, ys, 0.5, monkeypatch)
    assert off.fell_back_ and on.fell_back_
    assert off.safe_counterpart_ != on.safe_counterpart_ == "rbf SVC (C=1, gamma=scale)"
    w_svc, w_took = on._check_stats["adopt_w"]
    assert w_svc > w_took
    assert on.class_prior_ is None
    ovr = OneVsRestClassifier(SVC()).fit(X[~unl], ys[~unl])
    assert np.array_equal(np.asarray(on.transduction_)[unl], ovr.predict(X[unl]))
    assert np.array_equal(on.predict(X[unl]), np.asarray(on.transduction_)[unl])
    np.testing.assert_allclose(on.decision_function(X), ovr.decision_function(X),
                               atol=1e-6)


# -- bench/bench_class_prior.py's replay of the rule ("svc w s0.5 z0") on a
# recording made without it gives the library's fit with it, fit by fit

def _bench():
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    if not (root / "bench" / "bench_class_prior.py").is_file():
        pytest.skip("bench/ is not beside the tests (not a source checkout)")
    sys.path.insert(0, str(root / "bench"))
    import bench_class_prior
    return bench_class_prior


def _record(est, name, y, ys):
    # what bench_class_prior.record keeps of a fit
    unl = ys == -1
    return dict(model=name, pred=np.asarray(est.transduction_)[unl], y_unl=y[unl],
                y_lab=ys[~unl], n_classes=int(np.unique(y).size),
                fell_back=bool(est.fell_back_),
                guard=bool(getattr(est, "laplacian_fallback_", False)),
                folds=getattr(est, "_check_folds", None))


@pytest.mark.parametrize("case", ["two", "guard", "three"])
def test_the_replay_gives_the_librarys_fit(case, monkeypatch):
    bcp = _bench()
    X, y, ys = {"two": lambda: _imb_case(33, shift=1.5), "guard": _guard_case,
                "three": _multi_case}[case]()
    unl = ys == -1
    monkeypatch.setattr(fb, "RECORD_FOLDS", True)
    svc = SVC().fit(X[~unl], ys[~unl]).predict(X[unl])
    models = {"LapRLS": LapRLS, "TVRLS": TVRLS}
    recs = {n: _record(_fit(m, X, ys, None, monkeypatch), n, y, ys)
            for n, m in models.items()}
    fired = 0
    for n, m in models.items():
        r = dict(recs[n], lap_rec=recs["LapRLS"], svc_pred=svc)
        lab, p = bcp.apply_rule(r, bcp.RULES["svc w s0.5 z0"])
        fired += p is not None
        on = _fit(m, X, ys, 0.5, monkeypatch)
        assert np.array_equal(lab, np.asarray(on.transduction_)[unl]), n
    assert fired == 2


# -- the memo: SVC()'s fold labels (the first candidate at C = 1) are shared
# with the guard's LapRLS check like the ADOPT_C ones

def _nested(n=240, d=5, seed=0):
    # concentric Gaussian clouds (tests/test_graph_defaults.py's draw): the
    # check falls back to the RBF SVC at 3 x "scale" and scores it at C = 1
    rng = np.random.RandomState(seed)
    yt = np.arange(n) % 2
    X = rng.randn(n, d) * np.where(yt == 1, 3.0, 1.0)[:, None]
    ys = np.full(n, -1)
    draw = np.random.default_rng(seed)
    for c in (0, 1):
        ys[draw.choice(np.flatnonzero(yt == c), 10, replace=False)] = c
    return X, yt, ys


@pytest.mark.parametrize("model", [TVRLS, pytest.param(TVSVM, marks=pytest.mark.slow)])
def test_svc_fold_labels_read_from_the_guards_memo_with_two_threads(model, monkeypatch):
    import threading
    # (draw 29: draw 0, whose first labeled row is of class 1, now adopts
    # "scale" at C = 1 itself since the fit reads the classes in the order
    # of their first labeled row, so its two pairs are one; of draws 0-39,
    # TVRLS's fallback ends at SVC() on 0, 7, 11, 14 and 29, and only 29
    # gives this test's fold fits)
    X, y, ys = _nested(seed=29)
    n_half = int(np.sum(ys != -1)) // 2
    calls = []
    real = fb.fit_counterpart

    def counted(sup, Xs, yy, classes):
        calls.append((threading.current_thread().name == "MainThread", float(sup.C),
                      getattr(sup, "factor", None), Xs.shape[0]))
        return real(sup, Xs, yy, classes)
    monkeypatch.setattr(fb, "fit_counterpart", counted)

    def fits(main, C, factor):
        return sum(1 for m, c, f, r in calls
                   if m == main and c == C and f == factor and r == n_half)
    monkeypatch.setattr(fb, "ADOPT_W_SHRINK", 0.5)
    one = model(n_jobs=1).fit(X, ys)
    assert one.fell_back_ and "adopt_w" in one._check_stats
    assert one._check_stats["adopt_c"][0] == 1.0
    # one thread: the check fits the chosen width (3 x scale) and SVC()
    # (the first candidate, "scale") at C = 1 on the two folds itself
    assert fits(True, 1.0, 3.0) == 2 and fits(True, 1.0, 1.0) == 2
    calls.clear()
    two = model(n_jobs=2).fit(X, ys)
    # two threads: the guard's LapRLS made both pairs, the check read them
    assert fits(False, 1.0, 3.0) == 2 and fits(False, 1.0, 1.0) == 2
    assert fits(True, 1.0, 3.0) == 0 and fits(True, 1.0, 1.0) == 0
    assert one._check_stats == two._check_stats
    assert one.safe_counterpart_ == two.safe_counterpart_
    # (the ADOPT_C tests' nested clouds: the rule off, the RBF SVC at 3 x
    # "scale", C = 1; on, SVC() after it, in and out of sample)
    lab = ys != -1
    assert one.safe_counterpart_ == "rbf SVC (C=1, gamma=scale)"
    svc = SVC().fit(X[lab], ys[lab])
    np.testing.assert_allclose(one.decision_function(X), svc.decision_function(X),
                               atol=1e-8)
    assert one.class_prior_ is None
    np.testing.assert_array_equal(one.transduction_, two.transduction_)
    np.testing.assert_array_equal(one.decision_function(X), two.decision_function(X))
