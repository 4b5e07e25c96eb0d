"""Laplacian SVM and Laplacian RLS trained in the primal (Melacci & Belkin 2011).

Both estimators build, over all training rows (labeled and unlabeled), a
kernel matrix K (:mod:`semisvm.kernels`) and a kNN-graph Laplacian L
(:mod:`semisvm.graph`), then minimise over f = K alpha + b

    1/2 [ sum_{labeled i} V(y_i, f_i) + gamma_A alpha'K alpha + gamma_I f'L^p f ]

with :func:`lapsvm_primal` (V = squared hinge for LapSVM,
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

At scale (above 4,000 training rows)
-------------------------------------
The Nystroem mode's coupled objective (f = Z w + b over m = 1000
landmarks) was 24.6 % wrong on the scale benchmark's problem (100,000 x
50, 10 classes, 10 labels per class; graphlearning's Poisson learning:
2.29 %), and no single knob fixed it (bench/bench_manifold_causes.py, at
20,000 rows: 17.4 % with the defaults, 14.2-19 % over m = 250-2000,
uniform or k-means landmarks, p = 1 or 2, gamma_A and gamma_I over four
decades). The same m-dimensional model fitted to the graph's labels is
2.4-2.6 % wrong there: the span is rich enough, but the graph term, acting
on f only through it, does not pick the label propagation the graph
itself gives. The graph
objective solved over all n rows does (2.2-2.6 % at 100,000 rows), once
each one-vs-rest solution is taken less its component along the
Laplacian's null vector (without it the per-class constant, which depends
on the degrees of the labeled rows, decides the argmax: 4.3 % at
gamma_I = 1, 23 % at gamma_I = 10; with it, the solution tends to Poisson
learning's as gamma_I grows). So above ``LOWRANK_MIN_SAMPLES`` rows the
Nystroem mode fits in two stages (``lowrank_fit="graph"``): that graph
solution labels the rows, then a landmark kernel ridge regression fitted on
all n labels is the inductive model, and ``transduction_`` is its own
labels (1.8-1.9 % there: the smooth model also corrects some of the graph's
mistakes).
"""
from __future__ import annotations

import hashlib
import logging
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from semisvm._fallback import (
    SAFE_CHECK_ATTR_DOC,
    auto_fallback,
    check_safe,
    class_prior_shift,
    codes_of,
    cut_fallback,
    from_codes,
    memo_classes,
    memo_frame,
    on_codes,
    ovo_decision,
    safe_auto_doc,
    to_codes,
)
from semisvm._feature_scale import (
    FEATURE_SCALE_ATTR_DOC,
    FEATURE_SCALING_DOC,
    apply_scale,
    fit_feature_scale,
    record_scale,
    scaled_nbytes,
)
from semisvm._manifold_solvers import lapsvm_multi as _lapsvm_multi
from semisvm._results import LapSVMResult, LapWResult
from semisvm._rows import n_threads
from semisvm._threads import limit
from semisvm._validation import (
    FLOAT_DTYPES,
    UNLABELED,
    apart,
    as_csr32,
    atomic_fit,
    check_int,
    check_memory,
    check_positive,
    check_sparse_structure,
    check_targets,
    fits_in_memory,
    unlabeled_hint,
    warn_user,
)
from semisvm.graph import (
    KNNGraph,
    check_affinity,
    graph_nbytes,
    intrinsic_dimension,
    kernel_distances,
    knn_affinity,
    laplacian,
    neighbors_affinity,
)
from semisvm.kernels import kernel_matrix, scale_gamma
from semisvm.model_selection import LabeledOnly, SafeSemiSupervisedMixin

__all__ = ["LapRLS", "LapSVM", "lapsvm_primal"]

logger = logging.getLogger("semisvm")

# n_components="auto": the exact kernel-matrix path up to this many training
# rows, Nystroem with AUTO_COMPONENTS landmarks (and the two-stage fit) above.
# K is n^2 floats and the Newton / PCG work grows as n^3 / n^2: at 5,000 rows
# the exact LapSVM took 7-18 CPU s (2 cores, shared), the two-stage fit
# 0.4-2.8 s, with errors within 1.6 points either way (5,000-row synthetic
# sets: 1.2 % / 19.2 % two-stage against 1.6 % / 18.1 % exact; usps, 7,291
# rows: 5.8 / 6.3 % against 5.8 / 6.5 %; krvskp, 3,196 rows, where the
# unlabeled rows do not help: 33.7 / 40.5 % against 32.3 / 38.9 %)
LOWRANK_MIN_SAMPLES = 4_000
AUTO_COMPONENTS = 1000
# Nystroem up to this many landmarks: direct Newton systems in m dimensions
# (the m x m graph term formed once, O(n m^2)); above: CG with products
_DIRECT_MAX_COMPONENTS = 3000

# the relative residual of the two-stage fit's graph CG (times min(1,
# gamma_I)): on the scale benchmark's 100,000 rows 1e-3 gave the same labels'
# error as 1e-4 (LapSVM 1.83 %, LapRLS 1.82 %) in 25-35 % fewer iterations
_GRAPH_CG_TOL = 1e-3
# the same for the fallback's label folds, which start from the fit's own
# solution and are read only through the argmax on the held-out rows: at
# 100,000 rows (LapSVM) 15-17 CG iterations against 70-123 at 1e-3, and the
# same held-out labels as a cold solve at 1e-3 on both folds (a cold solve
# at 1e-2 changed one of them); also the fold fits of safe=True, which
# start from the fit's solution too and are read only through their
# held-out rows' predictions (100,000 rows, LapSVM: 2.6-4.3 CPU s per fold
# at 1e-3, 0.7-1.1 s at 1e-2, the same gain and choice; bench_manifold_safe.py)
_FOLD_CG_TOL = 1e-2

# the two-stage fit's landmark ridge reads at most this many rows per
# landmark (a uniform sample of the graph's rows, the same for every fold of
# the safety net, so that the folds share the fit's ridge system; its targets
# are the graph solution, which carries the labels; the n x m^2 normal
# matrix was the largest cost after the graph): on the scale benchmark's
# 100,000 rows, with m = 1,000, all rows 1.76 % error, 20,000 rows 1.88 %
# at 2.6-3.4 CPU s less, 10,000 rows 1.90 %
_RIDGE_ROWS = 20

# p="auto": the plain Laplacian (p = 1) below this estimated intrinsic
# dimension, the iterated one (p = 2) from it on
_P_AUTO_DIM = 4.0


# ---------------------------------------------------------------------------
# The solver (Melacci & Belkin 2011, eq. 7): Newton and PCG in the primal;
# the machinery is in semisvm._manifold_solvers

def _rng(random_state):
    """The landmarks' generator: ``RandomState(seed)`` for an int seed >= 0
    or None (fresh entropy), a given ``numpy.random.RandomState`` as it is
    (scikit-learn's convention: each fit draws from it)."""
    if isinstance(random_state, np.random.RandomState):
        return random_state
    return np.random.RandomState(
        None if random_state is None
        else check_int(random_state, "random_state", minimum=0))


class _Decision:
    """A solve's decision values, as the fallback's label folds read them."""

    __slots__ = ("decision",)

    def __init__(self, decision):
        self.decision = decision


def lapsvm_primal(K, L, y, *, gamma_A=1e-6, gamma_I=1.0, loss="squared_hinge",
                  solver="pcg", fit_intercept=True, stop="stability", tol=None,
                  max_iter=None, check_every=None, eta=0.015, alpha0=None,
                  intercept0=0.0, K_val=None, y_val=None, power=1,
                  verbose=False) -> LapSVMResult:
    r"""Laplacian SVM (or RLS) trained in the primal, by Newton or PCG.

    Minimises over alpha in R^n and b (Melacci & Belkin 2011, eq. 7)

    .. math::

        F(\alpha, b) = \frac12 \Big[ \sum_{i \le l} V(y_i, f_i)
            + \gamma_A \alpha^\top K \alpha + \gamma_I f^\top L f \Big],
        \qquad f = K\alpha + b\,\mathbf 1,

    over all n = l + u points, with V the squared hinge
    ``max(0, 1 - y f)^2`` (LapSVM, ``loss="squared_hinge"``) or the squared
    loss ``(y - f)^2`` (LapRLS, ``loss="squared"``). The bias is kept inside
    ``f'Lf`` (the same as the paper for an unnormalised L, where L 1 = 0).
    Relative to Belkin et al. 2006 (``1/l sum V + gamma_A ||f||^2 +
    gamma_I/(l+u)^2 f'Lf``): ``gamma_A = l * gamma_A_Belkin`` and
    ``gamma_I = l * gamma_I_Belkin / (l+u)^2``. A supervised kernel L2-SVM
    (``gamma_I = 0``) is LIBSVM's squared-hinge problem with
    ``C = 1 / gamma_A``.

    The solvers. ``"newton"`` (eq. 11): from alpha = 0, solve the linear system of the
    quadratic with the error-vector set E = {i <= l : y_i f_i < 1} frozen
    (Cholesky on the reduced system when gamma_I = 0, LU otherwise; O(n^3)
    per step); stop when E no longer changes (finite termination), else take
    the full step if it decreases F, or the exact line-search step along the
    Newton direction. ``"closed"``: the
    same single solve, for the squared loss (LapRLS).
    ``"pcg"``: preconditioned conjugate gradient with P = blockdiag(K, 1),
    one K-vector product per iteration (BLAS, no GIL), Polak-Ribiere
    directions with automatic restart, exact line search over the hinge
    break points (eq. 13), stopped by ``stop``.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Kernel matrix over all points (float32 or float64; the computation
        runs in its dtype). See :func:`semisvm.kernels.kernel_matrix`.
    L : {sparse matrix, ndarray} of shape (n, n)
        Symmetric graph Laplacian (possibly iterated), e.g. from
        :func:`semisvm.graph.graph_laplacian`.
    y : array-like of shape (n,)
        1 (positive) / 0 (negative) for labeled points, **-1 for unlabeled**
        ones (until 0.1: +1/-1 labeled, 0 unlabeled).
    gamma_A : float > 0
        Ambient (RKHS) regularisation.
    gamma_I : float >= 0
        Intrinsic (manifold) regularisation.
    loss : {"squared_hinge", "squared"}
    solver : {"pcg", "newton", "closed"}
        ``"closed"`` requires ``loss="squared"``.
    fit_intercept : bool
        Learn the bias b.
    stop : str, default="stability"
        PCG stopping rule: "stability", "validation", "mixed", "gradient",
        "pgradient", "pnorm", "objective" or "none". ``"stability"`` (default): stop when fewer than
        ``eta`` of the unlabeled points changed sign since the previous check,
        checks every ``check_every`` iterations; ``"validation"``: stop when
        the error on (``K_val``, ``y_val``) did not fall by at least one point
        (1/n_val) since the previous check; ``"mixed"``: both at once.
        Classical rules, checked every iteration, relative to their value at
        the start: ``"gradient"`` ||grad F||, ``"pgradient"`` ||P^-1 grad F||,
        ``"pnorm"`` sqrt(grad' P^-1 grad), ``"objective"`` the decrease of F
        in one iteration divided by F at the start; ``"none"`` runs to
        convergence (``"pnorm"`` with tol 1e-12, or until the exact line
        search finds no descent).
    tol : float, optional
        Tolerance of the classical rule; defaults 1e-8 (gradient, pgradient,
        pnorm), 1e-6 (objective), 1e-12 (none), as in the paper.
    max_iter : int, optional
        Newton steps (default 50) or PCG iterations (default max(1000, n)).
    check_every : int, optional
        Period of the early-stopping checks; default round(sqrt(n) / 2).
    eta : float in (0, 1) or None
        Stability threshold (paper: 0.015). None: ``min(0.015, 3e-4 *
        check_every)``, i.e. a rate of 0.03 % sign changes per iteration
        (0.004 at n = 700, 0.015 from n = 10,000 on).
    alpha0, intercept0 : optional
        PCG starting point (default 0).
    K_val : ndarray of shape (n_val, n), optional
        Kernel between the validation points and the n training points.
    y_val : array-like of shape (n_val,), optional
        1 / 0 (or +1 / -1) labels of the validation points.
    power : int >= 1, default=1
        Use ``L^power`` in place of ``L`` in the objective (the iterated
        Laplacian). PCG applies it as ``power`` sparse products with L and
        never forms it (L^p fills in fast; the products cost p nnz(L));
        Newton forms it (its O(n^3) work dominates anyway).
    verbose : bool
        Log the run on the ``"semisvm"`` logger.

    Returns
    -------
    LapSVMResult
        ``alpha``, ``intercept``, ``decision`` (f on the n points),
        ``objective``, ``n_iter``, ``converged``, ``status``, ``history``.

    See Also
    --------
    LapSVM, LapRLS : The estimators (kernel, graph and labels in one call).
    semisvm.kernels.kernel_matrix, semisvm.graph.graph_laplacian

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.graph import graph_laplacian
    >>> from semisvm.kernels import kernel_matrix
    >>> from semisvm.manifold import lapsvm_primal
    >>> X = np.r_[np.linspace(0, 1, 20), np.linspace(3, 4, 20)][:, None]
    >>> y = np.full(40, -1)
    >>> y[0], y[39] = 0, 1                       # one label per class
    >>> res = lapsvm_primal(kernel_matrix(X, gamma=1.0),
    ...                     graph_laplacian(X, n_neighbors=5), y, solver="newton")
    >>> np.sign(res.decision).tolist() == [-1.0] * 20 + [1.0] * 20
    True
    """
    return _lapsvm_multi(
        K, L, [y], gamma_A=gamma_A, gamma_I=gamma_I, loss=loss, solver=solver,
        fit_intercept=fit_intercept, stop=stop, tol=tol, max_iter=max_iter,
        check_every=check_every, eta=eta,
        alpha0=None if alpha0 is None else [alpha0],
        intercept0=[intercept0], K_val=K_val,
        y_val=None if y_val is None else [y_val], power=power, verbose=verbose)[0]


# ---------------------------------------------------------------------------
# Estimators

class _LaplacianBase(SafeSemiSupervisedMixin, ClassifierMixin, BaseEstimator):
    """Shared fit / predict of LapSVM and LapRLS."""

    _loss = "squared_hinge"
    # the kNN graph object is a training-time helper: model files hold None
    _transient_params = ("graph",)

    @property
    def graph_(self):
        """The :class:`~semisvm.graph.KNNGraph` the fit used, or None."""
        return getattr(self, "_graph_obj", None)

    def __init__(self, *, gamma_A=1e-4, gamma_I=1.0, kernel="rbf", gamma=None,
                 degree=3, coef0=0.0, n_neighbors=None, graph_weight="heat",
                 graph_t=None, normalized_laplacian=True, p=None, solver="pcg",
                 fit_intercept=True, stop="stability", tol=None, max_iter=None,
                 check_every=None, eta=None, safe="auto", safe_cv=5,
                 safe_margin=0.0, verbose=0, n_components="auto",
                 lowrank_fit="auto", random_state=0, graph=None, n_jobs=None,
                 feature_scaling="auto"):
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
        self.safe = safe
        self.safe_cv = safe_cv
        self.safe_margin = safe_margin
        self.verbose = verbose
        self.n_components = n_components
        self.lowrank_fit = lowrank_fit
        self.random_state = random_state
        self.graph = graph
        self.n_jobs = n_jobs
        self.feature_scaling = feature_scaling

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.kernel != "precomputed"
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags

    def __sklearn_clone__(self):
        new = super().__sklearn_clone__()
        if getattr(self, "_safety_fold", False):
            # the safety net's fold model (see _safe_semi) stays one through
            # the clones of the fold loop
            new._safety_fold = True
        # (a clone inside a fit on codes is fitted on them: _fallback.on_codes)
        return on_codes(self, new)

    # -- building blocks -------------------------------------------------
    def _kernel(self, X, Y=None, out=None):
        # (out: an array that receives K, see kernels.kernel_matrix)
        return kernel_matrix(X, Y, kernel=self.kernel, gamma=self._gamma,
                             degree=self.degree, coef0=self.coef0, out=out)

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
            L = self._user_laplacian(affinity, n, p)
            return self._kernel(X), L
        if self.graph is not None:
            return self._kernel(X), self._graph(X, None)
        if (isinstance(self.gamma_I, (int, float, np.floating, np.integer))
                and self.gamma_I == 0):
            # no graph term (the supervised counterpart of the safety net):
            # no graph; the solvers skip L when gamma_I = 0
            self.p_ = 1 if p is None else p
            return self._kernel(X), sp.csr_matrix((n, n), dtype=X.dtype)
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
                                       t=self.graph_t, return_distances=True,
                                       n_jobs=self.n_jobs)
        else:
            # the kNN lists come out of the Gram matrix's own inner products
            K, dist, ind = kernel_matrix(
                X, kernel=self.kernel, gamma=self._gamma, degree=self.degree,
                coef0=self.coef0, n_neighbors=k)
            W = neighbors_affinity(dist, ind, weight=self.graph_weight,
                                   t=self.graph_t, dtype=X.dtype)
        self._set_p(p, dist, k)
        self._cut_graph = W       # read by the cut check (semisvm._fallback)
        return K, laplacian(W, normalized=self.normalized_laplacian, p=1)

    def _user_laplacian(self, affinity, n, p):
        """L of a user-given affinity; ``p_`` is ``p`` or 1 (no distances to
        estimate the intrinsic dimension from: the plain Laplacian)."""
        W = check_affinity(affinity)
        if W.shape != (n, n):
            raise ValueError(
                f"affinity must have shape ({n}, {n}) (one row per training "
                f"sample), got {W.shape}")
        self.p_ = 1 if p is None else p
        self._cut_graph = W       # read by the cut check (semisvm._fallback)
        return laplacian(W, normalized=self.normalized_laplacian, p=1)

    def _set_p(self, p, dist, k):
        """``p_``: the given p, else p = 1 on low-dimensional manifolds and the
        iterated Laplacian p = 2 above (see the module docstring)."""
        if p is None:
            self.intrinsic_dim_ = intrinsic_dimension(dist) if k >= 2 else 0.0
            p = 1 if self.intrinsic_dim_ < _P_AUTO_DIM else 2
        self.p_ = p

    def _check_X(self, X, reset):
        """New rows (validation, prediction), validated and scaled as the
        fit's X was (``feature_scale_``)."""
        sparse = self.kernel != "precomputed"
        check_sparse_structure(X)  # before SciPy converts it
        X = validate_data(self, X, accept_sparse="csr" if sparse else False,
                          dtype=list(FLOAT_DTYPES), order="C", reset=reset)
        return apply_scale(as_csr32(X), getattr(self, "feature_scale_", None))

    # -- fit -------------------------------------------------------------
    @atomic_fit
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
        # (an earlier fit's fallback: its one-vs-one model, and the labels
        # it replaced, in that fit's labels: not this fit's)
        self.__dict__.pop("_ovo", None)
        self.__dict__.pop("_semi_transduction", None)
        # every thread of the fit follows n_jobs (semisvm._threads)
        with limit(self.n_jobs):
            try:
                self._fit(X, y, affinity=affinity, X_val=X_val, y_val=y_val)
                X_in, y_in = self.__dict__.pop("_prior_rows", (None, None))
                if X_in is None or getattr(self, "_no_cut_check", False):
                    # (the Laplacian guard's LapRLS of a TV / Cheeger fit:
                    # that fit shifts what it takes over)
                    self.__dict__.pop("_prior_estimate", None)
                    self.class_prior_ = None
                else:
                    # the class-prior shift (semisvm._fallback.PRIOR_Z) on
                    # the final model's out-of-sample scores
                    class_prior_shift(self, y_in,
                                      lambda rows: self.decision_function(X_in[rows]),
                                      labels=lambda rows: self.predict(X_in[rows]))
            finally:
                self.__dict__.pop("_prior_rows", None)
            # the fit ran on the classes' codes (semisvm._fallback.to_codes):
            # now in the user's labels
            return from_codes(self)

    def _fit(self, X, y, *, affinity=None, X_val=None, y_val=None):
        check_sparse_structure(X)  # before SciPy converts it
        safe = check_safe(self.safe)
        if safe is True and (affinity is not None or self.kernel == "precomputed"
                             or X_val is not None):
            raise ValueError(
                "safe=True refits on folds of the rows: it needs X as points "
                "and the graph built from them (no affinity=, no "
                "kernel='precomputed', no X_val)")
        X, y = validate_data(
            self, X, y,
            accept_sparse="csr" if self.kernel != "precomputed" else False,
            dtype=list(FLOAT_DTYPES), order="C", accept_large_sparse=True)
        X = as_csr32(X)
        # the rows as given (validated, not scaled), for the class-prior shift
        self._prior_rows = (X, y)
        n = X.shape[0]
        if self.graph is not None:
            if affinity is not None:
                raise ValueError("give graph= or affinity=, not both")
            if self.kernel == "precomputed":
                raise ValueError(
                    "graph= is a kNN graph over the points X; with "
                    "kernel='precomputed' pass the graph as affinity=")
            if not isinstance(self.graph, KNNGraph):
                raise TypeError("graph must be a semisvm.graph.KNNGraph or "
                                f"None, got {type(self.graph).__name__}")
        self._graph_obj = None
        self._fit_rows = None
        self._cut_graph = None
        if self.kernel == "precomputed" and X.shape != (n, n):
            raise ValueError(
                f"kernel='precomputed' needs a square (n, n) Gram matrix as X, "
                f"got shape {X.shape}")
        check_targets(y)
        labeled = y != UNLABELED
        if not np.any(labeled):
            raise ValueError(
                "y has no labeled sample: every entry is -1 (unlabeled); label "
                "at least one sample of each class")
        classes, y_idx = np.unique(y[labeled], return_inverse=True)
        if classes.shape[0] < 2:
            raise ValueError(
                f"{type(self).__name__} needs labeled samples of at least 2 "
                f"classes; got 1 class ({classes.tolist()})" + unlabeled_hint(y))
        # y checked: from here the fit reads the classes' codes, in the order
        # of each class's first labeled row (renaming the classes gives the
        # same fit; semisvm._fallback.to_codes / from_codes)
        y, classes, _ = to_codes(self, y, labeled, classes, y_idx)
        self._prior_rows = (X, y)
        self.classes_ = classes
        # the columns' scale (feature_scaling), once X and y are checked:
        # none where the user's kernel or fitted graph fixes the geometry;
        # everything below (graph, kernel, landmarks, X_fit_) sees the scaled X
        # (a fitted graph's recorded scale: the scale of the fit that built it)
        self.feature_scale_ = fit_feature_scale(
            X, self.feature_scaling, precomputed=self.kernel == "precomputed",
            graph=self.graph, verbose=self.verbose, name=type(self).__name__)
        # the path and its memory (the scaled copy of X included: the
        # scaled X has X's shape, dtype and structure), refused before the
        # copy and any other work
        self._scale_nbytes = scaled_nbytes(X, self.feature_scale_)
        try:
            self.mode_, self.n_components_ = self._mode(X)
            self.lowrank_fit_ = self._lowrank_fit(n)
            check_memory(*self._path_memory(X, self.mode_, self.n_components_))
        finally:
            del self._scale_nbytes
        X = apply_scale(X, self.feature_scale_)
        # the data-derived gamma is fixed on the training rows, so that
        # prediction uses the same kernel
        self._gamma = self.gamma
        if self.gamma is None and self.kernel in ("rbf", "poly"):
            self._gamma = scale_gamma(X)
        if self.mode_ != "exact":
            return self._fit_w(X, y, labeled, classes, affinity, safe)
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
            yv = codes_of(self, yv)
        solver = self.solver
        problems = [classes[1]] if classes.shape[0] == 2 else list(classes)
        kw = {}
        if K_val is not None:
            kw = {"K_val": K_val,
                  "y_val": [(yv == c).astype(np.int8) for c in problems]}

        # Newton / closed form: the fit and its check's label folds (the
        # same K and L, a subset of the labels) share the label-free setup
        # (L^p K) and the fit's factorisation (see lapsvm_multi), dropped
        # with this closure when the check is done; not kept without the
        # check (safe=True's refits on folds of the rows build their own)
        shared = {} if safe == "auto" else None

        def solve(y):
            ys = []
            for c in problems:
                yy = (y == c).astype(np.int8)
                yy[y == UNLABELED] = -1
                ys.append(yy)
            # the one-vs-rest problems share K and L (PCG: one gemm per iteration)
            return _lapsvm_multi(
                K, L, ys, gamma_A=self.gamma_A, gamma_I=self.gamma_I,
                loss=self._loss, solver=solver, fit_intercept=self.fit_intercept,
                stop=self.stop, tol=self.tol, max_iter=self.max_iter,
                check_every=self.check_every, eta=self.eta,
                power=self.p_, verbose=bool(self.verbose), joint_stop=True,
                shared=shared, **kw)

        results = solve(y)
        for res in results:
            if not res.converged:
                warn_user(
                    f"{type(self).__name__} ({solver}) did not converge in "
                    f"{res.n_iter} iterations (max_iter); increase max_iter",
                    ConvergenceWarning)
                break
        alphas = [r.alpha for r in results]
        intercepts = [r.intercept for r in results]
        self.X_fit_ = X
        self.dual_coef_ = np.vstack(alphas)
        self.intercept_ = np.asarray(intercepts, dtype=X.dtype)
        self.result_ = results[0] if len(results) == 1 else results
        self.n_iter_ = max(r.n_iter for r in results)
        F = np.column_stack([r.decision for r in results])
        self.transduction_ = self._labels(F)
        return self._fallback(X, y, safe, solve)

    def _fallback(self, X, y, safe, solve):
        """The default check (``safe="auto"``, :mod:`semisvm._fallback`: the
        same K and L, two label folds) or the safety net (``safe=True``)."""
        self.__dict__.pop("_fit_rows", None)
        # the fit's graph (None: none built, gamma_I = 0), for the cut check
        W = self.__dict__.pop("_cut_graph", None)
        self.graph_cut_ = None
        if safe == "auto":
            def labels(y_hidden):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    res = solve(y_hidden)
                return self._labels(np.column_stack([r.decision for r in res]))
            def adopt(rows, coef, intercept, gamma, basis=None):
                # the SVC's decision k(x, X[rows]) coef + b in this model's
                # terms (basis: a primal linear counterpart's w rows instead)
                if gamma is None and (self.kernel != "linear" or basis is not None):
                    # the chosen counterpart is the linear SVC: the model
                    # becomes linear, f(x) = <x, w> + b
                    self.mode_ = "linear"
                if self.mode_ == "linear":
                    B = X[rows] if basis is None else basis
                    self.coef_ = np.asarray((B.T @ coef.T).T, dtype=X.dtype)
                    # as a linear fit: no expansion left behind (predict and
                    # the model file read coef_ alone)
                    self.X_fit_ = None
                    self.dual_coef_ = None
                    if hasattr(self, "landmarks_"):
                        del self.landmarks_
                else:
                    self.X_fit_ = X[rows]
                    self.dual_coef_ = coef.astype(X.dtype)
                    if self.mode_ == "nystroem":
                        self.landmarks_ = rows
                    if gamma is not None:
                        self._gamma = gamma
                self.intercept_ = intercept.astype(X.dtype)

            auto_fallback(self, X, y, labels, adopt, kernel=self.kernel,
                          margin=self.safe_margin,
                          memo=getattr(self, "_counterpart_memo", None))
            # where the label folds could not run: the label-free cut check
            # (not inside a TV / Cheeger estimator's Laplacian guard, which
            # runs its own cut check after the guard)
            if getattr(self, "_no_cut_check", False):
                W = None
            return cut_fallback(self, X, y, W, adopt, kernel=self.kernel)
        self.safe_check_ = None
        self.safe_counterpart_ = None
        return self._safe_fit(X, y)

    # -- the safety net (semisvm.model_selection.SafeSemiSupervisedMixin) --
    def _supervised_counterpart(self):
        """The supervised kernel machine (squared-hinge SVM / kernel ridge
        with C = 1 / gamma_A, the same kernel and gamma as this fit): this
        estimator with ``gamma_I=0`` fitted on the labeled rows only, by its
        exact solver (Newton / closed form; with gamma_I = 0 the minimiser
        over all rows has alpha = 0 off the labeled rows: the same model,
        without the n x n work)."""
        # (fitted on this fit's X, already scaled: feature_scaling=False)
        params = dict(gamma_I=0.0, safe=False, graph=None, n_neighbors=None,
                      p=1, solver="newton" if self._loss == "squared_hinge"
                      else "closed", feature_scaling=False)
        if self.gamma is None and getattr(self, "_gamma", None) is not None:
            params["gamma"] = self._gamma
        return LabeledOnly(on_codes(self, clone(self).set_params(**params)))

    def _safe_semi(self):
        """The semi-supervised model refitted on each fold of the safety
        check: shares this fit's kNN graph object (each fold's graph is read
        from it, not searched again) and its kernel width; fitted on this
        fit's X, already scaled (``feature_scaling=False``)."""
        semi = on_codes(self, clone(self).set_params(safe=False, feature_scaling=False))
        # fitted only to predict its held-out rows (kept through clone)
        semi._safety_fold = True
        if self.graph_ is not None:
            semi.set_params(graph=self.graph_)
            if self.gamma is None and getattr(self, "_gamma", None) is not None:
                # the kernel of the model being checked (not one rescaled on
                # each fold's rows): the folds then also share this fit's
                # landmark ridge system (see _graph_ridge)
                semi.set_params(gamma=self._gamma)
        return semi

    def _adopt_supervised(self, X, y):
        """Become the supervised solution (the safety net fired)."""
        sup = self._supervised_counterpart().fit(X, y).estimator_
        for name in ("X_fit_", "dual_coef_", "intercept_", "result_", "n_iter_",
                     "_gamma", "p_", "intrinsic_dim_", "mode_", "n_components_",
                     "coef_", "landmarks_"):
            if hasattr(sup, name):
                setattr(self, name, getattr(sup, name))
            elif hasattr(self, name):
                delattr(self, name)
        lab = np.asarray(y) != UNLABELED
        self.transduction_ = np.where(lab, np.asarray(y, dtype=object),
                                      sup.predict(X).astype(object)
                                      ).astype(self.classes_.dtype)

    # -- scalable modes (large n): f = Z w + b, Z = X or Nystroem features --
    def _mode(self, X):
        """("exact" | "linear" | "nystroem", n_components_) for this fit."""
        n = X.shape[0]
        m = self.n_components
        if m is None:
            return "exact", None
        if isinstance(m, str):
            if m != "auto":
                raise ValueError(
                    f"n_components must be None, 'auto' or an int, got {m!r}")
            if self.kernel == "linear":
                mode, m = "linear", None
            elif self.kernel == "precomputed" or callable(self.kernel):
                mode, m = "exact", None
            elif (n <= LOWRANK_MIN_SAMPLES
                  and fits_in_memory(self._path_memory(X, "exact", None)[0])):
                mode, m = "exact", None
            else:
                # above the threshold, or where the n x n matrix does not
                # fit in the memory left (the exact path would be refused)
                mode, m = "nystroem", min(AUTO_COMPONENTS, n)
        else:
            m = check_int(m, "n_components")
            if self.kernel == "precomputed":
                raise ValueError("n_components applies to kernels computed from "
                                 "X; kernel='precomputed' needs n_components=None")
            if self.kernel == "linear":
                raise ValueError(
                    "kernel='linear' is solved exactly in w on X (no landmarks): "
                    "use n_components='auto' (in w) or None (kernel matrix)")
            if m > n:
                raise ValueError(f"n_components={m} must be at most the number "
                                 f"of training samples n={n}")
            mode = "nystroem"
        if mode != "exact" or self.verbose:
            logger.info(
                "%s: %s mode (n=%d%s)", type(self).__name__,
                {"exact": "exact kernel-matrix", "linear": "linear primal-in-w",
                 "nystroem": "Nystroem low-rank"}[mode], n,
                f", {m} landmarks" if mode == "nystroem" else "")
        return mode, m

    def _path_memory(self, X, mode, m):
        """``(bytes, what)``: the largest arrays the path ``mode`` allocates
        (the message of :func:`semisvm._validation.check_memory`), and the
        scaled copy of X where ``feature_scaling`` scales it (its bytes
        set by ``fit`` before the copy is made)."""
        out, what = self._path_memory_of(X, mode, m)
        copy = getattr(self, "_scale_nbytes", 0)
        if copy:
            return (out + copy,
                    what + " and the scaled copy of X (feature_scaling)")
        return out, what

    def _path_memory_of(self, X, mode, m):
        """:meth:`_path_memory` without the scaled copy of X."""
        n, d = X.shape
        item = X.dtype.itemsize
        name = f"{type(self).__name__} on n={n} samples"
        if mode == "exact":
            # the dense n x n Gram matrix (and, for the direct solvers, an
            # (n + 1) x (n + 1) system beside it)
            direct = self.solver != "pcg"
            return (n * n * item * (2 if direct else 1),
                    f"{name}: the {n} x {n} {X.dtype} kernel matrix"
                    + (" and its linear system" if direct else "")
                    + " (n_components=None, the exact path; n_components="
                    "'auto' or an int m uses m Nystroem landmarks, O(n m))")
        k = max(1, min(10, n - 1)) if self.n_neighbors is None else self.n_neighbors
        k = k if isinstance(k, (int, np.integer)) and 0 < k < n else min(10, n - 1)
        graph = graph_nbytes(n, k, item, d, nnz=X.nnz if sp.issparse(X) else None)
        if mode == "linear":
            # the graph, and the Newton / CG vectors over the n rows and d
            # features (X itself is the feature matrix: no copy beyond
            # feature_scaling's, which _path_memory adds)
            return (graph + 12 * (n + d) * 8,
                    f"{name}: the kNN graph (k={k}) and the linear "
                    f"solver's vectors")
        # Nystroem: Z (n x m) in X's dtype, the kernel blocks it is built
        # from, the m x m eigendecomposition and Newton systems
        return (n * m * item + 2 * min(n, 4096) * m * 8 + 6 * (m + 1) ** 2 * 8
                + graph,
                f"{name}: the {n} x {m} {X.dtype} Nystroem features "
                f"(n_components={m}) and the kNN graph (k={k})")

    def _graph(self, X, affinity, return_null=False):
        """Base Laplacian from the kNN graph of X (a :class:`KNNGraph`: the
        given ``graph`` or one built here, approximate above
        ``semisvm.graph.ANN_MIN_SAMPLES``) or the user's affinity; sets
        ``p_`` and ``graph_``. ``return_null``: also the Laplacian's null
        vector (D^1/2 1 when normalised, else 1)."""
        n = X.shape[0]
        p = None if self.p is None else check_int(self.p, "p")
        self.intrinsic_dim_ = None
        if affinity is not None:
            W = check_affinity(affinity)
            L = self._user_laplacian(W, n, p)
        else:
            g = self.graph
            if g is None:
                g = KNNGraph(self._n_neighbors(n), weight=self.graph_weight,
                             t=self.graph_t, random_state=self.random_state,
                             n_jobs=self.n_jobs)
            lists = getattr(self, "_shared_knn_lists", None)
            if self.graph is None and lists is not None and g._takes_lists(X, lists):
                # the exact kNN lists of X searched by the caller (the graph
                # TV / Cheeger estimators' Laplacian guard): the same graph
                # as a search here
                g = g._fit_lists(X, *lists, "exact")
            elif not hasattr(g, "affinity_"):
                # an unfitted graph (or none given): built here, on X
                g = clone(g).fit(X)
            if g is not self.graph:
                # built here, on X as scaled by this fit: a fit given this
                # graph (graph_) scales its X alike
                record_scale(g, self.feature_scale_)
            out = g._graph_and_rows(X)
            if out is None:
                raise ValueError(
                    f"graph was fitted on {g.n_samples_fit_} rows that X (n={n}) "
                    "is neither equal to nor a subset of: fit the graph on these "
                    "rows (or on a superset of them)")
            W, dist, rows = out
            self._graph_obj = g
            # the positions of X's rows in the graph, read by the rest of
            # this fit (not kept: the fit's end drops it)
            self._fit_rows = rows
            k = dist.shape[1]
            self._set_p(p, dist, k)
            self._cut_graph = W   # read by the cut check (semisvm._fallback)
            # the graph's own affinity: valid by construction (no checks)
            L = laplacian(W, normalized=self.normalized_laplacian,
                          check_input=False)
        if not return_null:
            return L
        deg = np.asarray(W.sum(axis=1), dtype=np.float64).ravel()
        null = np.sqrt(deg) if self.normalized_laplacian else np.ones(n)
        return L, null

    def _rows_in_graph(self, g, X):
        """The positions of X's rows among those of the graph ``g``
        (:meth:`KNNGraph.rows_of`; read once per fit, by :meth:`_graph`)."""
        rows = getattr(self, "_fit_rows", None)
        if rows is not None and g is self._graph_obj and rows.size == X.shape[0]:
            return rows
        return g.rows_of(X)

    def _lowrank_fit(self, n):
        """"coupled" | "graph": how the Nystroem mode fits (``lowrank_fit``)."""
        how = self.lowrank_fit
        if how not in ("auto", "coupled", "graph"):
            raise ValueError(
                f"lowrank_fit must be 'auto', 'coupled' or 'graph', got {how!r}")
        if self.mode_ != "nystroem":
            return None
        if (isinstance(self.gamma_I, (int, float, np.floating, np.integer))
                and self.gamma_I == 0):
            # no graph term: the supervised kernel machine (coupled)
            return "coupled"
        if how == "auto":
            return "graph" if n > LOWRANK_MIN_SAMPLES else "coupled"
        return how

    def _fit_w(self, X, y, labeled, classes, affinity, safe):
        from semisvm._lowrank import lap_gram, lap_primal_w, nystroem_features
        if self.lowrank_fit_ == "graph":
            return self._fit_graph(X, y, labeled, classes, affinity, safe)
        if (isinstance(self.gamma_I, (int, float, np.floating, np.integer))
                and self.gamma_I == 0 and affinity is None and self.graph is None):
            # no graph term: no graph (the solver skips L when gamma_I = 0)
            n = X.shape[0]
            self.intrinsic_dim_ = None
            self.p_ = 1 if self.p is None else check_int(self.p, "p")
            L = sp.csr_matrix((n, n), dtype=X.dtype)
        else:
            L = self._graph(X, affinity)
        gram = None
        # with a shared graph (graph=), the work over the same rows is shared
        # too: the Nystroem features and Z'L^p Z of each fold, and each
        # problem's solution as the next grid point's warm start
        g = self.graph_ if self.graph is not None else None
        key = None
        if g is not None:
            rows = self._rows_in_graph(g, X)
            key = (hashlib.blake2b(rows.tobytes(), digest_size=16).hexdigest(),
                   X.dtype.str, self.mode_, self.n_components_, self.p_,
                   self.normalized_laplacian, str(self.kernel), self._gamma,
                   self.degree, self.coef0, self.random_state,
                   hashlib.blake2b(np.flatnonzero(labeled).tobytes(),
                                   digest_size=16).hexdigest())
        if self.mode_ == "linear":
            Z = X
        else:
            feats = None if key is None else g._recall(("nystroem",) + key)
            if feats is None:
                # the labeled rows are landmarks (the exact solution's
                # expansion is anchored there: with few labels, uniform
                # landmarks alone missed most of them and lost 3-7 points of
                # accuracy)
                Z, landmarks, N = nystroem_features(
                    X, self._kernel, self.n_components_,
                    random_state=_rng(self.random_state),
                    include=np.flatnonzero(labeled),
                    parallel=not callable(self.kernel))
                if self.n_components_ <= _DIRECT_MAX_COMPONENTS:
                    # Newton in m dimensions: Z'L^p Z formed once, shared by
                    # the steps and the one-vs-rest problems (Cholesky solves)
                    gram = lap_gram(Z, L, self.p_)
                if key is not None:
                    g._store(("nystroem",) + key, (Z, landmarks, N, gram),
                             Z.nbytes + N.nbytes
                             + (0 if gram is None else gram.nbytes))
            else:
                Z, landmarks, N, gram = feats
        problems = [classes[1]] if classes.shape[0] == 2 else list(classes)
        max_iter = 50 if self.max_iter is None else check_int(self.max_iter,
                                                              "max_iter")

        def solve(y_):
            results = []
            for c in problems:
                # +1 / -1 on the labeled rows, 0 unlabeled; the problems share Z, L
                yy = np.where(y_ == c, 1.0, -1.0)
                yy[y_ == UNLABELED] = 0.0
                # the fit's own labels warm-start from (and store) the shared
                # graph's last solution; the fallback's label folds do not
                wkey = None if (key is None or y_ is not y) else (
                    ("w", self._loss, self.fit_intercept, memo_classes(self, [c])) + key)
                warm = None if wkey is None else g._recall(wkey)
                res = lap_primal_w(
                    Z, L, yy, gamma_A=self.gamma_A, gamma_I=self.gamma_I,
                    loss=self._loss, fit_intercept=self.fit_intercept,
                    power=self.p_, max_iter=max_iter, gram=gram,
                    verbose=bool(self.verbose),
                    w0=None if warm is None else warm[0],
                    intercept0=0.0 if warm is None else warm[1])
                if wkey is not None:
                    g._store(wkey, (res.coef, res.intercept), res.coef.nbytes)
                results.append(res)
            return results

        results = solve(y)
        for res in results:
            if not res.converged:
                warn_user(
                    f"{type(self).__name__} ({self.mode_}) did not converge in "
                    f"{res.n_iter} Newton steps (max_iter); increase max_iter",
                    ConvergenceWarning)
                break
        Wc = np.vstack([r.coef for r in results])
        if self.mode_ == "linear":
            self.coef_ = Wc.astype(X.dtype)
            self.X_fit_ = None
            self.dual_coef_ = None
        else:
            # f(x) = k(x, X_m) N w + b: the landmarks are the expansion points
            self.X_fit_ = X[landmarks]
            self.landmarks_ = landmarks
            self.dual_coef_ = (Wc.astype(np.float64) @ N).astype(X.dtype)
        self.intercept_ = np.asarray([r.intercept for r in results], dtype=X.dtype)
        self.result_ = results[0] if len(results) == 1 else results
        self.n_iter_ = max(r.n_iter for r in results)
        F = np.column_stack([r.decision for r in results])
        self.transduction_ = self._labels(F)
        return self._fallback(X, y, safe, solve)

    def _fit_graph(self, X, y, labeled, classes, affinity, safe):
        """The two-stage Nystroem fit (``lowrank_fit="graph"``): the graph
        objective over the n training rows, then the landmark kernel RLS on
        the labels it gives (see ``lowrank_fit`` in the class docstring)."""
        from semisvm._lowrank import graph_transduction
        L, null = self._graph(X, affinity, return_null=True)
        if self.p is None:
            # the null-vector normalisation, not the iterated Laplacian,
            # is what keeps the graph solution informative at low label
            # rates here (p = 1: 2.25 % error, p = 2: 1.97 %, at 3x the CG
            # work, on the scale benchmark's 100,000 rows)
            self.p_ = 1
        problems = [classes[1]] if classes.shape[0] == 2 else list(classes)
        Y = np.column_stack([np.where(y == c, 1.0, -1.0) for c in problems])
        Y[~labeled] = 0.0
        gI = check_positive(self.gamma_I, "gamma_I", allow_zero=True)
        gA = check_positive(self.gamma_A, "gamma_A")
        max_iter = 50 if self.max_iter is None else check_int(self.max_iter,
                                                              "max_iter")
        # the CG's passes over L on n_jobs threads (the same bits for any)
        nt = n_threads(self.n_jobs)
        # a fit on a subset of a shared graph's rows (a fold of the safety
        # net) starts from the solution of the fit on all of them
        g = self.graph_ if affinity is None else None
        rows = None if g is None else self._rows_in_graph(g, X)
        # (kept in the user's labels' frame: a fit whose codes run in
        # another class order reads it negated / permuted back)
        frame, to_memo, from_memo = memo_frame(self, classes, problems)
        fkey = None if rows is None else (
            "graph-f", self._loss, gI, self.p_, self.normalized_laplacian, frame)
        F0 = None if fkey is None else g._recall(fkey)
        if F0 is not None:
            F0 = from_memo(F0[rows])
        F, n_newton, n_cg, converged, F_raw = graph_transduction(
            L, Y, gamma_I=gI, loss=self._loss, power=self.p_, null=null,
            max_iter=max_iter, n_threads=nt,
            # a fold of the safety net is read only through its held-out
            # rows' labels, as the fallback's label folds are
            cg_tol=_FOLD_CG_TOL if getattr(self, "_safety_fold", False)
            else _GRAPH_CG_TOL,
            return_raw=True, F0=F0)
        if fkey is not None and rows.size == g.n_samples_fit_:
            Fg = np.empty_like(F_raw)
            Fg[rows] = F_raw
            Fg = to_memo(Fg)
            g._store(fkey, Fg, Fg.nbytes)
        if not converged:
            warn_user(
                f"{type(self).__name__} (graph stage) did not converge in "
                f"{n_newton} Newton steps (max_iter); increase max_iter",
                ConvergenceWarning)
        # the graph's labels on the unlabeled rows, the given ones elsewhere
        pseudo = self._labels(F).astype(y.dtype)
        pseudo[labeled] = y[labeled]
        T = np.column_stack([np.where(pseudo == c, 1.0, -1.0) for c in problems])
        beta, b, landmarks, dec = self._graph_ridge(X, T, gA)
        XL = X[landmarks]
        self.X_fit_ = XL
        self.landmarks_ = landmarks
        self.dual_coef_ = beta.T.astype(X.dtype)
        self.intercept_ = np.asarray(b, dtype=X.dtype)
        if getattr(self, "_safety_fold", False):
            # a fold of the safety net (see _safe_semi) is read only through
            # predict on its held-out rows: no decision over its n rows
            self.transduction_ = self.graph_agreement_ = None
            self.result_ = None
            self.n_iter_ = n_newton
            return self._fallback(X, y, safe, None)
        # the model's labels on the training rows: predict(X) == transduction_
        G = np.empty((X.shape[0], len(problems)), dtype=X.dtype)
        done = np.zeros(X.shape[0], dtype=bool)
        if dec is not None:
            # (K_nm of the ridge rows, kept: the n x m Nystroem budget of the
            # memory check covers it)
            local, Knm, keep_r, keep_l = dec
            coef = np.zeros((Knm.shape[1], len(problems)), dtype=Knm.dtype)
            coef[keep_l] = self.dual_coef_.T
            G[local] = (Knm @ coef)[keep_r] + self.intercept_
            done[local] = True
        rest = np.flatnonzero(~done)
        for a in range(0, rest.size, 4096):
            r = rest[a:a + 4096]
            G[r] = self._kernel(X[r], XL) @ self.dual_coef_.T + self.intercept_
        self.transduction_ = self._labels(G)
        self.graph_agreement_ = float(np.mean(self._labels(F) == self.transduction_))
        self.result_ = [
            LapWResult(coef=beta[:, j].copy(), intercept=float(b[j]),
                       decision=G[:, j].copy(), objective=float("nan"),
                       n_iter=n_newton, n_cg_iter=n_cg, converged=converged,
                       status="optimal" if converged else "max_iter",
                       n_error_vectors=int(labeled.sum()),
                       history=np.zeros(0), time=0.0)
            for j in range(len(problems))]
        if len(self.result_) == 1:
            self.result_ = self.result_[0]
        self.n_iter_ = n_newton

        def solve(y_):
            # the fallback's label folds: the graph stage again (the same L)
            Yh = np.column_stack([np.where(y_ == c, 1.0, -1.0) for c in problems])
            Yh[y_ == UNLABELED] = 0.0
            # from the fit's own minimiser: the labels differ on a few rows
            Fh = graph_transduction(L, Yh, gamma_I=gI, loss=self._loss,
                                    power=self.p_, null=null, max_iter=max_iter,
                                    cg_tol=_FOLD_CG_TOL, F0=F_raw,
                                    n_threads=nt)[0]
            return [_Decision(Fh[:, j]) for j in range(Fh.shape[1])]

        return self._fallback(X, y, safe, solve)

    def _graph_ridge(self, X, T, gA):
        """Stage (2) of the two-stage fit: landmarks, ridge rows and the
        ridge's solution, ``(beta, b, landmarks, (rows, K_rows_m) or None)``.

        Landmarks and ridge rows are drawn over the rows of the kNN graph
        (its ``n_samples_fit_`` rows, or X's without one): the first m and
        the first ``_RIDGE_ROWS * m`` of ``RandomState(random_state)``'s
        permutation of them, those of X kept. A fit on all the graph's rows
        stores its ridge system (K_nm'K_nm, K_nm over the ridge rows) on the
        shared graph; a fit on a subset of them (a fold of the safety net
        with ``graph=``) then takes that system less the removed rows'
        share (``G - K_h'K_h``, exact), not a new n m^2 pass.
        """
        from semisvm._lowrank import (
            ridge_normal,
            ridge_solve,
            ridge_solve_downdated,
        )
        n = X.shape[0]
        feats = getattr(self, "_fit_features", None)
        if feats is not None and feats[0].shape[0] == n:
            return self._feature_ridge(feats, T, gA)
        m = self.n_components_
        g = getattr(self, "_graph_obj", None)
        rows = None if g is None else self._rows_in_graph(g, X)
        if rows is None:
            N, rows = n, np.arange(n)
        else:
            N = g.n_samples_fit_
        pos = np.full(N, -1, dtype=np.intp)
        pos[rows] = np.arange(n)
        rs = self.random_state
        perm = _rng(rs).permutation(N)
        Lg = np.sort(perm[:m])
        Rg = np.sort(perm[:min(N, _RIDGE_ROWS * m)])
        keep_l, keep_r = pos[Lg] >= 0, pos[Rg] >= 0
        if keep_l.sum() < 0.8 * m:
            # X is a small part of the graph's rows: m landmarks among them
            present = perm[pos[perm] >= 0]
            Lg = np.sort(present[:m])
            Rg = np.sort(present[:_RIDGE_ROWS * m])
            keep_l = np.ones(Lg.size, dtype=bool)
            keep_r = np.ones(Rg.size, dtype=bool)
        landmarks = pos[Lg[keep_l]]
        ridge_rows = pos[Rg[keep_r]]
        key = None
        if g is not None:
            key = ("ridge", N, m, rs, _RIDGE_ROWS, X.dtype.str, str(self.kernel),
                   self._gamma, self.degree, self.coef0,
                   hashlib.blake2b(Lg.tobytes() + Rg.tobytes(),
                                   digest_size=16).hexdigest())
        full = None if key is None else g._recall(key)
        Tr = np.zeros((Rg.size, T.shape[1]))
        Tr[keep_r] = T[ridge_rows]
        fi = bool(self.fit_intercept)
        if full is not None:
            G, s_, Kmm, Knm, fac = full
            # K_nm'T over the kept rows (the removed ones have t = 0 in Tr)
            R = np.asarray(Knm.T @ Tr.astype(Knm.dtype), dtype=np.float64)[keep_l]
            Kh = np.asarray(Knm[~keep_r], dtype=np.float64)
            if fac[0] == gA and fac[1] == fi and fac[2] is not None:
                # the fit's factorisation, downdated (Woodbury, Lagrange)
                A = Kh.T if not fi else np.vstack([Kh.T, np.ones((1, Kh.shape[0]))])
                beta, b = ridge_solve_downdated(fac[2], A, np.flatnonzero(~keep_l),
                                                R, Tr.sum(axis=0), fi)
                return beta, b, landmarks, (ridge_rows, Knm, keep_r, keep_l)
            Kh = Kh[:, keep_l]
            G = G[np.ix_(keep_l, keep_l)] - Kh.T @ Kh
            s_ = s_[keep_l] - Kh.sum(axis=0)
            Kmm = Kmm[np.ix_(keep_l, keep_l)]
            beta, b = ridge_solve(G, s_, Kmm, ridge_rows.size, R, Tr.sum(axis=0),
                                  gA, fi)
            return beta, b, landmarks, (ridge_rows, Knm, keep_r, keep_l)
        G, s_, Kmm, Knm = ridge_normal(X[ridge_rows], self._kernel, X[landmarks],
                                       kernel_out=True)
        Tr = T[ridge_rows]
        R = np.asarray(Knm.T @ Tr.astype(Knm.dtype), dtype=np.float64)
        beta, b, cf = ridge_solve(G, s_, Kmm, ridge_rows.size, R, Tr.sum(axis=0),
                                  gA, fi, return_factor=True)
        if key is not None and keep_l.all() and keep_r.all():
            g._store(key, (G, s_, Kmm, Knm, (gA, fi, cf)),
                     2 * G.nbytes + Kmm.nbytes + Knm.nbytes)
        keep_l = np.ones(landmarks.size, dtype=bool)
        keep_r = np.ones(ridge_rows.size, dtype=bool)
        return beta, b, landmarks, (ridge_rows, Knm, keep_r, keep_l)

    def _feature_ridge(self, feats, T, gA):
        """:meth:`_graph_ridge` on given Nystroem features of X's rows
        (the graph TV / Cheeger guard's LapRLS on the checked fit's, see
        ``semisvm._tv_check.GUARD_FIT_FEATURES``): ``feats = (Z, landmarks,
        N, Z'Z)``, ``Z = k(X, X[landmarks]) N``; the ridge ``min ||Z w + b -
        t||^2 + gamma_A ||w||^2`` (``||w||^2 = beta'K_mm beta`` for ``beta =
        N w``: the landmark ridge's RKHS norm) solved from Z'Z, an m x m
        system; returns ``(beta, b, landmarks, None)``: the decisions on the
        rows come from the model (``k(x, X[landmarks]) beta + b``)."""
        from semisvm._lowrank import ridge_solve
        Z, landmarks, N, gram = feats
        m = Z.shape[1]
        # Z'T and Z'1 in float64 (by blocks of rows: no float64 copy of a
        # float32 Z)
        R = np.zeros((m, T.shape[1]))
        s_ = np.zeros(m)
        for a in range(0, Z.shape[0], 4096):
            Zb = np.asarray(Z[a:a + 4096], dtype=np.float64)
            R += Zb.T @ T[a:a + 4096]
            s_ += Zb.sum(axis=0)
        w, b = ridge_solve(gram, s_, np.eye(m), Z.shape[0], R, T.sum(axis=0), gA,
                           bool(self.fit_intercept))
        return np.asarray(N, dtype=np.float64) @ w, b, landmarks, None

    def _labels(self, F):
        if F.shape[1] == 1:
            return self.classes_[(F[:, 0] > 0).astype(np.intp)]
        return self.classes_[np.argmax(F, axis=1)]

    # -- prediction ------------------------------------------------------
    def decision_function(self, X):
        """``f(x) = sum_j alpha_j k(x_j, x) + b``; (n,) if binary (positive ->
        ``classes_[1]``), else (n, n_classes) one-vs-rest scores."""
        check_is_fitted(self)
        # BLAS at one thread: the same decision values for any n_jobs
        with limit(getattr(self, "n_jobs", None)):
            return self._decision_function(X)

    def _decision_function(self, X, labels=False):
        X = self._check_X(X, reset=False)
        ovo = self.__dict__.get("_ovo")
        if ovo is not None:
            # the fallback's one-vs-one SVC() (_fallback.PLAIN_FALLBACK_OVO):
            # its "ovr"-shaped scores, or its labels
            return ovo_decision(ovo, X, self.X_fit_, labels=labels)
        if getattr(self, "mode_", "exact") == "linear":
            F = X @ self.coef_.T.astype(X.dtype) + self.intercept_.astype(X.dtype)
            F = np.asarray(F)
            return F[:, 0] if F.shape[1] == 1 else F
        if self.kernel == "precomputed":
            n_fit = self.dual_coef_.shape[1]
            if X.shape[1] != n_fit:
                raise ValueError(
                    f"kernel='precomputed': X must be the (n_test, {n_fit}) kernel "
                    f"against the training samples, got shape {X.shape}")
            Kx = X
        else:
            Kx = self._kernel(apart(X, self.X_fit_), self.X_fit_)
        F = Kx @ self.dual_coef_.T.astype(Kx.dtype) + self.intercept_.astype(Kx.dtype)
        return F[:, 0] if F.shape[1] == 1 else F

    def predict(self, X):
        """Predicted class labels (out of sample)."""
        if self.__dict__.get("_ovo") is not None:
            check_is_fitted(self)
            with limit(getattr(self, "n_jobs", None)):
                return self.classes_[self._decision_function(X, labels=True)]
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
    solver : {"pcg", "newton", "closed"}
        LapSVM: "pcg" (default, early stopped) or "newton" (exact); LapRLS:
        "closed" (default, one LU solve) or "pcg".
    fit_intercept : bool, default=True
        Learn the bias b.
    stop : str, default="stability"
        PCG stopping rule (see :func:`lapsvm_primal`):
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
    safe : {"auto", True, False}, default="auto"
        Whether the model may fall back to a supervised one when the
        unlabeled rows do not help (the classes are not the graph's
        clusters).

""" + safe_auto_doc("``X_fit_``, ``dual_coef_``, ``intercept_``") + """        * ``True``: the full safety net
          (:class:`semisvm.model_selection.SafeSemiSupervisedMixin`):
          compare the model with its supervised counterpart (the same
          estimator with ``gamma_I=0``) by ``safe_cv``-fold cross-validation
          on the labeled rows, repeated twice, refitting everything; when the
          mean gain is below ``-safe_margin``, become that supervised model.
          Needs X as points and the kNN graph (no ``affinity=``,
          ``kernel="precomputed"`` or ``X_val``); about 20 extra fits.
        * ``False``: no check.
    safe_cv : int or cross-validator, default=5
        Folds of ``safe=True`` (an int k: k labeled-row folds, repeated twice).
    safe_margin : float, default=0.0
        Fall back when the accuracy gain is below ``-safe_margin`` (ties keep
        the semi-supervised model).
    verbose : int, default=0
    n_components : {"auto"} or int or None, default="auto"
        Scalable modes, which minimise the same objective over f = Z w + b
        with ``||w||^2`` in place of ``alpha'K alpha`` (Z Z' = K), by Newton
        over the error-vector set with each system solved by CG from products
        by Z, Z' and the sparse L (no n x n matrix; ``solver``, ``stop``,
        ``eta``, ``check_every`` and validation points apply to the exact mode
        only; ``max_iter`` counts Newton steps there):

        * ``None``: the exact kernel-matrix path (K is n x n; refused up
          front, naming the bytes it needs, when that does not fit in the
          memory left).
        * an int m: Nystroem, Z = K(X, X_m) K_mm^{-1/2} over m landmark rows:
          every labeled row (the first m if there are more), then rows drawn
          uniformly without replacement with ``random_state`` (in the order
          of ``RandomState(random_state).permutation(n)``); memory O(n m);
          m = n reproduces the exact solution.
        * ``"auto"``: ``kernel="linear"``: Z = X, the linear LapSVM in w
          (exact; CSR input is never densified, O(nnz(X) + p nnz(L)) per CG
          iteration); other kernels: exact up to ``LOWRANK_MIN_SAMPLES`` =
          4,000 training rows when the n x n kernel matrix fits in the
          memory left, else Nystroem with ``AUTO_COMPONENTS`` = 1,000
          landmarks (logged on the ``"semisvm"`` logger; ``mode_`` and
          ``n_components_`` record the choice). Precomputed and callable
          kernels are always exact.

        Each fit checks the memory of the path it takes, after choosing
        it (the n x n matrix for the exact path, the n x m features and the
        kNN graph for Nystroem, the graph for the linear path) and refuses
        up front (a ``ValueError`` and ``MemoryError``) where it does
        not fit. In the Nystroem mode above ``LOWRANK_MIN_SAMPLES``
        training rows the fit is, by default, the two-stage one of
        ``lowrank_fit``.

        In the scalable modes the kNN graph is a
        :class:`semisvm.graph.KNNGraph` over X (float32 affinity; approximate
        nearest neighbours by usearch's HNSW index from
        ``semisvm.graph.ANN_MIN_SAMPLES`` dense rows on).
    lowrank_fit : {"auto", "coupled", "graph"}, default="auto"
        How the Nystroem mode fits (other modes ignore it).

        * ``"coupled"``: the objective above over f = Z w + b (the graph
          term acts through the m-dimensional model only).
        * ``"graph"``: two stages. (1) The graph objective with f free on
          the n training rows: per one-vs-rest problem (targets y_i = +-1 on
          the labeled rows),
          ``min_f 1/2 [sum_{labeled} V(y_i, f_i) + gamma_I f'L^p f
          + 1e-8 ||f||^2]``, V the estimator's loss, by Jacobi-preconditioned
          CG over the sparse L (Newton over the error-vector set for the
          squared hinge; O(p nnz(L)) per iteration, no landmark involved);
          each solution less its component along the Laplacian's null
          vector v (``D^1/2 1``, or 1 for ``D - W``): ``f - v v'f / v'v``,
          the normalisation that makes the many-unlabeled limit Poisson
          learning's mean-zero solution (Calder et al. 2020) instead of a
          per-class constant. Its argmax (sign if binary) labels the
          unlabeled rows; the labeled rows keep their labels.
          (2) The inductive model: for each problem, with t_i = +-1 the
          one-vs-rest coding of those n labels,
          ``min_{beta, b} 1/2 [sum_{i <= n} (t_i - k(x_i, X_m) beta - b)^2
          + gamma_A beta'K_mm beta]`` over the m landmarks X_m (kernel
          ridge regression, one (m + 1)-dimensional Cholesky solve; the
          squared loss for LapSVM too), f(x) = k(x, X_m) beta + b. The
          landmarks are the first m rows of ``RandomState(random_state)``'s
          permutation of the kNN graph's rows, and the sum runs over the
          first 20 m of them (all rows up to 20 m): a fit on a subset of a
          shared graph's rows (a fold of ``safe=True``) then reuses the
          full fit's system less the removed rows.
          ``transduction_`` is this model's labels on the training rows, so
          ``predict(X_train)`` equals it; ``graph_agreement_`` is the
          fraction of rows where it agrees with stage (1). ``p=None`` means
          p = 1 here. ``objective`` of ``result_`` is NaN (two objectives).
          Measured on the scale benchmark (100,000 x 50, 10 classes, 10
          labels per class): 1.85 % error (stage 1 alone 2.25 %, Poisson
          learning 2.29 %, the coupled objective 24.6 %).
        * ``"auto"``: ``"graph"`` above ``LOWRANK_MIN_SAMPLES`` = 4,000
          training rows, else ``"coupled"``; ``gamma_I=0`` (no graph term)
          is always ``"coupled"``.
    random_state : int, numpy.random.RandomState or None, default=0
        Seed of the Nystroem landmarks and of the approximate kNN search
        (a RandomState is drawn from by each fit).
    graph : semisvm.graph.KNNGraph or None, default=None
        The kNN graph, built once and shared: a fitted
        :class:`~semisvm.graph.KNNGraph` over the training rows (or a
        superset of them, e.g. all rows of a data set whose
        cross-validation folds are fitted) is read, never searched again,
        by every one-vs-rest problem, refit, clone, fold and grid point; an
        unfitted one is fitted on X (a copy; the argument stays unfitted).
        Its own ``n_neighbors``, ``weight`` and ``t`` replace
        ``n_neighbors``, ``graph_weight`` and ``graph_t``; its affinity is
        float32. None: the estimator's own graph (exact mode: from the
        kernel matrix's nearest neighbours; scalable modes: a
        :class:`~semisvm.graph.KNNGraph` built on X, ``graph_``).
    n_jobs : int or None, default=None
        Threads of the fit (None: one, as 1; -1: all cores; -k: all but
        k - 1): the kNN search of the graph the fit builds (a given
        ``graph`` searches with its own ``n_jobs``) and the graph CG's
        passes over the rows. BLAS is held at one thread during fit and
        predict (threadpoolctl), so ``n_jobs=1`` runs on one core, and the
        model has the same bits for any value.
""" + FEATURE_SCALING_DOC + """
    Attributes
    ----------
    classes_ : ndarray
    mode_ : {"exact", "linear", "nystroem"}
        The path used (see ``n_components``).
    n_components_ : int or None
        Landmarks used (Nystroem mode), else None.
    coef_ : ndarray of shape (n_problems, n_features)
        w of each binary problem (``mode_ == "linear"`` only). Where
        ``feature_scale_`` is not None it applies to the scaled columns,
        ``X / feature_scale_`` (the decision is ``(X / feature_scale_) @
        coef_.T + intercept_``): divide it by ``feature_scale_`` for the
        weights of the raw columns.
    lowrank_fit_ : {"coupled", "graph"} or None
        The Nystroem mode's fit (see ``lowrank_fit``); None in the other
        modes.
    graph_agreement_ : float
        ``lowrank_fit_ == "graph"`` only: the fraction of training rows on
        which the inductive model's labels (``transduction_``) agree with
        the graph stage's.
    landmarks_ : ndarray of shape (m,)
        Training-row indices of the landmarks (``mode_ == "nystroem"`` only).
    dual_coef_ : ndarray of shape (n_problems, n) or (n_problems, m)
        alpha of each binary problem (1 if binary, n_classes if one-vs-rest);
        Nystroem: the coefficients over the m landmarks (``X_fit_``); None
        in the linear mode.
    intercept_ : ndarray of shape (n_problems,)
    X_fit_ : training points (kept for out-of-sample prediction); Nystroem:
        the landmark rows; None in the linear mode.
    transduction_ : ndarray of shape (n,)
        Labels the model gives to the training rows (labeled and unlabeled).
    result_ : LapSVMResult or list of them (one per one-vs-rest problem)
    n_iter_ : int
        Largest iteration count over the binary problems.
    unlabeled_gain_ : float or None
        Held-out accuracy of the semi-supervised model minus that of its
        supervised counterpart on the labeled rows (``safe="auto"``: the two
        folds; ``safe=True``: the mean over the folds); None when no check
        ran.
    fell_back_ : bool
        True when the check replaced the model by the supervised one.
""" + SAFE_CHECK_ATTR_DOC + """    p_ : int
        Power of the Laplacian used.
    intrinsic_dim_ : float or None
        Estimated intrinsic dimension (``p=None`` with a kNN graph only).
    graph_ : semisvm.graph.KNNGraph or None
        The graph object the fit used (None for a user-given ``affinity``
        and for the exact mode's own graph).
    n_features_in_ : int
""" + FEATURE_SCALE_ATTR_DOC


class LapSVM(_LaplacianBase):
    __doc__ = r"""Laplacian SVM (squared hinge) trained in the primal.

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
    """ + _PARAMS_DOC + r"""
    See Also
    --------
    LapRLS : The squared loss (closed form).
    semisvm.solvers.lapsvm_primal : The functional solver.
    TVRLS : Graph total variation instead of the Laplacian.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> from semisvm import LapSVM
    >>> X, y = make_moons(200, noise=0.05, random_state=0)
    >>> y_semi = np.full(200, -1)
    >>> y_semi[[np.flatnonzero(y == 0)[0], np.flatnonzero(y == 1)[0]]] = [0, 1]
    >>> clf = LapSVM().fit(X, y_semi)               # one label per moon
    >>> bool(np.mean(clf.transduction_ == y) > 0.95)
    True
    """


class LapRLS(_LaplacianBase):
    __doc__ = r"""Laplacian Regularized Least Squares (squared loss), primal.

    Minimises, with f = K alpha + b over all n = l + u rows,

    .. math::

        \frac12 \Big[ \sum_{i \le l} (y_i - f_i)^2
        + \gamma_A \alpha^\top K \alpha + \gamma_I f^\top L^p f \Big]

    by its closed form (``solver="closed"``, one LU solve, default) or by
    PCG (``solver="pcg"``, with the early-stopping rules). With
    ``gamma_I = 0`` it is kernel ridge classification with ridge
    ``gamma_A`` (LIBSVM-style ``C = 1 / gamma_A``).
    """ + _PARAMS_DOC + r"""
    See Also
    --------
    LapSVM : The squared hinge loss.
    semisvm.solvers.lapsvm_primal : The functional solver.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> from semisvm import LapRLS
    >>> X, y = make_moons(200, noise=0.05, random_state=0)
    >>> y_semi = np.full(200, -1)
    >>> y_semi[[np.flatnonzero(y == 0)[0], np.flatnonzero(y == 1)[0]]] = [0, 1]
    >>> clf = LapRLS().fit(X, y_semi)
    >>> bool(np.mean(clf.predict(X) == y) > 0.95)
    True
    """

    _loss = "squared"

    def __init__(self, *, gamma_A=1e-4, gamma_I=1.0, kernel="rbf", gamma=None,
                 degree=3, coef0=0.0, n_neighbors=None, graph_weight="heat",
                 graph_t=None, normalized_laplacian=True, p=None, solver="closed",
                 fit_intercept=True, stop="stability", tol=None, max_iter=None,
                 check_every=None, eta=None, safe="auto", safe_cv=5,
                 safe_margin=0.0, verbose=0, n_components="auto",
                 lowrank_fit="auto", random_state=0, graph=None, n_jobs=None,
                 feature_scaling="auto"):
        # the same parameters as LapSVM; only the default solver differs
        super().__init__(**{k: v for k, v in locals().items()
                            if k not in ("self", "__class__")})
