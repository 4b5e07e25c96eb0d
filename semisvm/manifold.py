"""Laplacian SVM and Laplacian RLS trained in the primal (Melacci & Belkin 2011).

Both estimators build, over all training rows (labeled and unlabeled), a
kernel matrix K (:mod:`semisvm.kernels`) and a kNN-graph Laplacian L
(:mod:`semisvm.graph`), then minimise over f = K alpha + b

    1/2 [ sum_{labeled i} V(y_i, f_i) + gamma_A alpha'K alpha + gamma_I f'L^p f ]

with :func:`semisvm.solvers.lapsvm_primal` (V = squared hinge for LapSVM,
squared loss for LapRLS). Multi-class problems are solved one-vs-rest, sharing
K and L. The fitted decision function extends out of sample:
``f(x) = sum_j alpha_j k(x_j, x) + b``.

Defaults that work out of the box
---------------------------------
Chosen jointly on two moons with one label per class (a thin, 1-2
dimensional manifold) and on the ``semisvm demo`` digits task (digits 2,3,5
vs 6,8,9, 20 labels, intrinsic dimension about 7), and checked on the
paper's data sets:

* kernel: Gaussian RBF with ``gamma = 1 / (n_features * X.var())`` (the data's
  own scale, see :func:`semisvm.kernels.scale_gamma`); the errors below moved
  by less than half a point for 0.5x-2x this gamma.
* graph: k = 10 nearest neighbours (``n_neighbors=None``), heat weights with
  the width set to the mean kNN distance, normalised Laplacian
  ``I - D^-1/2 W D^-1/2`` (the paper's choice; with the unnormalised one the
  same gamma_I gave 16-20 % on two moons).
* power ``p=None`` ("auto"): p = 1 when the Levina-Bickel estimate of the
  intrinsic dimension (from the same kNN distances,
  :func:`semisvm.graph.intrinsic_dimension`) is below 4, else p = 2
  (``p_`` and ``intrinsic_dim_`` record the choice). This is the one default
  that had to depend on the data. With p = 1 in higher intrinsic dimension
  the graph term lets f collapse towards spikes at the labeled points
  (Nadler, Srebro & Zhou 2009; Zhou & Belkin 2011 show the iterated
  Laplacian cures it): on the demo, p = 1 gave 20.6 % test error (k = 10,
  worse than the 14.8 % of the supervised linear SVM; k = 5-6 and
  gamma_I = 0.01-0.1 reached only 8.6-9.4 % and broke two moons), p = 2
  5.7 %. But on a thin, elongated manifold ``f' L^2 f`` = ||Lf||^2 does not
  charge a linear ramp along it, so f extrapolates across the gap between
  the moons: two moons went from 1.7 % (p = 1) to 19-21 % (p = 2, any
  gamma_I, gamma_A, k). Estimated dimensions: two moons 1.9-2.0, COIL20 3.1
  (1-D rotation orbits; Sindhwani & Rosenberg used p = 1), digits 7.4,
  USPST 7.8 (they used p = 2), PCMAC 8.9, G50C 26 (p = 5).
* gamma_A = 1e-4, gamma_I = 1.0: gamma_I well above gamma_A (with few labels
  the graph term must dominate the ambient one). Over gamma_I in
  {0.1, 1, 10} and gamma_A in {1e-6, 1e-4} the demo stayed within 4.1-9.1 %
  (p = 2); two moons needs k >= 10 with p = 1 (k = 6: 7-10 %).
* the stability stop of PCG (``eta=None``): a sign-change threshold of
  ``min(0.015, 3e-4 * check_every)`` per check, i.e. a rate per iteration,
  since the flips counted between two checks grow with the check period
  round(sqrt(n) / 2). The paper's fixed 0.015 stops 2-3 points short of
  the optimum on small problems (check period 10-13): two moons 3.5 % vs
  1.8 % converged, demo 8.1 % vs 5.7 %; at n = 10,000 (period 50) it is
  the paper's value (MNIST test set, 10 labels per class: 9.1 % after 100
  iterations, 8.6 % with 0.005 after 200). Pass ``eta=0.015`` to reproduce
  the paper's early-stopping times.

Measured (mean over 8 moons seeds of transduction and test error, and 6
demo draws; Newton / PCG default): two moons 1.8 % / 1.9 %, demo 5.7 % /
6.1 % (supervised linear SVM 14.8 %, supervised RBF SVM 13.7 %).
"""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from semisvm import solvers
from semisvm._validation import FLOAT_DTYPES, UNLABELED, as_csr32, check_int
from semisvm.graph import (
    check_affinity,
    intrinsic_dimension,
    kernel_distances,
    knn_affinity,
    laplacian,
    neighbors_affinity,
)
from semisvm.kernels import kernel_matrix, scale_gamma

__all__ = ["LapSVM", "LapRLS"]

# p="auto": the plain Laplacian (p = 1) below this estimated intrinsic
# dimension, the iterated one (p = 2) from it on
_P_AUTO_DIM = 4.0


class _LaplacianBase(ClassifierMixin, BaseEstimator):
    """Shared fit / predict of LapSVM and LapRLS."""

    _loss = "squared_hinge"

    def __init__(self, *, gamma_A=1e-4, gamma_I=1.0, kernel="rbf", gamma=None,
                 degree=3, coef0=0.0, n_neighbors=None, graph_weight="heat",
                 graph_t=None, normalized_laplacian=True, p=None, solver="pcg",
                 fit_intercept=True, stop="stability", tol=None, max_iter=None,
                 check_every=None, eta=None, verbose=0):
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_neighbors = n_neighbors
        self.graph_weight = graph_weight
        self.graph_t = graph_t
        self.normalized_laplacian = normalized_laplacian
        self.p = p
        self.solver = solver
        self.fit_intercept = fit_intercept
        self.stop = stop
        self.tol = tol
        self.max_iter = max_iter
        self.check_every = check_every
        self.eta = eta
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel != "precomputed"
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    # -- building blocks -------------------------------------------------
    def _kernel(self, X, Y=None):
        return kernel_matrix(X, Y, kernel=self.kernel, gamma=self._gamma,
                             degree=self.degree, coef0=self.coef0)

    def _n_neighbors(self, n):
        if self.n_neighbors is None:
            k = max(1, min(10, n - 1))
        else:
            k = check_int(self.n_neighbors, "n_neighbors")
        if k >= n:
            raise ValueError(
                f"n_neighbors={k} must be smaller than the number of training "
                f"samples n={n}")
        return k

    def _kernel_and_laplacian(self, X, affinity):
        """K over the training rows and the base Laplacian L (``p_`` set).

        The objective uses ``L^p_``; the solvers apply it as p_ products.
        """
        n = X.shape[0]
        p = None if self.p is None else check_int(self.p, "p")
        self.intrinsic_dim_ = None
        if affinity is not None:
            W = check_affinity(affinity)
            if W.shape != (n, n):
                raise ValueError(
                    f"affinity must have shape ({n}, {n}) (one row per training "
                    f"sample), got {W.shape}")
            K = self._kernel(X)
            # no distances to estimate the dimension from: the plain Laplacian
            self.p_ = 1 if p is None else p
            return K, laplacian(W, normalized=self.normalized_laplacian, p=1)
        k = self._n_neighbors(n)
        if self.kernel == "precomputed" or callable(self.kernel):
            K = self._kernel(X)
            if self.kernel == "precomputed":
                # the graph over the distances the kernel induces
                W, dist = knn_affinity(kernel_distances(K), k,
                                       weight=self.graph_weight, t=self.graph_t,
                                       metric="precomputed", return_distances=True)
            else:
                W, dist = knn_affinity(X, k, weight=self.graph_weight,
                                       t=self.graph_t, return_distances=True)
        else:
            # the kNN lists come out of the Gram matrix's own inner products
            K, dist, ind = kernel_matrix(
                X, kernel=self.kernel, gamma=self._gamma, degree=self.degree,
                coef0=self.coef0, n_neighbors=k)
            W = neighbors_affinity(dist, ind, weight=self.graph_weight,
                                   t=self.graph_t, dtype=X.dtype)
        if p is None:
            # p = 1 on low-dimensional manifolds, the iterated Laplacian
            # p = 2 above (see the module docstring)
            self.intrinsic_dim_ = intrinsic_dimension(dist) if k >= 2 else 0.0
            p = 1 if self.intrinsic_dim_ < _P_AUTO_DIM else 2
        self.p_ = p
        return K, laplacian(W, normalized=self.normalized_laplacian, p=1)

    def _check_X(self, X, reset):
        sparse = self.kernel != "precomputed"
        X = validate_data(self, X, accept_sparse="csr" if sparse else False,
                          dtype=list(FLOAT_DTYPES), order="C", reset=reset)
        return as_csr32(X)

    # -- fit -------------------------------------------------------------
    def fit(self, X, y, *, affinity=None, X_val=None, y_val=None):
        """Fit on all rows of X; ``y == -1`` marks unlabeled rows.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n, n_features)
            Labeled and unlabeled points (for ``kernel="precomputed"``, the
            (n, n) Gram matrix).
        y : array-like of shape (n,)
            Class labels, -1 for unlabeled rows.
        affinity : array-like or sparse matrix of shape (n, n), optional
            A user-given symmetric graph; replaces the kNN graph.
        X_val, y_val : optional
            Validation points and labels for ``stop="validation"``/``"mixed"``.
        """
        X, y = validate_data(
            self, X, y,
            accept_sparse="csr" if self.kernel != "precomputed" else False,
            dtype=list(FLOAT_DTYPES), order="C", accept_large_sparse=True)
        X = as_csr32(X)
        n = X.shape[0]
        if self.kernel == "precomputed" and X.shape != (n, n):
            raise ValueError(
                f"kernel='precomputed' needs a square (n, n) Gram matrix as X, "
                f"got shape {X.shape}")
        check_classification_targets(y)
        labeled = y != UNLABELED
        if not np.any(labeled):
            raise ValueError(
                "y has no labeled sample: every entry is -1 (unlabeled); label "
                "at least one sample of each class")
        classes = np.unique(y[labeled])
        if classes.shape[0] < 2:
            raise ValueError(
                f"{type(self).__name__} needs labeled samples of at least 2 "
                f"classes; got 1 class ({classes.tolist()})")
        self.classes_ = classes
        # the data-derived gamma is fixed on the training rows, so that
        # prediction uses the same kernel
        self._gamma = self.gamma
        if self.gamma is None and self.kernel in ("rbf", "poly"):
            self._gamma = scale_gamma(X)
        K, L = self._kernel_and_laplacian(X, affinity)
        K_val = yv = None
        if self.stop in ("validation", "mixed") and self.solver == "pcg" and (
                X_val is None or y_val is None):
            raise ValueError(
                f"stop={self.stop!r} needs validation points: call "
                "fit(X, y, X_val=..., y_val=...)")
        if X_val is not None or y_val is not None:
            if X_val is None or y_val is None:
                raise ValueError("give both X_val and y_val, or neither")
            Xv = self._check_X(X_val, reset=False)
            K_val = self._kernel(Xv, X)
            yv = np.asarray(y_val)
            if yv.shape != (Xv.shape[0],):
                raise ValueError(f"y_val must have shape ({Xv.shape[0]},), got "
                                 f"{yv.shape}")
        solver = self.solver
        problems = [classes[1]] if classes.shape[0] == 2 else list(classes)
        ys = []
        for c in problems:
            yy = np.where(y == c, 1.0, -1.0)
            yy[~labeled] = 0.0
            ys.append(yy)
        kw = {}
        if K_val is not None:
            kw = {"K_val": K_val,
                  "y_val": [np.where(yv == c, 1.0, -1.0) for c in problems]}
        # the one-vs-rest problems share K and L (PCG: one gemm per iteration)
        results = solvers._lapsvm_multi(
            K, L, ys, gamma_A=self.gamma_A, gamma_I=self.gamma_I,
            loss=self._loss, solver=solver, fit_intercept=self.fit_intercept,
            stop=self.stop, tol=self.tol, max_iter=self.max_iter,
            check_every=self.check_every, eta=self.eta,
            power=self.p_, verbose=bool(self.verbose), joint_stop=True, **kw)
        for res in results:
            if not res.converged:
                warnings.warn(
                    f"{type(self).__name__} ({solver}) did not converge in "
                    f"{res.n_iter} iterations (max_iter); increase max_iter",
                    ConvergenceWarning, stacklevel=2)
                break
        alphas = [r.alpha for r in results]
        intercepts = [r.intercept for r in results]
        self.X_fit_ = X
        self.dual_coef_ = np.vstack(alphas)
        self.intercept_ = np.asarray(intercepts, dtype=X.dtype)
        self.result_ = results[0] if len(results) == 1 else results
        self.n_iter_ = max(r.n_iter for r in results)
        F = np.column_stack([r.outputs for r in results])
        self.transduction_ = self._labels(F)
        return self

    def _labels(self, F):
        if F.shape[1] == 1:
            return self.classes_[(F[:, 0] > 0).astype(np.intp)]
        return self.classes_[np.argmax(F, axis=1)]

    # -- prediction ------------------------------------------------------
    def decision_function(self, X):
        """``f(x) = sum_j alpha_j k(x_j, x) + b``; (n,) if binary (positive ->
        ``classes_[1]``), else (n, n_classes) one-vs-rest scores."""
        check_is_fitted(self)
        X = self._check_X(X, reset=False)
        if self.kernel == "precomputed":
            n_fit = self.dual_coef_.shape[1]
            if X.shape[1] != n_fit:
                raise ValueError(
                    f"kernel='precomputed': X must be the (n_test, {n_fit}) kernel "
                    f"against the training samples, got shape {X.shape}")
            Kx = X
        else:
            Kx = self._kernel(X, self.X_fit_)
        F = Kx @ self.dual_coef_.T.astype(Kx.dtype) + self.intercept_.astype(Kx.dtype)
        return F[:, 0] if F.shape[1] == 1 else F

    def predict(self, X):
        """Predicted class labels (out of sample)."""
        F = self.decision_function(X)
        return self._labels(F[:, None] if F.ndim == 1 else F)


_PARAMS_DOC = """
    Parameters
    ----------
    gamma_A : float > 0, default=1e-4
        Ambient (RKHS norm) regularisation.
    gamma_I : float >= 0, default=1.0
        Intrinsic (graph) regularisation; 0 gives the supervised kernel
        machine on the labeled rows.
    kernel : {"rbf", "linear", "poly", "precomputed"} or callable, default="rbf"
        See :func:`semisvm.kernels.kernel_matrix`. With ``"precomputed"``,
        ``fit`` takes the (n, n) Gram matrix, prediction the (m, n) kernel
        against the training rows, and the graph is built on the distances the
        kernel induces.
    gamma : float or None, default=None
        RBF / poly scale; None: ``1 / (n_features * X.var())``.
    degree, coef0 : polynomial kernel parameters.
    n_neighbors : int or None, default=None
        k of the kNN graph; None: 10 (n - 1 on fewer than 11 training rows).
        An explicit k >= n is an error.
    graph_weight : {"heat", "binary"}, default="heat"
    graph_t : float or None, default=None
        Heat width; None: the mean kNN distance.
    normalized_laplacian : bool, default=True
        ``I - D^-1/2 W D^-1/2`` (True) or ``D - W``.
    p : int or None, default=None
        Power of the Laplacian (iterated Laplacian). None: 1 if the estimated
        intrinsic dimension of the training rows is below 4, else 2 (1 with
        a user-given ``affinity``); see the module docstring. The value used
        is ``p_``.
    fit_intercept : bool, default=True
        Learn the bias b.
    stop : str, default="stability"
        PCG stopping rule (see :func:`semisvm.solvers.lapsvm_primal`):
        "stability", "validation", "mixed" (early stopping, the paper's
        proposal), "gradient", "pgradient", "pnorm", "objective", "none".
        With more than two classes the early-stopping rules test the
        multi-class decision (argmax over the one-vs-rest problems: the
        fraction of unlabeled points whose class changed, the multi-class
        validation error) and stop all the problems together.
    tol : float or None
        Tolerance of the classical rules (paper's defaults when None).
    max_iter : int or None
        Newton steps (default 50) or PCG iterations (default max(1000, n)).
    check_every : int or None
        Early-stopping check period (default round(sqrt(n) / 2)).
    eta : float or None, default=None
        Stability threshold: fraction of unlabeled decisions that changed
        between two checks. None: ``min(0.015, 3e-4 * check_every)`` (the
        paper's 0.015 from n = 10,000 on, less on smaller problems, where the
        paper's value stops early and less accurately; see the module
        docstring).
    verbose : int, default=0

    Attributes
    ----------
    classes_ : ndarray
    dual_coef_ : ndarray of shape (n_problems, n)
        alpha of each binary problem (1 if binary, n_classes if one-vs-rest).
    intercept_ : ndarray of shape (n_problems,)
    X_fit_ : training points (kept for out-of-sample prediction).
    transduction_ : ndarray of shape (n,)
        Labels the model gives to the training rows (labeled and unlabeled).
    result_ : LapSVMResult or list of them (one per one-vs-rest problem)
    n_iter_ : int
        Largest iteration count over the binary problems.
    p_ : int
        Power of the Laplacian used.
    intrinsic_dim_ : float or None
        Estimated intrinsic dimension (``p=None`` with a kNN graph only).
    n_features_in_ : int
"""


class LapSVM(_LaplacianBase):
    r"""Laplacian SVM (squared hinge) trained in the primal.

    With labels mapped to y_i in {-1, +1} (``classes_[1]`` is +1; one-vs-rest
    for more classes) and f = K alpha + b over all n = l + u rows, minimises

    .. math::

        \frac12 \Big[ \sum_{i \le l} \max(0, 1 - y_i f_i)^2
        + \gamma_A \alpha^\top K \alpha + \gamma_I f^\top L^p f \Big].

    L is the (by default normalised) kNN-graph Laplacian and p its power
    (``p_``, by default chosen from the data, see the module docstring);
    PCG applies L^p as p sparse products and never forms it.
    Relative to Belkin et al. (2006): ``gamma_A = l * gamma_A_Belkin`` and
    ``gamma_I = l * gamma_I_Belkin / (l + u)^2``. With ``gamma_I = 0`` this
    is the supervised squared-hinge kernel SVM (LIBSVM-style L2-loss SVM)
    with **C = 1 / gamma_A**.

    ``solver="pcg"`` (default): preconditioned conjugate gradient, stopped
    early by the stability of the unlabeled decisions (Melacci & Belkin's
    proposal, O(n^2) per iteration); ``solver="newton"``: Newton's method
    over the error-vector set, exact and finite (O(n^3) per step).
    """ + _PARAMS_DOC


class LapRLS(_LaplacianBase):
    r"""Laplacian Regularized Least Squares (squared loss), primal.

    Minimises, with f = K alpha + b over all n = l + u rows,

    .. math::

        \frac12 \Big[ \sum_{i \le l} (y_i - f_i)^2
        + \gamma_A \alpha^\top K \alpha + \gamma_I f^\top L^p f \Big]

    by its closed form (``solver="closed"``, one LU solve, default) or by
    PCG (``solver="pcg"``, with the early-stopping rules). With
    ``gamma_I = 0`` it is kernel ridge classification with ridge
    ``gamma_A`` (LIBSVM-style ``C = 1 / gamma_A``).
    """ + _PARAMS_DOC

    _loss = "squared"

    def __init__(self, *, gamma_A=1e-4, gamma_I=1.0, kernel="rbf", gamma=None,
                 degree=3, coef0=0.0, n_neighbors=None, graph_weight="heat",
                 graph_t=None, normalized_laplacian=True, p=None, solver="closed",
                 fit_intercept=True, stop="stability", tol=None, max_iter=None,
                 check_every=None, eta=None, verbose=0):
        # the same parameters as LapSVM; only the default solver differs
        super().__init__(**{k: v for k, v in locals().items()
                            if k not in ("self", "__class__")})
