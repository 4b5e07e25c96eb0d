"""The default fallback of the graph and kernel estimators (``safe="auto"``).

LapSVM, LapRLS, TVRLS, TVSVM, CheegerRLS and CheegerSVM check at ``fit``,
by default, that the unlabeled rows help: when they do not (the classes are
not the graph's clusters: nested or overlapping classes), the estimator
becomes its supervised counterpart, an RBF support vector classifier
(:class:`sklearn.svm.SVC`, ``C=1``, ``gamma="scale"``) trained on the labeled
rows, and says so in ``fell_back_`` (and in the log at ``verbose``).

The check is the cheap form of the safety net
(:class:`semisvm.model_selection.SafeSemiSupervisedMixin`, ``safe=True``):

* the labeled rows are split into two folds, stratified by class (a fixed
  split: the same input gives the same folds);
* for each fold, the semi-supervised problem is solved again with that
  fold's labels hidden, **on the same graph and kernel matrix** (the rows do
  not change, only which of them carry a label, so nothing is rebuilt), and
  the hidden rows' transductive labels are scored; the SVC is trained on
  the other fold's labeled rows and scored on the same rows;
* ``unlabeled_gain_`` is the accuracy of the semi-supervised labels minus
  the SVC's, over all labeled rows (each scored once); the estimator falls
  back when it is below ``-safe_margin`` **and** the SVC's lead is more
  than noise: of the held-out rows where exactly one of the two is right,
  the SVC is right on ``c`` and the semi-supervised model on ``b``, and the
  paired (McNemar) statistic ``(c - b) / sqrt(b + c)`` must exceed
  ``Z_FALLBACK`` = 1 (ties keep the semi-supervised model). With a handful
  of held-out labels one row is not evidence: on the ``semisvm demo``
  digits (20 labels) a one-row difference (17/20 against 18/20) made LapRLS
  fall back from 4.7 % to 21.7 % test error.

It costs two solves on top of the fit's (about 3x a fit where the solve
dominates, less where the graph or kernel does) and two SVC fits on at
most the labeled rows. It is skipped (``unlabeled_gain_ = None``) when a
class has fewer than two labels (nothing to hold out), when every row is
labeled, and for a precomputed or callable kernel (no SVC to fall back to).
"""
from __future__ import annotations

import logging

import numpy as np

from semisvm._validation import UNLABELED

logger = logging.getLogger("semisvm")

__all__ = ["check_safe", "two_folds", "supervised_counterpart", "auto_fallback",
           "Z_FALLBACK"]

# the SVC must lead the semi-supervised model by more than this many
# standard deviations of the paired difference (McNemar: (c - b) / sqrt(b + c))
Z_FALLBACK = 1.0


def check_safe(safe):
    """Validate ``safe`` (True, False or "auto") and return it."""
    if safe is True or safe is False or (isinstance(safe, str) and safe == "auto"):
        return safe
    if isinstance(safe, (bool, np.bool_)):
        return bool(safe)
    raise ValueError(f"safe must be True, False or 'auto', got {safe!r}")


def two_folds(y, labeled):
    """Fold index (0 or 1) of each labeled row, stratified by class, fixed.

    Within each class the labeled rows, in a fixed pseudo-random order
    (seed 0), alternate between the folds, so each fold holds about half of
    every class. Returns an int array over the labeled rows, or None when a
    class has fewer than two labels.
    """
    idx = np.flatnonzero(labeled)
    yl = np.asarray(y)[idx]
    classes, counts = np.unique(yl, return_counts=True)
    if classes.size < 2 or counts.min() < 2:
        return None
    rng = np.random.RandomState(0)
    fold = np.empty(idx.size, dtype=np.intp)
    start = 0
    for c in classes:
        rows = np.flatnonzero(yl == c)
        order = rows[rng.permutation(rows.size)]
        fold[order] = (np.arange(rows.size) + start) % 2
        start += rows.size     # balance the folds' sizes across classes
    return fold


def supervised_counterpart(kernel, degree=3, coef0=0.0):
    """The SVC the estimators fall back to (None for kernels it cannot take)."""
    from sklearn.svm import SVC
    if kernel == "rbf":
        return SVC()
    if kernel == "linear":
        return SVC(kernel="linear")
    if kernel in ("poly", "polynomial"):
        return SVC(kernel="poly", degree=degree, coef0=coef0)
    if kernel == "sigmoid":
        return SVC(kernel="sigmoid", coef0=coef0)
    return None


def auto_fallback(est, X, y, solve, *, kernel, degree=3, coef0=0.0, margin=0.0):
    """Run the cheap check on a fitted estimator; fall back when it loses.

    Parameters
    ----------
    est : the fitted estimator (``classes_`` and ``transduction_`` set).
    X : the training rows (validated).
    y : ndarray, the labels, ``-1`` unlabeled.
    solve : callable ``y_hidden -> labels``
        Re-solves the semi-supervised problem on the same graph and kernel
        with the labels of ``y_hidden`` (``-1`` where hidden) and returns the
        transductive labels of all rows (the user's label values).
    kernel, degree, coef0 : the estimator's kernel (for the counterpart).
    margin : float
        Fall back when the gain is below ``-margin``.

    Sets ``unlabeled_gain_``, ``fell_back_`` and ``supervised_`` (the fitted
    SVC, or None); on a fallback also ``transduction_``.
    """
    est.unlabeled_gain_ = None
    est.fell_back_ = False
    est.supervised_ = None
    y = np.asarray(y)
    labeled = y != UNLABELED
    sup = supervised_counterpart(kernel, degree, coef0) if isinstance(kernel, str) \
        else None
    if sup is None or labeled.all():
        return est
    fold = two_folds(y, labeled)
    if fold is None:
        return est
    idx = np.flatnonzero(labeled)
    right_semi = right_sup = only_semi = only_sup = 0
    for k in (0, 1):
        held = idx[fold == k]
        train = idx[fold != k]
        y_hidden = y.copy()
        y_hidden[held] = UNLABELED
        ok_semi = np.asarray(solve(y_hidden))[held] == y[held]
        pred = sup.__class__(**sup.get_params()).fit(X[train], y[train]).predict(X[held])
        ok_sup = pred == y[held]
        right_semi += int(np.sum(ok_semi))
        right_sup += int(np.sum(ok_sup))
        only_semi += int(np.sum(ok_semi & ~ok_sup))
        only_sup += int(np.sum(ok_sup & ~ok_semi))
    gain = (right_semi - right_sup) / idx.size
    est.unlabeled_gain_ = float(gain)
    lead = only_sup - only_semi
    if gain < -margin and lead > Z_FALLBACK * np.sqrt(only_sup + only_semi):
        est.fell_back_ = True
        est.supervised_ = sup.fit(X[idx], y[idx])
        trans = np.array(est.transduction_, copy=True)
        unl = np.flatnonzero(~labeled)
        if unl.size:
            trans[unl] = est.supervised_.predict(X[unl])
        trans[idx] = y[idx]
        est.transduction_ = trans
    if est.fell_back_ or getattr(est, "verbose", 0):
        logger.log(logging.INFO if getattr(est, "verbose", 0) else logging.DEBUG,
                   "%s: held-out labeled accuracy %d/%d semi-supervised, %d/%d "
                   "supervised (RBF SVC on the labels): %s", type(est).__name__,
                   right_semi, idx.size, right_sup, idx.size,
                   "falling back to the supervised model" if est.fell_back_
                   else "keeping the semi-supervised model")
    return est
