"""The plain fallback's one-vs-one model (``semisvm._fallback.PLAIN_FALLBACK_OVO``):
with more than two classes, where ``PLAIN_FALLBACK`` takes ``SVC()``, the
fallback's model is scikit-learn's ``SVC()`` itself (one-vs-one) fitted on
the labeled rows: its labels, its ``decision_function_shape="ovr"`` scores,
kept through pickling and model files."""
import pickle

import numpy as np
import pytest
from sklearn.svm import SVC

import semisvm
import semisvm._fallback as fb
from semisvm import TVRLS, TVSVM, CheegerRLS, CheegerSVM, LapRLS, LapSVM

MODELS = [LapSVM, LapRLS, TVRLS, TVSVM, CheegerRLS, CheegerSVM]
# the user's labels of the classes (not in the order of the first labeled
# rows: the fit's codes are not the sorted labels)
NAMES = np.array([30, 10, 20, 5])


def _case(K, seed, n=240, d=3, lab=8):
    """K nested clouds (class c a Gaussian of scale 1 + 0.6 c about the same
    centre): the graph's one cluster is not the classes; ``lab`` labels per
    class."""
    rng = np.random.RandomState(seed)
    y = np.arange(n) % K
    X = rng.randn(n, d) * (1.0 + 0.6 * y)[:, None]
    ys = -np.ones(n, int)
    for c in range(K):
        ys[rng.choice(np.flatnonzero(y == c), lab, replace=False)] = c
    ys = np.where(ys >= 0, NAMES[np.maximum(ys, 0)], -1)
    return X, ys


def _fit(model, X, ys, monkeypatch, ovo=True, plain=True, **kw):
    monkeypatch.setattr(fb, "PLAIN_FALLBACK", plain)
    monkeypatch.setattr(fb, "PLAIN_FALLBACK_OVO", ovo)
    return model(**kw).fit(X, ys)


def _svc(X, ys):
    lab = ys != -1
    return SVC().fit(X[lab], ys[lab])


class _FitOrderSVC:
    """scikit-learn's ``SVC()`` on the labeled rows with the classes numbered
    in the order of their first labeled row (the fit's codes: renaming the
    classes gives the same model), its labels and ovr-shaped scores given
    back in the user's labels (columns in sorted label order)."""

    def __init__(self, X, ys):
        lab = ys != -1
        first = list(dict.fromkeys(ys[lab].tolist()))      # first-row order
        self.order = np.array(first)
        code = {c: i for i, c in enumerate(first)}
        self.svc = SVC().fit(X[lab], np.array([code[c] for c in ys[lab]]))
        self.cols = np.argsort(self.order, kind="stable")   # sorted -> code
        self.support_ = self.svc.support_

    def predict(self, X):
        return self.order[self.svc.predict(X)]

    def decision_function(self, X):
        return self.svc.decision_function(X)[:, self.cols]


def _is_svc(m, X, ys):
    """``m``'s labels and scores are SVC()'s (in the fit's class order) on
    every row of X."""
    lab = ys != -1
    svc = _FitOrderSVC(X, ys)
    assert "_ovo" in vars(m)
    assert np.array_equal(m.predict(X), svc.predict(X))
    F = m.decision_function(X)
    assert F.dtype == np.float64 and F.shape == (X.shape[0], m.classes_.shape[0])
    assert np.max(np.abs(F - svc.decision_function(X))) < 1e-10
    trans = np.asarray(m.transduction_)
    assert np.array_equal(trans[~lab], svc.predict(X[~lab]))
    assert np.array_equal(trans[lab], ys[lab])


@pytest.mark.parametrize("K", [3, 4])
@pytest.mark.parametrize("model", MODELS)
def test_the_fallback_is_svc(model, K, monkeypatch):
    X, ys = _case(K, 0)
    lab = ys != -1
    # (the codes' order is not the labels': the first labeled row is not
    # of the smallest label)
    assert ys[lab][0] != ys[lab].min()
    m = _fit(model, X, ys, monkeypatch)
    assert m.fell_back_ and m.feature_scale_ is None
    assert m.safe_counterpart_ == "rbf SVC (C=1, gamma=scale)"
    assert m.class_prior_ is None
    _is_svc(m, X, ys)
    # the expansion over the support vectors only
    assert m.X_fit_.shape[0] == _FitOrderSVC(X, ys).support_.shape[0]
    # the switch off: one SVC() per class against the rest, as before
    off = _fit(model, X, ys, monkeypatch, ovo=False)
    assert off.fell_back_ and "_ovo" not in vars(off)
    F = off.decision_function(X)
    ovr = np.column_stack([SVC().fit(X[lab], ys[lab] == c).decision_function(X)
                           for c in off.classes_])
    assert np.max(np.abs(F - ovr)) < 1e-8
    assert not np.array_equal(off.predict(X), m.predict(X))


def test_the_guard_takes_laprls_svc(monkeypatch):
    """A TV fit whose check keeps it, taken over by the Laplacian guard's
    LapRLS that fell back: that LapRLS's one-vs-one SVC()."""
    X, ys = _case(3, 1)
    for model in (TVRLS, TVSVM):
        m = _fit(model, X, ys, monkeypatch)
        assert not m.fell_back_ and m.laplacian_fallback_
        _is_svc(m, X, ys)
        off = _fit(model, X, ys, monkeypatch, ovo=False)
        assert off.laplacian_fallback_ and "_ovo" not in vars(off)


def test_round_trips(tmp_path, monkeypatch):
    X, ys = _case(4, 0)
    Xq = np.random.RandomState(5).randn(50, 3) * 2
    for model in (LapRLS, CheegerSVM):
        m = _fit(model, X, ys, monkeypatch)
        F, p = m.decision_function(Xq), m.predict(Xq)
        path = tmp_path / f"{model.__name__}.model"
        semisvm.save(m, path)
        # version 2: a version-1 reader (which would ignore _ovo and predict
        # otherwise) refuses the file
        assert semisvm.io.read_metadata(path)["format_version"] == 2
        for back in (semisvm.load(path), pickle.loads(pickle.dumps(m))):
            assert "_ovo" in vars(back)
            assert np.array_equal(back.predict(Xq), p)
            assert np.array_equal(back.decision_function(Xq), F)
        # a model without it (the switch off: one-vs-rest) as before
        off = _fit(model, X, ys, monkeypatch, ovo=False)
        semisvm.save(off, path)
        assert semisvm.io.read_metadata(path)["format_version"] == 1
        back = semisvm.load(path)
        assert "_ovo" not in vars(back)
        assert np.array_equal(back.decision_function(Xq), off.decision_function(Xq))
        # a model file whose pairwise expansions do not fit its rows is refused
        m._ovo = dict(m._ovo, coef=m._ovo["coef"][:, 1:])
        semisvm.save(m, path)
        with pytest.raises(ValueError, match="pairwise expansions"):
            semisvm.load(path)


def test_float32_and_the_same_bits(monkeypatch):
    X, ys = _case(3, 2)
    X32 = X.astype(np.float32)
    m = _fit(LapSVM, X32, ys, monkeypatch)
    assert m.fell_back_ and m.X_fit_.dtype == np.float32
    _is_svc(m, X32, ys)
    again = _fit(LapSVM, X32, ys, monkeypatch)
    assert np.array_equal(again.decision_function(X32), m.decision_function(X32))
    assert np.array_equal(again.transduction_, m.transduction_)
    assert np.array_equal(again.X_fit_, m.X_fit_)


def test_two_classes_unchanged(monkeypatch):
    X, ys = _case(2, 2)
    for model in (LapRLS, TVRLS):
        on = _fit(model, X, ys, monkeypatch)
        off = _fit(model, X, ys, monkeypatch, ovo=False)
        assert on.fell_back_ and "_ovo" not in vars(on)
        assert np.array_equal(on.decision_function(X), off.decision_function(X))
        assert np.array_equal(on.transduction_, off.transduction_)


def test_read_only_with_the_plain_fallback(monkeypatch):
    X, ys = _case(3, 0)
    on = _fit(LapRLS, X, ys, monkeypatch, plain=False)
    off = _fit(LapRLS, X, ys, monkeypatch, ovo=False, plain=False)
    assert on.fell_back_ and "_ovo" not in vars(on)
    assert np.array_equal(on.decision_function(X), off.decision_function(X))
    assert on.safe_counterpart_ == off.safe_counterpart_


def test_both_sides_of_the_libsvm_path(monkeypatch):
    X, ys = _case(3, 0)
    n_lab = int(np.sum(ys != -1))
    monkeypatch.setattr(fb, "SCALABLE_MIN_LABELED", n_lab)
    at = _fit(LapRLS, X, ys, monkeypatch)
    assert at.fell_back_ and "_ovo" in vars(at)
    _is_svc(at, X, ys)
    monkeypatch.setattr(fb, "SCALABLE_MIN_LABELED", n_lab - 1)
    above = _fit(LapRLS, X, ys, monkeypatch)
    assert above.fell_back_ and "_ovo" not in vars(above)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_a_refit_drops_it(monkeypatch):
    """A refit (here without the check) drops the earlier fit's one-vs-one
    model (and the labels its fallback replaced, in the earlier fit's
    labels)."""
    X, ys = _case(3, 0)
    m = _fit(LapRLS, X, ys, monkeypatch)
    assert "_ovo" in vars(m)
    m.set_params(safe=False).fit(X, ys)
    assert "_ovo" not in vars(m)
    plain = LapRLS(safe=False).fit(X, ys)
    assert np.array_equal(m.decision_function(X), plain.decision_function(X))
    t = _fit(TVRLS, X, ys, monkeypatch)
    assert "_ovo" in vars(t)
    t.set_params(safe=False).fit(X, ys)
    assert "_ovo" not in vars(t)
    assert np.array_equal(t.predict(X), TVRLS(safe=False).fit(X, ys).predict(X))


@pytest.mark.parametrize("model", [LapRLS, TVRLS])
def test_sorted_first_rows_equal_svc_itself_and_renaming_keeps_the_model(model,
                                                                         monkeypatch):
    # where the classes' first labeled rows come in sorted label order the
    # fit's order is scikit-learn's: the model is SVC() on the user's labels
    X, ys = _case(3, 2)
    lab = np.flatnonzero(ys != -1)
    first = {}
    for i in lab:
        first.setdefault(ys[i], i)
    # move each class's first labeled row so they come in sorted label order
    rows = sorted(first.values())
    for r, c in zip(rows, sorted(first)):
        j = first[c]
        X[[r, j]], ys[[r, j]] = X[[j, r]], ys[[j, r]]
        first = {}
        for i in np.flatnonzero(ys != -1):
            first.setdefault(ys[i], i)
    order = [ys[i] for i in sorted(first.values())]
    assert order == sorted(order)
    m = _fit(model, X, ys, monkeypatch)
    assert m.fell_back_
    svc = _svc(X, ys)
    assert np.array_equal(m.predict(X), svc.predict(X))
    assert np.max(np.abs(m.decision_function(X) - svc.decision_function(X))) < 1e-10
    # renamed classes (another sorted order): the same model, renamed
    ren = {5: 3, 10: 1, 20: 2, 30: 0}
    ys2 = np.array([ren.get(v, -1) for v in ys])
    m2 = _fit(model, X, ys2, monkeypatch)
    back = np.array([ren[c] for c in m.predict(X)])
    assert np.array_equal(m2.predict(X), back)
