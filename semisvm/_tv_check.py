"""The graph TV / Cheeger estimators' checks against a supervised model.

``safe="auto"`` (the default): two label folds are solved again on the
fit's graph and kernel (nothing rebuilt; the solve cache shares the edge
list, step bound and factorisations) and compared with an SVC on the labels
(:mod:`semisvm._fallback`). Above ``FOLD_MIN_ROWS`` rows the fold solves
stop sooner (they are read only through their held-out labels).
``safe=True``: the cross-validated check of
:class:`semisvm.model_selection.SafeSemiSupervisedMixin`, its fits sharing
the fit's kNN graph. :class:`TVCheckMixin` holds both for the estimators'
base class.
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from semisvm._fallback import auto_fallback
from semisvm._validation import UNLABELED

# the safe="auto" check's fold solves (Cheeger; multi-class TV): a stop
# tolerance of at least FOLD_TOL (TV; Cheeger keeps its tol) and at most
# FOLD_N_STABLE quiet (labels unchanged) iterations.
# The folds are read only through the labels of their held-out rows, which
# settle well before the fit's stop rule closes (5,000 rows, 10 classes:
# the penalty iteration's residual falls below 1e-2 by iteration ~10, below
# the fit's 1e-4 at ~19; the labels_stable rule waits 2 n_stable = 20)
FOLD_TOL = 1e-2
FOLD_N_STABLE = 5
# ... on more than this many rows only (as Cheeger's rof_max_iter="auto"):
# below it a fit is cheap, and the looser folds moved some check decisions
# (tune part of bench/_suite.py, Cheeger: 16 of 324, 6 for the worse;
# `semisvm demo`, 718 rows: CheegerSVM 14.7 -> 19.2% test error)
FOLD_MIN_ROWS = 2000


class TVCheckMixin:
    """The ``safe="auto"`` and ``safe=True`` checks of a graph TV / Cheeger
    fit (the estimators' base class mixes it in before
    :class:`~semisvm.model_selection.SafeSemiSupervisedMixin`)."""

    def _auto_fallback(self, X, y, K, W, Z, nugget):
        """The default check (:mod:`semisvm._fallback`): the label folds are
        solved again on this fit's K (or Nystroem features Z) and W
        (nothing rebuilt)."""
        keep = {k: getattr(self, k) for k in ("label_conflict_", "refit_convex_")
                if hasattr(self, k)}

        def labels(y_hidden):
            lab = y_hidden != UNLABELED
            y_enc = np.full(y_hidden.shape[0], UNLABELED, dtype=np.intp)
            y_enc[lab] = np.searchsorted(self.classes_, y_hidden[lab])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                self._fold_solve = True
                try:
                    res = self._solve(K, W, y_enc, Z, nugget)
                finally:
                    del self._fold_solve
            return self.classes_[res.labels]

        def adopt(rows, coef, intercept, gamma, basis=None):
            # the SVC's decision k(x, X[rows]) coef + b in this model's terms
            # (basis: a primal linear counterpart's w rows instead of X[rows])
            binary = coef.shape[0] == 1
            self.X_fit_ = X[rows] if basis is None else basis
            if self.mode_ != "exact":
                self.landmarks_ = rows if basis is None else None
            self.alpha_ = coef[0] if binary else coef.T.copy()
            self.intercept_ = float(intercept[0]) if binary else intercept
            if gamma is not None:
                self._kernel_gamma = gamma
            elif self.kernel != "linear":
                # the chosen counterpart is the linear SVC: decisions <x, x'>
                self._decision_kernel = "linear"

        auto_fallback(self, X, y, labels, adopt, kernel=self.kernel,
                      margin=self.safe_margin, family="tv")
        for k, v in keep.items():      # the fit's own, not the last fold's
            setattr(self, k, v)
        return self

    def _stop(self, n, folds=True):
        """``(tol, n_stable)`` of this solve on n rows: the check's fold
        solves (read only through the labels of their held-out rows;
        ``folds``: this model's folds take the looser rule) on more than
        ``FOLD_MIN_ROWS`` rows stop at a tolerance of at least ``FOLD_TOL``
        after at most ``FOLD_N_STABLE`` quiet iterations; the fit keeps
        ``tol`` and ``n_stable``."""
        if folds and n > FOLD_MIN_ROWS and getattr(self, "_fold_solve", False):
            return max(self.tol, FOLD_TOL), min(self.n_stable, FOLD_N_STABLE)
        return self.tol, self.n_stable

    # -- the safety net (semisvm.model_selection.SafeSemiSupervisedMixin) --
    def _safe_fit(self, X, y):
        """The check's fits share this fit's kNN graph: each fold reads its
        rows' graph from the stored neighbour lists instead of searching."""
        self.safe_check_ = None
        self.safe_counterpart_ = None
        if not self.safe or self.graph is not None or self._graph_obj is None:
            return super()._safe_fit(X, y)
        self.graph = self._graph_obj     # seen by the clones of the check
        try:
            return super()._safe_fit(X, y)
        finally:
            self.graph = None

    def _adopt_supervised(self, X, y):
        """Become the supervised solution (the safety net fired)."""
        sup = self._supervised_counterpart().fit(X, y)
        for name in ("alpha_", "intercept_", "_kernel_gamma", "X_fit_",
                     "n_iter_", "result_", "mode_", "n_components_",
                     "landmarks_", "nugget_"):
            setattr(self, name, getattr(sup, name))
        lab = np.asarray(y) != UNLABELED
        self.transduction_ = np.where(lab, np.asarray(y, dtype=object),
                                      sup.transduction_.astype(object)
                                      ).astype(self.classes_.dtype)
