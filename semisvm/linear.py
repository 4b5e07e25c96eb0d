"""Linear SVMs trained by L2-SVM-MFN (Sindhwani & Keerthi 2006).

``LinearSVM`` is the supervised solver that the semi-supervised linear
estimators (TSVM, DA-S3VM) build on.
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.validation import check_is_fitted, validate_data

from semisvm import solvers
from semisvm._validation import (
    FLOAT_DTYPES,
    as_csr32,
    check_costs,
    encode_binary,
)

__all__ = ["LinearSVM"]


class _LinearDecisionMixin:
    """decision_function / predict for a fitted ``coef_``, ``intercept_``."""

    def decision_function(self, X):
        """Signed distance-like score ``X @ coef_ + intercept_`` (positive -> classes_[1])."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=list(FLOAT_DTYPES),
                          order="C", reset=False)
        X = as_csr32(X)
        coef = self.coef_.astype(X.dtype, copy=False)
        return np.asarray(X @ coef).ravel() + X.dtype.type(self.intercept_)

    def predict(self, X):
        """Predicted class labels (the user's label values)."""
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(np.intp)]


class LinearSVM(_LinearDecisionMixin, ClassifierMixin, BaseEstimator):
    r"""Linear L2-SVM (squared hinge loss) trained by L2-SVM-MFN.

    Solves, with labels mapped to y_i in {-1, +1} (``classes_[1]`` is +1),

    .. math::

        \min_{w, w_b}\; \frac{\lambda}{2} \left(\|w\|^2 + w_b^2\right)
        + \frac12 \sum_i c_i \max(0, 1 - y_i (x_i^\top w + s\, w_b))^2

    where s = ``intercept_scaling`` (the bias is a regularised constant
    feature, as in the paper and LIBLINEAR ``-B s``) and c_i is the product of
    ``sample_weight`` and ``class_weight``. This is ``lam`` times LIBLINEAR's
    ``-s 2`` objective ``1/2 ||w||^2 + C sum_i l2`` with **C = 1 / (2 lam)**.

    The modified finite Newton method (Keerthi & DeCoste 2005; Sindhwani &
    Keerthi 2006, §2) alternates seeded CGLS solves over the rows with a
    positive loss and exact line searches; it terminates finitely when that
    row set stops changing. Sparse CSR input is used in place, never
    densified; float32 input is computed in float32.

    Parameters
    ----------
    lam : float, default=1.0
        Regularisation weight (> 0). Equivalent LIBLINEAR/LinearSVC
        ``C = 1 / (2 * lam)``.
    fit_intercept : bool, default=True
        Learn a bias as the weight of a constant feature.
    intercept_scaling : float, default=1.0
        Value of that constant feature; larger values regularise the bias less.
    class_weight : dict, "balanced" or None, default=None
        Multiplies the cost of each class's examples.
    tol : float, default=1e-7
        Relative residual tolerance of each CGLS solve (the final solve, on the
        optimal active set, decides the accuracy of ``coef_``). The reference
        implementation uses 1e-6; one more digit costs a few CG iterations and
        makes fits with ``sample_weight`` and with repeated rows agree to 1e-7.
        float32 input is solved to at most 1e-5.
    max_iter : int, default=50
        Maximum number of Newton (outer) iterations.
    cg_max_iter : int, default=10000
        Maximum CGLS iterations per Newton iteration.
    n_jobs : int or None, default=None
        Threads for the sparse/dense products (None: 1, -1: all cores);
        same bits for the same thread count.
    verbose : int, default=0
        If > 0, log every Newton iteration (logger ``"semisvm"``, INFO).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    classes_ : ndarray of shape (2,)
    n_iter_ : int
        Newton iterations used.
    n_features_in_ : int
    result_ : MFNResult
        The solver's full result (objective, CG iterations, history).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from semisvm import LinearSVM
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = LinearSVM(lam=1e-2).fit(X / X.max(0), y)
    >>> clf.score(X / X.max(0), y) > 0.9
    True
    """

    def __init__(self, *, lam=1.0, fit_intercept=True, intercept_scaling=1.0,
                 class_weight=None, tol=1e-7, max_iter=50, cg_max_iter=10000,
                 n_jobs=None, verbose=0):
        self.lam = lam
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.tol = tol
        self.max_iter = max_iter
        self.cg_max_iter = cg_max_iter
        self.n_jobs = n_jobs
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_class = False
        return tags

    def fit(self, X, y, sample_weight=None):
        """Fit the model; ``y`` holds exactly two labels."""
        X, y = validate_data(self, X, y, accept_sparse="csr",
                             dtype=list(FLOAT_DTYPES), order="C",
                             accept_large_sparse=True)
        X = as_csr32(X)
        self.classes_, y_pm = encode_binary(y, estimator=type(self).__name__)
        costs = check_costs(sample_weight, X.shape[0], X.dtype)
        if self.class_weight is not None:
            cw = compute_class_weight(self.class_weight, classes=self.classes_, y=y)
            costs = costs * cw[(y_pm > 0).astype(np.intp)].astype(X.dtype)
        res = solvers.l2svm_mfn(
            X, y_pm, lam=self.lam, costs=costs, fit_intercept=self.fit_intercept,
            intercept_scaling=self.intercept_scaling, tol=self.tol,
            max_iter=self.max_iter, cg_max_iter=self.cg_max_iter,
            n_jobs=self.n_jobs, verbose=bool(self.verbose),
        )
        if not res.converged:
            warnings.warn(
                f"L2-SVM-MFN did not converge in max_iter={self.max_iter} "
                "iterations; increase max_iter", ConvergenceWarning, stacklevel=2)
        self.coef_ = res.coef
        self.intercept_ = res.intercept
        self.n_iter_ = res.n_iter
        self.result_ = res
        return self
