"""How the graph TV / Cheeger estimators call their solver: scheme, weights, budgets.

An estimator's fit (and each of its check's fold solves) turns its
parameters into one call of :func:`semisvm.graph_tv.graph_tv` or
:func:`semisvm.graph_tv.graph_cheeger`: the default TV and hinge weights that
grow with the rows (two classes), the start and centring, the multi-class
TV scheme (``scheme="auto"``: the penalty iteration, kept when it settles,
else the augmented one, on the exact kernel where it may), the convex refit
after a label conflict, the fold solves' stop rule and Cheeger's ROF budget.
:class:`TVSchemeMixin` (TVRLS, TVSVM) and :class:`CheegerSolveMixin`
(CheegerRLS, CheegerSVM) hold these for the estimators, which give the solver
function as ``_graph_tv`` / ``_graph_cheeger``.
"""
from __future__ import annotations

import numpy as np

from semisvm import _tv_check, _tv_setup
from semisvm._threads import limit_api
from semisvm._validation import UNLABELED

# multi-class TV, scheme="auto": the penalty iteration's budget
PENALTY_BUDGET = 60
# ... and the smallest class it may leave, as a fraction of n / n_classes
PENALTY_MIN_SHARE = 0.25
# ... and its graph-ROF steps per outer iteration (warm started: inexact
# inner solves; measured on 5,000 clusters in 10 dimensions, 10 classes: the
# same 4.0% error in 22 outer iterations at 20 steps as in 30 at 200, ROF
# CPU 2.7 -> 0.5 s; the augmented iteration is sensitive to the inner
# accuracy and keeps rof_max_iter)
PENALTY_ROF_MAX_ITER = 20
# the default TV weight (two classes) is gamma = (n / TV_ROWS)^(2/d) (and
# TVSVM's hinge weight mu = 10 gamma), d the intrinsic dimension: measured on two moons (noise 0.15, 3
# labels per class, seeds 0-2), TVRLS with gamma = 1 has 1.9 / 2.0 / 10.7 %
# mean error at n = 300 / 600 / 1500, with gamma = n / 300 1.9 / 1.5 / 1.4 %;
# TVSVM (mu = 1, gamma = 1) 16.6 / 22.7 / 38 %, (mu = 10 n/300, gamma = n/300)
# 9.3 / - / 1.2 % (mu = 10, gamma = 2 at 600: 1.5 %)
TV_ROWS = 300.0

# the few-labels rule (an estimator's ``_few_labels_spread``, off for both TV
# estimators): start="auto", center="auto" (two classes) start from label
# spreading, centred at the median, when a class has at most this many labels
# (better on the tune part of bench/_suite.py, worse on its report part; two
# moons with 1,500 rows and 3 labels per class: 10.4 -> 4.0% mean error)
FEW_LABELS = 3

# the convex refit after a label conflict: gamma x 0.01 (and the hinge weight
# mu x 10); measured on the digits demo, TV-RLS: gamma 0.003 / 0.01 / 0.03 ->
# 17.0 / 12.6 / 12.7% test error; TV-SVM gamma 0.01: mu 1 -> 19.1%, mu 10 -> 14.1%
CONVEX_GAMMA = 0.01
CONVEX_MU = 10.0
# rof_max_iter="auto" of the Cheeger models above LOWRANK_MIN_SAMPLES rows
CHEEGER_ROF_MAX_ITER = 20
# ... and the graph-ROF steps per outer iteration of Cheeger's "auto" (more
# than two classes) and of the multi-class TV penalty iteration on more than
# SCALE_MIN_ROWS rows
# (semisvm._tv_check): 100k x 50, 10 classes, 10 labels per class: the same
# labels (CheegerRLS 1.90 %, TVRLS 1.76 %) and check gain at 10 steps as at
# 20, in 7-9 instead of 6-7 outer iterations, CPU 49 -> 36 s (CheegerRLS)
# and 39 -> 31 s (TVRLS)
SCALE_ROF_MAX_ITER = 10


TV_DEFAULTS_DOC = """
    Defaults: why the earlier ones failed off USPS, and the compromise
    (measured 2026-11-22; ``bench/bench_graph_tv_paper.py``; two moons: n = 200 /
    300, noise 0.05 / 0.1, seeds 0-2, one label per class, 12 draws; demo:
    ``semisvm demo``, sklearn digits {2,3,5} vs {6,8,9}, 20 labels, test
    error, supervised linear SVM 14.8%):

    * **Kernel width (two classes).** The median pairwise distance is far
      wider than a low-dimensional manifold (two moons: median 1.15, mean
      10-NN distance 0.19); the RKHS term ``lam/2 ||f||_H^2`` then only
      admits near-linear functions and the ADMM coupling ``f = g`` drags the
      TV iterate to a linear cut (TV-RLS: 11-26% error, TV of the found cut
      55 against 0.6 for the true one). Default ``s = min(median, 2 x mean
      distance to the n_neighbors-th neighbour)``: in high dimension
      (USPS 4 vs 9: ratio 0.58; digits: 0.54) this is still the median, so
      USPS is unchanged; on two moons it is median / 3 (TV-RLS: mean 0.3%,
      max 1.5% error; TV-SVM: mean 1.1%, one draw of 12 at 10%). Factor 1.5
      gave the same on two moons but 3.4-3.7% on USPS 4 vs 9 (2.4-2.8% at
      the median); factor 3 left two moons draws at 16-27%. Multi-class keeps
      the median: USPS {0,1,4,9} with one label per class went from 1.4% to
      17.5% error at median / 1.1.
    * **Weights that grow with the rows (two classes).** The TV weight
      gamma = 1 (and TVSVM's mu = 1) was found on 200-300 rows and on USPS;
      on two moons with 1,500 rows (noise 0.15, 3 labels per class) it left
      TVRLS at 10.7% and TVSVM at 38% mean error. Measured on moons with 3
      labels per class (seeds 0-2; TVRLS / TVSVM): the TV and hinge weights
      have to grow in proportion to n against the RKHS term and the
      splitting penalties r1, r2 (the normalised iteration carries the
      labels a bounded distance along the graph per iteration: on more rows
      it stops before they reach the far end of a moon). Scaling the RKHS
      weight lam instead (lam x n/300 or / (n/300)) did not help (10.9% /
      11.7%); gamma = n/300 with eta fixed: 1.9 / 1.5 / 1.4% at n = 300 /
      600 / 1500; TVSVM with gamma = n/300, mu = 10 n/300: 9.3 / 1.5 / 1.2%.
      How far the labels must travel, in graph hops, grows like n^(1/d)
      for an intrinsic dimension d; measured, the weights must grow like
      (n/300)^(2/d): two moons (d = 2.0) need the full n/300, while on the
      ``semisvm demo`` digits (d = 7.4, n = 718) gamma = n/300 = 2.4 raised
      TVSVM's test error from 14.6% to 20.1% and (n/300)^(2/7.4) = 1.3
      keeps it near gamma = 1. Defaults: ``s = (n / 300)^(2 / max(d, 2))``
      with d the Levina-Bickel estimate from the 10 nearest neighbours
      among at most 1,000 evenly spaced rows (``intrinsic_dim_``; the same
      with a user-given graph),
      ``gamma = s``, TVSVM ``mu = 10 s`` (two classes; more classes keep
      gamma = 0.3, mu = 1; the convex refit below keeps its weights of
      300 rows). Chosen on two moons and the demo digits, and checked on
      the binary sets of the tune part of ``bench/_suite.py``; the paper
      bench passes gamma = 1, mu = 1.
    * **eta = 10 (two classes, was 1).** Two moons n = 200, noise 0.1: eta
      = 1 left a draw at 9% error, eta = 10 at 0%; USPS 4 vs 9 (2 draws,
      1/5/10/50 labels): TV-RLS 2.45/2.41/2.39/2.83% -> 2.45/2.47/2.75/2.80%.
    * **Labels against the graph's cut (conflict_tol).** The normalised
      iteration (sphere + mean removal: a ratio-cut balance) finds the
      graph's natural balanced cut and the labels only choose its side.
      When the classes are unions of clusters (the demo: each class three
      digits) that cut is not the class boundary: it splits off digit 6
      alone (TV 30 against 288 for the true partition), contradicting
      15-20% of the labeled rows, and no (gamma, eta, lam) fixes it without
      breaking two moons (gamma = 0.1, eta = 100: demo 9.5% but two moons
      34%). Hence the data-driven rule: when the normalised fit contradicts
      more than ``conflict_tol`` of the labels, refit the convex problem
      with a weak TV term (gamma x 0.01; TVSVM mu x 10), where the labels
      and the kernel lead: demo 33.7% -> 12.6% (TV-RLS), 33.6% -> 14.1%
      (TV-SVM); LapSVM gets 8.8% there. The convex refit alone is not a
      default: with one label per class its TV solution is nearly constant
      and the sign is a coin flip (two moons: 0% or 50%).
"""


class TVSchemeMixin:
    """The solve of a TV fit (TVRLS, TVSVM): ``_graph_tv`` is the solver."""

    _scheme_choice = True
    # the solver takes a warm start (safe=True's folds: _tv_check's
    # SAFE_WARM_START; a grid's fits on a shared graph: _tv_setup's
    # GRID_WARM_START)
    _warm_starts = True

    def _default_weights(self, n):
        """``(gamma, mu)`` of this fit: the given values, or the defaults.

        Two classes: ``gamma = s`` and (TVSVM) ``mu = 10 s`` with ``s = (n /
        TV_ROWS)^(2 / max(d, 2))``, d the rows' intrinsic dimension
        (``intrinsic_dim_``):
        1 and 10 on ``TV_ROWS`` = 300 training rows; the TV and hinge weights
        grow with the rows against the RKHS term and the splitting penalties
        (see "Defaults"). More classes: ``gamma = 0.3``, ``mu = 1`` (USPS
        {0, 1, 4, 9}).
        """
        binary = self.classes_.shape[0] == 2
        d = getattr(self, "intrinsic_dim_", None)
        # the growth with n: (n / TV_ROWS)^(2 / d) for an intrinsic
        # dimension d >= 2 (two moons: d ~ 2, n / TV_ROWS; digits: d ~ 7,
        # about the cube root)
        s = (n / TV_ROWS) ** (2.0 / max(d, 2.0) if d else 1.0)
        gamma = self.gamma
        if gamma is None:
            gamma = s if binary else 0.3
        mu = self.mu
        if mu is None:
            mu = 10.0 * s if binary else 1.0
        return gamma, mu

    def _auto_fallback(self, *args):
        # the held-out folds have fewer labels per class than the fit: they
        # solve with the fit's start and centring (as measured on the tune
        # part), not with the ones "auto" would choose for their labels
        self._pinned_start_center = self._fit_start_center
        try:
            return super()._auto_fallback(*args)
        finally:
            del self._pinned_start_center

    def _start_center(self, y, binary):
        """``start`` and ``center`` of this fit: "auto" is ("zero", "mean");
        with ``_few_labels_spread`` on (off in both TV estimators) ("spread",
        "median") for two classes when a class has at most FEW_LABELS
        labels."""
        for name, ok in (("start", ("zero", "spread")), ("center", ("mean", "median"))):
            v = getattr(self, name)
            if not (isinstance(v, str) and v in ok + ("auto",)):
                raise ValueError(f"{name} must be 'auto', {ok[0]!r} or {ok[1]!r}, "
                                 f"got {v!r}")
        few = (binary and self._few_labels_spread
               and np.bincount(y[y != UNLABELED]).min() <= FEW_LABELS)
        start = self.start if self.start != "auto" else ("spread" if few else "zero")
        center = self.center if self.center != "auto" else ("median" if few else "mean")
        return start, center

    def _solve(self, K, W, y, Z=None, nugget=0.0):
        gamma, mu = self._default_weights(y.shape[0])
        binary = self.classes_.shape[0] == 2
        eta = self.eta
        if eta is None:
            # USPS {0,1,4,9}, one label per class: eta = 1 left a draw at 37%
            # error (4s and 9s merged), eta = 10 gave 1.4% on both draws;
            # two moons (n = 200, noise 0.1, one label per class): eta = 1
            # left one draw of 12 at 9% error, eta = 10 at most 2%
            eta = 10.0
        # [NP] the two-class TV folds (safe="auto"'s; safe=True's model
        # folds too unless _tv_check.SAFE_TV_FOLD_MAX_ITER_TWO is set, off
        # by default) keep the fit's stop rule: the
        # normalised two-class iteration may cycle (breast_cancer, tune part
        # of bench/_suite.py), and a fold stopped earlier (n_stable 5 or 8)
        # turned 5 (resp. 1) of 18 check decisions there, each for the worse
        stop_tol, n_stable = self._stop(y.shape[0], folds=not binary)
        # a large check fold's budget (_tv_check.FOLD_MAX_ITER_SCALE)
        budget = getattr(self, "_fold_budget", None)
        max_iter = self.max_iter if budget is None else min(self.max_iter, budget)
        # a safe=True fold fit of the model, two classes
        # (_tv_check.SAFE_TV_FOLD_MAX_ITER_TWO)
        safe_budget = self._safe_fold_max_iter(y.shape[0])
        if safe_budget is not None:
            max_iter = min(max_iter, safe_budget)
        kw = dict(loss=self._loss, lam=self.lam, eta=eta, r1=self.r1,
                  r2=self.r2, r=self.r, tol=stop_tol, n_stable=n_stable,
                  label_tol=self._label_tol(y.shape[0]), max_iter=max_iter,
                  rof_tol=self.rof_tol, rof_max_iter=self.rof_max_iter,
                  verbose=bool(self.verbose), Z=Z, nugget=nugget,
                  n_jobs=getattr(self, "_solve_n_jobs", self.n_jobs),
                  _cache=getattr(self, "_solve_cache", None),
                  _watch=getattr(self, "_fold_watch", None),
                  _init=getattr(self, "_fold_init", None),
                  # a fold with a budget counts as settled when it used it:
                  # no retry of its augmented solve (_tv_solvers.AUG_RETRY_R);
                  # nor a fold of a fit whose own retry did not settle
                  _retry=budget is None and not self._fit_retry_failed())
        if (getattr(self, "_safety_counterpart", False)
                and getattr(self, "_safety_setup", None) is not None):
            # a safe=True fold fit of the supervised counterpart (the check
            # reads its held-out labels as they come out of its own stop
            # rule): float32 products with the fold's features (a float32
            # copy of them, at most SAFE_COUNTERPART_SINGLE_MAX_BYTES)
            kw["_single"] = (not binary and Z is not None
                             and _tv_check.SAFE_COUNTERPART_SINGLE
                             and Z.dtype == np.float64
                             and Z.size * 4 <= _tv_check.SAFE_COUNTERPART_SINGLE_MAX_BYTES)
        else:
            kw["_held"] = getattr(self, "_fold_held", None)
        if ((_tv_check.SAFE_COUNTERPART_DIRECT_MULTI if not binary
             else _tv_check.SAFE_COUNTERPART_DIRECT)
                and getattr(self, "_direct_counterpart", False) and gamma == 0
                and self.normalize is None
                and np.count_nonzero(y != UNLABELED)
                <= _tv_check.SAFE_COUNTERPART_DIRECT_MAX_LABELED):
            # a safe=True check's supervised counterpart (its fold fits and
            # the fit adopted where it falls back): the convex problem solved
            # directly on the labeled rows (_tv_check.SAFE_COUNTERPART_DIRECT;
            # more than two classes: one class against the rest,
            # SAFE_COUNTERPART_DIRECT_MULTI)
            kw["_direct"] = True
        # the check's fold solves (_auto_fallback) keep this fit's choice
        start, center = (getattr(self, "_pinned_start_center", None)
                         or self._start_center(y, binary))
        self._fit_start_center = (start, center)
        res = self._solve_scheme(K, W, y, binary, kw, gamma=gamma, mu=mu,
                                 normalize=self.normalize, start=start,
                                 center=center)
        lab = y != UNLABELED
        self.label_conflict_ = float(np.mean(res.labels[lab] != y[lab]))
        self.refit_convex_ = False
        if (self.conflict_tol is not None and self.normalize is not None
                and self.label_conflict_ > self.conflict_tol):
            # [NP] the normalised (balanced-cut) iterate contradicts the
            # labels: the graph's natural cut is not the class boundary
            # (classes that are unions of clusters). Refit the convex
            # problem with a weak TV term, where the labels and the kernel
            # lead (sklearn digits {2,3,5} vs {6,8,9}, 20 labels: the
            # normalised fit mislabels 15-20% of the labeled rows, 34% test
            # error; the refit 13-14%, supervised linear SVM 14.8%)
            self.refit_convex_ = True
            # the convex problem's weights do not grow with n (its labels
            # and kernel lead; measured with gamma = mu = 1 as the base)
            g0 = 1.0 if self.gamma is None and binary else gamma
            mu0 = 1.0 if self.mu is None and binary else mu
            res = self._graph_tv(K, W, y, gamma=CONVEX_GAMMA * g0,
                                 mu=CONVEX_MU * mu0, normalize=None,
                                 **dict(kw, _init=None, _held=None))
        return res

    def _fit_retry_failed(self):
        """Whether this solve is a safe="auto" check's fold of a fit whose
        augmented solve ran into ``max_iter`` and whose retry at
        ``_tv_solvers.AUG_RETRY_R`` times r did not settle either: its folds
        (the same table, fewer labels) then skip the retry. Measured on the
        low-dimensional tables of the fresh part of bench/_suite.py (where
        the retry never settles) and ``make_gaussian_quantiles``: see
        bench/RESULTS.md, "The augmented retry's cost bounded"."""
        if not getattr(self, "_fold_solve", False):
            return False
        res = getattr(self, "result_", None)
        return (res is not None and res.status == "max_iter"
                and res.n_iter_retry > 0)

    def _penalty_rof_steps(self, n):
        """The multi-class penalty iteration's ROF steps: PENALTY_ROF_MAX_ITER,
        SCALE_ROF_MAX_ITER on more than SCALE_MIN_ROWS rows."""
        return (SCALE_ROF_MAX_ITER if n > _tv_check.SCALE_MIN_ROWS
                else PENALTY_ROF_MAX_ITER)

    def _solve_scheme(self, K, W, y, binary, kw, **weights):
        """The multi-class splitting scheme (``scheme``; two classes: the
        one binary iteration)."""
        scheme = self.scheme
        if scheme not in ("auto", "augmented", "penalty"):
            raise ValueError("scheme must be 'auto', 'augmented' or 'penalty', "
                             f"got {scheme!r}")
        if binary or scheme != "auto" or kw.get("_direct"):
            # (a direct solve, _tv_check.SAFE_COUNTERPART_DIRECT_MULTI: no
            # splitting scheme)
            return self._graph_tv(K, W, y, scheme=("augmented" if binary or scheme == "auto"
                                                   else scheme),
                            **weights, **kw)
        # [NP] the penalty iteration first, kept when it settled within
        # PENALTY_BUDGET iterations, its kernel fit agrees with the labels
        # (at most conflict_tol of them contradicted) and no class collapsed
        # (each holds at least PENALTY_MIN_SHARE of an even share n / c of
        # the rows); else the augmented iteration from the start. Measured:
        # 5,000 clusters in 10 dimensions (10 classes, 10 labels each) kept
        # (30 iterations, 4.0% error; augmented: 300, 16-17%); USPS {0,1,4,9}
        # 10 labels per class: the penalty iteration settles with class 4
        # reduced to 30 of 4,495 rows (19% error) -> augmented (1.6%); with
        # 60 features (50 of them noise) it does not settle -> augmented
        res = self._graph_tv(K, W, y, scheme="penalty", **weights, **dict(
            kw, max_iter=min(kw["max_iter"], PENALTY_BUDGET),
            rof_max_iter=min(kw["rof_max_iter"], self._penalty_rof_steps(y.shape[0]))))
        tol = 0.1 if self.conflict_tol is None else self.conflict_tol
        c = self.classes_.shape[0]
        share = np.bincount(res.labels, minlength=c).min() / (y.shape[0] / c)
        # (a large check fold that used its budget counts as settled)
        budget = getattr(self, "_fold_budget", None)
        settled = res.converged or (budget is not None and res.n_iter >= budget)
        # (a fold with the mid-size budget keeps the fit's scheme, the
        # penalty iteration: _tv_check.TV_MID_FOLD_MAX_ITER)
        mid = (budget is not None
               and _tv_check._mid_budget(y.shape[0], self) is not None)
        if settled and (mid or (res.label_conflict <= tol
                                and share >= PENALTY_MIN_SHARE)):
            return res
        if kw["Z"] is not None and getattr(self, "_exact_rows", None) is not None:
            # [NP] the augmented iteration needs the exact kernel (with 500
            # landmarks: USPS {0,1,4,9} 72 / 12% error for 1 / 10 labels per
            # class, exact 1.4 / 1.6%): built once per fit (the check's
            # folds reuse it)
            if self._exact_K is None:
                # (the guard's LapRLS fit beside this solve, if any, is
                # waited for first: building the kernel enters warnings
                # filters of its own, which must not interleave with that
                # thread's; its outcome is read after the solve, as before)
                pending = getattr(self, "_guard_pending", None)
                if pending is not None:
                    pending.exception()
                with limit_api(1, "blas"):
                    self._exact_K = self._kernel(self._exact_rows)
            kw = dict(kw, Z=None, nugget=0.0)
            K = self._exact_K
        # (from the start: a warm start was the penalty iteration's; the
        # held-out stop of a safe=True fold is the penalty iteration's only:
        # an augmented iteration stopped on it would be kept unsettled)
        return self._graph_tv(K, W, y, scheme="augmented", **weights,
                              **dict(kw, _init=None, _held=None))


class CheegerSolveMixin:
    """The solve of a Cheeger fit (CheegerRLS, CheegerSVM): ``_graph_cheeger``
    is the solver."""

    def _solve(self, K, W, y, Z=None, nugget=0.0):
        # the ratio's stop tolerance stays: it also gates "no_improvement"
        _, n_stable = self._stop(y.shape[0])
        # a large check fold's budget (_fold_max_iter)
        budget = getattr(self, "_fold_budget", None)
        max_iter = self.max_iter if budget is None else min(self.max_iter, budget)
        return self._graph_cheeger(K, W, y, Z=Z, nugget=nugget, loss=self._loss,
                                   lam=self.lam, mu=self.mu,
                                   r=self.r, c=self.c, balance=self.balance,
                                   start=self.start,
                                   normalize=self.normalize,
                                   tol=self.tol, n_stable=n_stable,
                                   label_tol=self._label_tol(y.shape[0]),
                                   max_iter=max_iter, rof_tol=self.rof_tol,
                                   rof_max_iter=self._rof_max_iter(y.shape[0]),
                                   verbose=bool(self.verbose),
                                   n_jobs=getattr(self, "_solve_n_jobs", self.n_jobs),
                                   _cache=getattr(self, "_solve_cache", None),
                                   _held=getattr(self, "_fold_held", None))

    def _fold_max_iter(self, n, watch):
        """The outer iterations a safe="auto" fold solve on n rows may take,
        for more than two classes (its held-out rows ``watch`` given, see
        ``_watch_rows``): ``_tv_check.FOLD_MAX_ITER_SCALE`` on more than
        ``_tv_check.FOLD_BUDGET_MIN_ROWS`` rows, else
        ``_tv_check.CHEEGER_FOLD_MAX_ITER`` on more than
        ``_tv_check.CHEEGER_FOLD_BUDGET_MIN_ROWS``, else
        ``_tv_check.CHEEGER_MID_FOLD_MAX_ITER`` on more than
        ``_tv_check.MID_FOLD_BUDGET_MIN_ROWS``; else None (its stop rule
        alone). The ratio loop has no scheme for a fold to disagree with
        (TV: see ``TVCheckMixin._fold_max_iter``). Measured on the problem of
        bench/bench_graph_tv_scale.py (10 classes, 10 labels per class, 50
        features), held-out rows right of 50 per fold at each outer iteration
        (| the budget): 300k rows 15 28 41 47 | 38 49 49 49 and 11 25 38 46 |
        46 48 48 48 (97 -> 93 of 100, the fit's own error 1.57 %); 1M rows
        (CheegerRLS, n_jobs=2, load 7-11): folds of 9 + 8 iterations -> 4 + 4,
        the check 96 -> 90 of 100 against the SVC's 80 (kept), 587 -> 545 CPU
        s, the same fit (1.82 % error). 100k rows: see
        ``_tv_check.CHEEGER_FOLD_MAX_ITER``."""
        if watch is None:
            return None
        if n > _tv_check.FOLD_BUDGET_MIN_ROWS:
            return _tv_check.FOLD_MAX_ITER_SCALE
        if n > _tv_check.CHEEGER_FOLD_BUDGET_MIN_ROWS:
            return _tv_check.CHEEGER_FOLD_MAX_ITER
        return _tv_check._mid_budget(n, self)

    def _mid_fold_budget(self):
        """The Cheeger pair's mid-size fold budget for this fit's classes
        (``_tv_check.CHEEGER_MID_FOLD_MAX_ITER``, two classes:
        ``_tv_check.CHEEGER_MID_FOLD_MAX_ITER_TWO``)."""
        return (_tv_check.CHEEGER_MID_FOLD_MAX_ITER if self.classes_.shape[0] > 2
                else _tv_check.CHEEGER_MID_FOLD_MAX_ITER_TWO)

    def _rof_max_iter(self, n):
        """rof_max_iter="auto": CHEEGER_ROF_MAX_ITER steps per ROF solve above
        LOWRANK_MIN_SAMPLES rows (more than two classes above SCALE_MIN_ROWS:
        SCALE_ROF_MAX_ITER), 200 up to it."""
        m = self.rof_max_iter
        if isinstance(m, str):
            if m != "auto":
                raise ValueError(f"rof_max_iter must be 'auto' or an int, got {m!r}")
            if n > _tv_check.SCALE_MIN_ROWS and self.classes_.shape[0] > 2:
                return SCALE_ROF_MAX_ITER
            return CHEEGER_ROF_MAX_ITER if n > _tv_setup.LOWRANK_MIN_SAMPLES else 200
        return m
