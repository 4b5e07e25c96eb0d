"""Renaming the classes gives the same fit, renamed (semisvm._fallback.to_codes).

LapSVM, LapRLS, TVRLS, TVSVM, CheegerRLS and CheegerSVM fit on the classes'
codes, numbered in the order of each class's first labeled row, and turn
the fit into the user's labels at its end (``classes_`` the sorted labels).
A one-to-one renaming of the classes (swapping two, {0, 1, 2} -> {5, 2, 9},
strings) must then give the same ``transduction_`` (renamed), the same
decision values bit for bit (negated for two classes where ``classes_[1]``
changes, columns permuted for more) and the same check attributes.
"""
import logging
import re
import warnings

import numpy as np
import pytest
from numpy.testing import assert_array_equal

import semisvm._fallback as fb
from semisvm import TVRLS, TVSVM, CheegerRLS, CheegerSVM, LapRLS, LapSVM
from semisvm._fallback import two_folds
from semisvm._validation import UNLABELED, class_codes

SIX = [LapSVM, LapRLS, TVRLS, TVSVM, CheegerRLS, CheegerSVM]
ATTRS = ("fell_back_", "safe_check_", "safe_counterpart_", "unlabeled_gain_",
         "laplacian_fallback_", "graph_cut_", "laplacian_agreement_")


def _two(seed, n=240, shift=1.5, frac=0.2, lab=6):
    """Two 6-d unit Gaussians (the second a fraction ``frac``, shifted),
    ``lab`` labels per class, the rows shuffled (so the first labeled row
    is of either class)."""
    rng = np.random.RandomState(seed)
    n1 = int(round(frac * n))
    y = np.r_[np.zeros(n - n1, int), np.ones(n1, int)]
    u = rng.randn(6)
    X = rng.randn(n, 6) + shift * y[:, None] * u / np.linalg.norm(u)
    ys = np.full(n, UNLABELED)
    for c in (0, 1):
        ys[rng.choice(np.flatnonzero(y == c), lab, replace=False)] = c
    p = rng.permutation(n)
    return X[p], ys[p]


def _three(seed, **kw):
    """:func:`_two` (10 labels per class) with class 0 split by the sign of
    the second feature."""
    kw.setdefault("lab", 10)
    X, ys = _two(seed, **kw)
    ys = ys.copy()
    ys[(ys == 0) & (X[:, 1] > 0)] = 2
    return X, ys


def _rename(ys, mapping):
    out = np.array([UNLABELED if v == UNLABELED else mapping[v] for v in ys.tolist()],
                   dtype=object)
    kinds = {type(v) for v in mapping.values()}
    return out if str in kinds else out.astype(int)


def _same_fit(a, b, mapping, X):
    """``b`` (fitted on the renamed labels) is ``a`` renamed, exactly."""
    assert_array_equal(b.classes_, np.sort(np.array(list(mapping.values()),
                                                    dtype=b.classes_.dtype)))
    ren = np.array([mapping[v] for v in a.classes_.tolist()], dtype=b.classes_.dtype)
    assert_array_equal(b.transduction_, ren[np.searchsorted(a.classes_,
                                                            a.transduction_)])
    assert_array_equal(b.predict(X), ren[np.searchsorted(a.classes_, a.predict(X))])
    fa, fb_ = a.decision_function(X), b.decision_function(X)
    if fa.ndim == 1:
        # classes_[1] of b is ren[1] or ren[0]: the same or the negated decision
        assert_array_equal(fb_, fa if ren[1] == b.classes_[1] else -fa)
    else:
        perm = np.argsort(ren)            # b's column j is a's column perm[j]
        assert_array_equal(fb_, fa[:, perm])
    for name in ATTRS:
        assert getattr(a, name, None) == getattr(b, name, None), name
    _same_prior(a.class_prior_, b.class_prior_, ren, b.classes_)
    for est in (a, b):
        # nothing of the fit on codes is left on the estimator
        assert "_relabel" not in est.__dict__ and "_on_codes" not in est.__dict__


def _same_prior(pa, pb, ren, classes_b):
    """``class_prior_`` of the renamed fit: two classes, the fractions of
    ``classes_[1]`` (estimate, labeled, fit, target) the same or one minus
    the other's (both fits hold the codes' fraction x as x or as 1 - x, so
    one of the two is exactly 1 minus the other: 1 - (1 - x) may differ from
    x in the last bit), the offset the same or negated; more classes, the
    arrays permuted."""
    assert (pa is None) == (pb is None)
    if pa is None:
        return
    assert pa["shifted"] == pb["shifted"]
    if np.ndim(pa["estimate"]) == 0:
        flip = ren[1] != classes_b[1]
        for key in ("estimate", "labeled", "fit", "target"):
            x, z = pa[key], pb[key]
            assert (x == 1 - z or z == 1 - x) if flip else x == z, key
        assert pb["offset"] == (-pa["offset"] if flip else pa["offset"])
        assert pb["se"] == pa["se"] and pb["gap"] == pa["gap"]
    else:
        perm = np.argsort(ren)
        for key in ("estimate", "se", "labeled", "fit", "target", "offset"):
            assert_array_equal(pb[key], np.asarray(pa[key])[perm], err_msg=key)


def _fits(model, X, ys, mapping, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = model(random_state=0, **params).fit(X, ys)
        b = model(random_state=0, **params).fit(X, _rename(ys, mapping))
    _same_fit(a, b, mapping, X)
    return a


def _net(est):
    """True where a safety net took the fit over."""
    return bool(est.fell_back_ or getattr(est, "laplacian_fallback_", False))


# -- the codes ---------------------------------------------------------------
def test_class_codes_number_classes_by_first_row():
    # sorted indices 2, 0, 2, 1, 0: class 2 first, then 0, then 1
    codes, order = class_codes(np.array([2, 0, 2, 1, 0]))
    assert_array_equal(codes, [0, 1, 0, 2, 1])
    assert_array_equal(order, [2, 0, 1])
    # classes first seen in sorted order: the identity
    codes, order = class_codes(np.array([0, 0, 1, 2, 1]))
    assert_array_equal(codes, [0, 0, 1, 2, 1])
    assert_array_equal(order, [0, 1, 2])


@pytest.mark.parametrize("mapping", [{0: 1, 1: 0, 2: 2}, {0: 5, 1: 2, 2: 9},
                                     {0: "b", 1: "c", 2: "a"}])
@pytest.mark.parametrize("lab, mode", [(20, "two folds"), (10, "one label per class")])
def test_two_folds_renamed(mapping, lab, mode):
    # the folds take the classes in the order of their first labeled row:
    # renaming the classes gives the same folds
    _, ys = _three(3, lab=lab)
    lab = ys != UNLABELED
    f1, m1 = two_folds(ys, lab)
    f2, m2 = two_folds(_rename(ys, mapping), lab)
    assert m1 == m2 == mode
    assert_array_equal(f1, f2)


def test_draw_rows_renamed():
    rng = np.random.RandomState(0)
    y = rng.randint(0, 3, 500)
    keep = fb._draw_rows(y, 100)
    assert_array_equal(keep, fb._draw_rows(np.array([5, 2, 9])[y], 100))
    assert_array_equal(keep, fb._draw_rows(2 - y, 100))
    assert keep.size < 110


# -- two classes swapped, three classes permuted ---------------------------
@pytest.mark.slow
@pytest.mark.parametrize("model", SIX, ids=lambda m: m.__name__)
def test_two_classes_swapped(model):
    nets = []
    for seed, kw in [(0, {}), (2, {}), (4, {}), (1, dict(shift=5.0, frac=0.5))]:
        X, ys = _two(seed, **kw)
        nets.append(_net(_fits(model, X, ys, {0: 1, 1: 0})))
    # the draws take the safety nets' paths and the fit's own
    assert any(nets) and not all(nets)


@pytest.mark.slow
@pytest.mark.parametrize("model", SIX, ids=lambda m: m.__name__)
def test_three_classes_permuted(model):
    nets = []
    for seed, kw in [(0, {}), (2, {}), (5, dict(shift=5.0, frac=0.4))]:
        X, ys = _three(seed, **kw)
        nets.append(_net(_fits(model, X, ys, {0: 5, 1: 2, 2: 9})))
    assert any(nets)


@pytest.mark.slow
@pytest.mark.parametrize("model", [LapRLS, TVRLS, TVSVM], ids=lambda m: m.__name__)
def test_safe_true_renamed(model):
    # the safety net's fold models and counterparts run on the codes too
    for seed in (0, 1):
        X, ys = _two(seed, n=160)
        a = _fits(model, X, ys, {0: 1, 1: 0}, safe=True, safe_cv=2)
        assert a.unlabeled_gain_ is not None
        X, ys = _three(seed, n=160)
        _fits(model, X, ys, {0: 5, 1: 2, 2: 9}, safe=True, safe_cv=2)


@pytest.mark.parametrize("model", SIX, ids=lambda m: m.__name__)
def test_string_labels(model):
    # string labels (every row labeled: -1 marks unlabeled rows, so a
    # string y has none), swapped and permuted
    X, _ = _two(0, n=120)
    y = np.where(X[:, 0] > 0, "pos", "neg")
    y[0] = "pos"        # the first row of the class sorted last
    _fits(model, X, y, {"pos": "neg", "neg": "pos"})
    y3 = np.where(X[:, 1] > 0.5, "mid", y)
    _fits(model, X, y3, {"pos": "b", "neg": "c", "mid": "a"})


def test_validation_labels_renamed():
    # LapSVM's validation stop reads y_val in the fit's codes
    X, ys = _two(1)
    rng = np.random.RandomState(0)
    Xv = rng.randn(30, 6)
    yv = rng.randint(0, 2, 30)
    params = dict(solver="pcg", stop="validation", random_state=0)
    a = LapSVM(**params).fit(X, ys, X_val=Xv, y_val=yv)
    mapping = {0: 1, 1: 0}
    b = LapSVM(**params).fit(X, _rename(ys, mapping), X_val=Xv, y_val=1 - yv)
    _same_fit(a, b, mapping, X)


# -- nested fits keep the codes ---------------------------------------------
@pytest.mark.parametrize("model, safe", [(LapRLS, True), (TVRLS, True),
                                         (TVRLS, "auto"), (CheegerSVM, "auto")])
def test_one_renaming_per_fit(model, safe, monkeypatch):
    # the fold models, counterparts and the Laplacian guard's LapRLS are fitted
    # on the codes of the fit they run in: the classes are numbered once
    calls = []
    orig = fb.class_codes

    def counted(y_idx):
        calls.append(1)
        return orig(y_idx)
    monkeypatch.setattr(fb, "class_codes", counted)
    X, ys = _two(0, n=160)
    ys = np.where(ys == UNLABELED, UNLABELED, 1 - ys)   # first labeled row: class 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = model(safe=safe, safe_cv=2, random_state=0).fit(X, ys)
    assert len(calls) == 1
    assert est.unlabeled_gain_ is not None or safe == "auto"


# -- the Cheeger balance -----------------------------------------------------
@pytest.mark.parametrize("model", [CheegerRLS, CheegerSVM], ids=lambda m: m.__name__)
def test_cheeger_balance_list_and_array(model):
    X, ys = _two(0)
    # first labeled row of class 1: the fit's codes run in the other order
    ys = np.where(ys == UNLABELED, UNLABELED, 1 - ys)
    fits = []
    for balance in ([0.75, 0.25], np.array([0.75, 0.25]), 0.25, (0.75, 0.25)):
        est = model(balance=balance, safe=False, random_state=0).fit(X, ys)
        # the parameter as given, the same object
        assert est.balance is balance
        fits.append(est.decision_function(X))
    for f in fits[1:]:
        assert_array_equal(f, fits[0])


@pytest.mark.parametrize("model", [CheegerRLS, CheegerSVM], ids=lambda m: m.__name__)
def test_cheeger_balance_renamed(model):
    # the fraction of classes_[1] (a float) and per-class fractions follow
    # the renaming (values exact in binary: 1 - 0.25 = 0.75)
    X, ys = _two(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = model(balance=0.25, random_state=0).fit(X, ys)
        b = model(balance=0.75, random_state=0).fit(X, _rename(ys, {0: 1, 1: 0}))
        c = model(balance=[0.75, 0.25], random_state=0).fit(X, ys)
        d = model(balance=[0.25, 0.75], random_state=0).fit(X, _rename(ys, {0: 1, 1: 0}))
    _same_fit(a, b, {0: 1, 1: 0}, X)
    _same_fit(c, d, {0: 1, 1: 0}, X)
    X, ys = _three(0)
    mapping = {0: 5, 1: 2, 2: 9}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = model(balance=[0.5, 0.25, 0.25], random_state=0).fit(X, ys)
        # classes 2, 5, 9 are the renamed 1, 0, 2
        b = model(balance=[0.25, 0.5, 0.25], random_state=0).fit(X, _rename(ys, mapping))
    _same_fit(a, b, mapping, X)


# -- errors and messages name the user's labels ----------------------------
def test_errors_name_the_users_values():
    X, ys = _two(0)
    ys1 = np.where(ys == UNLABELED, UNLABELED, 1 - ys)     # class 1 first
    # a fraction out of range: the value as given (not 1 - 1.5)
    with pytest.raises(ValueError, match=r"got 1\.5"):
        CheegerRLS(balance=1.5).fit(X, ys1)
    with pytest.raises(ValueError, match=r"got \[0\.9, 0\.0\]"):
        CheegerRLS(balance=[0.9, 0.0]).fit(X, ys1)
    with pytest.raises(ValueError, match=r"one value per class \(2\).*got shape \(3,\)"):
        CheegerSVM(balance=[0.2, 0.3, 0.5]).fit(X, ys1)
    # one labeled class: its label
    ys7 = np.where(ys == 0, 7, UNLABELED)
    for model in SIX:
        with pytest.raises(ValueError, match=r"got 1 class \(\[7\]\)"):
            model().fit(X, ys7)
    # a failed fit leaves nothing of the codes behind
    est = CheegerRLS(balance=1.5)
    with pytest.raises(ValueError):
        est.fit(X, ys1)
    assert est.balance == 1.5 and "_relabel" not in est.__dict__


def test_class_prior_log_names_the_users_label(caplog, monkeypatch):
    # the two-class shift's log names the user's class, not a code (the
    # shift of TVRLS's fallback: PLAIN_FALLBACK off, on no shift follows it)
    monkeypatch.setattr(fb, "PLAIN_FALLBACK", False)
    X, ys = _two(4, n=300, frac=0.1, shift=2.0, lab=10)
    ys = np.where(ys == UNLABELED, UNLABELED, 1 - ys) + 40   # 40, 41; -1 -> 39
    ys[ys == 39] = UNLABELED
    with caplog.at_level(logging.DEBUG, logger="semisvm"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(4):
            TVRLS(random_state=seed).fit(X, ys)
    msgs = [r.getMessage() for r in caplog.records if "class-prior shift" in r.getMessage()]
    assert msgs
    for m in msgs:
        assert re.search(r"fraction of class (np\.int64\()?4[01]\b", m), m


@pytest.mark.parametrize("model", [LapRLS, TVRLS], ids=lambda m: m.__name__)
def test_class_prior_shift_renamed(model, monkeypatch):
    # a draw where the two-class class-prior shift fires (tests/
    # test_class_prior_shift.py's blobs, draw 1): the offset, the intercept
    # and the shifted labels follow the renaming (TVRLS's guard takes
    # LapRLS's fallback over there: PLAIN_FALLBACK off, on no shift follows)
    monkeypatch.setattr(fb, "PLAIN_FALLBACK", False)
    from test_class_prior_shift import _data
    X, _, ys = _data(1)
    a = _fits(model, X, ys, {0: 1, 1: 0})
    assert a.class_prior_["shifted"] and a.class_prior_["offset"] != 0


def test_multi_class_prior_shift_renamed(monkeypatch):
    # the three-class shift on the fallback's model (tests/
    # test_class_prior_multi.py's 70 / 20 / 10 draw 10): its arrays permuted
    # (PLAIN_FALLBACK off: on, no shift follows the fallback)
    monkeypatch.setattr(fb, "PLAIN_FALLBACK", False)
    from test_class_prior_multi import _imbalanced
    X, _, ys = _imbalanced(10)
    a = _fits(LapRLS, X, ys, {0: 5, 1: 2, 2: 9})
    assert a.fell_back_ and a.class_prior_["shifted"]


def test_shared_graph_warm_start_follows_the_users_classes(monkeypatch):
    # a graph shared between fits (graph=est.graph_, as in a cross-validation)
    # keeps the last solution as the next fit's start; a fold whose first
    # labeled row is of the other class runs on codes in the other order and
    # must start from that solution negated back, not from it as stored
    import semisvm._lowrank as lr
    import semisvm.manifold as m
    monkeypatch.setattr(m, "LOWRANK_MIN_SAMPLES", 100)
    monkeypatch.setattr(m, "AUTO_COMPONENTS", 40)
    X, y = _two(3, n=300, lab=15)
    lab = np.flatnonzero(y != UNLABELED)
    first = y[lab[0]]
    orig = lr.graph_transduction
    calls = []

    def spy(L, Y, **kw):
        out = orig(L, Y, **kw)
        calls.append((kw.get("F0"), out[0]))
        return out

    monkeypatch.setattr(lr, "graph_transduction", spy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = LapSVM(safe=False, gamma_I=0.5, lowrank_fit="graph").fit(X, y)
        est = LapSVM(safe=False, gamma_I=0.5, lowrank_fit="graph", graph=full.graph_,
                     gamma=full._gamma)
        keep = np.ones(X.shape[0], bool)
        keep[lab[-3:]] = False          # the same first labeled row
        other = lab[np.flatnonzero(y[lab] != first)[0]]
        keep2 = np.ones(X.shape[0], bool)   # the other class's row first
        keep2[lab[(lab < other) & (y[lab] == first)]] = False
        warm = []
        for rows in (keep, keep2):
            calls.clear()
            yr = y[rows]
            est.fit(X[rows], yr)
            f0, F = calls[-1]
            warm.append(f0 is not None)
            if f0 is not None:
                for j in range(F.shape[1]):
                    assert np.corrcoef(f0[:, j], F[:, j])[0, 1] > 0.5
    firsts = [y[keep][y[keep] != UNLABELED][0], y[keep2][y[keep2] != UNLABELED][0]]
    assert firsts[0] == first and firsts[1] != first
    # both read the full fit's solution, the second negated back
    assert warm == [True, True]


def test_shared_graph_warm_start_of_a_fold_missing_a_class(monkeypatch):
    # a safety-net fold whose training side lacks a class solves fewer
    # columns than the full fit: it must not read the full fit's memo
    import semisvm.manifold as m
    monkeypatch.setattr(m, "LOWRANK_MIN_SAMPLES", 100)
    monkeypatch.setattr(m, "AUTO_COMPONENTS", 40)
    rng = np.random.RandomState(1)
    y0 = rng.randint(0, 3, 300)
    X = rng.randn(300, 2) * 0.6 + np.array([[0, 0], [3, 0], [0, 3]])[y0]
    y = np.full(300, UNLABELED)
    for c in range(3):
        y[rng.choice(np.flatnonzero(y0 == c), 8, replace=False)] = c

    class Split:
        def split(self, X, y):
            lab, unl = np.flatnonzero(y != UNLABELED), np.flatnonzero(y == UNLABELED)
            yield np.sort(np.r_[unl, lab[y[lab] != 2]]), lab[y[lab] == 2]
            yield np.sort(np.r_[unl, lab[::2]]), lab[1::2]

        def get_n_splits(self, *a, **k):
            return 2

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = LapSVM(gamma_I=0.5, lowrank_fit="graph", safe=True, safe_cv=Split()).fit(X, y)
    assert est.mode_ == "nystroem" and est.lowrank_fit_ == "graph"
    assert est.transduction_.shape == (300,)
