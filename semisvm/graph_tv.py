r"""Total-variation and Cheeger graph classifiers (Bresson & Zhang 2012).

X. Bresson and R. Zhang, "TV-SVM: Total Variation Support Vector Machine for
Semi-Supervised Data Classification", arXiv:1210.0699. Four models, binary
and multi-class, each with an RKHS term over a kernel K (RBF by default) and a
total-variation term over a graph W (symmetric kNN, self-tuning weights):

* ``TVRLS``  (paper eq. 11 / 104):
  :math:`\min_f \frac\eta2\sum_{i\in L}(y_i-f_i)^2+\frac\lambda2\|f\|_H^2+\gamma\,TV(f)`
* ``TVSVM``  (eq. 59 / 132): the same with the hinge loss
  :math:`\mu\sum_{i\in L}\max(0, 1-y_i(f_i+b))` in place of the squared loss.
* ``CheegerRLS`` (eq. 28 / 112) and ``CheegerSVM`` (eq. 81 / 144): the
  balanced Cheeger cut :math:`\min TV(f)/\sum_i|f_i-\mathrm{med}\,f|` with
  ``f = y`` on the labeled points, the RKHS entering through an RLS (resp.
  SVM) smoothing step inside the ratio-minimisation loop.

with :math:`TV(f)=\sum_{i,j} w_{ij}|f_i-f_j|` over ordered pairs (each edge
twice). The functional entry points are :func:`graph_tv` and
:func:`graph_cheeger` (re-exported by :mod:`semisvm.solvers`): they take the
kernel matrix K, the affinity W and the labels and return a
:class:`~semisvm._results.GraphTVResult`.

The solver machinery (the graph ROF primal-dual, the RKHS factorisation,
the hinge and kernel-SVM steps, the balance term, the stopping rules and the
outer loops) lives in :mod:`semisvm._tv_solvers`, the solver functions' input
checks and solve cache in :mod:`semisvm._tv_inputs`; the estimators' machinery
in three private siblings: :mod:`semisvm._tv_setup` (path, memory, graph,
kernel width, kernel), :mod:`semisvm._tv_schemes` (how a fit calls its
solver: scheme, default weights, budgets) and :mod:`semisvm._tv_check` (the
``safe`` checks). This module holds the two solver functions and the four
estimators. Resolutions of the paper's gaps (see the
docstrings below and the implementation note):

* The binary TV-SVM h-step is solved exactly; the SVM sub-problems with a
  kernel term (Cheeger-SVM, multi-class TV-SVM) by an SMO on the labeled
  block of the corrected, symmetric dual.
* Normalisation ``Norm(v) = R v/||v||`` (the paper's ``N.``): the radius R is
  the option ``normalize`` ("n": R = N as in the paper, "sqrt": R = sqrt(N),
  ``None``: no normalisation, plain convex ADMM for TV-RLS / TV-SVM).
* The multiplier update ``u += r (f - g)`` omitted from the paper's multi-class
  algorithms is performed.
* Hinge constraints are over the labeled points only; multi-class labels are
  one-hot {0, 1} for squared losses, the labeled overwrite and the simplex,
  one-vs-rest +-1 for hinge constraints.
* The Cheeger subgradient of the balance term is ref. [2]'s
  ``sign(f - med f)`` with the entries at the median set to
  ``(n_- - n_+)/n_0``; the ratio is guarded against a zero balance term.

Defaults for data the papers never used (measured on the tune part
of ``bench/_suite.py`` with ``bench/bench_graph_tv_suite.py``, see
``bench/RESULTS.md``):

* deterministic: the default RBF width is the median distance over evenly
  spaced rows (at most 1000), not a random draw, and every solve runs on
  one BLAS thread -- two fits of the same input give the same bits;
* the estimators' Cheeger balance is ``balance="auto"``: for two classes
  the lambda-median at the class fraction that class-mass-normalised label
  spreading gives (the paper's median forces an even split);
* the normalised two-class TV iterations stop on ``"no_improvement"`` when
  they cycle instead of running into ``max_iter``;
* ``safe="auto"`` (the default) checks the model against an SVC on the
  labels (C = 10; RBF at three widths or linear, whichever is right on
  most held-out labels) on two label folds solved on the same graph and
  kernel, and falls back to a supervised SVC when the SVC leads on the
  held-out labels (:mod:`semisvm._fallback`; any lead, chosen on the tune
  part of the benchmark suite) or, with the RBF kernel, where the model got
  more than a quarter of the held-out labels wrong and is not clearly ahead:
  for the RBF kernel scikit-learn's ``SVC()`` (``gamma = "scale"``, C = 1,
  one-vs-one with more classes), whichever SVC decided -- also after the
  label-free cut check that runs with fewer than 4 labels in a class;
* ``safe=True`` checks the model against its supervised counterpart by
  cross-validation on the labeled rows and falls back to it
  (:class:`semisvm.model_selection.SafeSemiSupervisedMixin`).
"""
from __future__ import annotations

import time
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from semisvm._fallback import (
    LAPLACIAN_GUARD_ATTR_DOC,
    SAFE_CHECK_ATTR_DOC,
    check_safe,
    class_prior_shift,
    from_codes,
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
    scaled_nbytes,
)
from semisvm._threads import limit, limit_api
from semisvm._tv_check import LABEL_TOL, TVCheckMixin
from semisvm._tv_inputs import (
    check_label_tol,
    check_normalize,
    common_checks,
    make_result,
)
from semisvm._tv_schemes import TV_DEFAULTS_DOC, CheegerSolveMixin, TVSchemeMixin
from semisvm._tv_setup import TVSetupMixin
from semisvm._tv_solvers import (
    check_balance,
    cheeger_ratio,
    supervised_binary,
    supervised_multi,
    tv_splitting,
)
from semisvm._validation import (
    FLOAT_DTYPES,
    UNLABELED,
    NotEnoughMemoryError,
    apart,
    as_csr32,
    atomic_fit,
    check_n_jobs,
    check_positive,
    check_sparse_structure,
    check_targets,
    unlabeled_hint,
    warn_user,
)
from semisvm.manifold import LapRLS
from semisvm.model_selection import SafeSemiSupervisedMixin

__all__ = [
    "TVRLS",
    "TVSVM",
    "CheegerRLS",
    "CheegerSVM",
    "graph_tv",
    "graph_cheeger",
]


def _feature_weights(Z, alpha):
    """``Z' alpha`` in float64 (the Nystroem fit's feature weights): Z'
    itself where Z is contiguous float64 (no copy; the copy ``astype`` made
    has Z's layout, so the product is the same to the bit), else as a
    float64 copy."""
    Zt = Z.T
    if Z.dtype != np.float64 or not (Z.flags.c_contiguous or Z.flags.f_contiguous):
        Zt = Zt.astype(np.float64)
    return Zt @ np.asarray(alpha, dtype=np.float64)


# ------------------------------------------------------------ TV splitting


def graph_tv(K, W, y, *, loss="squared", gamma=1.0, lam=1.0, eta=1.0, mu=1.0,
             r1=1.0, r2=1.0, r=1.0, normalize="n", tol=1e-4, n_stable=10,
             label_tol=0.01, max_iter=300, rof_tol=1e-4, rof_max_iter=500,
             smo_tol=1e-6, verbose=False, Z=None, nugget=0.0, n_jobs=None,
             scheme="augmented", start="zero", center="mean", _cache=None,
             _watch=None, _init=None, _held=None, _single=False,
             _retry=True, _direct=False):
    r"""TV-RLS (``loss="squared"``) or TV-SVM (``loss="hinge"``), binary or multi-class.

    Binary (2 classes; class 1 is +1), the splitting ``f = K alpha = g``,
    ``h = g`` with penalties ``r1, r2`` of the paper's eqs (13)-(27), one
    Gauss-Seidel sweep per iteration::

        alpha <- (lam I + r1 K)^-1 (r1 g - u1);  f <- K alpha
        h <- (eta J + r2 I)^-1 (eta y + r2 g - u2)         (squared loss)
        h <- e + Y beta / r2,  e = g - u2/r2               (hinge, exact, + bias b)
        g <- ROF^gamma_{r1+r2}((r1 f + u1 + r2 h + u2) / (r1 + r2))
        g <- Norm(g) - mean                                (if normalize)
        u1 += r1 (f - g);  u2 += r2 (h - g)

    minimising ``eta/2 sum_L (y_i - f_i)^2 + lam/2 alpha'K alpha + gamma TV(f)``
    (squared) or ``mu sum_L max(0, 1 - y_i (f_i + b)) + lam/2 alpha'K alpha +
    gamma TV(f)`` (hinge; LIBSVM C = mu / lam when gamma = 0).

    Multi-class (paper eqs 104-111, 132-143), one splitting variable ``F = G``
    with penalty ``r``; for RLS ``alpha^k = (eta J K + r K + lam I)^-1 (eta y^k
    + r g^k - u^k)`` (one LU for all classes), for SVM a kernel SVM with a
    proximal term per class (SMO); then ``ghat^k = ROF^gamma_r(f^k + u^k/r)``,
    ``G = Delta(Ghat)`` (row-wise simplex projection), ``G_L = Y_L`` (the
    labeled rows reset to one-hot, [NP]), ``g^k = Norm(g^k)``,
    and the multiplier update ``u^k += r (f^k - g^k)`` the paper omits.

    Parameters
    ----------
    K : array (n, n) or None
        Kernel matrix over all (labeled and unlabeled) samples; None when the
        kernel is given by its factor ``Z``.
    W : sparse or dense (n, n)
        Non-negative affinities; ``TV(g) = sum_{i,j} w_ij |g_i - g_j|``.
    y : int array (n,)
        Class indices 0..c-1, -1 for unlabeled samples.
    loss : {"squared", "hinge"}, default="squared"
        RLS or SVM loss on the labeled samples.
    gamma : float, default=1.0
        Weight of the graph total variation TV(f).
    lam : float, default=1.0
        Weight of the RKHS norm ``alpha'K alpha``.
    eta : float, default=1.0
        Weight of the squared loss (RLS).
    mu : float, default=1.0
        Weight of the hinge loss (SVM).
    r1, r2 : float, default=1.0
        Penalties of the binary splitting (``f = g``, ``h = g``).
    r : float, default=1.0
        Penalty of the multi-class splitting ``F = G``.
    normalize : {"n", "sqrt", None}
        The paper's normalisation ``Norm(v) = R v/||v||`` (R = n or sqrt(n))
        with mean removal (binary), or None for the plain convex iteration.
    tol, n_stable, label_tol : float, int, float
        Stop when ``max(||f-g||, ||h-g||) / ||g|| < tol`` and the labels of
        the unlabeled points have not changed (at most a fraction
        ``label_tol`` flipped) for ``n_stable`` iterations; or, status
        ``"labels_stable"``, when they have not changed for ``2 n_stable``
        iterations (the normalised iterations stall at residuals ~1e-2);
        or, status ``"no_improvement"`` (normalised two-class iterations), when
        the objective has not reached a new minimum (by a relative ``tol``)
        for ``5 n_stable`` iterations (the normalised iteration may cycle;
        the last iterate is returned).
    max_iter : int, default=300
        Maximum number of outer iterations (of the first solve: the
        multi-class augmented iteration may solve a second time, with at
        most ``min(max_iter, 100)`` iterations, see ``scheme``).
    rof_tol, rof_max_iter : float, int
        Tolerance and iteration cap of each graph-ROF (TV denoising) solve.
    smo_tol : float, default=1e-6
        Tolerance of the SMO solves (hinge loss).
    start : {"zero", "spread"}, default="zero"
        Two classes: the first iterate ``g``: zero (the labels enter through
        the fidelity term), or ``"spread"``: class-mass-normalised label
        spreading on W, normalised like the iterates.
    center : {"mean", "median"}, default="mean"
        Two classes, normalised iterations: after the sphere projection
        ``g`` is centred at its mean (the paper's mean constraint: a
        ratio-cut balance, ``TV / sqrt(p (1 - p))`` for an indicator of a
        fraction p of the rows) or at its median (a split away from the
        median costs more, as in the Cheeger balance; two moons with 1,500
        rows: the mean-centred iteration ends at a 78 / 22 cut, 28% error,
        whose objective is lower than the class boundary's).
    verbose : bool, default=False
        Log every iteration (logger ``"semisvm"``).
    Z : array (n, m), optional
        A factor of the kernel, ``K = Z Z'`` (e.g. Nystroem features,
        :func:`semisvm._lowrank.nystroem_features`), given instead of K: the
        RKHS steps then solve m x m systems (Woodbury identity) and nothing
        n x n is formed; ``alpha`` is still over the n samples (``Z' alpha``
        are the feature weights). With m = n landmarks this is the K path.
    nugget : float, default=0.0
        With Z: the kernel is ``Z Z' + nugget I`` (a Nystroem approximation
        plus the mean of what it misses on the diagonal lets each sample's
        value leave the m-dimensional span a little).
    n_jobs : int or None, default=None
        Threads of the graph-ROF solver (None: 1, -1: all cores), which takes
        several only from ``_tv_solvers.ROF_THREADS_MIN_WORK`` edge-columns
        (edges times columns) per thread (one column: from
        ``ROF_ONE_COLUMN_MIN_THREADS`` threads); the result is the same to
        the bit whatever the count.
    scheme : {"augmented", "penalty"}, default="augmented"
        Multi-class only (ignored for two classes): ``"augmented"`` is the
        iteration above, with the multiplier update; ``"penalty"`` leaves
        ``U = 0`` (the paper's algorithm as printed: a quadratic penalty
        ``r/2 ||F - G||^2`` coupling the kernel fit and the graph iterate).
        Measured [NP]: on USPS {0,1,4,9} only the augmented iteration
        reaches the paper's figures (1 / 10 labels per class, seed 0: 1.4 /
        1.6% error against 89 / 19% for the penalty one, which merges
        classes); on 5,000 Gaussian clusters in 10 dimensions (10 classes,
        10 labels each) the augmented iteration drifts (its multiplier
        grows without bound while the normalised iterate cannot meet the
        kernel fit: 6% error at iteration 3, 14-19% from iteration 20 on,
        no stop in 300) and the penalty one settles in 29 iterations at
        4.0%. The estimators choose between them (``scheme="auto"``).
        Where the augmented iteration runs into ``max_iter``, it is solved
        once more from the start with 10 times ``r`` (at most 100
        iterations; logged where ``verbose``), kept where that solve
        settles (else the first one's result); ``result.penalty_r`` and
        ``result.n_iter_retry`` say which [NP]. Its labels then flip back and
        forth while the multiplier grows: the kernel fit cannot meet the
        graph iterate at r; a larger r settles it where the kernel can
        represent the classes (mnist10 of ``bench/_suite.py``'s tune part,
        600 rows, 10 classes: 7 unsettled fits at 47-76% error settle in
        25-31 iterations at 22-61%), not on low-dimensional sets whose
        median-width kernel cannot (three classes of one 2-D Gaussian).
    _cache : dict or None, default=None
        Private: a dict the caller keeps across solves on the same ``W`` and
        kernel (the estimators' check folds); the edge list, the ROF step
        bound, ``Z'Z`` and the label-independent factorisations are then
        computed once (matched by the arrays' identity). Same bits as None.
    _watch : ndarray of bool or None, default=None
        Private, multi-class only: rows whose labels, all unchanged, also
        make an iteration quiet (as at most ``label_tol`` of the unlabeled
        labels flipped does): never more iterations than None. The
        estimators' check passes a fold's held-out rows on large fits (the
        only labels it reads).
    _init : ndarray or None, default=None
        Private: a warm start, the graph iterate (n,) (two classes, less its
        intercept) or (n, c) of a solve of a near problem, instead of
        ``start``'s (normalised and centred like the iterates; the labeled
        rows of a multi-class start reset to their labels). None: ``start``.
    _held : ndarray (h, m) or None, default=None
        Private, multi-class with ``Z`` only (ignored elsewhere): the
        features of h rows outside the solve; the solve also stops (status
        ``"held_out_stable"``) once their labels ``argmax(Zh Z' alpha + b)``
        have not changed for ``n_stable`` outer iterations. The estimators'
        ``safe=True`` check passes its folds' held-out rows.
    _single : bool, default=False
        Private, multi-class with a float64 ``Z`` only: the two products
        with Z per outer iteration in float32 (the estimators' ``safe=True``
        check, its supervised counterpart's fold fits).
    _retry : bool, default=True
        Private, multi-class augmented only: the retry with 10 ``r`` where
        the solve runs into ``max_iter`` (see ``scheme``). The estimators'
        check turns it off for a fold solve with an outer-iteration budget
        (folds of more than 200,000 rows), which counts as settled, and for
        the folds of a fit whose own retry did not settle.
    _direct : bool, default=False
        Private, ``gamma=0, normalize=None`` only (the supervised kernel
        machine on the labeled rows): its solution solved directly on the
        labeled rows instead of by the splitting (status ``"direct"``, see
        ``_tv_solvers.supervised_binary``; more than two classes: one class
        against the rest, ``_tv_solvers.supervised_multi``); the estimators'
        ``safe=True`` check passes it for its counterpart's fold fits and the
        counterpart it adopts on a fall back (two classes; more with
        ``_tv_check.SAFE_COUNTERPART_DIRECT_MULTI``, on by default; at most
        ``_tv_check.SAFE_COUNTERPART_DIRECT_MAX_LABELED`` labeled rows).

    Returns
    -------
    GraphTVResult
        The fit: ``decision`` on all samples, ``labels``, ``alpha``,
        ``objective``, ``history``, ``n_iter``, ``converged``, ``status``,
        ``label_conflict`` and ``scheme`` (multi-class).

    See Also
    --------
    TVRLS, TVSVM : The estimators built on this function.
    graph_cheeger : The Cheeger-ratio variant.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.graph import knn_affinity
    >>> from semisvm.kernels import kernel_matrix
    >>> from semisvm.graph_tv import graph_tv
    >>> X = np.r_[np.linspace(0, 1, 20), np.linspace(3, 4, 20)][:, None]
    >>> y = np.full(40, -1)
    >>> y[0], y[39] = 0, 1                       # one label per class
    >>> res = graph_tv(kernel_matrix(X, gamma=1.0), knn_affinity(X, 5), y)
    >>> res.labels.tolist() == [0] * 20 + [1] * 20
    True
    """
    if loss not in ("squared", "hinge"):
        raise ValueError(f"loss must be 'squared' or 'hinge', got {loss!r}")
    rk, W, y, n_classes, rof_cache = common_checks(
        K, Z, nugget, W, y, lam, {"eta": eta, "mu": mu, "r1": r1, "r2": r2, "r": r},
        tol, max_iter, n_stable, rof_tol, rof_max_iter, _cache)
    n_threads = check_n_jobs(n_jobs)
    check_positive(gamma, "gamma", allow_zero=True)
    check_label_tol(label_tol)
    normalize = check_normalize(normalize)
    if scheme not in ("augmented", "penalty"):
        raise ValueError(f"scheme must be 'augmented' or 'penalty', got {scheme!r}")
    if start not in ("zero", "spread"):
        raise ValueError(f"start must be 'zero' or 'spread', got {start!r}")
    if center not in ("mean", "median"):
        raise ValueError(f"center must be 'mean' or 'median', got {center!r}")
    t0 = time.perf_counter()
    c0 = time.process_time()
    if _direct:
        if gamma != 0 or normalize is not None:
            raise ValueError("_direct needs gamma=0 and normalize=None")
        with limit_api(1, "blas"):
            out = (supervised_binary(rk, y, loss, lam, eta, mu, smo_tol)
                   if n_classes == 2 else
                   supervised_multi(rk, y, n_classes, loss, lam, eta, mu, smo_tol))
        out["total_time"] = time.perf_counter() - t0
        out["total_cpu_time"] = time.process_time() - c0
        return make_result(**out)
    # [NP] one BLAS thread: the normalised iterations are sensitive to
    # rounding (USPS {0,1,4,9}, one label per class, draw 1: 1.4% error with
    # one thread, 37% with two, whose blocked solves sum in another order),
    # and the per-iteration triangular solves gain little from threads
    with limit_api(1, "blas"):
        out = tv_splitting(rk, W, y, n_classes, loss, gamma, lam, eta, mu, r1,
                           r2, r, normalize, tol, n_stable, max_iter, rof_tol,
                           rof_max_iter, smo_tol, verbose, label_tol, n_threads,
                           scheme == "augmented", rof_cache,
                           start=start, center=center, watch=_watch, init=_init,
                           held=_held, single=_single, retry=_retry)
    if n_classes > 2:
        out["scheme"] = scheme
    out["total_time"] = time.perf_counter() - t0
    out["total_cpu_time"] = time.process_time() - c0
    return make_result(**out)


def graph_cheeger(K, W, y, *, loss="squared", lam=1.0, mu=1.0, r=1.0, c=1.0,
                  balance="median", start="auto", normalize="n", tol=1e-6, n_stable=10,
                  label_tol=0.01, max_iter=300, rof_tol=1e-4, rof_max_iter=500,
                  smo_tol=1e-6, verbose=False, Z=None, nugget=0.0, n_jobs=None,
                  _cache=None, _held=None):
    r"""Cheeger-RLS (``loss="squared"``) or Cheeger-SVM (``loss="hinge"``).

    Minimises the balanced Cheeger ratio ``E(f) = TV(f) / B(f)`` with ``f_i =
    y_i`` on the labeled points (paper eqs 28-38, 81-96), by the
    ratio-minimisation loop with an RKHS smoothing step::

        E = TV(f) / B(f);  v = subgradient of B at f         (ties: ref. [2])
        g = f + c v
        e = K (lam I + r K)^-1 r g                          (RLS, eq. 37-38)
        e = K alpha, alpha = (lam I + r K)^-1 (Y beta + r g)   (SVM, SMO dual)
        h = ROF^1_{E/c}(e)
        s = h - med h;  s = -s if <s_L, y_L> < 0 (binary, [NP]);  s_L = y_L
        f = Norm(s)

    The balance term (``balance="auto"``, a float or per-class fractions:
    the lambda-median below with ``lam_b = (1 - pi) / pi`` per column, pi
    the class fraction, estimated for two classes by label spreading when
    "auto", see :class:`CheegerRLS`; it puts a fraction pi of the rows above
    the column's threshold): ``balance="median"`` is the paper's ``B(f) = sum_i |f_i
    - med f|`` (default); ``balance="lambda"`` the asymmetric lambda-median of
    multiclass TV clustering (Bresson, Laurent, Uminsky & von Brecht 2013),
    ``B(f) = sum_i |f_i - med_lam f|_lam`` with ``|t|_lam = lam_b t`` for t >=
    0 and ``-t`` otherwise, ``lam_b = n_classes - 1`` and ``med_lam f`` the
    ``(floor(n / (lam_b + 1)) + 1)``-th largest entry: for an indicator column
    it is ``min(lam_b |A|, |A^c|)``, largest at the balanced size n/c (the
    plain median's ``|A|`` rewards a class that swallows half the points).
    Binary problems have lam_b = 1: both choices coincide. Measured on USPS
    {0,1,4,9} (seed 0): with one label per class "lambda" 5.0% error against
    20% for "median", with ten labels 5.6% against 2.4%; the multi-class
    "lambda" iterates cycle (the ratio does not settle), so it is an option,
    not the default. The loop also stops (status ``"no_improvement"``) when
    the ratio has not decreased by ``tol`` for ``2 n_stable`` iterations.

    Multi-class (eqs 112-123, 144-154): the same per class on one-hot
    columns (all classes' solves and ROF problems batched), the columns of S
    permuted to agree best with the labels ([NP], the analogue of the binary
    sign choice), then ``S_L = Y_L``, ``S = Delta(S)`` (row-wise simplex)
    before ``Norm``. With ``normalize=None`` f is not rescaled. Stops when
    ``|E^n - E^{n+1}| < tol E^n`` and the unlabeled labels have not changed
    for ``n_stable`` iterations. Starts (``start="spread"``) from
    closed-form label spreading of y on W, ``(I - 0.99 D^-1/2 W D^-1/2)^-1
    Y``, or (``start="kernel"``) from the kernel-RLS fit of y; minus its
    median, labeled values restored, normalised [NP: the note suggests
    Norm(y) - med]. ``start="auto"`` (default): "spread" when some class
    has at most 2 labels, else "kernel". Measured: the kernel start put two
    moons with one label per class in the wrong basin (39% error at n =
    300, 0% with "spread") and gave 27% error on USPS {0,1,4,9} with one
    label per class (9% with "spread", 2 draws), but with 5-50 labels per
    class "kernel" is better (2.3% against 6-19%).

    Parameters
    ----------
    K : array (n, n) or None
        Kernel matrix over all (labeled and unlabeled) samples; None when the
        kernel is given by its factor ``Z``.
    W : sparse or dense (n, n)
        Non-negative affinities; ``TV(g) = sum_{i,j} w_ij |g_i - g_j|``.
    y : int array (n,)
        Class indices 0..c-1, -1 for unlabeled samples.
    loss : {"squared", "hinge"}, default="squared"
        RLS or SVM loss on the labeled samples.
    lam : float, default=1.0
        Weight of the RKHS norm in the smoothing step.
    mu : float, default=1.0
        Weight of the hinge loss (SVM).
    r : float, default=1.0
        Penalty of the smoothing step ``(lam I + r K)^-1``.
    c : float, default=1.0
        Step of the ratio-minimisation loop (``g = f + c v``).
    balance : {"median", "lambda"}, default="median"
        The balance term B(f) (above).
    start : {"auto", "spread", "kernel"}, default="auto"
        The starting point (above).
    normalize : {"n", "sqrt", None}
        ``Norm(v) = R v/||v||`` with R = n or sqrt(n), or no rescaling.
    tol, n_stable, label_tol : float, int, float
        Stop when the ratio changes by less than ``tol`` (relative) and the
        unlabeled labels have not changed (at most a fraction ``label_tol``
        flipped) for ``n_stable`` iterations.
    max_iter : int, default=300
        Maximum number of outer iterations.
    rof_tol, rof_max_iter : float, int
        Tolerance and iteration cap of each graph-ROF solve.
    smo_tol : float, default=1e-6
        Tolerance of the SMO solves (hinge loss).
    verbose : bool, default=False
        Log every iteration (logger ``"semisvm"``).
    Z : array (n, m), optional
        A factor of the kernel, ``K = Z Z'`` (e.g. Nystroem features,
        :func:`semisvm._lowrank.nystroem_features`), given instead of K: the
        RKHS steps then solve m x m systems (Woodbury identity) and nothing
        n x n is formed; ``alpha`` is still over the n samples (``Z' alpha``
        are the feature weights). With m = n landmarks this is the K path.
    nugget : float, default=0.0
        With Z: the kernel is ``Z Z' + nugget I`` (a Nystroem approximation
        plus the mean of what it misses on the diagonal lets each sample's
        value leave the m-dimensional span a little).
    n_jobs : int or None, default=None
        Threads of the graph-ROF solver (None: 1, -1: all cores), which takes
        several only from ``_tv_solvers.ROF_THREADS_MIN_WORK`` edge-columns
        (edges times columns) per thread (one column: from
        ``ROF_ONE_COLUMN_MIN_THREADS`` threads); the result is the same to
        the bit whatever the count.
    _cache : dict or None, default=None
        Private: a dict the caller keeps across solves on the same ``W`` and
        kernel (the estimators' check folds); the edge list, the ROF step
        bound, ``Z'Z`` and the label-independent factorisations are then
        computed once (matched by the arrays' identity). Same bits as None.
    _held : ndarray (h, m) or None, default=None
        Private, multi-class with ``Z`` only: rows outside the solve whose
        labels also stop it, as in :func:`graph_tv`.

    Returns
    -------
    GraphTVResult
        ``history`` holds the ratio E (summed over classes); ``decision``,
        ``labels``, ``n_iter``, ``converged`` and ``status`` as in
        :func:`graph_tv`.

    See Also
    --------
    CheegerRLS, CheegerSVM : The estimators built on this function.
    graph_tv : The total-variation-regularised variant.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.graph import knn_affinity
    >>> from semisvm.kernels import kernel_matrix
    >>> from semisvm.graph_tv import graph_cheeger
    >>> X = np.r_[np.linspace(0, 1, 20), np.linspace(3, 4, 20)][:, None]
    >>> y = np.full(40, -1)
    >>> y[0], y[39] = 0, 1
    >>> res = graph_cheeger(kernel_matrix(X, gamma=1.0), knn_affinity(X, 5), y)
    >>> res.labels.tolist() == [0] * 20 + [1] * 20
    True
    """
    if loss not in ("squared", "hinge"):
        raise ValueError(f"loss must be 'squared' or 'hinge', got {loss!r}")
    if start not in ("auto", "spread", "kernel"):
        raise ValueError(f"start must be 'auto', 'spread' or 'kernel', got {start!r}")
    if isinstance(balance, str) and balance not in ("median", "lambda", "auto"):
        raise ValueError(f"balance must be 'median', 'lambda', 'auto' or class "
                         f"fractions, got {balance!r}")
    rk, W, y, n_classes, rof_cache = common_checks(
        K, Z, nugget, W, y, lam, {"mu": mu, "r": r, "c": c}, tol, max_iter, n_stable,
        rof_tol, rof_max_iter, _cache)
    n_threads = check_n_jobs(n_jobs)
    check_label_tol(label_tol)
    normalize = check_normalize(normalize)
    t0 = time.perf_counter()
    c0 = time.process_time()
    with limit_api(1, "blas"):   # see graph_tv
        out = cheeger_ratio(rk, W, y, n_classes, loss, lam, mu, r, c, balance,
                            start, normalize, tol, n_stable, label_tol,
                            max_iter, rof_tol, rof_max_iter, smo_tol, verbose,
                            n_threads, rof_cache, held=_held)
    out["total_time"] = time.perf_counter() - t0
    out["total_cpu_time"] = time.process_time() - c0
    return make_result(**out)


# ------------------------------------------------------------- estimators


def _guard_components(m, kernel, n):
    """The Laplacian guard's LapRLS ``n_components``: ``m`` (the estimator's
    own), or where LapRLS would take its Nystroem path with
    ``AUTO_COMPONENTS`` landmarks (``m`` "auto", an RBF kernel, more than
    ``manifold.LOWRANK_MIN_SAMPLES`` rows), ``_tv_check.GUARD_COMPONENTS_RATIO``
    of them (None: unchanged)."""
    from semisvm import _tv_check, manifold
    ratio = _tv_check.GUARD_COMPONENTS_RATIO
    if (ratio is None or not (isinstance(m, str) and m == "auto")
            or not (isinstance(kernel, str) and kernel == "rbf")
            or n <= manifold.LOWRANK_MIN_SAMPLES):
        return m
    return max(1, int(round(ratio * min(manifold.AUTO_COMPONENTS, n))))


class _GraphTVBase(TVSetupMixin, TVCheckMixin, SafeSemiSupervisedMixin,
                   ClassifierMixin, BaseEstimator):
    """Shared fit/predict of the four graph TV estimators (the set-up in
    :class:`~semisvm._tv_setup.TVSetupMixin`, the checks in
    :class:`~semisvm._tv_check.TVCheckMixin`)."""

    _model = "tv"
    _loss = "squared"
    # the kNN graph object is a training-time helper: model files hold None
    _transient_params = ("graph",)

    @property
    def graph_(self):
        """The :class:`~semisvm.graph.KNNGraph` the fit used, or None."""
        return getattr(self, "_graph_obj", None)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    @atomic_fit
    def fit(self, X, y, W=None, *, affinity=None):
        """Fit on all rows of X; ``y == -1`` marks unlabeled rows.

        ``affinity`` (optional, (n, n) symmetric non-negative, sparse or
        dense): a user-given graph (e.g. from the user's own nearest-neighbour
        tool) used instead of the kNN graph built from X. It is a fit-time
        argument, like ``sample_weight``, because it is data: one row and
        column per training row. ``W`` is its older name (give one of them).
        The graph is built (or validated) once per fit and shared by all
        the classes.
        """
        check_sparse_structure(X)  # before SciPy converts it
        # (an earlier fit's fallback: its one-vs-one model, and the labels
        # it replaced, in that fit's labels: not this fit's)
        self.__dict__.pop("_ovo", None)
        self.__dict__.pop("_semi_transduction", None)
        safe = check_safe(self.safe)
        if W is not None and affinity is not None:
            raise ValueError("give the graph as affinity= or W=, not both")
        name = "W"
        if affinity is not None:
            W, name = affinity, "affinity"
        X, y = validate_data(self, X, y, accept_sparse="csr",
                             dtype=list(FLOAT_DTYPES), order="C",
                             accept_large_sparse=True)
        X = as_csr32(X)
        X_in = X        # as given (validated, not scaled): the class-prior shift
        check_targets(y)
        self._check_params()
        n = X.shape[0]
        k = self._n_neighbors(n) if W is None else None
        lab = y != UNLABELED
        if not np.any(lab):
            raise ValueError("y has no labeled sample: every entry is -1 "
                             "(unlabeled); label at least one sample per class")
        self.classes_, y_idx = np.unique(y[lab], return_inverse=True)
        if self.classes_.shape[0] < 2:
            raise ValueError(
                f"{type(self).__name__} needs labeled samples of at least 2 classes "
                f"in y; got 1 class ({self.classes_.tolist()})" + unlabeled_hint(y))
        # a class-indexed parameter (the Cheeger balance as fractions),
        # checked as given, before the fit reads the codes
        self._check_class_params(self.classes_.shape[0])
        # y checked: from here the fit reads the classes' codes, in the order
        # of each class's first labeled row (renaming the classes gives the
        # same fit; semisvm._fallback.to_codes / from_codes)
        y, self.classes_, y_idx = to_codes(self, y, lab, self.classes_, y_idx)
        self._codes_params()
        # the columns' scale (feature_scaling), once X and y are checked:
        # none where the user's fitted graph fixes the geometry; everything
        # below (graph, kernel, landmarks, X_fit_, the guard) sees the scaled X
        # (a fitted graph's recorded scale: the scale of the fit that built it)
        self.feature_scale_ = fit_feature_scale(
            X, self.feature_scaling, graph=self.graph, verbose=self.verbose,
            name=type(self).__name__)
        self.mode_, self.n_components_ = self._mode(n)
        # the memory of the path taken (and of the scaled copy of X: the
        # scaled X has X's shape and dtype), refused before the copy, the
        # graph and the kernel
        self._check_memory(n, X.dtype,
                           scaled_nbytes(X, self.feature_scale_))
        X = apply_scale(X, self.feature_scale_)
        y_enc = np.full(y.shape[0], UNLABELED, dtype=np.intp)
        y_enc[lab] = y_idx
        # a user-given graph: the Laplacian guard (which builds LapRLS's
        # own kNN graph from X) does not run
        self._user_graph = W is not None
        # BLAS at one thread, OpenMP at n_jobs threads (None: one) for the
        # whole fit: the set-up's neighbour searches and products, the
        # solves, the check and the guard (semisvm._threads)
        with limit(self.n_jobs):
            W, K, Z, landmarks, N = self._set_up(X, W, name, safe, k, lab)
            # the edge list, step bound, Z'Z and label-independent
            # factorisations of this fit's W and kernel, shared with the
            # check's fold solves
            # (a fit of safe=True's folds: the cache of its fold's set-up,
            # shared by the model's and the counterpart's fits)
            fold_cache = self.__dict__.pop("_fold_solve_cache", None)
            self._solve_cache = {} if fold_cache is None else fold_cache
            try:
                out = self._fit_solve(X, y, y_enc, K, W, Z, safe, landmarks, N)

                def decision(rows):
                    return self.decision_function(X_in[rows])

                def solve_scores(rows):
                    return np.asarray(self.result_.decision)[rows]
                # the labels are cut on the final model's scores: the
                # check's SVC's or the guard's LapRLS's where it took over,
                # else the solve's own (transductive) ones; the intercept
                # on the out-of-sample decision at the same count
                if getattr(self, "fell_back_", False) or self.laplacian_fallback_:
                    class_prior_shift(self, y, decision,
                                      labels=lambda rows: self.predict(X_in[rows]))
                else:
                    class_prior_shift(self, y, solve_scores, decision)
                # the fit ran on the classes' codes (_fallback.to_codes): now
                # in the user's labels
                from_codes(self)
                return out
            finally:
                del (self._exact_rows, self._exact_K, self._solve_cache,
                     self._user_graph)
                # (a warm start; the key of the set-up on a shared graph)
                self.__dict__.pop("_fold_init", None)
                self.__dict__.pop("_shared_key", None)
                self.__dict__.pop("_guard_fit", None)
                self.__dict__.pop("_guard_features", None)
                self._shared_work_prune()

    def _check_class_params(self, n_classes):
        """Check the parameters given per class (the Cheeger pair's
        ``balance``) against the ``n_classes`` labeled classes."""

    def _codes_params(self):
        """Class-indexed parameters in the order of the fit's codes
        (:func:`semisvm._fallback.to_codes`; the Cheeger pair's ``balance``)."""

    def _fit_solve(self, X, y, y_enc, K, W, Z, safe, landmarks, N):
        """Solve on K (or its factor Z), store the fit and run the check."""
        nugget = self.nugget_
        wkey = self._shared_warm_start(y_enc)
        # safe="auto" on several threads: the Laplacian guard's LapRLS fit
        # beside this solve, which then runs on one thread less (_guard_ahead)
        # the fit's Nystroem features, for the guard's LapRLS where it runs on
        # them (_tv_check.GUARD_FIT_FEATURES; dropped at the fit's end)
        self._guard_features = ((Z, landmarks, N) if Z is not None
                                and landmarks is not None else None)
        guard = self._guard_ahead(X, y) if safe == "auto" else None
        try:
            if guard is not None:
                self._solve_n_jobs = guard.n_jobs_left
                self._guard_pending = guard
            res = self._solve(K, W, y_enc, Z, nugget)
        except KeyboardInterrupt:
            raise       # (a Ctrl-C stops the fit at once: the guard's thread
            # finishes its LapRLS fit in the background, dropped)
        except BaseException:
            if guard is not None:
                guard.exception()       # (waited for, its outcome dropped)
            raise
        finally:
            self.__dict__.pop("_solve_n_jobs", None)
            self.__dict__.pop("_guard_pending", None)
        if guard is not None:
            # waited for here, before this thread warns (the guard's thread
            # holds its own warnings filter while it fits); its error, if
            # any, raised where the guard reads it (as without the thread)
            guard.exception()
            self._guard_fit = guard
        # (a warm start is this solve's only, not the check's)
        self.__dict__.pop("_fold_init", None)
        self._shared_warm_keep(wkey, res)
        Z_fit = Z
        if self._exact_K is not None:
            # the augmented iteration took the exact kernel (_solve_scheme)
            self.mode_, self.n_components_, self.nugget_ = "exact", None, 0.0
            Z_fit = None
        if Z_fit is None:
            self.X_fit_ = X
            self.landmarks_ = None
            self.alpha_ = res.alpha
        else:
            # f(x) = k(x, X_m) N Z' alpha + b: the landmarks are the expansion
            # points of the feature-map solution
            # (landmarks None: a safety fold on the checked fit's features)
            self.X_fit_ = (X[landmarks] if landmarks is not None
                           else self._safety_setup["X_landmarks"])
            self.landmarks_ = landmarks
            W_feat = _feature_weights(Z_fit, res.alpha)
            self.alpha_ = (N @ W_feat).astype(X.dtype)
        self.intercept_ = res.intercept
        self.transduction_ = self.classes_[res.labels]
        self.n_iter_ = res.n_iter
        self.result_ = res
        # set by the Laplacian guard of safe="auto" (semisvm._fallback)
        self.laplacian_agreement_ = None
        self.laplacian_fallback_ = False
        self.graph_cut_ = None     # the cut check of safe="auto" (semisvm._fallback)
        if safe == "auto":
            # the folds choose their scheme (and kernel) as this fit did
            out = self._auto_fallback(X, y, K, W, Z, nugget)
        else:
            out = self._safe_fit(X, y, features=(Z, landmarks, N))
        if not res.converged and not (getattr(self, "fell_back_", False)
                                      or self.laplacian_fallback_):
            # [NP] only where this solve is the model: a fit that a safety
            # net replaced (the check's SVC, the safe=True counterpart, the
            # Laplacian guard's LapRLS) predicts with a model that did
            # converge, as the check's fold solves and the guard's LapRLS
            # fit, whose warnings are silenced; result_.status still says
            # "max_iter". Measured: the 55 fits of the fresh part of
            # bench/_suite.py (60 cells) that warned were all replaced
            # (34 by the check's SVC, 21 by LapRLS; multi-class augmented TV
            # iteration: its labels keep moving). Since the retry at 10 r
            # (_tv_solvers.AUG_RETRY_R) the 7 such fits of the tune part
            # (mnist10 at 600 rows) settle, and 19 of the fresh part's 55
            warn_user(
                f"{type(self).__name__} did not converge in max_iter={self.max_iter} "
                "iterations; increase max_iter or tol", ConvergenceWarning)
        return out

    def _fit_laplacian(self, X, y, memo=None, n_jobs=None):
        """LapRLS on the same rows and labels, for the Laplacian guard
        (:func:`semisvm._fallback.laplacian_guard`): its defaults (its own
        ``safe="auto"`` check too, on the same label folds) with this
        estimator's kernel ("rbf" or "linear"; its own width unless
        ``kernel_gamma`` is given), neighbours, Nystroem size (on its
        Nystroem path at "auto": ``_tv_check.GUARD_COMPONENTS_RATIO`` of
        LapRLS's own landmark count, None by default: LapRLS's own count;
        :func:`_guard_components`), threads and
        seed (None: 0); None (no guard) for other kernels, a user-given
        graph, or when LapRLS's path would not fit in memory (the guard itself
        skips fits of more than ``GUARD_MAX_ROWS`` rows). ``memo``: this
        fit's check's counterpart outcomes (``auto_fallback``'s), which
        LapRLS's check reads where its X, labels and candidates are the
        same. ``n_jobs``: LapRLS's (None: this estimator's)."""
        if self._user_graph or not (isinstance(self.kernel, str)
                                    and self.kernel in ("rbf", "linear")):
            return None
        # LapRLS solves a linear kernel exactly in w and refuses an int
        # n_components there: "auto" instead (None keeps its expansion)
        m = self.n_components
        if self.kernel == "linear" and m is not None and not isinstance(m, str):
            m = "auto"
        feats = self._guard_fit_features(m, X)
        m = _guard_components(m, self.kernel, X.shape[0])
        gamma = self.kernel_gamma
        if feats is not None:
            # on this fit's features: its width and landmark count
            gamma, m = self._kernel_gamma, feats[0].shape[1]
        rs = 0 if self.random_state is None else self.random_state
        # (X is this fit's, already scaled: feature_scaling=False)
        lap = LapRLS(kernel=self.kernel, gamma=gamma,
                     n_neighbors=self.n_neighbors, n_components=m,
                     random_state=rs, n_jobs=self.n_jobs if n_jobs is None else n_jobs,
                     feature_scaling=False)
        lap._fit_features = feats
        # this fit's exact search (its lists hold LapRLS's k + spare, or
        # None): where LapRLS builds a kNN graph it reads them instead of a
        # second search
        lap._shared_knn_lists = getattr(self, "_knn_lists", None)
        lap._counterpart_memo = memo
        # no cut check inside the guard: this estimator's own cut check runs
        # after the guard, on the labels it then holds (LapRLS's, where the
        # guard took them), and records a fall back in its own attributes
        lap._no_cut_check = True
        # (fitted inside this fit: on its codes, as its memos)
        on_codes(self, lap)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            try:
                return lap.fit(X, y)
            except NotEnoughMemoryError:
                # the guard is a check: a fit that has room for its own path
                # but not for LapRLS's keeps its own result
                return None
            finally:
                del (lap._shared_knn_lists, lap._counterpart_memo, lap._no_cut_check,
                     lap._fit_features)
                lap.__dict__.pop("_on_codes", None)
                lap.__dict__.pop("_code_labels", None)

    def _guard_fit_features(self, m, X):
        """``(Z, landmarks, N, Z'Z)`` of this fit's Nystroem path for the
        guard's LapRLS (:meth:`_fit_laplacian`) where
        ``_tv_check.GUARD_FIT_FEATURES`` is on, this fit took that path (its
        features kept by :meth:`_fit_solve`) and LapRLS would take its own
        two-stage Nystroem path (``m`` "auto", an RBF kernel, more than
        ``manifold.LOWRANK_MIN_SAMPLES`` rows); else None. Z'Z is the solve
        cache's (computed here when the solve has not)."""
        from semisvm import _tv_check, manifold
        from semisvm._tv_solvers import feature_gram
        feats = getattr(self, "_guard_features", None)
        if (not _tv_check.GUARD_FIT_FEATURES or feats is None
                or not (isinstance(m, str) and m == "auto")
                or not (isinstance(self.kernel, str) and self.kernel == "rbf")
                or X.shape[0] <= manifold.LOWRANK_MIN_SAMPLES
                or feats[0].shape[0] != X.shape[0]):
            return None
        Z, landmarks, N = feats
        cache = getattr(self, "_solve_cache", None) or {}
        entry = cache.get(("rkhs", id(Z), float(self.nugget_)))
        gram = (entry["data"].get("gram")
                if entry is not None and entry["ref"] is Z else None)
        if gram is None:
            gram = feature_gram(Z)
        return Z, landmarks, N, gram

    def _supervised_counterpart(self):
        """The kernel machine on the labeled rows alone: TVRLS / TVSVM with
        ``gamma=0, normalize=None`` (kernel ridge classification / the
        kernel SVM with LIBSVM C = mu / lam), the same kernel."""
        cls = TVSVM if self._loss == "hinge" else TVRLS
        params = {k: v for k, v in self.get_params().items()
                  if k in ("kernel", "kernel_gamma", "degree", "coef0",
                           "n_neighbors", "weights", "random_state",
                           "n_components", "graph", "n_jobs")}
        if isinstance(self, _TVBase):
            params.update(lam=self.lam, eta=self.eta, mu=self.mu)
        # the counterpart's stop keeps LABEL_TOL: label_tol="auto"'s tighter
        # quiet iteration at scale is for the graph fit's slowly settling
        # labels, and a Cheeger estimator's counterpart must not take a
        # TV default that the Cheeger estimator itself does not have
        # (fitted on this fit's X, already scaled: feature_scaling=False)
        sup = cls(gamma=0.0, normalize=None, safe=False, label_tol=LABEL_TOL,
                  feature_scaling=False, **params)
        # solved directly (_tv_check.SAFE_COUNTERPART_DIRECT; more than two
        # classes one-vs-rest, SAFE_COUNTERPART_DIRECT_MULTI)
        sup._direct_counterpart = True
        # (fitted inside this fit: on its codes)
        on_codes(self, sup)
        if getattr(self, "_safety_setup", None) is not None:
            # in the safety net's check: its fits share the set-up too
            sup._safety_setup = self._safety_setup
            sup._safety_counterpart = True
        return sup

    def decision_function(self, X):
        """Out-of-sample scores ``sum_j k(x, x_j) alpha_j + b``.

        Binary: shape (n,), positive -> ``classes_[1]``. Multi-class: (n, c).
        """
        return self._decision(X)

    def _decision(self, X, labels=False):
        check_is_fitted(self)
        check_sparse_structure(X)  # before SciPy converts it
        X = validate_data(self, X, accept_sparse="csr", dtype=list(FLOAT_DTYPES),
                          order="C", reset=False)
        # scaled as the fit's X was (feature_scaling)
        X = apply_scale(as_csr32(X), getattr(self, "feature_scale_", None))
        ovo = self.__dict__.get("_ovo")
        if ovo is not None:
            # the fallback's one-vs-one SVC() (_fallback.PLAIN_FALLBACK_OVO):
            # its "ovr"-shaped scores, or its labels
            return ovo_decision(ovo, X, self.X_fit_, labels=labels)
        Kx = self._kernel(apart(X, self.X_fit_), self.X_fit_)
        return Kx @ self.alpha_ + self.intercept_

    def predict(self, X):
        """Predicted class labels (the user's label values)."""
        if self.__dict__.get("_ovo") is not None:
            return self.classes_[self._decision(X, labels=True)]
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]


_COMMON_DOC = """
    kernel : {"rbf", "linear", "poly", "laplacian", "sigmoid"} or callable
        Kernel of the RKHS term (scikit-learn pairwise kernels), default "rbf".
    kernel_gamma : float or None, default=None
        Kernel width; None: ``1 / (2 s^2)`` with s the median pairwise distance
        (on at most 1000 rows: evenly spaced ones, or drawn with
        ``random_state`` when it is given); for TVRLS / TVSVM
        with two classes ``s = min(median, 2 x the mean distance to the
        n_neighbors-th neighbour)`` (see "Defaults" above).
    degree, coef0 : kernel parameters of "poly" / "sigmoid".
    n_neighbors : int or None, default=None
        Neighbours of the symmetric kNN graph (an edge when either end is among
        the other's neighbours); None: 10 (n - 1 on fewer than 11 training
        rows), as LapSVM. An explicit k >= n is an error. Ignored when ``fit``
        receives ``affinity``.
    weights : {"self-tuning", "heat", "connectivity"}, default="self-tuning"
        Edge weights: ``exp(-d^2/(s_i s_j))`` with s_i the distance to the 7th
        neighbour, ``exp(-d^2/(2 sigma^2))`` with sigma the mean kNN distance,
        or 1.
    normalize : {"n", "sqrt"} or None
        The paper's normalisation ``Norm(v) = R v / ||v||`` of the iterate, R =
        n (the paper) or sqrt(n); None turns it off.
    tol : float
        Residual (TV) / relative ratio change (Cheeger) tolerance.
    n_stable : int or "auto", default="auto"
        The labels of the unlabeled points must also be unchanged for this many
        iterations before stopping (unchanged for 2 n_stable iterations stops
        with status "labels_stable"). "auto": 10, or 1 for more than two
        classes above 20,000 training rows (a large fit's labels settle
        within a few iterations: 100,000 rows, 10 classes, the same error
        after 6 iterations as after 23; with ``label_tol="auto"``, TVRLS /
        TVSVM's default, a quiet iteration there flips at most 0.1 % of the
        labels).
    label_tol : float or "auto"
        "Unchanged" allows this fraction of the unlabeled labels to flip.
        "auto" (the default of TVRLS / TVSVM; CheegerRLS / CheegerSVM:
        0.01): 0.01, or 0.001 for more than two classes above 20,000
        training rows (the fit; the check's folds keep 0.01): a large
        TV fit's inexact graph-ROF steps move its labels slowly, by less
        than 1 % an iteration well before they settle (300,000 rows, 10
        classes: TVRLS stopped at 2.97 % error after 5 iterations with
        0.01, at 1.44 % after 10 with 0.001; CheegerRLS 1.41 % after 7
        against 1.40 % after 9).
    max_iter : int, default=300
        Outer iterations; a ConvergenceWarning is raised when reached,
        unless a safety net replaced the fit (``fell_back_`` or
        ``laplacian_fallback_``: its predictions do not come from this
        solve; ``result_.status`` is still ``"max_iter"``).
    rof_tol, rof_max_iter : relative primal-dual gap (default 1e-3) and
        iteration cap of each graph-ROF solve (warm started; 1e-3 halves
        the ROF time against 1e-4 at the same USPS error). The cap: 200 for
        TVRLS / TVSVM (the multi-class "auto" scheme's penalty iteration: at
        most 20, 10 above 20,000 rows); for CheegerRLS / CheegerSVM "auto"
        (default): 200 up
        to 2,000 training rows, 20 above (inexact warm-started inner
        solves: the ratio step's ROF problem has a weak fidelity term and
        ran to its cap on every outer iteration; measured 10 classes on
        5,000 rows: 9.2 -> 3.5 CPU s at the same 3.94% error; USPS
        {0,1,4,9}, 1 / 10 labels per class, 2 draws: CheegerRLS 14.7 / 2.39
        -> 2.54 / 2.32%, CheegerSVM 16.9 / 2.39 -> 4.64 / 2.32%; kept at
        200 on small sets, where a solve is cheap and 20 steps moved
        two moons of 240 rows to another cut); 10 for more than two
        classes above 20,000 rows (100,000 rows, 10 classes: the same
        labels, about a quarter less time).
    random_state : int, RandomState or None, default=None
        Only used to subsample rows for the default kernel width when there
        are more than 1000; None: evenly spaced rows (no randomness: two fits
        of the same data give the same bits).
    safe : {"auto", True, False}, default="auto"
        Whether the model may fall back to a supervised one when the
        unlabeled rows do not help (the classes are not the graph's
        clusters).

""" + safe_auto_doc("``X_fit_``, ``alpha_``, ``intercept_``",
                 "A tie (as many held-out rows right) falls back too when\n"
                 "          the fit got more than a quarter of its held-out labels\n"
                 "          wrong (at ``safe_margin=0``). Works with ``affinity=``.\n"
                 "          Then, unless the check fell back, the Laplacian guard:\n"
                 "          :class:`~semisvm.LapRLS` (its defaults and own check,\n"
                 "          this kernel) is fitted on the same rows and, when the\n"
                 "          two label the unlabeled rows alike on less than 95 % of\n"
                 "          them (90 % where the check could not run; the\n"
                 "          normalised TV iterations may settle on a cheaper cut of\n"
                 "          the graph than the class boundary, which a few labels\n"
                 "          cannot show), LapRLS's fit is taken over as it stands\n"
                 "          after its check (where that fell back, its SVC;\n"
                 "          ``laplacian_fallback_``, ``laplacian_agreement_``;\n"
                 "          logged at ``verbose``). Not with a user-given\n"
                 "          ``affinity``, nor for kernels other than \"rbf\" and\n"
                 "          \"linear\".") + """        * ``True``: the full safety net
          (:class:`semisvm.model_selection.SafeSemiSupervisedMixin`):
          compare the model with its supervised counterpart (TVRLS / TVSVM
          with ``gamma=0, normalize=None``: kernel ridge classification /
          the kernel SVM on the labeled rows, same kernel) by cross-validation
          on the labeled rows (every unlabeled row stays in training), store
          the mean accuracy gain in ``unlabeled_gain_`` and, when it is below
          ``-safe_margin``, become that supervised model (``fell_back_``).
          With at most 2,000 labeled rows that counterpart (its fold fits
          and the fit adopted on a fall back) is solved directly on the
          labeled rows (an l x l solve, or the SVM dual by SMO:
          ``result_.status == "direct"``, ``n_iter_ == 1``); with more than
          two classes it is then one class against the rest (one kernel
          ridge classifier / kernel SVM with its own intercept per class,
          the label the largest decision), not the splitting iteration's
          simplex-constrained problem at ``gamma=0``; above 2,000 labeled
          rows, the splitting iteration.
          Costs ``2 x safe_cv x 2`` extra fits (an int ``safe_cv`` of at
          least 5: half of them where the first repeat's folds decide, each
          fold's gain on one side of ``-safe_margin`` and their mean at least
          0.05 from it; logged at ``verbose``), which share this fit's graph,
          kernel width, intrinsic dimension and (Nystroem path) the features
          of their rows (no held-out label value enters them) and, above 2000
          rows, stop as the ``"auto"`` check's folds do (less the latter's
          quiet iterations on their held-out labels at scale, and their
          budget of outer iterations with more than two classes: 4 above
          200,000 rows, TVRLS / TVSVM where the fit kept the penalty
          iteration, CheegerRLS / CheegerSVM always, and 5 for CheegerRLS /
          CheegerSVM above 20,000 rows and, with more than two classes,
          above 2,000 rows); needs the graph built
          from X (not ``fit(..., W=...)``).
        * ``False``: no check.
    safe_cv : int or cross-validator, default=5
        Folds of ``safe=True`` (an int k: k labeled-row folds, repeated
        twice; for k >= 5 the second repeat only where the first's k folds
        do not decide: their gains on both sides of ``-safe_margin`` or a
        mean within 0.05 of it; a cross-validator: all its folds).
    safe_margin : float, default=0.0
        Fall back when the accuracy gain is below ``-safe_margin`` (ties keep
        the semi-supervised model, except with ``safe_margin=0`` one that got
        more than a quarter of its held-out labels wrong under
        ``safe="auto"``).
    verbose : int
        Log every outer iteration (logger "semisvm").
    n_components : {"auto"} or int or None, default="auto"
        The RKHS term's kernel: None, the exact (n, n) kernel matrix (its
        factorisation is O(n^3) time and 2 n^2 floats); an int m, the
        Nystroem feature map over m landmark rows (the labeled rows first,
        the others drawn with ``random_state``, seed 0 when None), ``K ~ Z
        Z'``, every RKHS step an m x m system (O(n m) memory); "auto": exact
        up to 2000 training rows, Nystroem with min(500, n) landmarks
        above, 250 above 20,000 rows (TVRLS / TVSVM with more than two classes: their augmented
        iteration, ``scheme="augmented"`` or a rejected penalty iteration
        of ``scheme="auto"``, takes the exact kernel up to 10,000 rows).
        With m = n the Nystroem path gives the exact solution.
    graph : semisvm.graph.KNNGraph or None, default=None
        The kNN graph, built once and shared (its ``n_neighbors`` and
        ``weight`` replace this estimator's): a fitted graph over the
        training rows or a superset of them (a cross-validation fold reads
        its rows' graph from the stored neighbour lists), or an unfitted one
        (fitted here). A fitted graph also keeps each fit's set-up (the
        rows' graph, kernel width, kernel matrix or Nystroem features and
        the solver's label-free factorisations): a later fit on the same
        rows and labeled rows with the same kernel, ``n_components``,
        ``random_state`` and model (a grid search's other grid points on one
        fold, run in this process: ``n_jobs=1`` or the threading backend;
        process workers get a copy of the graph without it) reads it
        instead of computing it again, the same values. The graph holds up
        to 1 GB of such work (least recently used first out); refitting the
        graph clears it.
        None: the graph is built from X with ``n_neighbors``
        and ``weights`` (and, for ``safe=True``, kept as a
        :class:`~semisvm.graph.KNNGraph` that the check's fits share). Not
        with ``fit(..., affinity=...)``.
    n_jobs : int or None, default=None
        Threads of the fit (None: 1, -1: all cores): the exact neighbour
        search; the graph-ROF solver, which takes several threads only
        where each gets at least a million edge-columns (edges times
        columns, one column for two classes, one per class above: with two
        threads from about 25,000 rows and ten classes; a one-column solve
        needs four threads or more), below that its steps are too short to
        share; and, with two or more threads on at least two cores and at
        most 20,000 rows, the ``safe="auto"`` pieces side by side: the
        Laplacian guard's LapRLS fit beside the fit's own solve, then the
        check's two fold solves (each on one thread; where a solve holds n x
        n arrays, the exact kernel's path, only when both fit in memory at
        once). The fit is the same to the bit whatever the count.
""" + FEATURE_SCALING_DOC + """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    transduction_ : ndarray of shape (n_samples,)
        Labels given to the training rows (sign / argmax of the final iterate).
    alpha_ : ndarray of shape (n_samples,) or (n_samples, n_classes)
        Expansion coefficients over the rows of ``X_fit_`` (the training
        rows; the landmarks on the Nystroem path).
    intercept_ : float or ndarray of shape (n_classes,)
    X_fit_ : the expansion rows (for out-of-sample kernels).
    mode_ : {"exact", "nystroem"}
        The RKHS path taken (see ``n_components``).
    n_components_ : int or None
        Landmarks of the Nystroem path (None on the exact path).
    nugget_ : float
        The Nystroem path's kernel is ``Z Z' + nugget_ I`` on the training
        rows (see :func:`graph_tv`); 0 on the exact path.
    landmarks_ : ndarray of shape (``n_components_``,) or None
        Training-row indices of the landmarks; ``X_fit_`` holds those rows
        and ``alpha_`` their coefficients on the Nystroem path.
    n_iter_ : int
    intrinsic_dim_ : float or None
        Levina-Bickel estimate of the rows' intrinsic dimension (10 nearest
        neighbours among at most 1,000 evenly spaced rows; None below 4
        rows); sets the two-class default weights.
    result_ : GraphTVResult
        Objective history, residuals, iterations, stop reason, ROF time.
    unlabeled_gain_ : float or None
        Held-out accuracy of the model minus that of its supervised
        counterpart on the labeled rows (``safe="auto"``: the two folds;
        ``safe=True``: the mean over the folds); None when no check ran.
    fell_back_ : bool
        True when the check replaced the model by the supervised one.
    safe_scores_ : tuple of ndarray
        ``safe=True``: the fold accuracies ``(model, counterpart)``, k of
        each where the first repeat decided (an int ``safe_cv`` = k), else
        2k (or the splitter's folds); set only when that check ran.
""" + SAFE_CHECK_ATTR_DOC + LAPLACIAN_GUARD_ATTR_DOC + """    n_features_in_ : int
""" + FEATURE_SCALE_ATTR_DOC


# the Cheeger-specific parameters of CheegerRLS and CheegerSVM
_CHEEGER_DOC = """balance : {"auto", "median", "lambda"} or float or array, default="auto"
        Balance term of the ratio (see :func:`graph_cheeger`). "median": the
        paper's, which puts the cut at the median and so labels half the
        rows of each side (a 75/25 set gets a 50/50 answer); "lambda": the
        asymmetric lambda-median with lambda = n_classes - 1 (multi-class
        only); a float (two classes: the fraction of ``classes_[1]``) or
        one fraction per class: the lambda-median that puts that fraction
        of the rows on each side. "auto" (default): two classes, the
        fraction of ``classes_[1]`` among the rows that closed-form label
        spreading on the graph gives to it, with class mass normalisation
        (each class's spread mass divided by its total; the labeled rows at
        their labels), clipped to [0.05, 0.95]; more classes, "median".
        Measured on the tune part of the held-out suite (binary sets, 1000 rows, seeds
        0-2): breast_cancer 15.4 / 21.1% -> 7.3 / 10.6% (25 / 5 labels per
        class), two moons with 5 labels 12.6% -> 8.8%; per-class fractions
        did not help multi-class (wine 3.5% -> 8.7%).
    start : {"auto", "spread", "kernel"}, default="auto"
        Starting point: label spreading on the graph, or the kernel-RLS fit;
        "auto": "spread" when a class has at most 2 labels, else "kernel".
"""


class _TVBase(TVSchemeMixin, _GraphTVBase):
    _knn_width = 2.0
    # start="auto", center="auto" switch to ("spread", "median") with few
    # labels (TVRLS; TVSVM keeps ("zero", "mean"): worse on the tune part's
    # real sets with 1 / 3 labels per class, 6 / 4 -> 8 / 2 worse / better
    # cells, mean error 31.9 -> 35.2%)
    _few_labels_spread = False

    def __init__(self, *, gamma=None, lam=0.1, eta=None, mu=None, r1=1.0, r2=1.0,
                 r=1.0, normalize="sqrt", kernel="rbf", kernel_gamma=None,
                 degree=3, coef0=0.0, n_neighbors=None, weights="self-tuning",
                 tol=1e-4, n_stable="auto", label_tol="auto", max_iter=300,
                 rof_tol=1e-3, rof_max_iter=200, conflict_tol=0.1,
                 scheme="auto", start="auto", center="auto",
                 random_state=None, safe="auto", safe_cv=5,
                 safe_margin=0.0, verbose=0, n_components="auto",
                 graph=None, n_jobs=None, feature_scaling="auto"):
        self.gamma = gamma
        self.lam = lam
        self.eta = eta
        self.mu = mu
        self.r1 = r1
        self.r2 = r2
        self.r = r
        self.normalize = normalize
        self.kernel = kernel
        self.kernel_gamma = kernel_gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.tol = tol
        self.n_stable = n_stable
        self.label_tol = label_tol
        self.max_iter = max_iter
        self.rof_tol = rof_tol
        self.rof_max_iter = rof_max_iter
        self.conflict_tol = conflict_tol
        self.scheme = scheme
        self.start = start
        self.center = center
        self.random_state = random_state
        self.safe = safe
        self.safe_cv = safe_cv
        self.safe_margin = safe_margin
        self.verbose = verbose
        self.n_components = n_components
        self.graph = graph
        self.n_jobs = n_jobs
        self.feature_scaling = feature_scaling

    @staticmethod
    def _graph_tv(*args, **kwargs):
        """The solver of the fit and of its check's folds (looked up at
        call time: the module's :func:`graph_tv`)."""
        return graph_tv(*args, **kwargs)



class _CheegerBase(CheegerSolveMixin, _GraphTVBase):
    def __init__(self, *, lam=1.0, mu=1.0, r=1.0, c=1.0, balance="auto",
                 start="auto",
                 normalize="sqrt", kernel="rbf", kernel_gamma=None, degree=3, coef0=0.0,
                 n_neighbors=None, weights="self-tuning", tol=1e-6, n_stable="auto",
                 label_tol=0.01, max_iter=300, rof_tol=1e-3, rof_max_iter="auto",
                 random_state=None, safe="auto", safe_cv=5,
                 safe_margin=0.0, verbose=0, n_components="auto",
                 graph=None, n_jobs=None, feature_scaling="auto"):
        self.lam = lam
        self.mu = mu
        self.r = r
        self.c = c
        self.balance = balance
        self.start = start
        self.normalize = normalize
        self.kernel = kernel
        self.kernel_gamma = kernel_gamma
        self.degree = degree
        self.coef0 = coef0
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.tol = tol
        self.n_stable = n_stable
        self.label_tol = label_tol
        self.max_iter = max_iter
        self.rof_tol = rof_tol
        self.rof_max_iter = rof_max_iter
        self.random_state = random_state
        self.safe = safe
        self.safe_cv = safe_cv
        self.safe_margin = safe_margin
        self.verbose = verbose
        self.n_components = n_components
        self.graph = graph
        self.n_jobs = n_jobs
        self.feature_scaling = feature_scaling

    @staticmethod
    def _graph_cheeger(*args, **kwargs):
        """The solver of the fit and of its check's folds (looked up at
        call time: the module's :func:`graph_cheeger`)."""
        return graph_cheeger(*args, **kwargs)

    def _check_class_params(self, n_classes):
        # class fractions: their count and range, named as given
        check_balance(self.balance, n_classes)

    def _codes_params(self):
        # class fractions in the codes' order for the fit (the float: the
        # fraction of classes_[1]), set back as given at its end
        info = self.__dict__.get("_relabel")
        if info is None or isinstance(self.balance, str):
            return
        pi = np.asarray(self.balance, dtype=np.float64).ravel()
        if pi.shape == (1,):
            pi = np.array([1.0 - pi[0], pi[0]])
        info["params"]["balance"] = self.balance
        self.balance = pi[info["order"]].tolist()



class TVRLS(_TVBase):
    _few_labels_spread = False
    __doc__ = r"""Total-variation regularised least squares (Bresson & Zhang, TV-RLS).

    Binary (labels mapped to +-1, ``classes_[1]`` is +1):

    .. math::

        \min_{f = K\alpha}\; \frac\eta2 \sum_{i \in L} (y_i - f_i)^2
        + \frac\lambda2 \alpha^\top K \alpha + \gamma \sum_{i,j} w_{ij} |f_i - f_j|

    solved by splitting (f = g = h) with an augmented Lagrangian (penalties
    r1, r2), one graph-ROF solve per iteration; multi-class by the paper's
    simplex-projected one-splitting formulation (penalty r). See
    :func:`semisvm.graph_tv.graph_tv`. With ``gamma=0, normalize=None`` this is
    kernel RLS, ``alpha = (eta J K + lam I)^-1 eta y`` (KernelRidge on the
    labeled rows with alpha = lam/eta). No LIBSVM equivalent (squared loss).
    Defaults (the paper gives none): ``normalize="sqrt"`` (radius sqrt(n)
    rather than the paper's n, which lets the +-1 labels matter),
    ``gamma=1, lam=0.1`` from a small grid on USPS 4 vs 9 (2.5-2.7% error
    there with 1-10 labels per class, the paper reports 3.1-3.2%); after
    each normalisation the iterate's sign is chosen to agree with the labels
    [NP].
""" + TV_DEFAULTS_DOC + r"""
    Parameters
    ----------
    gamma : float or None, default=None
        TV weight; None: two classes, ``s = (n / 300)^(2 / max(d, 2))`` for
        n training rows of intrinsic dimension d (``intrinsic_dim_``): 1 on
        300 rows, and the weight that
        works on 300 rows means the same on 1,500 (see "Defaults"; the paper
        bench's USPS 4 vs 9 used 1.0: 2.5% error with 10 labels per class);
        more classes, 0.3 (found on USPS {0, 1, 4, 9}: 1.0% error with 10
        labels per class).
    lam : float, default=0.1
        RKHS weight.
    eta : float or None, default=None
        Weight of the labeled squared loss; None: 10.0 (USPS {0,1,4,9}: one
        label per class, eta = 1 left one of two draws at 37% error, 4s and
        9s merged; eta = 10 gave 1.4% on both, 1.2-1.6% with 5-50 labels;
        two classes: see "Defaults").
    mu : float or None
        Unused (hinge weight of TVSVM); kept for a common signature.
    r1, r2 : float, default=1.0
        Augmented-Lagrangian penalties (binary).
    r : float, default=1.0
        Penalty of the multi-class splitting.
    conflict_tol : float or None, default=0.1
        When the normalised fit labels more than this fraction of the
        labeled rows against their labels, refit the convex problem
        (``normalize=None``) with ``gamma x 0.01`` (TVSVM also ``mu x
        10``); None: never (see "Defaults"). The fraction is stored in
        ``label_conflict_``, the refit in ``refit_convex_``.
    scheme : {"auto", "augmented", "penalty"}, default="auto"
        The multi-class splitting (ignored for two classes; see
        :func:`graph_tv`): ``"augmented"`` with the multiplier update (the
        iteration behind the paper's USPS tables), ``"penalty"`` without it.
        "auto": the penalty iteration, for at most 60 outer iterations of
        at most 20 graph-ROF steps each (10 above 20,000 rows;
        ``rof_max_iter`` when smaller),
        kept when it settled (the labels stable), its kernel fit contradicts
        at most ``conflict_tol`` (None: 0.1) of the labels and every class
        holds at least a quarter of an even share ``n / n_classes`` of the
        rows; otherwise the augmented iteration from the start. The scheme
        used is ``result_.scheme``.
    start : {"auto", "zero", "spread"}, default="auto"
        Two classes: the normalised iteration's first iterate, zero or
        class-mass-normalised label spreading (:func:`graph_tv`).
    center : {"auto", "mean", "median"}, default="auto"
        Two classes: the normalised iterate is centred at its mean (a
        ratio-cut balance) or at its median (:func:`graph_tv`). "auto"
        (both): "zero" and "mean", the paper's iteration. Measured: with few
        labels the mean-centred iteration from zero can find the graph's
        cheapest ratio cut, which the labels then only orient (two moons,
        1,500 rows, 3 labels per class: a 78 / 22 cut with a quarter of the
        true cut's TV, 28% error on every draw); ``start="spread",
        center="median"`` ends 4 of 5 such draws at the class boundary
        (mean error 10.4 -> 4.0% with the convex refit). As a default when
        a class has at most 3 labels it was better on the tune part of
        ``bench/_suite.py`` (two-class cells, worse / better cells than
        ``SVC()`` 9 / 16 -> 8 / 19) but worse on its report part (9 / 15 ->
        10 / 15, mean error 24.3 -> 24.5%; median centring asks for a
        balanced split: 90 / 10 blobs with one label per class 8.5 ->
        22.3%) and on USPS 4 vs 9 with 1 / 3 labels per class (2.8 / 3.3
        -> 20.9 / 10.1%), so it is not the default.
    """ + _COMMON_DOC + r"""
    See Also
    --------
    TVSVM : The hinge loss.
    semisvm.solvers.graph_tv : The functional solver.
    LapRLS : A quadratic (Laplacian) graph term instead of TV.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> from semisvm import TVRLS
    >>> X, y = make_moons(200, noise=0.05, random_state=0)
    >>> y_semi = np.full(200, -1)
    >>> y_semi[[np.flatnonzero(y == 0)[0], np.flatnonzero(y == 1)[0]]] = [0, 1]
    >>> clf = TVRLS(random_state=0).fit(X, y_semi)     # one label per moon
    >>> bool(np.mean(clf.transduction_ == y) > 0.9)
    True
    """

    _loss = "squared"


class TVSVM(_TVBase):
    __doc__ = r"""Total-variation SVM (Bresson & Zhang, TV-SVM).

    Binary (labels mapped to +-1):

    .. math::

        \min_{f = K\alpha, b}\; \mu \sum_{i \in L} \max(0, 1 - y_i (f_i + b))
        + \frac\lambda2 \alpha^\top K \alpha + \gamma \sum_{i,j} w_{ij} |f_i - f_j|

    With ``gamma = 0`` this is the kernel SVM with LIBSVM ``C = mu / lam``.
    Solved by the splitting of :class:`TVRLS` with an exact hinge step (dual
    break points, bias included, which the paper's eq. 48 drops); multi-class
    by per-class kernel SVMs with a proximal term (SMO on the labeled dual) and
    the simplex projection. Decision: ``f + b``.

""" + TV_DEFAULTS_DOC + r"""
    Known limitation (measured on USPS 4 vs 9, see ``bench/bench_graph_tv_paper.py``):
    with the paper's normalisation (``normalize="sqrt"`` or ``"n"``) the
    binary iteration settles on a one-class labelling (about 50% error) for
    small TV weights (gamma=0.1 with lam=1e-3); the defaults avoid that;
    with ``normalize=None`` (the convex problem)
    it is exact (it reduces to the kernel SVM at ``gamma=0``) but needs
    ``gamma`` and ``lam`` tuned. :class:`CheegerSVM` is the robust choice.

    Parameters
    ----------
    gamma : float or None, default=None
        TV weight; None: ``s = (n / 300)^(2 / max(d, 2))`` for two classes
        (as :class:`TVRLS`), 0.3 for more.
    lam : float, default=0.1
        RKHS weight.
    mu : float or None, default=None
        Hinge-loss weight (LIBSVM C = mu / lam); None: two classes, ``10 s``,
        i.e. ten times the TV weight (the same ratio as TVRLS's
        squared-loss weight eta = 10 to its TV weight at 300 rows); more
        classes, 1.0.
    eta : float
        Unused (squared-loss weight of TVRLS).
    r1, r2, r : float, default=1.0
        Augmented-Lagrangian penalties.
    conflict_tol : float or None, default=0.1
        As in :class:`TVRLS` (the convex refit uses ``gamma x 0.01`` and
        ``mu x 10``).
    scheme : {"auto", "augmented", "penalty"}, default="auto"
        The multi-class splitting, as in :class:`TVRLS`.
    start, center : as in :class:`TVRLS` ("auto": "zero" and "mean"; with
        few labels "spread" and "median" were worse on the real sets of the
        tune part, 31.9 -> 35.2% mean error, two moons 18.1 -> 11.8%).
    """ + _COMMON_DOC + r"""
    See Also
    --------
    TVRLS : The squared loss.
    semisvm.solvers.graph_tv : The functional solver.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> from semisvm import TVSVM
    >>> X, y = make_moons(200, noise=0.05, random_state=0)
    >>> y_semi = np.full(200, -1)
    >>> y_semi[[np.flatnonzero(y == 0)[0], np.flatnonzero(y == 1)[0]]] = [0, 1]
    >>> clf = TVSVM(random_state=0).fit(X, y_semi)     # one label per moon
    >>> bool(np.mean(clf.transduction_ == y) > 0.9)
    True
    """

    _loss = "hinge"


class CheegerRLS(_CheegerBase):
    __doc__ = r"""Cheeger-cut classifier with an RLS smoothing step (Bresson & Zhang).

    .. math::

        \min_f\; \frac{\sum_{i,j} w_{ij}|f_i - f_j|}{\sum_i |f_i - \mathrm{med}\,f|}
        \quad\text{s.t. } f_i = y_i,\ i \in L

    by the ratio-minimisation loop of :func:`semisvm.graph_tv.graph_cheeger`
    with the RKHS step ``e = K (lam I + r K)^-1 r (f + c v)``; multi-class per
    class on one-hot columns with a simplex projection. Out-of-sample
    decisions use the last RLS coefficients.

    Parameters
    ----------
    lam : float, default=1.0
        RKHS weight of the smoothing step.
    mu : float
        Unused (hinge weight of CheegerSVM).
    r : float, default=1.0
        Proximal weight of the smoothing step.
    c : float, default=1.0
        Step of the ratio-minimisation (ROF fidelity E/c).
    """ + _CHEEGER_DOC + _COMMON_DOC + r"""
    See Also
    --------
    CheegerSVM : An SVM smoothing step.
    semisvm.solvers.graph_cheeger : The functional solver.
    TVRLS : Graph total variation as a regulariser.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> from semisvm import CheegerRLS
    >>> X, y = make_moons(200, noise=0.05, random_state=0)
    >>> y_semi = np.full(200, -1)
    >>> y_semi[[np.flatnonzero(y == 0)[0], np.flatnonzero(y == 1)[0]]] = [0, 1]
    >>> clf = CheegerRLS(random_state=0).fit(X, y_semi)     # one label per moon
    >>> bool(np.mean(clf.transduction_ == y) > 0.9)
    True
    """

    _loss = "squared"


class CheegerSVM(_CheegerBase):
    __doc__ = r"""Cheeger-cut classifier with an SVM smoothing step (Bresson & Zhang).

    The ratio of :class:`CheegerRLS`; the smoothing step is a kernel SVM with a
    proximal term, ``min lam/2 a'Ka + mu sum_L hinge(y_i(f_i + b)) + r/2
    ||Ka - g||^2`` (LIBSVM C = mu / lam for its hinge part), solved exactly by
    SMO on its labeled dual.

    Parameters
    ----------
    lam : float, default=1.0
    mu : float, default=1.0
        Hinge weight.
    r : float, default=1.0
    c : float, default=1.0
    """ + _CHEEGER_DOC + _COMMON_DOC + r"""
    See Also
    --------
    CheegerRLS : An RLS smoothing step.
    semisvm.solvers.graph_cheeger : The functional solver.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> from semisvm import CheegerSVM
    >>> X, y = make_moons(200, noise=0.05, random_state=0)
    >>> y_semi = np.full(200, -1)
    >>> y_semi[[np.flatnonzero(y == 0)[0], np.flatnonzero(y == 1)[0]]] = [0, 1]
    >>> clf = CheegerSVM(random_state=0).fit(X, y_semi)     # one label per moon
    >>> bool(np.mean(clf.transduction_ == y) > 0.9)
    True
    """

    _loss = "hinge"
