"""The class balance of the unlabeled rows, estimated (``r="auto"``).

The machinery behind :func:`semisvm.linear.class_balance` and the
semi-supervised linear estimators' ``r="auto"``: a supervised linear L2-SVM
on the labeled rows, its outputs on the unlabeled rows counted ("cc"), or
calibrated ("pcc", "em"), and the binary count checked against Forman's
adjusted count. The reasons for each rule are in
:func:`semisvm.linear.class_balance`. The supervised solver is passed in
(``mfn``: :func:`semisvm.linear.l2svm_mfn`, which sits above this module).
"""
from __future__ import annotations

import numpy as np

__all__ = ["ACC_MAX_SE", "ACC_MIN_J", "ACC_Z", "CC_MIN_MARGIN", "adjusted_count",
           "checked_count", "estimate_balance"]


#: ``"cc"`` with two classes: the count is replaced by the adjusted count
#: when their difference exceeds this many standard errors of the latter ...
ACC_Z = 2.0
#: ... and the adjusted count is used when its standard error is at most
#: this, else the labeled fraction (the estimate is uncertain)
ACC_MAX_SE = 0.1
#: below this out-of-fold tpr - fpr the count cannot be adjusted
ACC_MIN_J = 0.1
#: a count that cannot be checked is uncertain when the median |output| of
#: the unlabeled rows is below this (their signs then follow the bias)
CC_MIN_MARGIN = 0.5


def adjusted_count(cc, oof, pos, u):
    """Forman's adjusted classify-and-count from the out-of-fold outputs of
    the labeled rows: ``(r_acc, se)``, or None when tpr - fpr is below
    ``ACC_MIN_J``. ``se`` is the delta-method standard error of r_acc from
    the binomial errors of tpr (n+ rows), fpr (n- rows) and cc (u rows)."""
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    tpr = float(np.mean(oof[pos] > 0))
    fpr = float(np.mean(oof[~pos] > 0))
    J = tpr - fpr
    if J < ACC_MIN_J:
        return None
    r = min(max((cc - fpr) / J, 0.0), 1.0)
    var = (r * r * tpr * (1 - tpr) / n_pos + (1 - r) ** 2 * fpr * (1 - fpr) / n_neg
           + cc * (1 - cc) / max(u, 1))
    return r, float(np.sqrt(var)) / J


def estimate_balance(mfn, Xl, yl, decision_u, lam, method, n_splits, fit_intercept,
                     intercept_scaling, n_jobs=None, info=None):
    """:func:`semisvm.linear.class_balance` on the labeled rows ``Xl`` (in
    memory), fitting them with ``mfn`` (:func:`semisvm.linear.l2svm_mfn`);
    ``decision_u(coef, intercept)`` gives the outputs of the unlabeled rows
    (in memory or over dask row blocks). ``info`` (a dict) receives
    ``"source"`` (how the value was found) and, for binary "cc", ``"cc"``,
    ``"adjusted"`` and ``"se"``."""
    from sklearn.model_selection import StratifiedKFold

    from semisvm.model_selection import estimate_class_prior
    K = int(yl.max()) + 1
    counts = np.bincount(yl, minlength=K)
    if counts.min() < 2:
        return None
    if method not in ("cc", "pcc", "em"):
        raise ValueError(f"method must be 'cc', 'pcc' or 'em', got {method!r}")
    folds = [] if method == "cc" and K > 2 else list(
        StratifiedKFold(min(n_splits, int(counts.min())), shuffle=True,
                        random_state=0).split(np.zeros((yl.size, 1)), yl))

    def fit(rows, ypm):
        return mfn(Xl[rows], ypm[rows], lam=lam * rows.size,
                         fit_intercept=fit_intercept, intercept_scaling=intercept_scaling,
                         n_jobs=n_jobs)

    out, decs = [], []
    for k in ([1] if K == 2 else range(K)):
        ypm = np.where(yl == k, 1.0, -1.0).astype(Xl.dtype)
        oof = np.zeros(yl.size)
        for tr, te in folds:
            res = fit(tr, ypm)
            oof[te] = np.asarray(Xl[te] @ res.coef).ravel() + res.intercept
        res = fit(np.arange(yl.size), ypm)
        dec_u = np.asarray(decision_u(res.coef, res.intercept), dtype=np.float64)
        decs.append(dec_u)
        out.append(estimate_class_prior(oof, yl == k, dec_u, method=method))
    if K == 2:
        if method != "cc":
            return out[0]
        return checked_count(out[0], oof, yl == 1, decs[0].size,
                              float(np.mean(yl == 1)), info,
                              float(np.median(np.abs(decs[0]))))
    if method == "cc":
        # count the one-vs-rest model's predictions (largest output)
        r = np.bincount(np.argmax(np.stack(decs, axis=1), axis=1), minlength=K) / decs[0].size
    else:
        r = np.asarray(out)
    r = np.clip(r / r.sum(), 0.02, 0.98)
    return r / r.sum()


def checked_count(cc, oof, pos, u, labeled, info, margin=np.inf):
    """The binary count ``cc``, checked against its adjusted value (precise
    when its standard error is at most ``ACC_MAX_SE``): kept when they agree
    within ``ACC_Z`` standard errors, the adjusted value when they do not
    and it is precise. When the check cannot be made (tpr - fpr below
    ``ACC_MIN_J``, or an imprecise adjusted count) the count is kept unless
    the median |output| of the unlabeled rows, ``margin``, is below
    ``CC_MIN_MARGIN``: the estimate is then uncertain and the ``labeled``
    fraction is returned."""
    info = {} if info is None else info
    info.update(cc=float(cc), adjusted=None, se=None, source="cc")
    adj = adjusted_count(cc, oof, pos, u)
    if adj is not None:
        r_acc, se = adj
        info.update(adjusted=r_acc, se=se)
        if se <= ACC_MAX_SE:
            if abs(r_acc - cc) <= ACC_Z * se:
                return cc
            info["source"] = "adjusted count"
            return float(min(max(r_acc, 0.02), 0.98))
    if margin >= CC_MIN_MARGIN:
        return cc
    info["source"] = "labeled fraction (estimate uncertain)"
    return labeled
