r"""Positive-unlabeled SVM with the double hinge loss, trained by USMO.

Sansone, De Natale & Zhou, "Efficient training for positive unlabeled learning",
IEEE TPAMI 41(11):2584-2598, 2019. The solver (``semisvm._core._smo``) works
on the reduced dual of the paper's problem (6) with a complete
tau-optimality test, the exact two-variable step, the incremental function
cache (15) and an LRU cache of kernel columns computed from the data
(``semisvm._core._kernel_cache``), so memory is O(n d + cache), never n x n.

Objective (P: the p labeled positives, U: the n unlabeled rows, pi = prior):

.. math::

    \min_{w, b}\; -\frac{\pi}{p} \sum_{x \in P} f(x)
    + \frac{1}{n} \sum_{x \in U} \max\!\left(f(x),\, \max\!\left(0,
      \tfrac12 + \tfrac12 f(x)\right)\right) + \lambda \|w\|^2,
    \qquad f(x) = \langle w, \phi(x) \rangle + b.

With c1 = pi / (2 lam p) and c2 = 1 / (2 lam n), the solution is
w = c1 sum_P phi(x_p) - sum_U s_u phi(x_u), where s solves

    min 1/2 s' K_UU s - c1 1' K_PU s - sum_u min(s_u, c2 - s_u)
    s.t. sum_u s_u = c1 p, 0 <= s_u <= c2.
"""
from __future__ import annotations

import logging

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.utils.validation import check_is_fitted, validate_data

from semisvm._core._dataset import RowData
from semisvm._core._kernel_cache import KERNEL_CODES, KernelCache
from semisvm._core._smo import kernel_sums as _kernel_sums
from semisvm._core._smo import usmo as _usmo
from semisvm._core._smo_linear import usmo_linear as _usmo_linear
from semisvm._results import USMOResult
from semisvm._threads import limit
from semisvm._validation import (
    FLOAT_DTYPES,
    as_csr32,
    atomic_fit,
    check_int,
    check_kernel_params,
    check_positive,
    check_prior,
    check_pu_labels,
    check_sparse_structure,
    check_targets,
    check_X,
    warn_user,
)

__all__ = ["PUSVM", "default_param_grid", "estimate_prior", "pu_score", "usmo"]

_STATUS = {0: "optimal", 1: "max_iter", 2: "stalled"}
logger = logging.getLogger("semisvm")
_BLOCK_BYTES = 64 * 2**20   # memory budget of one block of test kernel values
# n_components="auto": exact kernel path up to this many rows (the RBF fit at
# 100,000 rows took 658 s), Nystroem with AUTO_COMPONENTS landmarks above
NYSTROEM_MIN_SAMPLES = 20_000
AUTO_COMPONENTS = 1000


def estimate_prior(X, y, *, n_splits=5, random_state=0, n_jobs=None):
    r"""Class prior of the unlabeled rows by Elkan & Noto's estimator e2.

    Elkan & Noto, "Learning classifiers from only positive and unlabeled
    data", KDD 2008. Under "selected completely at random" labeling, a
    classifier g(x) = P(labeled | x) equals c P(y = 1 | x) with
    c = P(labeled | y = 1); e2 estimates c by the share of the labeled
    positives in the total of g, with g predicted out of fold
    (``n_splits``-fold stratified cross-validation, so no row is scored by a
    model that saw it). The positives total p / c, and the prior among the n
    unlabeled rows is

    .. math::

        \hat\pi = \frac{p (1 - c)}{c\, n}, \quad
        c = \frac{\sum_{x \in P} g(x)}{\sum_{x \in P \cup U} g(x)},

    clipped to [0.01, 0.99]. g is a histogram gradient-boosting classifier on
    dense X and a logistic regression on sparse X (never densified), both
    deterministic. On the PU suite of ``bench/bench_pu_defaults.py`` e2 was
    much closer to the truth than e1 (the mean of g over P), which is biased
    upwards when the classes overlap; that script prints the estimate beside
    the true prior for every set.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        1 = labeled positive, -1 or 0 = unlabeled.
    n_splits : int, default=5
    random_state : int, default=0
        Seeds the fold assignment.
    n_jobs : int or None, default=None
        Threads of the classifier g (scikit-learn's convention: None is one
        thread, -1 all cores): OpenMP is held at that count and BLAS at one
        thread for the call, so the default never takes cores it was not
        given.

    Returns
    -------
    float
        The estimated fraction of positives among the unlabeled rows.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.pu import estimate_prior
    >>> rng = np.random.RandomState(0)
    >>> X = np.r_[rng.randn(600, 2) + 3, rng.randn(600, 2) - 3]
    >>> y = -np.ones(1200); y[:300] = 1     # half the 600 positives labeled
    >>> abs(estimate_prior(X, y) - 300 / 900) < 0.05
    True
    """
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    X = check_X(X)
    pos = check_pu_labels(y, X.shape[0])
    p, n = int(pos.sum()), int((~pos).sum())
    n_splits = check_int(n_splits, "n_splits", minimum=2)
    if p < n_splits or n < n_splits:
        raise ValueError(
            f"estimate_prior needs at least n_splits={n_splits} labeled "
            f"positives and unlabeled rows, got {p} and {n}")
    if hasattr(X, "tocsr"):
        clf = LogisticRegression(C=1.0, max_iter=1000)
    else:
        clf = HistGradientBoostingClassifier(max_iter=100, early_stopping=False,
                                             random_state=0)
    cv = StratifiedKFold(n_splits, shuffle=True, random_state=random_state)
    with limit(n_jobs):
        g = cross_val_predict(clf, X, pos.astype(int), cv=cv,
                              method="predict_proba")[:, 1]
    c = float(np.clip(g[pos].sum() / max(g.sum(), 1e-300), 1e-6, 1.0))
    prior = p * (1.0 - c) / (c * n)
    return float(np.clip(prior, 0.01, 0.99))


def pu_score(estimator, X, y):
    r"""Negative PU estimate of the misclassification rate on unlabeled data.

    A scorer (``scoring=pu_score`` in ``GridSearchCV``, ``cross_val_score``)
    for PU data: held-out rows are labeled positives P (y = 1) and unlabeled
    rows U (y = -1 or 0), as any stratified split of the PU labels gives
    (e.g. ``StratifiedKFold``). With pi = ``estimator.prior_`` (the prior the
    fit used), the 0-1 risk on the unlabeled population pi P+ + (1 - pi) N
    is estimated without negative labels (du Plessis, Niu & Sugiyama 2014):

    .. math::

        \hat R = \pi\, \widehat{\mathrm{FNR}}_P + \hat P_U(f > 0)
        - \pi\, (1 - \widehat{\mathrm{FNR}}_P)
        = 2 \pi\, \widehat{\mathrm{FNR}}_P + \hat P_U(f > 0) - \pi,

    and the score is -R (larger is better). It is unbiased for the error on
    U when labels are selected completely at random.

    Parameters
    ----------
    estimator : fitted PUSVM (or any classifier with ``decision_function``
        and a ``prior_`` attribute)
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        1 = labeled positive, -1 or 0 = unlabeled.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import GridSearchCV, StratifiedKFold
    >>> from semisvm.pu import PUSVM, pu_score
    >>> rng = np.random.RandomState(0)
    >>> X = np.r_[rng.randn(100, 2) + 2, rng.randn(100, 2) - 2]
    >>> y = -np.ones(200); y[:50] = 1
    >>> gs = GridSearchCV(PUSVM(prior=0.33), {"lam": [1e-3, 1e-1]},
    ...                   scoring=pu_score, cv=StratifiedKFold(3)).fit(X, y)
    >>> sorted(gs.best_params_)
    ['lam']
    >>> bool(-1.0 <= gs.best_score_ <= 1.0)
    True
    """
    pos = check_pu_labels(y, np.shape(y)[0])
    prior = float(estimator.prior_)
    f = np.asarray(estimator.decision_function(X), dtype=np.float64)
    if not pos.any() or pos.all():
        raise ValueError("pu_score needs both labeled positives and unlabeled "
                         "rows in the held-out part")
    fnr = float(np.mean(f[pos] <= 0))
    pu = float(np.mean(f[~pos] > 0))
    return -(2.0 * prior * fnr + pu - prior)


def default_param_grid(X=None):
    """The default search space of PUSVM (RBF): lam x gamma.

    ``lam`` in {1e-4, 1e-3, 1e-2, 1e-1} and ``gamma`` in {1/4, 1, 4} times
    the ``"scale"`` value 1 / (n_features X.var()) of ``X`` (only "scale"
    when X is None). Use with ``GridSearchCV(..., scoring=pu_score,
    cv=StratifiedKFold(5))``.

    Parameters
    ----------
    X : {ndarray, sparse matrix}, optional
        The training data (for the gamma values).

    Returns
    -------
    dict
        ``{"lam": [...], "gamma": [...]}``.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.pu import default_param_grid
    >>> grid = default_param_grid(np.eye(4))
    >>> grid["lam"]
    [0.0001, 0.001, 0.01, 0.1]
    >>> len(grid["gamma"])
    3
    """
    lams = [1e-4, 1e-3, 1e-2, 1e-1]
    if X is None:
        return {"lam": lams, "gamma": ["scale"]}
    X = check_X(X)
    g = check_kernel_params("rbf", "scale", 3, 0.0, X)[1]
    return {"lam": lams, "gamma": [g / 4, g, 4 * g]}


def _default_max_iter(n_unlabeled):
    return max(1_000_000, 100 * n_unlabeled)


def _check_s0(s0, n, c1_p, c2):
    s0 = np.asarray(s0, dtype=np.float64)
    if s0.shape != (n,):
        raise ValueError(f"s0 must have shape ({n},), got {s0.shape}")
    if not np.all(np.isfinite(s0)):
        raise ValueError("s0 must be finite")
    if np.any(s0 < 0) or np.any(s0 > c2):
        raise ValueError(f"s0 must lie in [0, c2] = [0, {c2!r}]")
    if not np.isclose(s0.sum(), c1_p, rtol=1e-9, atol=0):
        raise ValueError(
            f"s0 must sum to c1 p = prior / (2 lam) = {c1_p!r}, got {s0.sum()!r}")
    return np.ascontiguousarray(s0.copy())


def _ranked_start(scores, total, c2):
    """s = c2 on the highest-scoring rows (slope 1: f >= 1), the rest 0.

    floor(total / c2) rows get c2, the next one the remainder; stable order,
    so ties go to the lowest index.
    """
    n = scores.shape[0]
    order = np.argsort(-scores, kind="stable")
    k = min(int(np.floor(total / c2)), n)
    s = np.zeros(n)
    s[order[:k]] = c2
    if k < n:
        s[order[k]] = min(c2, max(0.0, total - k * c2))
    return s


def _ocsvm_scores(X, prows, urows, kernel, gamma, degree, coef0):
    """Decision values on U of a one-class SVM fitted on P (the paper's start)."""
    from sklearn.svm import OneClassSVM

    if kernel == "precomputed":
        oc = OneClassSVM(kernel="precomputed", nu=0.5).fit(X[prows][:, prows])
        return np.asarray(oc.decision_function(X[urows][:, prows]), dtype=float)
    oc = OneClassSVM(kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                     nu=0.5).fit(X[prows])
    return np.asarray(oc.decision_function(X[urows]), dtype=float)


_INITS = ("uniform", "parzen", "ocsvm")


def usmo(X, y, *, prior, lam, kernel="rbf", gamma=None, degree=3, coef0=0.0,
         cache_size=200.0, tol=1e-3, max_iter=None, init="uniform", s0=None,
         solver="auto", shrinking=False, verbose=False):
    r"""Train the double-hinge PU SVM by USMO; return a :class:`USMOResult`.

    Minimises, over f(x) = <w, phi(x)> + b in the RKHS of ``kernel``,

    .. math::

        -\frac{\pi}{p} \sum_{y_i = 1} f(x_i)
        + \frac{1}{n} \sum_{y_i \in \{-1, 0\}} \max\!\left(f(x_i),
          \max\!\left(0, \tfrac12 + \tfrac12 f(x_i)\right)\right)
        + \lambda \|w\|^2

    (p labeled positives, n unlabeled rows, pi = ``prior``). Only the n
    unlabeled dual variables move; kernel columns come from an LRU cache of
    ``cache_size`` MB (never an n x n matrix). See :mod:`semisvm.pu`.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        float32/float64, dense or CSR (never densified); for
        ``kernel="precomputed"`` the square training Gram matrix.
    y : array-like of shape (n_samples,)
        1 = labeled positive, -1 or 0 = unlabeled.
    prior : float in (0, 1)
        Class prior pi: the fraction of positives among the unlabeled rows.
    lam : float > 0
        Regularisation weight lambda.
    kernel : {"rbf", "linear", "poly", "precomputed"}
        ``rbf``: exp(-gamma ||x - x'||^2); ``poly``: (gamma x.x' + coef0)^degree.
    gamma : float > 0, "scale", "auto" or None
        None / "scale": 1 / (n_features X.var()) (scikit-learn's "scale").
    degree : int >= 0
    coef0 : float
    cache_size : float > 0
        Kernel-column cache budget in MB (at least two columns are kept).
    tol : float > 0
        Stop when the complete tau-optimality violation max b - min a <= tol
        (in units of the decision value; the margin is 1).
    max_iter : int, optional
        Maximum pair steps; default max(10**6, 100 n).
    init : {"uniform", "parzen", "ocsvm"}
        Start when ``s0`` is None. ``"uniform"``: s = pi c2 everywhere
        (feasible, every loss slope pi). ``"parzen"``: rank U by
        sum_P k(x, x_p) and put s = c2 (slope 1) on the top pi n rows, 0 on
        the others. ``"ocsvm"``: the same ranking by a one-class SVM fitted on
        P (the paper's initialisation, simplified: its problem (18) is not
        solved). The sparse starts need fewer kernel columns to set up.
    s0 : array-like of shape (n_unlabeled,), optional
        Feasible start (0 <= s0 <= c2, sum s0 = c1 p = pi / (2 lam)).
    solver : {"auto", "kernel", "linear"}
        ``"kernel"``: SMO with the kernel-column cache. ``"linear"`` (only
        with ``kernel="linear"``): w kept explicitly, F_u = w . x_u from the
        row's stored entries, pairs from passes (LIBLINEAR-style; memory
        O(nnz + n + d), no kernel column). ``"auto"``: "linear" for the
        linear kernel, else "kernel".
    shrinking : bool, default=False
        Kernel solver only: LIBSVM's shrinking heuristic (variables stuck at
        a bound or on the kink leave the active set every min(n, 1000)
        steps; kernel columns are then computed on the active rows only),
        with the whole set restored and checked before stopping: the same
        optimum. Off by default: on ``bench/bench_pu_speed.py`` most
        unlabeled rows stay support vectors and the F reconstruction costs
        more than it saves (20,000 rows: 9.97 s with, 7.93 s without).
    verbose : bool
        Log the violation history and a summary on the ``"semisvm"`` logger
        (INFO) after the solve (the solver itself runs without the GIL).

    Returns
    -------
    USMOResult
        The dual coefficients, ``intercept``, ``objective``, ``n_iter``,
        ``converged``, ``status``, ``decision`` on the training rows.

    See Also
    --------
    PUSVM : The estimator.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.solvers import usmo
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(2, 1, (100, 2)), rng.normal(-2, 1, (100, 2))]
    >>> y = np.full(200, -1)
    >>> y[:30] = 1                                  # 30 labeled positives
    >>> res = usmo(X, y, prior=70 / 170, lam=1e-3, kernel="linear")
    >>> bool(np.mean(np.sign(res.decision[30:]) == np.repeat([1, -1], [70, 100])) > 0.9)
    True
    """
    X = check_X(X)
    N = X.shape[0]
    pos = check_pu_labels(y, N)
    prior = check_prior(prior)
    lam = check_positive(lam, "lam")
    kernel, gamma, degree, coef0 = check_kernel_params(kernel, gamma, degree,
                                                       coef0, X)
    cache_size = check_positive(cache_size, "cache_size")
    tol = check_positive(tol, "tol")
    prows = np.flatnonzero(pos).astype(np.int32)
    urows = np.flatnonzero(~pos).astype(np.int32)
    p, n = prows.shape[0], urows.shape[0]
    max_iter = (_default_max_iter(n) if max_iter is None
                else check_int(max_iter, "max_iter", minimum=0))
    with np.errstate(over="ignore", divide="ignore"):
        c1 = prior / (2.0 * lam * p)
        c2 = 1.0 / (2.0 * lam * n)
    # the dual's scale grows as 1 / lam: keep c1 p (= sum of the positives'
    # coefficients) and the squared norms built from it well inside float64
    if not (np.isfinite(c1) and np.isfinite(c2) and c1 * p < 1e150):
        raise ValueError(
            f"lam={lam!r} is too small: the dual bounds c1 = prior / (2 lam p) = "
            f"{c1:.3g} and c2 = 1 / (2 lam n) = {c2:.3g} overflow float64 "
            "arithmetic; use lam >= 1e-150")
    if not (c1 >= 1e-150 and c2 >= 1e-150):
        raise ValueError(
            f"lam={lam!r} is too large: the dual bounds c1 = prior / (2 lam p) = "
            f"{c1:.3g} and c2 = 1 / (2 lam n) = {c2:.3g} underflow float64 "
            "arithmetic (they must stay >= 1e-150)")
    if init not in _INITS:
        raise ValueError(f"init must be one of {_INITS}, got {init!r}")
    if solver not in ("auto", "kernel", "linear"):
        raise ValueError(f"solver must be 'auto', 'kernel' or 'linear', got {solver!r}")
    if solver == "linear" and kernel != "linear":
        raise ValueError(f"solver='linear' needs kernel='linear', got {kernel!r}")
    if solver == "auto":
        solver = "linear" if kernel == "linear" else "kernel"
    stride = max(1, max_iter // 1000)
    # the linear solver forms no kernel column: its cache (two columns) only
    # serves the kernel sums of the sparse starts
    cache = KernelCache(RowData(X), urows, KERNEL_CODES[kernel], gamma, coef0,
                        degree, cache_size if solver == "kernel" else 0.0)
    if solver == "linear" and init == "uniform" and s0 is None:
        qP = None           # not needed: the linear path never forms columns
    elif kernel == "linear":
        # sum_P x_u . x_p = x_u . (sum_P x_p): one pass over the data
        xp_sum = np.asarray(X[prows].sum(axis=0), dtype=np.float64).ravel()
        qP = np.asarray(X @ xp_sum, dtype=np.float64).ravel()[urows]
    else:
        qP = _kernel_sums(cache, urows, prows)
    if s0 is not None:
        s = _check_s0(s0, n, c1 * p, c2)
    elif init == "uniform":
        s = np.full(n, prior * c2)
    elif init == "parzen":
        s = _ranked_start(qP, c1 * p, c2)
    else:
        s = _ranked_start(_ocsvm_scores(X, prows, urows, kernel, gamma, degree,
                                        coef0), c1 * p, c2)
    n_pass = 0
    if solver == "linear":
        del cache
        w, F, G, n_iter, n_pass, status, bias, viol, hist = _usmo_linear(
            RowData(X), urows, prows, c1, c2, s, tol, max_iter)
        hits = misses = n_cols = 0
        stride = 0
    else:
        F, G, n_iter, status, bias, viol, hist, n_unshrink = _usmo(
            cache, urows, prows, c1, c2, s, qP, tol, max_iter, stride,
            bool(shrinking))
        hits, misses, n_cols = cache.hits, cache.misses, cache.n_slots

    # primal and dual values from the function caches (no kernel needed)
    w2 = c1 * G.sum() - s @ F        # ||w||^2 = c1 1'G_P - s'F_U
    fU = F + bias
    fP = G + bias
    loss_u = np.maximum(fU, np.maximum(0.0, 0.5 + 0.5 * fU))
    objective = lam * w2 - prior / p * fP.sum() + loss_u.mean()
    dual = 2.0 * lam * np.minimum(s, c2 - s).sum() - lam * w2
    decision = np.empty(N)
    decision[urows] = fU
    decision[prows] = fP
    if not (np.all(np.isfinite(decision)) and np.isfinite(bias)):
        raise ValueError(
            f"USMO produced non-finite decision values (lam={lam!r}, "
            f"prior={prior!r}, {X.shape[0]} rows): the problem is numerically "
            "out of range; rescale X or increase lam")
    alpha = np.empty(N)
    alpha[prows] = c1
    alpha[urows] = -s
    coef = None
    if solver == "linear":
        coef = w.astype(X.dtype)
    elif kernel == "linear":
        coef = np.asarray(X.T @ alpha.astype(X.dtype)).ravel().astype(X.dtype)
    if verbose:
        every = f"every {stride} steps" if stride else "per pass"
        for k, v in enumerate(hist):
            logger.info("USMO violation (%s) #%d: %.6g", every, k, v)
        logger.info("USMO %s: %d steps, %d passes, violation %.3g, objective "
                    "%.10g, dual %.10g, cache %d hits / %d misses (%d columns)",
                    _STATUS[status], n_iter, n_pass, viol, objective, dual,
                    hits, misses, n_cols)
    return USMOResult(
        dual_coef=alpha, s=s, intercept=float(bias), coef=coef,
        objective=float(objective), dual_objective=float(dual),
        violation=float(viol), n_iter=int(n_iter), converged=status == 0,
        status=_STATUS[status], cache_hits=int(hits),
        cache_misses=int(misses), n_cache_columns=int(n_cols), n_pass=int(n_pass),
        c1=float(c1), c2=float(c2), gamma=float(gamma), decision=decision,
        history=hist, history_stride=int(stride),
    )


class PUSVM(ClassifierMixin, BaseEstimator):
    r"""Positive-unlabeled SVM with the double hinge loss (USMO solver).

    ``y == 1`` marks a labeled positive; ``y == -1`` or ``y == 0`` an
    unlabeled row (a mix of positives, with fraction ``prior``, and
    negatives). Solves, with p labeled positives P, n unlabeled rows U and
    pi = ``prior``,

    .. math::

        \min_{w, b}\; -\frac{\pi}{p} \sum_{x \in P} f(x)
        + \frac{1}{n} \sum_{x \in U} \max\!\left(f(x),\, \max\!\left(0,
          \tfrac12 + \tfrac12 f(x)\right)\right) + \lambda \|w\|^2,
        \qquad f(x) = \langle w, \phi(x) \rangle + b,

    the unbiased double-hinge PU risk of du Plessis, Niu & Sugiyama (2015)
    in the RKHS of ``kernel``. In LIBSVM terms the unlabeled rows carry
    box constraints C = c2 = 1 / (2 lam n) and the positives fixed
    coefficients c1 = pi / (2 lam p); for a cost-sensitive C-SVC with the
    same scale, C ~ 1 / (2 lam n_samples).

    The dual is solved by SMO (Sansone, De Natale & Zhou, TPAMI 2019) over
    the unlabeled variables only, with the complete tau-optimality test (the
    paper's eq. 13 misses a case), an exact two-variable step (Table I's
    four cases with clipping; duplicate points handled), the incremental
    function cache (eq. 15) and the bias of eq. (16). Kernel columns are
    computed from X (dense or CSR, float32 or float64) into an LRU cache of
    ``cache_size`` MB: memory is O(n d + cache), never n x n.

    Parameters
    ----------
    prior : float in (0, 1) or "auto", default="auto"
        Class prior pi: the fraction of positives among the unlabeled data.
        ``"auto"`` estimates it from the training data with
        :func:`estimate_prior` (Elkan & Noto's e2, out-of-fold); the value
        used is ``prior_``. ``None`` raises ``ValueError``.
    lam : float, default=1e-3
        Regularisation weight lambda > 0. Kept at 1e-3 after
        ``bench/bench_pu_defaults.py`` (a PU suite outside the USMO paper's
        sets, tuned on one half, reported on the other): with
        ``prior="auto"`` it was within 0.02 F1 of the biased SVM on every set
        (at or above it on 8 of 12) at 1,500 rows; larger values (1e-2)
        collapse to predicting no positive when the prior is below 1/2.
        For model selection use :func:`default_param_grid` with
        :func:`pu_score`.
    kernel : {"rbf", "linear", "poly", "precomputed"}, default="rbf"
        ``linear``: x.x'; ``rbf``: exp(-gamma ||x - x'||^2); ``poly``:
        (gamma x.x' + coef0)^degree; ``precomputed``: X is the Gram matrix
        (square in ``fit``, test x train in prediction).
    gamma : float, "scale", "auto" or None, default="scale"
        RBF/poly width; "scale" (or None) is 1 / (n_features X.var()) as in
        scikit-learn's SVC, so the kernel and the fit do not change when X is
        multiplied by a constant. The paper's Gaussian
        ``exp(-|x-y|^2 / (2 s^2))`` is
        gamma = 1 / (2 s^2).
    degree : int, default=3
    coef0 : float, default=0.0
    cache_size : float, default=200
        Kernel-column cache in MB.
    tol : float, default=1e-3
        Stopping tolerance on the complete tau-optimality violation.
    max_iter : int or None, default=None
        Maximum SMO pair steps (None: max(10**6, 100 n)); reaching it emits a
        ``ConvergenceWarning``.
    init : {"uniform", "parzen", "ocsvm"}, default="parzen"
        Starting point: s = pi c2 everywhere, or s = c2 on the pi n unlabeled
        rows ranked most positive by sum_P k(x, x_p) ("parzen") or by a
        one-class SVM fitted on the positives ("ocsvm", the paper's idea).
        The solution is the same (up to ``tol``); the sparse starts need
        fewer kernel columns (``bench/bench_pu_speed.py``: 0.40 s against
        0.86 s CPU at 5,000 rows), hence "parzen" by default.
    solver : {"auto", "kernel", "linear"}, default="auto"
        ``"linear"`` keeps w explicitly (only for ``kernel="linear"``; sparse
        rows never densified, no kernel column formed); ``"kernel"`` uses the
        kernel-column cache; ``"auto"`` picks "linear" for the linear kernel.
    shrinking : bool, default=False
        LIBSVM's shrinking heuristic in the kernel solver (same optimum;
        see :func:`usmo` for why it is off by default).
    verbose : int, default=0
        If > 0, log the violation history and a summary (logger
        ``"semisvm"``, INFO).
    random_state : int, RandomState or None, default=None
        Seed of the Nystroem landmarks (None: 0); unused by the exact path.
    n_components : {"auto"} or int or None, default="auto"
        Nystroem low-rank mode for the rbf and poly kernels: Z = K(X, X_m)
        K_mm^{-1/2} over m landmark rows drawn uniformly without replacement
        (``RandomState(random_state).permutation(n)[:m]``), then USMO's
        linear path on Z (memory O(n m); the same problem with K replaced by
        Z Z', exact when m = n). None: the exact kernel path; an int: m;
        ``"auto"``: exact up to ``NYSTROEM_MIN_SAMPLES`` = 20,000 rows,
        ``AUTO_COMPONENTS`` = 1,000 landmarks above (logged on the
        ``"semisvm"`` logger; ``n_components_`` records it). In this mode
        ``support_`` / ``support_vectors_`` / ``dual_coef_`` are the landmarks
        and their coefficients.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``[unlabeled value, 1]``: the unlabeled label seen in ``y`` (-1 or 0;
        -1 if both) and 1; ``predict`` returns these values.
    support_ : ndarray of int
        Training rows with a non-zero coefficient (all positives, and the
        unlabeled rows with s > 0).
    support_vectors_ : ndarray or sparse matrix
        Those rows of X (empty for ``kernel="precomputed"``).
    dual_coef_ : ndarray
        Their coefficients (c1 for positives, -s for unlabeled rows).
    intercept_ : float
    coef_ : ndarray of shape (n_features,)
        Only for ``kernel="linear"``: w.
    n_support_ : ndarray of shape (2,)
        Number of support rows that are unlabeled, and that are positives.
    n_iter_ : int
    prior_ : float
        The prior the fit used (``prior``, or its estimate for "auto").
    result_ : USMOResult
        Dual/primal objective, violation, iterations, cache hits, convergence.
    transduction_ : ndarray of shape (n_samples,)
        Labels predicted for the training rows.
    n_components_ : int or None
        Landmarks of the Nystroem mode, None for the exact path.

    See Also
    --------
    semisvm.solvers.usmo : The functional solver.
    sklearn.svm.SVC : A biased SVM (unlabeled rows as negatives) for comparison.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm import PUSVM
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(2, 1, (100, 2)), rng.normal(-2, 1, (100, 2))]
    >>> y = np.full(200, -1)
    >>> y[:30] = 1                                  # labeled positives
    >>> clf = PUSVM(prior=70 / 170, kernel="linear").fit(X, y)
    >>> clf.predict([[2.0, 2.0], [-2.0, -2.0]])
    array([ 1, -1])
    """

    def __init__(self, *, prior="auto", lam=1e-3, kernel="rbf", gamma="scale",
                 degree=3, coef0=0.0, cache_size=200.0, tol=1e-3,
                 max_iter=None, init="parzen", solver="auto", shrinking=False,
                 verbose=0, random_state=None, n_components="auto"):
        self.prior = prior
        self.lam = lam
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.cache_size = cache_size
        self.tol = tol
        self.max_iter = max_iter
        self.init = init
        self.solver = solver
        self.shrinking = shrinking
        self.verbose = verbose
        self.random_state = random_state
        self.n_components = n_components

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.classifier_tags.multi_class = False
        return tags

    @atomic_fit
    def fit(self, X, y):
        """Fit on X with PU labels y (1 = positive, -1 or 0 = unlabeled)."""
        check_sparse_structure(X)  # before SciPy converts it
        X, y = validate_data(self, X, y, accept_sparse="csr",
                             dtype=list(FLOAT_DTYPES), order="C",
                             accept_large_sparse=True)
        X = as_csr32(X)
        if not (isinstance(self.prior, str) and self.prior == "auto"):
            prior = check_prior(self.prior)
        check_targets(y)
        y = np.asarray(y)
        if y.dtype.kind not in "biuf":
            raise ValueError(
                "Only binary classification is supported. PUSVM needs numeric "
                f"PU labels (1 = positive, -1 or 0 = unlabeled), got {y.dtype}")
        labels = np.unique(y)
        if not np.all(np.isin(labels, (-1, 0, 1))):
            raise ValueError(
                "Only binary classification is supported. PUSVM reads y as 1 = "
                "labeled positive, -1 or 0 = unlabeled; got labels "
                f"{labels[:5].tolist()}")
        if isinstance(self.prior, str) and self.prior == "auto":
            prior = estimate_prior(X, y)
        self.n_components_ = self._n_components(X)
        if self.n_components_ is not None:
            return self._fit_nystroem(X, y, prior)
        res = usmo(X, y, prior=prior, lam=self.lam, kernel=self.kernel,
                   gamma=self.gamma,
                   degree=self.degree, coef0=self.coef0,
                   cache_size=self.cache_size, tol=self.tol,
                   max_iter=self.max_iter, init=self.init,
                   solver=self.solver, shrinking=self.shrinking,
                   verbose=bool(self.verbose))
        self._warn_unconverged(res)
        unl = -1 if np.any(y == -1) else 0
        self.classes_ = np.array([unl, 1], dtype=y.dtype)
        alpha = res.dual_coef
        support = np.flatnonzero(alpha != 0)
        self.support_ = support
        self.dual_coef_ = alpha[support]
        if self.kernel == "precomputed":
            self.support_vectors_ = np.empty((0, 0), dtype=X.dtype)
        else:
            self.support_vectors_ = X[support]
        self.intercept_ = res.intercept
        if res.coef is not None:
            self.coef_ = res.coef
        pos = y == 1
        self.n_support_ = np.array([np.count_nonzero(~pos[support]),
                                    np.count_nonzero(pos[support])])
        self.gamma_ = res.gamma
        self.n_iter_ = res.n_iter
        self.prior_ = prior
        self.result_ = res
        self.transduction_ = self.classes_[(res.decision > 0).astype(np.intp)]
        return self

    def _n_components(self, X):
        """Landmarks of the Nystroem mode, or None for the exact kernel path."""
        m, n = self.n_components, X.shape[0]
        if m is None or self.kernel in ("linear", "precomputed"):
            if m is not None and not (isinstance(m, str) and m == "auto"):
                raise ValueError(
                    f"n_components applies to the rbf and poly kernels, not "
                    f"kernel={self.kernel!r}; use n_components=None or 'auto'")
            return None
        if isinstance(m, str):
            if m != "auto":
                raise ValueError(
                    f"n_components must be None, 'auto' or an int, got {m!r}")
            if n <= NYSTROEM_MIN_SAMPLES:
                return None
            m = min(AUTO_COMPONENTS, n)
            logger.info("PUSVM: Nystroem low-rank mode (n=%d, %d landmarks)", n, m)
            return m
        m = check_int(m, "n_components")
        if m > n:
            raise ValueError(f"n_components={m} must be at most the number of "
                             f"training samples n={n}")
        return m

    def _warn_unconverged(self, res):
        if res.status != "optimal":
            warn_user(
                f"USMO stopped ({res.status}) after {res.n_iter} steps with "
                f"violation {res.violation:.3g} > tol={self.tol}; increase "
                "max_iter or tol", ConvergenceWarning)

    def _fit_nystroem(self, X, y, prior):
        """USMO's linear path on Nystroem features Z (Z Z' ~ K)."""
        from semisvm._lowrank import nystroem_features
        kernel, gamma, degree, coef0 = check_kernel_params(
            self.kernel, self.gamma, self.degree, self.coef0, X)

        def kern(A, B):
            return pairwise_kernels(A, B, metric=kernel, gamma=gamma, degree=degree,
                                    coef0=coef0, filter_params=True, n_jobs=1)

        rs = 0 if self.random_state is None else self.random_state
        Z, landmarks, N = nystroem_features(X, kern, self.n_components_,
                                            random_state=rs)
        res = usmo(Z, y, prior=prior, lam=self.lam, kernel="linear",
                   cache_size=self.cache_size, tol=self.tol,
                   max_iter=self.max_iter, init=self.init, solver="linear",
                   verbose=bool(self.verbose))
        self._warn_unconverged(res)
        unl = -1 if np.any(y == -1) else 0
        self.classes_ = np.array([unl, 1], dtype=y.dtype)
        # f(x) = k(x, X_m) N w + b: the landmarks act as the support vectors
        self.support_ = landmarks
        self.support_vectors_ = X[landmarks]
        self.dual_coef_ = (N @ np.asarray(res.coef, dtype=np.float64))
        self.intercept_ = res.intercept
        pos = y == 1
        self.n_support_ = np.array([np.count_nonzero(~pos[landmarks]),
                                    np.count_nonzero(pos[landmarks])])
        self.gamma_ = gamma
        self.prior_ = prior
        self.n_iter_ = res.n_iter
        self.result_ = res
        self.transduction_ = self.classes_[(res.decision > 0).astype(np.intp)]
        return self

    def decision_function(self, X):
        """``f(x) = sum_i dual_coef_i k(x, sv_i) + intercept_`` (> 0: positive)."""
        check_is_fitted(self)
        check_sparse_structure(X)  # before SciPy converts it
        X = validate_data(self, X, accept_sparse="csr", dtype=list(FLOAT_DTYPES),
                          order="C", reset=False)
        X = as_csr32(X)
        if self.kernel == "linear":
            out = np.asarray(X @ self.coef_.astype(X.dtype, copy=False)).ravel()
            return out.astype(np.float64) + self.intercept_
        if self.kernel == "precomputed":
            out = X[:, self.support_] @ self.dual_coef_
            return np.asarray(out, dtype=np.float64).ravel() + self.intercept_
        n_sv = max(self.support_.shape[0], 1)
        block = max(1, _BLOCK_BYTES // (8 * n_sv))
        out = np.empty(X.shape[0])
        for start in range(0, X.shape[0], block):
            Kb = pairwise_kernels(X[start:start + block],
                                  self.support_vectors_.astype(X.dtype, copy=False),
                                  metric=self.kernel, gamma=self.gamma_,
                                  degree=self.degree, coef0=self.coef0,
                                  filter_params=True, n_jobs=1)
            out[start:start + block] = Kb @ self.dual_coef_
        return out + self.intercept_

    def predict(self, X):
        """Labels in the user's values: 1 (positive) or the unlabeled value."""
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(np.intp)]
