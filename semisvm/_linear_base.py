"""What the linear estimators share: decisions, one-vs-rest, the semi-supervised fit.

:class:`LinearDecisionMixin` (``decision_function`` / ``predict`` from
``coef_`` and ``intercept_``, in memory or over dask row blocks),
:func:`fit_one_vs_rest` (one binary problem or K one-vs-rest ones, as
LIBLINEAR) and :class:`SemiSupervisedLinear`, the shared fit of
:class:`semisvm.linear.TSVM` and :class:`semisvm.linear.DASVM`: input
checks, the class balance ``r`` (given, the labeled fraction, or estimated
by :mod:`semisvm._linear_balance`), the binary or one-vs-rest solves, the
transductive labels, the Dask path and the safety net. The estimators
themselves, and the solvers they name (``_solver``, ``_supervised_solver``),
are in :mod:`semisvm.linear`.
"""
from __future__ import annotations

import logging

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from semisvm._linear_balance import estimate_balance
from semisvm._linear_ssl import default_lam
from semisvm._threads import limit as _limit_threads
from semisvm._validation import (
    FLOAT_DTYPES,
    as_csr32,
    atomic_fit,
    check_class_fractions,
    check_fraction,
    check_sparse_structure,
    encode_semisupervised_multiclass,
    is_dask,
    validate_fit_data,
    warn_user,
)
from semisvm.model_selection import SafeSemiSupervisedMixin

__all__ = ["LinearDecisionMixin", "SemiSupervisedLinear", "fit_one_vs_rest"]

logger = logging.getLogger("semisvm")


def fit_one_vs_rest(estimator, K, fit_one, n_iter):
    """The binary fit (K == 2) or K one-vs-rest fits, as LIBLINEAR does.

    ``fit_one(k)`` solves "class k (+1) against the rest" and returns its
    result (with K == 2 only ``fit_one(1)`` is called: one problem, class 1
    positive); ``n_iter(res)`` reads its iteration count. Sets the
    estimator's ``coef_`` ((d,) or (K, d)), ``intercept_``, ``n_iter_`` (the
    largest count) and ``result_`` (the result, or a tuple of K results) and
    returns the list of results. Shared by LinearSVM, TSVM and DASVM.
    """
    if K == 2:
        res = fit_one(1)
        estimator.coef_ = res.coef
        estimator.intercept_ = res.intercept
        estimator.n_iter_ = n_iter(res)
        estimator.result_ = res
        return [res]
    results = []
    for k in range(K):
        if estimator.verbose:
            logger.info("%s one-vs-rest: class %r (%d of %d)",
                        type(estimator).__name__, estimator.classes_[k], k + 1, K)
        results.append(fit_one(k))
    estimator.coef_ = np.stack([res.coef for res in results])
    estimator.intercept_ = np.array([res.intercept for res in results])
    estimator.n_iter_ = max(n_iter(res) for res in results)
    estimator.result_ = tuple(results)
    return results


class LinearDecisionMixin:
    """decision_function / predict for a fitted ``coef_``, ``intercept_``."""

    def decision_function(self, X):
        """Scores ``X @ coef_.T + intercept_``: shape (n,) for two classes
        (positive -> ``classes_[1]``), (n, n_classes) for one-vs-rest.

        A dask array X (row blocks) gives a lazy dask array, computed blockwise.
        In memory the product runs with BLAS held at one thread (the same
        bits whatever the environment).
        """
        check_is_fitted(self)
        with _limit_threads(getattr(self, "n_jobs", None)):
            return self._decision_function(X)

    def _decision_function(self, X):
        if is_dask(X):
            from semisvm import _distributed
            _distributed.check_predict_input(self, X)
            return _distributed.decision_function(X, self.coef_, self.intercept_)
        check_sparse_structure(X)  # before SciPy converts it
        X = validate_data(self, X, accept_sparse="csr", dtype=list(FLOAT_DTYPES),
                          order="C", reset=False)
        X = as_csr32(X)
        coef = self.coef_.astype(X.dtype, copy=False)
        intercept = np.asarray(self.intercept_).astype(X.dtype)
        if coef.ndim == 1:
            return np.asarray(X @ coef).ravel() + intercept
        return np.asarray(X @ coef.T) + intercept

    def predict(self, X):
        """Predicted class labels (the user's label values)."""
        scores = self.decision_function(X)
        if is_dask(scores):
            from semisvm import _distributed
            return _distributed.predict_labels(scores, self.classes_)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]


class SemiSupervisedLinear(SafeSemiSupervisedMixin, LinearDecisionMixin,
                            ClassifierMixin, BaseEstimator):
    """Shared fit of TSVM and DASVM: y == -1 unlabeled, two or more labels.

    Two labels: one binary problem (``classes_[1]`` is +1). More: one-vs-rest,
    an extension of the paper (which is binary only): for each class k a
    binary problem "k against the other labeled rows" on all rows, with the
    unlabeled rows shared and its own balance ``r_k`` (default: the fraction
    of class k among the labeled rows); each unlabeled row is then given the
    class of the largest one-vs-rest output.
    """

    #: the semi-supervised solver (:func:`semisvm.linear.tsvm` or
    #: :func:`semisvm.linear.da_s3vm`) and the supervised one that
    #: ``r="auto"`` fits on the labeled rows (:func:`semisvm.linear.l2svm_mfn`)
    _solver = None
    _supervised_solver = None
    _name = None

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _solver_params(self):
        raise NotImplementedError

    def __getstate__(self):
        # fitted on dask: transduction_ and result_ are lazy graphs over the
        # workers' blocks; pickled computed, as the in-memory fit holds them
        state = super().__getstate__()
        if any(is_dask(v) for v in state.values()):
            from semisvm._distributed import materialize
            state = materialize(state)
        return state

    def _fit_binary(self, X, y_ssl, r):
        res = type(self)._solver(
            X, y_ssl, lam=self.lam_, lam_u=self.lam_u, r=r,
            fit_intercept=self.fit_intercept,
            intercept_scaling=self.intercept_scaling, tol=self.tol,
            max_iter=self.max_iter, cg_max_iter=self.cg_max_iter,
            n_jobs=self.n_jobs, verbose=int(self.verbose),
            **self._solver_params())
        if not res.converged:
            warn_user(
                f"{type(self).__name__} stopped on a cap ({res.status}); "
                "increase the corresponding max_* parameter",
                ConvergenceWarning)
        return res

    @atomic_fit
    def fit(self, X, y):
        """Fit on labeled and unlabeled rows (``y == -1`` marks unlabeled).

        X may be a dask array of row blocks (see :meth:`LinearSVM.fit`);
        ``transduction_`` and ``result_``'s per-row arrays are then lazy dask
        arrays over the blocks.
        """
        # every thread of the fit follows n_jobs (semisvm._threads)
        with _limit_threads(self.n_jobs):
            return self._fit(X, y)

    def _fit(self, X, y):
        if is_dask(X):
            return self._fit_dask(X, y)
        X_in = check_sparse_structure(X)  # before SciPy converts it
        X, y, sumsq = validate_fit_data(self, X, y, sumsq=True)
        X = as_csr32(X, checked=X is X_in, sumsq=sumsq)
        self.classes_, y_idx = encode_semisupervised_multiclass(
            y, estimator=type(self).__name__)
        # "auto": scale-invariant default (see default_lam)
        self.lam_ = default_lam(X, self.lam)
        K = self.classes_.shape[0]
        self.r_ = self._resolve_r(X, y_idx, K)
        # r=None: the solver takes the labeled fraction itself (same bits as before)
        self._r_solver = None if self.r is None else self.r_
        results = self._fit_classes(
            X, K, lambda k: np.where(y_idx < 0, -1, (y_idx == k).astype(np.int8)))
        if K == 2 and self.lam_u > 0:
            self.transduction_ = self.classes_[(results[0].labels > 0).astype(np.intp)]
        elif K == 2:
            # lam_u = 0 is the supervised SVM: its labels are the output signs
            # (the balance r only shapes the unused temporary labels)
            pick = np.where(y_idx < 0, (results[0].decision > 0).astype(np.intp), y_idx)
            self.transduction_ = self.classes_[pick]
        else:
            # unlabeled rows: the class of the largest one-vs-rest output
            scores = np.stack([res.decision for res in results], axis=1)
            pick = np.where(y_idx < 0, np.argmax(scores, axis=1), y_idx)
            self.transduction_ = self.classes_[pick]
        return self._safe_fit(X, y)

    def _resolve_r(self, X, y_idx, K):
        """The class balance used: ``r``, the labeled fraction (None) or the
        estimate of :func:`class_balance` ("auto")."""
        r = self.r
        self.r_source_ = "given" if r is not None else "labeled fraction"
        if isinstance(r, str):
            if r != "auto":
                raise ValueError(f"r must be 'auto', None, a fraction or one fraction "
                                 f"per class, got {r!r}")
            lab = np.flatnonzero(y_idx >= 0)
            unl = np.flatnonzero(y_idx < 0)
            r, info = None, {}
            if unl.size:
                Xu = X[unl]
                r = estimate_balance(
                    type(self)._supervised_solver, X[lab], y_idx[lab],
                    lambda coef, b: np.asarray(Xu @ coef).ravel() + b, self.lam_,
                    "cc", 5, self.fit_intercept, self.intercept_scaling,
                    self.n_jobs, info)
            self._note_r_source(r, info)
        if r is None:
            lab = y_idx[y_idx >= 0]
            frac = np.bincount(lab, minlength=K) / lab.size
            return float(frac[1]) if K == 2 else frac
        if K == 2:
            return check_fraction(r, "r")
        return np.asarray(check_class_fractions(r, K), dtype=np.float64)

    def _note_r_source(self, r, info):
        """Set ``r_source_`` for r="auto" (and log it when verbose)."""
        if r is None:
            self.r_source_ = "labeled fraction (too few labels or no unlabeled row)"
        else:
            self.r_source_ = info.get("source", "cc")
        if self.verbose and info.get("adjusted") is not None:
            logger.info("%s r='auto': %s (classify and count %.4f, adjusted count "
                        "%.4f +- %.4f)", type(self).__name__, self.r_source_,
                        info["cc"], info["adjusted"], info["se"])

    def _supervised_counterpart(self):
        """The same estimator without the unlabeled loss (``lam_u = 0``)."""
        from sklearn.base import clone
        return clone(self).set_params(lam_u=0.0, safe=False)

    def _adopt_supervised(self, X, y):
        """Become the supervised solution (the safety net fired)."""
        sup = self._supervised_counterpart().fit(X, y)
        for name in ("coef_", "intercept_", "n_iter_", "result_", "lam_"):
            setattr(self, name, getattr(sup, name))
        lab = np.asarray(y) != -1
        self.transduction_ = np.where(lab, np.asarray(y, dtype=object),
                                      self.predict(X).astype(object)
                                      ).astype(self.classes_.dtype)

    def _fit_classes(self, X, K, targets):
        """The binary fit (K == 2) or K one-vs-rest fits, ``targets(k)`` giving
        class k's 1 / 0 / -1 (unlabeled) targets (NumPy or dask); sets
        coef_, intercept_, n_iter_, result_ and returns the results."""
        if K == 2:
            rs = [None, self._r_solver]
        else:
            rs = [None] * K if self._r_solver is None else list(self._r_solver)
        return fit_one_vs_rest(
            self, K, lambda k: self._fit_binary(X, targets(k), rs[k]),
            lambda res: res.n_mfn)

    def _fit_dask(self, X, y):
        import dask.array as da

        from semisvm import _distributed
        _distributed.check_fit_input(self, X)
        labels, _ = _distributed.unique_labels(y)
        self.lam_ = default_lam(X, self.lam)
        self.classes_, _ = encode_semisupervised_multiclass(
            labels, estimator=type(self).__name__)
        cls = self.classes_
        numeric = labels.dtype.kind in "biuf"
        if self.safe:
            raise ValueError("safe=True needs X in memory (the check refits on "
                             "folds of the labeled rows); pass safe=False with dask")
        self.unlabeled_gain_, self.fell_back_ = None, False
        if isinstance(self.r, str) and self.r != "auto":
            raise ValueError(f"r must be 'auto', None, a fraction or one fraction "
                             f"per class, got {self.r!r}")
        K = cls.shape[0]
        if isinstance(self.r, str):
            # r="auto": the labeled rows (few) are gathered, the unlabeled
            # outputs are one blockwise product, as in memory
            y_np = np.asarray(y.compute() if is_dask(y) else y)
            y_idx = (np.where(np.isin(y_np, cls), np.searchsorted(cls, y_np), -1)
                     if numeric else np.searchsorted(cls, y_np))
            lab = np.flatnonzero(y_idx >= 0)
            unl = np.flatnonzero(y_idx < 0)
            r, info = None, {}
            if unl.size:
                Xl = X[lab].compute()
                Xl = as_csr32(sp.csr_matrix(Xl) if sp.issparse(Xl) else np.ascontiguousarray(Xl))

                def dec_u(coef, b):
                    return np.asarray(_distributed.decision_function(
                        X, coef, b).compute())[unl]
                r = estimate_balance(type(self)._supervised_solver, Xl, y_idx[lab], dec_u, self.lam_, "cc", 5,
                                   self.fit_intercept, self.intercept_scaling, self.n_jobs,
                                   info)
            self._note_r_source(r, info)
            if r is None:
                frac = np.bincount(y_idx[lab], minlength=K) / lab.size
                r = float(frac[1]) if K == 2 else frac
            self.r_ = r
        else:
            self.r_ = self.r
            self.r_source_ = "given" if self.r is not None else "labeled fraction"
            if self.r_ is not None:
                self.r_ = (check_fraction(self.r_, "r") if K == 2 else
                           np.asarray(check_class_fractions(self.r_, K)))
        self._r_solver = self.r_

        def ssl(k):
            def f(b):
                unl = b == -1 if numeric else np.zeros(b.shape, bool)
                return np.where(unl, -1.0, np.where(b == cls[k], 1.0, 0.0))
            return _distributed.map_labels(y, f)

        K = cls.shape[0]
        results = self._fit_classes(X, K, ssl)
        if K == 2:
            self.transduction_ = results[0].labels.map_blocks(
                lambda v: cls[(v > 0).astype(np.intp)], dtype=cls.dtype,
                meta=np.zeros(0, cls.dtype))
            return self
        scores = da.stack([res.decision for res in results], axis=1)
        y_idx = _distributed.map_labels(
            y, lambda b: np.where(np.isin(b, cls), np.searchsorted(cls, b), -1)
            if numeric else np.searchsorted(cls, b), dtype=np.intp)
        if not is_dask(y_idx):
            y_idx = da.from_array(y_idx, chunks=(X.chunks[0],))
        pick = da.where(y_idx < 0, scores.argmax(axis=1), y_idx)
        self.transduction_ = pick.map_blocks(lambda i: cls[i], dtype=cls.dtype,
                                             meta=np.zeros(0, cls.dtype))
        return self
