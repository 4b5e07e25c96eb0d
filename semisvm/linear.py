"""Linear SVMs trained by L2-SVM-MFN (Sindhwani & Keerthi 2006).

``LinearSVM`` is the supervised solver that the semi-supervised linear
estimators ``TSVM`` (transductive SVM with multiple switching) and ``DASVM``
(deterministic-annealing S3VM) build on.

The module holds the solver functions (plain arrays in, frozen results out:
:func:`l2svm_mfn`, :func:`tsvm`, :func:`da_s3vm`) beside the estimators that
call them, as scikit-learn's ``enet_path`` sits beside ``ElasticNet``
(:func:`tsvm`, :func:`da_s3vm` and :func:`default_lam` are defined in the
private :mod:`semisvm._linear_ssl` and re-exported here); the MFN
outer loop they share is :mod:`semisvm._rows` (in memory) and
:mod:`semisvm._distributed` (row blocks on Dask).

L2-SVM-MFN (§2)
---------------
See :func:`l2svm_mfn`.

Semi-supervised linear SVMs (§3)
--------------------------------
TSVM (multiple switching) and DA-S3VM (deterministic annealing): their
objectives, the iteration and tolerance choices and the measurements
behind the defaults are described in :mod:`semisvm._linear_ssl`, which
holds :func:`tsvm` and :func:`da_s3vm`; the estimators :class:`TSVM` and
:class:`DASVM` share their fit (:mod:`semisvm._linear_base`) and the
``r="auto"`` class-balance estimate (:func:`class_balance`,
:mod:`semisvm._linear_balance`).
"""
from __future__ import annotations

import logging

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.class_weight import compute_class_weight

from semisvm import _rows
from semisvm._core._dataset import RowData
from semisvm._linear_balance import estimate_balance
from semisvm._linear_base import (
    LinearDecisionMixin,
    SemiSupervisedLinear,
    fit_one_vs_rest,
)
from semisvm._linear_ssl import LAM_SCALE, da_s3vm, default_lam, tsvm  # noqa: F401
from semisvm._results import MFNResult
from semisvm._rows import (
    FLOAT32_TOL,
    MFN_STATUS,
    LocalRows,
    check_mfn_memory,
    check_w0,
    n_threads,
    run_mfn,
)
from semisvm._threads import follows_n_jobs
from semisvm._threads import limit as _limit_threads
from semisvm._validation import (
    as_csr32,
    atomic_fit,
    check_costs,
    check_int,
    check_pm1,
    check_positive,
    check_sparse_structure,
    check_X,
    encode_classes,
    is_dask,
    pm1_from_01,
    validate_fit_data,
    warn_user,
)

__all__ = ["DASVM", "TSVM", "LinearSVM", "da_s3vm", "default_lam", "l2svm_mfn", "tsvm"]

logger = logging.getLogger("semisvm")



# ---------------------------------------------------------------------------
# L2-SVM-MFN (§2)

@follows_n_jobs
def l2svm_mfn(X, y, *, lam=1.0, costs=None, w0=None, fit_intercept=True,
              intercept_scaling=1.0, tol=1e-6, max_iter=50, cg_max_iter=10000,
              rel_tol=1e-9, cold_start=None, newton="auto", n_jobs=None,
              verbose=False, grad_tol=0.01) -> MFNResult:
    r"""Train a linear L2-SVM by the modified finite Newton method (L2-SVM-MFN).

    Minimises (Sindhwani & Keerthi 2006, eq. 2)

    .. math::

        F(w) = \frac{\lambda}{2} \|w\|^2
               + \frac12 \sum_i c_i \max(0, 1 - y_i\, o_i)^2,
        \qquad o_i = x_i^\top w_{1:d} + s\, w_{d+1},

    where the bias is a constant feature ``s = intercept_scaling`` with a
    *regularised* weight (as in the paper and LIBLINEAR's ``-B s``). With unit
    costs this equals ``lam`` times LIBLINEAR's ``1/2 ||w||^2 + C sum l2``
    objective at ``C = 1 / (2 lam)`` (``-s 2`` / ``-s 1``).

    Each iteration solves the regularised least-squares problem on the rows
    with a positive loss by seeded CGLS, then takes an exact line search step;
    it stops on LIBLINEAR's relative gradient-norm test (``grad_tol``, its
    ``-e``), when that set of rows no longer changes (finite termination), on
    a relative objective decrease below ``rel_tol``, or after ``max_iter``.

    Until the first self-consistent point each CG solve is inexact. With
    the gradient test on, on CSR rows of at least 1,000,000 stored entries
    (in memory or on Dask workers), a solve stops once its last iteration
    decreased the quadratic model by at most 0.05 / i times its decrease
    so far (i its iterations: the test of LIBLINEAR's Newton solver), CG is
    preconditioned by the diagonal of the Newton system, in float64 each
    Newton step's CG takes its setup sums from the step before (updated for
    the rows that entered or left the active set) instead of a pass over
    the rows, and the gradient test waits (one Newton step at most) for a
    step that decreased F by at most 1e-4 relative. Otherwise (dense rows, smaller problems,
    ``grad_tol=0``) a solve stops once its residual fell tenfold, with
    LIBLINEAR's preconditioner (0.01 of that diagonal mixed into ``lam I``).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        float32 or float64; CSR is used as is (int64 indices are downcast when
        they fit), never densified. The computation runs in X's dtype.
        Or a ``dask.array.Array`` of row blocks (dense or CSR chunks, all
        columns in one chunk; needs ``semisvm[dask]`` and a running
        ``dask.distributed`` client): the blocks stay on the workers and the
        result is the in-memory one to rounding (``outputs`` is then a lazy
        dask array); ``y``/``costs`` are dask arrays with X's row chunks, or
        NumPy. See :mod:`semisvm._distributed`.
    y : array-like of shape (n_samples,)
        Labels in {-1, +1}, or {0, 1} (0 is then the negative class).
    lam : float > 0
        Regularisation weight lambda.
    costs : array-like of shape (n_samples,), optional
        Per-example costs c_i >= 0 (default 1).
    w0 : array-like of shape (n_features + fit_intercept,), optional
        Starting point (seeding); the last entry is the bias weight w_{d+1}.
    fit_intercept : bool
        Add the constant feature ``intercept_scaling``.
    intercept_scaling : float > 0
        Value s of the constant feature; the intercept is ``s * w_{d+1}``.
    tol : float > 0
        CGLS relative residual tolerance (reference implementation: 1e-6) of
        the solves after the first self-consistent point; what ends the run
        by default is ``grad_tol``. float32 data cannot resolve residuals
        below about 1e-5 relative: the effective tolerance is
        ``max(tol, 1e-5)`` there.
    max_iter, cg_max_iter : int
        Caps on outer iterations and on CGLS iterations per outer iteration.
    rel_tol : float >= 0
        Relative objective decrease below which MFN stops.
    cold_start : bool, optional
        Use the loose CGLS settings (tolerance 0.01, 10 iterations) until the
        first self-consistent point. Default: True when ``w0`` is None.
    newton : {"auto", "cgls", "cholesky"}
        How each Newton system ``(lam I + X_J' C_J X_J) w = X_J' C_J y_J`` is
        solved: by seeded, preconditioned CGLS (the paper), or exactly by a
        Cholesky factorisation of the (d+1) x (d+1) matrix, built in one pass
        over the active rows. ``"auto"`` factorises when d < 2000 and that
        costs less than about 50 CG iterations (few features: dense or
        low-dimensional data); the step is then exact and ``n_cg_iter`` 0.
    n_jobs : int or None
        Threads for the passes over the rows (OpenMP): None means 1 (as
        ``n_jobs=1``: one core), -1 all cores, -k all but k - 1. Every
        thread of the call follows it: BLAS (used only on d-length vectors)
        is held at one thread and OpenMP at ``n_jobs`` for the time of the
        call (threadpoolctl; see :mod:`semisvm._threads`). Each pass is cut into row blocks by its size alone (one block
        below about 200,000 stored entries, where a second thread does not
        pay), the threads take whole blocks and the blocks' sums are added
        in block order: the result has the same bits for any ``n_jobs``.
        On a machine shared with other busy processes, ``OMP_WAIT_POLICY=
        passive`` in the environment keeps idle threads from spinning.
    grad_tol : float >= 0
        LIBLINEAR's stopping rule: stop once ``||grad F(w)|| <= grad_tol *
        max(min(n+, n-), 1) / n * ||grad F(w_start)||`` (n+/n- the examples
        labelled +1/-1, w_start the starting point: 0 unless ``w0``). This is
        ``train -s 2 -e grad_tol``'s test exactly (F is ``lam`` times its
        objective, and the test is scale-free), so the default 0.01 is
        LIBLINEAR's default; measured in ``bench/bench_linear_mfn.py``, MFN
        then reaches an objective at or below LIBLINEAR's default one in a
        third to a half of its time (text-like rows, 60,000 to 1,000,000;
        see the CG rule above). The test is made on each CG solve's seeded
        residual (which is -grad F(w)), at no extra cost; with Cholesky
        steps (``newton``), which are exact, it is not made. 0 turns it off:
        MFN then runs to finite termination with every CGLS solve to ``tol``
        (the reference implementation; ``status`` "optimal").
    verbose : bool
        Log each outer iteration on the ``"semisvm"`` logger (INFO).

    Returns
    -------
    MFNResult
        The solution (``coef``, ``intercept``), ``objective``, ``n_iter``,
        ``n_cg_iter``, ``converged``, ``history`` and ``decision`` (the
        outputs on the training rows).

    See Also
    --------
    LinearSVM : The estimator (labels of any type, several classes).
    tsvm : Adds unlabeled rows.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.solvers import l2svm_mfn
    >>> X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    >>> res = l2svm_mfn(X, [-1, -1, 1, 1], lam=0.1)
    >>> res.converged, bool(res.coef[0] > 0)
    (True, True)
    >>> np.sign(res.decision).tolist()
    [-1.0, -1.0, 1.0, 1.0]
    """
    rows = stats = None
    if is_dask(X):
        # row blocks on Dask workers (semisvm[dask]): validated and loaded
        # once, before any iteration (see semisvm._distributed)
        from semisvm import _distributed
        rows, stats = _distributed.load(X, y, costs, kind="pm1")
        dtype = rows.dtype
        c = None
    else:
        X = check_X(X)
        dtype = X.dtype
        y = check_pm1(pm1_from_01(y), X.shape[0])
        c = check_costs(costs, X.shape[0], dtype, name="costs")
    params = _mfn_params(dtype, lam, fit_intercept, intercept_scaling, tol,
                         rel_tol, max_iter, cg_max_iter, grad_tol)
    return _mfn_solve(X, y, c, params, w0=w0, cold_start=cold_start,
                      newton=newton, n_jobs=n_jobs, verbose=verbose,
                      rows=rows, stats=stats)


def _mfn_params(dtype, lam, fit_intercept, intercept_scaling, tol, rel_tol,
                max_iter, cg_max_iter, grad_tol):
    """The checked numeric settings of :func:`l2svm_mfn` (a dict)."""
    tol = check_positive(tol, "tol")
    if dtype == np.float32:
        tol = max(tol, FLOAT32_TOL)
    return {
        "lam": check_positive(lam, "lam"),
        "s": (check_positive(intercept_scaling, "intercept_scaling")
              if fit_intercept else 0.0),
        "fit_intercept": bool(fit_intercept),
        "tol": tol,
        "rel_tol": check_positive(rel_tol, "rel_tol", allow_zero=True),
        "max_iter": check_int(max_iter, "max_iter"),
        "cg_max_iter": check_int(cg_max_iter, "cg_max_iter"),
        "grad_tol": check_positive(grad_tol, "grad_tol", allow_zero=True),
    }


# How the supervised fit's inexact Newton steps stop their CG and precondition
# it (TSVM and DA keep the residual forcing factor 0.1 and LIBLINEAR's mix):
# CG stops once its last iteration decreased the quadratic model by at most
# MFN_CG_QTOL / i times its decrease since the seed (i the iterations: the
# truncated Newton test of LIBLINEAR's Newton solver, which follows the
# objective where the residual's norm is not monotone), and the
# preconditioner is diag(lam I + X_J' A X_J) itself (the Jacobi one:
# MFN_PREC_MIX 1, where LIBLINEAR mixes 0.01 of it into lam I). Measured on
# text-like CSR problems from 60,000 x 30,000 to 1,000,000 x 100,000 rows
# (bench/bench_linear_mfn.py): about a third fewer CG iterations than the
# residual forcing factor 0.1 with the 0.01 mix, for a lower objective at
# the same gradient test (the Jacobi steps leave less of the gradient in the
# directions of small curvature, which weigh most in the objective; 0.05
# rather than 0.1: 0.1 ended two of six problems above LIBLINEAR's objective).
# Only from MFN_QTEST_MIN_ENTRIES stored entries on: on smaller problems
# (pcmac, 1,946 x 7,511, 0.1M entries: 8.7 against 4.9 ms; 10,000 x 5,000,
# 0.3M: 22 against 17 ms) the Euclidean gradient test then takes more
# Newton steps (at a far lower objective) than the former rule's early
# stop; from 1M entries on (20,000 x 5,000: 59 against 84 ms) the new rule
# is the faster. CSR rows only: on dense image rows of pixel scale (mnist
# 10,000 x 784, usps, coil20: 1.5-7.8M entries) the Jacobi steps reach far
# lower objectives but the Euclidean gradient test then takes 5-16x the CG
# iterations (mnist: 98 -> 1,568, 0.10 -> 0.27 s, LIBLINEAR 0.13 s).
# At small lam neither rule stops near the optimum and the results move
# either way: 25,000 x 10,000 text-like rows (1.16M entries), lam 1e-3,
# five draws: CG 671 -> 463, 689 -> 599, 306 -> 489, 364 -> 659, 482 -> 750;
# above a tight reference fit 0.57 -> 0.67 %, 0.63 -> 0.34 %, 3.9 -> 1.3 %
# (bench/RESULTS.md); lam 1e-2: CG within about +-60 %.
MFN_CG_QTOL = 0.05
MFN_PREC_MIX = 1.0
# ... and the gradient test waits (one Newton step at most) for a step that
# decreased F by at most MFN_GRAD_DECREASE relative: after a larger one the
# active set has not settled and the objective is still some 1e-6 above its
# optimum where the gradient already passes (400,000 x 80,000: a last step
# of 8e-4 left 2.4e-6, above LIBLINEAR's 2.0e-7; one step more, 1.2e-8).
# Waiting for such a step however long took mnist as CSR (pixel scale)
# from 204 to 931 CG iterations; one step, 228.
MFN_GRAD_DECREASE = 1e-4
MFN_QTEST_MIN_ENTRIES = 1_000_000


def _mfn_solve(X, y, c, params, *, w0, cold_start, newton, n_jobs, verbose,
               rows=None, stats=None):
    """:func:`l2svm_mfn` on checked input: in memory X (:func:`check_X`'s),
    -1/+1 targets ``y`` and costs ``c`` of X's dtype; or ``rows``/``stats``
    of :func:`semisvm._distributed.load`. ``params``: :func:`_mfn_params`.
    :class:`LinearSVM` calls it on the input it checked itself."""
    lam, s = params["lam"], params["s"]
    if rows is None:
        n, d = X.shape
        dtype = X.dtype
    else:
        n, d, dtype = rows.n, rows.d, rows.dtype
    n_w = d + 1 if params["fit_intercept"] else d
    w_init = None if w0 is None else check_w0(w0, n_w, dtype)
    own = rows is None      # the rows backend (and its outputs) made here
    if rows is None:
        n_pos = int(np.count_nonzero(y > 0))
        # (np.where's array is new: no second copy when it has X's dtype)
        cpos = np.where(y > 0, c, 0).astype(dtype, copy=False)
        cneg = np.where(y < 0, c, 0).astype(dtype, copy=False)
        # (checks the memory of the whole solve before w is allocated)
        rows = LocalRows(RowData(X), s, cpos, cneg, n_threads=n_threads(n_jobs))
        direct = _rows.use_direct(X, newton)
    else:
        check_mfn_memory(n, d, dtype)
        n_pos = int(stats["n_pos"])
        n_threads(n_jobs)      # validated; the workers' threads run the blocks
        rows.s = float(s)
        direct = _rows.use_direct_stats(stats, d, newton)
    # the gradient test's fits (the default) on CSR rows of at least
    # MFN_QTEST_MIN_ENTRIES stored entries: the model-decrease test and
    # the Jacobi preconditioner, and each Newton step's CG taking the setup
    # sums of the one before, brought up to date for the rows that entered
    # or left the active set, in place of its setup pass (float64 CSR rows
    # in memory; see LocalRows.keep_start). grad_tol=0 (every solve to tol,
    # the reference implementation) keeps the former arithmetic: on rows
    # of norms 1e5 apart the Jacobi preconditioner's tight solves lose the
    # accuracy a tol of 1e-14 asks for.
    if rows.distributed:
        # (the blocks' own rows, as the workers loaded them: a dask array
        # of CSR blocks built by from_delayed may carry a dense _meta)
        csr = bool(stats.get("sparse", False))
        entries = int(stats["nnz"])
    else:
        csr = sp.issparse(X)
        entries = X.nnz if csr else X.size
    gradient_test = (params["grad_tol"] > 0 and csr
                     and entries >= MFN_QTEST_MIN_ENTRIES)
    if gradient_test:
        rows.prec_mix = MFN_PREC_MIX
        rows.keep_start = True
    w = np.zeros(d + 1, dtype=dtype)
    if w_init is None:
        cold = True if cold_start is None else bool(cold_start)
    else:
        w[:n_w] = w_init
        cold = False if cold_start is None else bool(cold_start)
    # LIBLINEAR's -s 2 scaling of its -e: eps max(min(n+, n-), 1) / n
    g_rel = params["grad_tol"] * max(min(n_pos, n - n_pos), 1) / n
    out = run_mfn(rows, lam, w, tol=params["tol"], max_iter=params["max_iter"],
                  cg_max_iter=params["cg_max_iter"], cold_start=cold,
                  rel_tol=params["rel_tol"], verbose=verbose, direct=direct,
                  grad_tol=g_rel,
                  forcing=-MFN_CG_QTOL if gradient_test else 0.1,
                  grad_decrease=MFN_GRAD_DECREASE if gradient_test else -1.0)
    n_iter, n_cg, status, obj, hobj, hcg, hact = out
    o = rows.outputs()
    return MFNResult(
        coef=w[:d].copy(),
        intercept=float(s * w[d]),
        objective=float(obj),
        n_iter=int(n_iter),
        n_cg_iter=int(n_cg),
        converged=status != 2,
        status=MFN_STATUS[status],
        history=hobj,
        cg_history=hcg,
        active_history=hact,
        # (outputs of rows made here belong to nobody else: no copy)
        decision=o if rows.distributed or own else np.asarray(o).copy(),
    )


# ---------------------------------------------------------------------------
# Estimators

class LinearSVM(LinearDecisionMixin, ClassifierMixin, BaseEstimator):
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

    More than two classes: one-vs-rest, as LIBLINEAR (``-s 2``) and
    :class:`TSVM`: for each class k the problem above with y_i = +1 on class
    k and -1 on every other row (each row keeps its own cost c_i), and
    :meth:`predict` returns the class of the largest of the K decision
    values.

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
        Multiplies the cost of each class's examples (in every one-vs-rest
        problem, a row's cost is its own class's weight).
    tol : float, default=1e-6
        Relative residual tolerance of each CGLS solve after the first
        self-consistent point (the reference implementation's), which
        decides the accuracy of ``coef_`` when ``grad_tol=0``. Unused when
        the Newton systems are factorised (``newton``), which is exact.
        float32 is solved to at most 1e-5.
    grad_tol : float, default=0.01
        LIBLINEAR's stopping rule, with the same meaning as its ``-e``: stop
        once ``||grad F(w)|| <= grad_tol * max(min(n+, n-), 1) / n *
        ||grad F(0)||`` (``train -s 2 -e grad_tol``'s test; F is ``lam``
        times its objective and the test is scale-free). The default is
        LIBLINEAR's default; MFN reaches an objective at or below LIBLINEAR's
        there in a third to a half of its time on text-like problems of
        60,000 to 1,000,000 rows (``bench/bench_linear_mfn.py``). Smaller
        values match LIBLINEAR's smaller ``-e``; 0 runs MFN to finite
        termination (every solve to ``tol``). Not used with Cholesky steps
        (exact Newton steps, finite termination in a few iterations).
    max_iter : int, default=50
        Maximum number of Newton (outer) iterations.
    cg_max_iter : int, default=10000
        Maximum CGLS iterations per Newton iteration.
    newton : {"auto", "cgls", "cholesky"}, default="auto"
        Newton systems by preconditioned CGLS (the paper; large d) or by an
        exact Cholesky factorisation (few features); "auto" picks by cost.
    n_jobs : int or None, default=None
        Threads for the passes over the rows in fit and predict (None: one,
        as 1; -1: all cores); BLAS is held at one thread during the fit
        (used only on d-length vectors), so ``n_jobs=1`` runs on one core,
        and the result has the same bits for any value (see
        :func:`l2svm_mfn`).
    verbose : int, default=0
        If > 0, log every Newton iteration (logger ``"semisvm"``, INFO).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_classes, n_features)
        Weights; one row per class with more than two classes.
    intercept_ : float or ndarray of shape (n_classes,)
        Bias ``s * w_b`` (per class with more than two classes).
    classes_ : ndarray of shape (n_classes,)
        The sorted labels seen in ``fit``.
    n_iter_ : int
        Newton iterations used (the largest over the one-vs-rest problems).
    n_features_in_ : int
        Number of features seen in ``fit``.
    result_ : MFNResult or tuple of MFNResult
        The solver's full result (objective, CG iterations, history); one
        per class with more than two classes.

    See Also
    --------
    semisvm.solvers.l2svm_mfn : The functional solver (one binary problem).
    TSVM : Adds unlabeled rows (transductive SVM).
    sklearn.svm.LinearSVC : LIBLINEAR's solvers (``C = 1 / (2 lam)``).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer, load_digits
    >>> from semisvm import LinearSVM
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = LinearSVM(lam=1e-2).fit(X / X.max(0), y)
    >>> clf.score(X / X.max(0), y) > 0.9
    True

    Ten classes (one-vs-rest):

    >>> X, y = load_digits(return_X_y=True)
    >>> clf = LinearSVM(lam=1e-2).fit(X / 16, y)
    >>> clf.decision_function(X[:3] / 16).shape
    (3, 10)
    >>> clf.score(X / 16, y) > 0.95
    True
    """

    def __init__(self, *, lam=1.0, fit_intercept=True, intercept_scaling=1.0,
                 class_weight=None, tol=1e-6, grad_tol=0.01, max_iter=50,
                 cg_max_iter=10000, newton="auto", n_jobs=None, verbose=0):
        self.lam = lam
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.tol = tol
        self.grad_tol = grad_tol
        self.max_iter = max_iter
        self.cg_max_iter = cg_max_iter
        self.newton = newton
        self.n_jobs = n_jobs
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    @atomic_fit
    def fit(self, X, y, sample_weight=None):
        """Fit the model on two or more labels (more: one-vs-rest).

        Parameters
        ----------
        X : {ndarray, sparse matrix} of shape (n_samples, n_features)
            Training rows, dense or CSR, float32 or float64. May be a dask
            array of row blocks (dense or CSR chunks, all columns in one
            chunk; ``semisvm[dask]``, a running ``dask.distributed``
            client): the blocks stay on the workers and the fit is the same
            as in memory; y (and sample_weight) are then dask arrays with
            X's row chunks, or NumPy arrays.
        y : array-like of shape (n_samples,)
            Class labels (any two or more values).
        sample_weight : array-like of shape (n_samples,), default=None
            Per-row cost multipliers c_i (>= 0).

        Returns
        -------
        self : LinearSVM
            The fitted estimator.
        """
        # every thread of the fit follows n_jobs (semisvm._threads)
        with _limit_threads(self.n_jobs):
            return self._fit(X, y, sample_weight)

    def _fit(self, X, y, sample_weight):
        if is_dask(X):
            return self._fit_dask(X, y, sample_weight)
        X_in = check_sparse_structure(X)  # before SciPy converts it
        X, y, sumsq = validate_fit_data(self, X, y, sumsq=True)
        X = as_csr32(X, checked=X is X_in, sumsq=sumsq)
        self.classes_, y_idx = encode_classes(y, estimator=type(self).__name__)
        costs = check_costs(sample_weight, X.shape[0], X.dtype)
        if self.class_weight is not None:
            cw = compute_class_weight(self.class_weight, classes=self.classes_, y=y)
            costs = check_costs(costs * cw[y_idx].astype(X.dtype), X.shape[0],
                                X.dtype, name="costs")
        K = self.classes_.shape[0]
        return self._solve(
            X, K, lambda k: np.where(y_idx == k, 1.0, -1.0), costs)

    def _solve(self, X, K, targets, costs):
        """L2-SVM-MFN on each one-vs-rest problem (one problem for K == 2);
        ``targets(k)``: class k's -1/+1 labels (NumPy or dask). In memory,
        X and costs are the ones :meth:`fit` checked: the solver is called
        without checking them again (a small fit's fixed cost)."""
        kw = dict(newton=self.newton, n_jobs=self.n_jobs, verbose=bool(self.verbose))
        if is_dask(X):
            def fit_one(k):
                return l2svm_mfn(
                    X, targets(k), lam=self.lam, costs=costs,
                    fit_intercept=self.fit_intercept,
                    intercept_scaling=self.intercept_scaling, tol=self.tol,
                    grad_tol=self.grad_tol, max_iter=self.max_iter,
                    cg_max_iter=self.cg_max_iter, **kw)
        else:
            params = _mfn_params(X.dtype, self.lam, self.fit_intercept,
                                 self.intercept_scaling, self.tol, 1e-9,  # (l2svm_mfn rel_tol)
                                 self.max_iter, self.cg_max_iter, self.grad_tol)

            def fit_one(k):
                return _mfn_solve(X, targets(k), costs, params, w0=None,
                                  cold_start=None, **kw)
        results = fit_one_vs_rest(self, K, fit_one, lambda res: res.n_iter)
        if not all(res.converged for res in results):
            warn_user(
                f"L2-SVM-MFN did not converge in max_iter={self.max_iter} "
                "iterations; increase max_iter", ConvergenceWarning)
        return self

    def _fit_dask(self, X, y, sample_weight):
        from semisvm import _distributed
        _distributed.check_fit_input(self, X)
        labels, counts = _distributed.unique_labels(y)
        self.classes_, _ = encode_classes(labels, estimator=type(self).__name__)
        cls = self.classes_
        K = cls.shape[0]
        costs = sample_weight
        if self.class_weight is not None:
            if self.class_weight == "balanced":
                cw = counts.sum() / (K * counts)
            else:
                cw = compute_class_weight(self.class_weight, classes=cls, y=cls)
            cw_costs = _distributed.map_labels(
                y, lambda b: cw[np.searchsorted(cls, b)])
            costs = cw_costs if costs is None else costs * cw_costs

        def targets(k):
            return _distributed.map_labels(
                y, lambda b: np.where(b == cls[k], 1.0, -1.0))
        return self._solve(X, K, targets, costs)


def class_balance(X, y, *, lam="auto", method="cc", n_splits=5, fit_intercept=True,
                  intercept_scaling=1.0, n_jobs=None):
    r"""Fraction of each class among the unlabeled rows, estimated (``r="auto"``).

    A supervised linear L2-SVM is fitted on the labeled rows (the labeled
    part of the TSVM objective: lam with 1/l costs, i.e. :func:`l2svm_mfn`
    with ``lam * l``) and the balance is read from its outputs on the
    unlabeled rows:

    * ``"cc"`` (default; "classify and count"): the fraction of unlabeled
      rows with a positive output. With two classes it is checked against
      Forman's adjusted count ``(cc - fpr) / (tpr - fpr)`` (tpr, fpr: the
      out-of-fold rates of the labeled rows, stratified ``n_splits``-fold):
      when the two differ by more than 2 standard errors of the adjusted
      count (delta method on the binomial errors of tpr, fpr and cc) the
      count is biased and the adjusted count (if its standard error is at
      most 0.1) is returned. When that check cannot be made (tpr - fpr
      below 0.1, or a standard error above 0.1: few labels) and the median
      |output| of the unlabeled rows is below 0.5 (their signs follow the
      bias), the estimate is uncertain and the labeled fraction is
      returned. Why: where few labels in many sparse features leave
      the unlabeled outputs inside the margin near the bias (the README's
      Dask data: 380 labels, 1000 features, 99.9 % of the unlabeled outputs
      in (-1, 1), median -0.17 at the bias -0.16), the sign count follows
      the bias (0.25 where 0.45 of the rows are positive), and TSVM then
      labels the unlabeled rows worse than its supervised start; the
      adjusted count finds 0.443. On the tune part of the suite the check
      lowered cc's mean absolute error from 6.1 to 5.6 points;
    * ``"pcc"``: the mean of the Platt-calibrated posteriors
      (:func:`semisvm.model_selection.platt_calibrate` on the out-of-fold
      outputs of the labeled rows, stratified ``n_splits``-fold);
    * ``"em"``: those posteriors adjusted to the unlabeled rows' priors by the
      EM of Saerens, Latinne & Decaestecker (2002)
      (:func:`semisvm.model_selection.em_class_prior`).

    With more than two classes ``"cc"`` counts the one-vs-rest model's
    predictions (the class of the largest output; per-class "k against the
    rest" positive fractions: mnist10 TSVM error 29.9 / 18.3 / 23.7 % at 5 /
    25 / proportional labels, against 26.9 / 16.2 / 20.2 % with the labeled
    fraction), the other methods estimate each class against the rest; the
    estimates are clipped to [0.02, 0.98] and normalised to sum to one.

    Why ``"cc"``: measured on the tune part of the held-out benchmark suite
    (``bench/bench_model_selection_prior.py --part tune --fit``: 12 sets, 5 /
    25 labels per class and a 5 % proportional draw, seeds 0-2), mean TSVM
    error on the unlabeled rows 22.81 % with cc, 24.05 % pcc, 25.87 % em,
    25.23 % with the labeled fraction (DASVM: 22.76 / 23.83 / 25.89 /
    25.16 %). The EM needs calibrated posteriors, and a sigmoid fitted on 10
    to 50 out-of-fold outputs is not: it drove the estimate to the clip
    bounds on a third of the binary draws (mean absolute error of the
    fraction 14.0 points, against 6.1 cc, 3.3 pcc, 3.7 labeled fraction;
    cc's error is largest where a linear model is near chance -- XOR,
    circles -- where the balance matters least). With a proportional draw
    the labeled fraction is itself a good estimate (0.8 points) and cc costs
    0.2 points of TSVM error there.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        Class indices 0..K-1, ``-1`` = unlabeled.
    lam : float or "auto", default="auto"
        As in :class:`TSVM`.
    method : {"cc", "pcc", "em"}, default="cc"
    n_splits : int, default=5
        Folds over the labeled rows for the calibration of "pcc" and "em"
        (lowered to the smallest class count).
    fit_intercept, intercept_scaling : bool, float
        As in :class:`LinearSVM`.
    n_jobs : int or None, default=None
        Threads of the supervised fits (see :func:`l2svm_mfn`).

    Returns
    -------
    r : float (two classes: the fraction of class 1) or ndarray of shape (K,),
        or None when a class has fewer than 2 labeled rows or no row is
        unlabeled (the caller then uses the labeled fraction).

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.linear import class_balance
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(-1.5, 1, (800, 2)), rng.normal(1.5, 1, (200, 2))]
    >>> y = np.full(1000, -1); y[:10], y[800:810] = 0, 1   # labels 1/2 : 1/2
    >>> round(class_balance(X, y), 1)                       # truth: 0.2
    0.2
    """
    y = np.asarray(y)
    lab = np.flatnonzero(y >= 0)
    unl = np.flatnonzero(y < 0)
    if unl.size == 0:
        return None
    Xu = X[unl]
    return estimate_balance(l2svm_mfn, X[lab], y[lab],
                            lambda coef, b: np.asarray(Xu @ coef).ravel() + b,
                            default_lam(X, lam), method, n_splits, fit_intercept,
                            intercept_scaling, n_jobs)



_OBJECTIVE_DOC = r"""
    .. math::

        \frac{\lambda}{2}\left(\|w\|^2 + w_b^2\right)
        + \frac{1}{2l}\sum_{i \in L} \ell_2(y_i o_i)
        + \frac{\lambda_u}{2u}\sum_{j \in U} \ell_2(|o_j|),
        \qquad \ell_2(z) = \max(0, 1 - z)^2,\;
        o = x^\top w + s\, w_b
"""


class TSVM(SemiSupervisedLinear):
    __doc__ = r"""Linear transductive SVM with multiple label switching (Sindhwani & Keerthi 2006).

    ``y == -1`` marks unlabeled rows (scikit-learn's semi-supervised
    convention); with two labels ``classes_[1]`` maps to +1 (more labels:
    one-vs-rest, below). With l labeled and u unlabeled rows, TSVM looks for
    a local minimum of
    """ + _OBJECTIVE_DOC + r"""
    under the class balance: a fraction ``r`` of the unlabeled rows (to one
    example) gets the label +1 in ``transduction_``. The bias is a regularised
    constant feature s = ``intercept_scaling``. The labeled part equals
    ``lam`` times LIBLINEAR's ``1/2 ||w||^2 + C sum l2`` with
    **C = 1 / (2 lam l)** (a supervised LinearSVM with ``lam * l``).

    Algorithm (§3.1): L2-SVM-MFN on the labeled rows; the ``round(r u)``
    largest unlabeled outputs labelled +1, the rest -1; then the unlabeled
    weight grows from ``lam_u_init`` by the factor ``lam_u_rate`` up to
    ``lam_u``, and at each value a warm-started MFN (each unlabeled row
    appears once, with its temporary label) alternates with switching up to
    ``S`` label pairs -- those that lower the objective most -- until no pair
    switch lowers it. ``S = 1`` is Joachims' TSVM; the default switches many
    pairs per round and needs far fewer MFN calls.

    Defaults: ``lam_u = 1`` is the reference implementation's usual value
    (SVMlin: ``-W 0.001 -U 1``): with the 1/l and 1/u normalisations the
    labeled and unlabeled losses weigh alike whatever l and u (SVM-light's
    ``C* = C`` per example would be ``lam_u = u / l``: on held-out data
    TSVM no better, DA 2 points worse on binary sets and 30 % against 21 %
    error in one-vs-rest). ``lam="auto"`` is
    ``0.003 * mean_i ||x_i||^2``: scale-invariant, as SVM-light's default
    ``C = 1 / avg(x.x)`` (the objective's ``lam = avg(x.x) / (2 l)``; 0.003
    is that rule at l ~ 170, i.e. 3.3 times weaker than it at l = 50), kept
    independent of l as in SVMlin; on unit-norm text rows it is 0.003
    (SVMlin uses 0.001; on unnormalised dense data a fixed 0.001 barely
    regularises and DA degrades most). 0.003 rather than SVM-light's 0.01
    at 50 labels because one-vs-rest problems have few positive labels
    (5 of 50 in 10-class digits): their positive class carries a tenth of
    the labeled loss, and at 0.01 DA let it shrink to the negative side
    (10-class digits 17.7 % error against 12.3 % at 0.003); on binary
    held-out sets 0.003 was also as good or better. The reasoning and the
    held-out measurements are in :func:`default_lam`
    and ``bench/bench_linear_defaults.py``. The annealing rate 1.5 is SVMlin's and
    SVM-light's; ``lam_u_init = 1e-2`` (theirs: 1e-5) skips annealing
    steps whose unlabeled weight is too small to move w: the same errors
    and objectives on held-out data with about a third fewer MFN calls
    (see :func:`tsvm`).

    ``r="auto"`` estimates the class balance of the unlabeled rows as the
    fraction of them that a supervised linear SVM on the labeled rows calls
    positive (:func:`class_balance`; measured against the EM prior adjustment
    of Saerens et al. and the mean Platt posterior there). The former default,
    the labeled fraction (``r=None``, the paper's initial estimate and what
    the paper benchmarks pass), is 1/2 whenever each class gets the same
    number of labels, whatever the truth: on the tune part of the held-out
    benchmark suite (12 sets, 5 / 25 labels per class and a 5 % proportional draw)
    the mean TSVM error went from 25.2 % to 22.8 %. When the labels were
    drawn in proportion to the classes, ``r=None`` is as good.

    **Safety net** (``safe=True``): after the fit, the estimator and its
    supervised counterpart (the same objective with ``lam_u = 0``) are
    cross-validated on the labeled rows with the same folds
    (:class:`~semisvm.model_selection.RepeatedLabeledStratifiedKFold`
    ``(safe_cv, n_repeats=2)``; every unlabeled row stays on the training
    side); the mean difference of fold accuracies is ``unlabeled_gain_``
    and when it is below ``-safe_margin`` the model becomes the supervised
    solution (``fell_back_``; ``transduction_`` then holds its predictions).
    It costs ``2 * safe_cv`` extra fits of each model and needs at least 2
    labels per class; with few labels its estimate is noisy (see
    :class:`~semisvm.model_selection.SafeSemiSupervisedMixin`).

    **More than two classes** (an extension: the paper is binary): one binary
    TSVM per class k, class k against the other labeled rows, all rows
    shared, balance ``r_k`` (``"auto"``: estimated for class k against the
    rest, normalised to sum to one; None: the fraction of class k among the
    labeled rows; or ``r[k]``); ``transduction_`` gives each unlabeled row the class with
    the largest one-vs-rest output, so its class counts follow the r_k only
    approximately. ``coef_`` is then (n_classes, n_features), ``result_`` a
    tuple of the per-class results and ``n_iter_`` the largest MFN count.

    Parameters
    ----------
    lam : float or "auto", default="auto"
        Regularisation weight lambda (> 0); "auto": ``0.003 * mean ||x_i||^2``
        over all training rows (see Defaults above). The value used is
        ``lam_``.
    lam_u : float, default=1.0
        Final weight of the unlabeled loss (>= 0; 0 gives the supervised SVM,
        and ``transduction_`` then holds its predictions).
    r : "auto", None, float in (0, 1) or array of shape (n_classes,), default="auto"
        Fraction of unlabeled rows labelled ``classes_[1]``. "auto": estimated
        from the unlabeled rows (:func:`class_balance`; the labeled fraction
        when a class has fewer than 2 labels); None: the
        labeled fraction (the paper). With more than two classes: "auto",
        None (each one-vs-rest problem uses the labeled fraction of its class)
        or one fraction per class. The value used is ``r_``.
    S : int, default=10000
        Maximum number of label pairs switched per round (1: Joachims).
    lam_u_init : float, default=1e-2
        First unlabeled weight of the annealing.
    lam_u_rate : float, default=1.5
        Annealing factor on the unlabeled weight.
    lam_factor : float, default=1.0
        Continuation in lam (>= 1): the annealing runs at ``lam_factor *
        lam``, then lam comes down by ``lam_u_rate`` per step to ``lam``. 1
        (the default): none; larger values helped Gaussian clusters (g50c)
        but not the held-out sets (see ``bench/bench_linear_defaults.py``).
    fit_intercept : bool, default=True
    intercept_scaling : float, default=1.0
    tol : float, default=1e-6
        CGLS relative residual tolerance.
    max_iter : int, default=50
        Newton iterations per MFN call.
    cg_max_iter : int, default=10000
        CGLS iterations per Newton iteration.
    max_inner_iter : int, default=10000
        Switching rounds per unlabeled weight.
    inner_tol : float or None, default=1e-2
        Loose CGLS tolerance of the switching rounds, scaled by ``current
        unlabeled weight / lam_u`` (never below ``tol``); at ``lam_u`` the
        rounds then take one inexact Newton step each and finally solve to
        ``tol``, ending on an exact optimum with no lowering switch. None:
        every MFN call to ``tol`` (the reference implementation).
    switch_tol : float >= 0, default=1e-4
        A round that switches at most ``int(switch_tol * u)`` pairs (u
        unlabeled rows) counts as one that switches none (the final weight
        solves once more for those pairs): 0 below 10,000 unlabeled rows;
        on large problems it cuts the last rounds, which switch a few pairs
        each at the cost of a whole solve (see :func:`tsvm`). 0: the
        reference.
    safe : bool, default=False
        Run the safety net (above) after the fit.
    safe_cv : int or splitter, default=5
        Folds of the safety net (an int k: ``RepeatedLabeledStratifiedKFold(k,
        n_repeats=2)``, k lowered to the smallest labeled class count).
    safe_margin : float, default=0.0
        Fall back when ``unlabeled_gain_ < -safe_margin``.
    n_jobs : int or None, default=None
        Threads of the passes over the rows in every fit and predict (None:
        one, as 1; -1: all cores); BLAS is held at one thread during the
        fit, so ``n_jobs=1`` runs on one core, and the result has the same
        bits for any value (see :func:`semisvm.solvers.l2svm_mfn`).
    verbose : int, default=0
        1: log each annealing step (logger ``"semisvm"``, INFO); 2: also each
        switching round and Newton iteration.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_classes, n_features)
    intercept_ : float or ndarray of shape (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    transduction_ : ndarray of shape (n_samples,)
        Labels of the training rows: given ones, and the final temporary
        labels of the unlabeled rows (user's label values).
    n_iter_ : int
        MFN calls.
    n_features_in_ : int
    lam_ : float
        The regularisation weight used (``lam``, or its "auto" value).
    r_ : float or ndarray of shape (n_classes,)
        The class balance used.
    r_source_ : str
        Where ``r_`` came from: "given", "labeled fraction", or for
        ``r="auto"`` "cc" (classify and count), "adjusted count" (the count
        was biased, see :func:`class_balance`), "labeled fraction (estimate
        uncertain)" or "labeled fraction (too few labels or no unlabeled
        row)". Logged when ``verbose``.
    unlabeled_gain_ : float or None
        Safety net: cross-validated accuracy of the model minus that of its
        supervised counterpart (None unless ``safe``).
    fell_back_ : bool
        True when the safety net replaced the model by the supervised one.
    result_ : TSVMResult

    See Also
    --------
    DASVM : The same objective by deterministic annealing (often lower).
    LinearSVM : The supervised baseline on the labeled rows.
    semisvm.solvers.tsvm : The functional solver (one binary problem).

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm import TSVM
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(-2, 1, (100, 2)), rng.normal(2, 1, (100, 2))]
    >>> y = np.full(200, -1); y[0], y[100] = 0, 1
    >>> clf = TSVM().fit(X, y)
    >>> float(np.mean(clf.transduction_ == np.repeat([0, 1], 100))) > 0.9
    True
    """

    _solver = staticmethod(tsvm)
    _supervised_solver = staticmethod(l2svm_mfn)

    def __init__(self, *, lam="auto", lam_u=1.0, r="auto", S=10000, lam_u_init=1e-2,
                 lam_u_rate=1.5, lam_factor=1.0, fit_intercept=True, intercept_scaling=1.0,
                 tol=1e-6, max_iter=50, cg_max_iter=10000, max_inner_iter=10000,
                 inner_tol=1e-2, switch_tol=1e-4, safe=False, safe_cv=5,
                 safe_margin=0.0, n_jobs=None, verbose=0):
        self.n_jobs = n_jobs
        self.safe = safe
        self.safe_cv = safe_cv
        self.safe_margin = safe_margin
        self.lam = lam
        self.lam_u = lam_u
        self.r = r
        self.S = S
        self.lam_u_init = lam_u_init
        self.lam_u_rate = lam_u_rate
        self.lam_factor = lam_factor
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.tol = tol
        self.max_iter = max_iter
        self.cg_max_iter = cg_max_iter
        self.max_inner_iter = max_inner_iter
        self.inner_tol = inner_tol
        self.switch_tol = switch_tol
        self.verbose = verbose

    def _solver_params(self):
        return {"S": self.S, "lam_u_init": self.lam_u_init,
                "lam_u_rate": self.lam_u_rate, "lam_factor": self.lam_factor,
                "max_inner_iter": self.max_inner_iter, "inner_tol": self.inner_tol,
                "switch_tol": self.switch_tol}


class DASVM(SemiSupervisedLinear):
    __doc__ = r"""Deterministic-annealing semi-supervised linear SVM (DA-S3VM; Sindhwani & Keerthi 2006).

    ``y == -1`` marks unlabeled rows; the other rows carry two labels (more:
    one-vs-rest, see :class:`TSVM`). Looks for a good minimum of the same objective as :class:`TSVM`,
    """ + _OBJECTIVE_DOC + r"""
    by relaxing the unlabeled labels to probabilities p_j (mean(p) = ``r``)
    with an entropy term at temperature T: at each T it alternates a
    warm-started L2-SVM-MFN w-step (each unlabeled row appears once, with
    costs ``lam_u p_j / u`` and ``lam_u (1 - p_j) / u``) with the closed-form
    p-step ``p_j = 1 / (1 + exp((g_j - nu) / T))``,
    ``g_j = lam_u [l2(o_j) - l2(-o_j)]``, nu found by safeguarded
    Newton/bisection so that mean(p) = r exactly (after the first round of
    a temperature over-relaxed in the logits by ``relax``; the w-step is
    ``newton_steps`` Newton steps); it stops each T when the
    mean KL divergence between successive p falls below ``kl_tol`` and lowers
    T by ``T_rate`` until the entropy of p is small. The w with the lowest
    objective above after any w-step is kept. The labeled part is
    ``lam`` times LIBLINEAR's objective with **C = 1 / (2 lam l)**.

    Defaults: ``lam="auto"`` (``0.003 * mean ||x_i||^2``) and ``lam_u = 1``
    as :class:`TSVM` (reasoning there), the rate 1.5 of the reference
    implementation; ``r="auto"`` and the safety net as :class:`TSVM`. T0 =
    lam_u, ``kl_tol = 1e-5`` (1e-4 from 10,000 unlabeled rows on), one
    Newton step per w-step and ``relax = 1.5``
    replace the reference's T0 = 10 lam_u, 1e-6, exact w-steps and plain
    p-steps: 3.4x fewer Newton iterations (g50c 255 -> 72 per fit) at the
    same or lower held-out error (binary 17.25 -> 17.14 %, one-vs-rest
    21.12 -> 20.94 %), objective +0.007 % (binary) / +0.16 % (one-vs-rest;
    ``newton_steps=2`` keeps it); ``bench/bench_linear_defaults.py``, reasoning in
    :mod:`semisvm._linear_ssl`.
    More than two classes: one-vs-rest exactly as :class:`TSVM` (an
    extension of the paper; per-class ``r_k``).

    Parameters
    ----------
    lam, lam_u, r, fit_intercept, intercept_scaling, tol, max_iter, cg_max_iter
        As in :class:`TSVM`.
    safe, safe_cv, safe_margin
        The safety net, as in :class:`TSVM`.
    T0 : float, default=None
        Starting temperature; None: ``lam_u`` (the reference: ``10 lam_u``).
    T_rate : float, default=1.5
    lam_factor : float, default=1.0
        Continuation in lam (>= 1): the first temperature runs at
        ``lam_factor * lam``, lam is divided by ``T_rate`` per temperature
        down to ``lam``; the kept point is the best at ``lam``. 1: none
        (see :class:`TSVM`).
    max_outer_iter : int, default=30
        Temperatures at most.
    max_inner_iter : int, default=100
        Alternating rounds per temperature at most.
    kl_tol : float or "auto", default="auto"
        Stop each temperature when the mean KL between successive p is
        below it; ``"auto"``: 1e-5 below 10,000 unlabeled rows, 1e-4 from
        there on (see :func:`semisvm.solvers.da_s3vm`).
    entropy_tol : float, default=1e-6
    inner_tol : float, "auto" or None, default="auto"
        CGLS tolerance of the w-steps (never below ``tol``); None: ``tol``;
        ``"auto"``: 1e-3 below 10,000 unlabeled rows, from there on 1e-3
        times ``min(10, max(1, 30 T / lam_u))`` at temperature T (see
        :func:`semisvm.solvers.da_s3vm`).
    relax : float in (0, 2), default=1.5
        Over-relaxation of the p-steps after the first at each temperature;
        1: plain alternating minimisation (the reference).
    newton_steps : int or None, default=1
        MFN iterations per w-step; None: each w-step solved to ``tol`` (the
        reference).
    settled : int >= 1 or None, default=2
        Also stop after this many temperatures in a row that each took one
        round and left the TSVM objective unchanged (relative 1e-9): a few
        near-tied rows can hold the entropy above ``entropy_tol`` for many
        temperatures that change nothing (see :func:`semisvm.solvers.da_s3vm`).
        None: cool until the entropy test (the reference).
    n_jobs : int or None, default=None
        As in :class:`TSVM`.
    verbose : int, default=0
        1: log each temperature; 2: also each round and Newton iteration.

    Attributes
    ----------
    coef_, intercept_, classes_, n_features_in_, lam_, r_, r_source_, unlabeled_gain_, fell_back_
        As in :class:`TSVM`.
    transduction_ : ndarray of shape (n_samples,)
        Given labels, and ``p_j > 1/2`` on the unlabeled rows.
    n_iter_ : int
        MFN calls.
    result_ : DAResult
        Includes ``p``, the temperature and the annealing history.

    See Also
    --------
    TSVM : The same objective by label switching.
    semisvm.solvers.da_s3vm : The functional solver (one binary problem).

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm import DASVM
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(-2, 1, (100, 2)), rng.normal(2, 1, (100, 2))]
    >>> y = np.full(200, -1); y[0], y[100] = 0, 1
    >>> clf = DASVM().fit(X, y)
    >>> float(np.mean(clf.transduction_ == np.repeat([0, 1], 100))) > 0.9
    True
    >>> clf.predict([[-3.0, -3.0], [3.0, 3.0]])
    array([0, 1])
    """

    _solver = staticmethod(da_s3vm)
    _supervised_solver = staticmethod(l2svm_mfn)

    def __init__(self, *, lam="auto", lam_u=1.0, r="auto", T0=None, T_rate=1.5,
                 lam_factor=1.0, max_outer_iter=30, max_inner_iter=100,
                 kl_tol="auto", entropy_tol=1e-6, fit_intercept=True, intercept_scaling=1.0,
                 tol=1e-6, max_iter=50, cg_max_iter=10000, inner_tol="auto",
                 relax=1.5, newton_steps=1, settled=2, safe=False, safe_cv=5,
                 safe_margin=0.0, n_jobs=None, verbose=0):
        self.n_jobs = n_jobs
        self.safe = safe
        self.safe_cv = safe_cv
        self.safe_margin = safe_margin
        self.lam = lam
        self.lam_u = lam_u
        self.r = r
        self.T0 = T0
        self.T_rate = T_rate
        self.lam_factor = lam_factor
        self.max_outer_iter = max_outer_iter
        self.max_inner_iter = max_inner_iter
        self.kl_tol = kl_tol
        self.entropy_tol = entropy_tol
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.tol = tol
        self.max_iter = max_iter
        self.cg_max_iter = cg_max_iter
        self.inner_tol = inner_tol
        self.relax = relax
        self.newton_steps = newton_steps
        self.settled = settled
        self.verbose = verbose

    def _solver_params(self):
        return {"T0": self.T0, "T_rate": self.T_rate,
                "relax": self.relax, "newton_steps": self.newton_steps,
                "lam_factor": self.lam_factor,
                "max_outer_iter": self.max_outer_iter,
                "max_inner_iter": self.max_inner_iter, "kl_tol": self.kl_tol,
                "entropy_tol": self.entropy_tol, "inner_tol": self.inner_tol,
                "settled": self.settled}
