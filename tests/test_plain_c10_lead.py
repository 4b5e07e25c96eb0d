"""``semisvm._fallback.PLAIN_C10_LEAD``, both sides: on a label check's
fallback under ``PLAIN_FALLBACK`` the model is the first candidate at
``C = 10`` where it is right on more than the lead more held-out rows than
``SVC()``, else ``SVC()``."""
import numpy as np
import pytest
from sklearn.svm import SVC

from semisvm import TVRLS, CheegerRLS, _fallback
from semisvm.cli import _demo_splits


@pytest.fixture(scope="module")
def demo():
    # the demo's third split (digits 2/3/5 against 6/8/9, 20 labels): the
    # check falls back, and SVC() is right on fewer held-out rows than the
    # same width at C = 10
    X, y, lab, _, _ = _demo_splits(20, 0, 3)[2]
    y_fit = np.full(y.shape[0], -1)
    y_fit[lab] = y[lab]
    return X, y_fit, lab


@pytest.mark.parametrize("cls", [TVRLS, CheegerRLS])
def test_plain_c10_lead_both_sides(cls, demo, monkeypatch):
    X, y_fit, lab = demo
    monkeypatch.setattr(_fallback, "MISS_FALLBACK", {"laplacian": None, "tv": None})
    fits = {}
    for lead in (None, 0, 10**9):
        monkeypatch.setattr(_fallback, "PLAIN_C10_LEAD", lead)
        fits[lead] = cls().fit(X, y_fit)
        assert fits[lead].fell_back_ and fits[lead].class_prior_ is None
    right_c10, right_sv1 = fits[0]._check_stats["plain_c10"]
    assert right_c10 > right_sv1                        # the lead the rule reads
    assert "plain_c10" not in fits[None]._check_stats
    for lead, C in ((None, 1.0), (0, 10.0), (10**9, 1.0)):
        est = fits[lead]
        assert est.safe_counterpart_ == f"rbf SVC (C={C:g}, gamma=scale)"
        ref = SVC(C=C).fit(X[lab], y_fit[lab])
        agree = np.mean(est.predict(X) == ref.predict(X))
        # (libsvm's tolerance may move a row or two at C = 10)
        assert agree > 0.99, (lead, agree)
    # a lead at the measured difference keeps SVC(); one below takes C = 10
    monkeypatch.setattr(_fallback, "PLAIN_C10_LEAD", right_c10 - right_sv1)
    assert cls().fit(X, y_fit).safe_counterpart_ == "rbf SVC (C=1, gamma=scale)"
    monkeypatch.setattr(_fallback, "PLAIN_C10_LEAD", right_c10 - right_sv1 - 1)
    assert cls().fit(X, y_fit).safe_counterpart_ == "rbf SVC (C=10, gamma=scale)"
