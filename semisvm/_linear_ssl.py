"""TSVM (§3.1) and DA-S3VM (§3.2): the semi-supervised linear solvers.

The solver functions :func:`tsvm` (transductive SVM with multiple switching)
and :func:`da_s3vm` (deterministic annealing), their shared problem object
(the MFN calls over a rows backend) and the default regularisation
:func:`default_lam`. :mod:`semisvm.linear` holds the estimators and
re-exports these functions; the MFN outer loop and the rows backends they
drive are :mod:`semisvm._rows` (in memory) and :mod:`semisvm._distributed`
(row blocks on Dask). The algorithm, the objectives and the measurements
behind the defaults:

Semi-supervised linear SVMs (§3)
--------------------------------
Both build on L2-SVM-MFN (:func:`semisvm._rows.run_mfn`) with two-sided
per-row costs, so no row of X is ever copied:

* **TSVM with multiple switching** (§3.1). Minimises, over w and the
  temporary labels y_j of the unlabeled rows under the class balance
  ``#{j : y_j = +1} = round(r u)``,

  ``lam/2 ||w||^2 + 1/(2l) sum_L c_i l2(y_i o_i) + lam_u/(2u) sum_U l2(y_j o_j)``

  with ``l2(z) = max(0, 1 - z)^2``; minimising over the labels without the
  balance gives the label-free loss ``l2(|o_j|)``. A labeled-only MFN gives
  the first w; the round(r u) largest unlabeled outputs are labelled +1; the
  unlabeled weight is annealed from ``lam_u_init`` to ``lam_u`` by the factor
  ``lam_u_rate``; at each value a warm-started MFN and a switch of up to S
  label pairs (those that lower the objective most) alternate until no pair
  switch lowers it. On the unlabeled row j the MFN costs are
  ``cpos_j = lam_u/u`` (label +1) or ``cneg_j = lam_u/u`` (label -1).
* **DA-S3VM** (§3.2). At temperature T, minimises over w and p in [0, 1]^u
  with mean(p) = r

  ``lam/2 ||w||^2 + 1/(2l) sum_L c_i l2(y_i o_i)
  + lam_u/(2u) sum_U [p_j l2(o_j) + (1 - p_j) l2(-o_j)]
  + T/(2u) sum_U [p_j log p_j + (1 - p_j) log(1 - p_j)]``

  by alternating a w-step (one warm-started MFN with
  ``cpos_j = lam_u p_j / u``, ``cneg_j = lam_u (1 - p_j) / u``: each
  unlabeled row appears once) and the closed-form p-step
  (:func:`semisvm._core._ssl.da_pstep`) until the mean KL divergence between
  successive p is below ``kl_tol``; T starts at ``T0`` (default lam_u; the
  reference implementation: 10 lam_u) and is divided by ``T_rate``; annealing stops
  when the mean entropy of p, less the least one the balance allows when r u
  is not an integer, is below ``entropy_tol`` (the reference implementation
  compares the raw entropy and so often runs all its temperatures). The w
  with the lowest TSVM objective (label-free form) seen after any w-step is
  returned, with the p-step's answer to it.

**DA's iteration count** (``relax``, ``newton_steps``, ``kl_tol``, ``T0``;
``bench/bench_linear_tsvm_small.py``). With the reference settings g50c (550 x 50) took 15 temperatures,
155 rounds and 255 Newton iterations per fit: over half of the rounds at
the 3-4 temperatures of the phase transition (T ~ 0.4-1.3 lam_u), where the
alternation contracts slowly (the KL between successive p stalls near 1e-5
for tens of rounds while p drifts one way), each round an exact MFN solve
(1.6 Newton steps). Four changes, each keeping the alternation a method for
the same fixed points: (1) one Newton step per w-step (``newton_steps=1``;
a Newton step with line search lowers the DA objective, and once p stops
moving the active set settles and the step is the exact solve, so the end
point is the same); (2) over-relaxed p-steps within a temperature
(``relax=1.5``: logits ``z = (1 - omega) z_old + omega (g - nu) / T``, nu
again such that mean(p) = r; a fixed point of one is a fixed point of the
other; 2 oscillated); (3) ``kl_tol`` 1e-5: the p-part of the DA objective's
excess is ``T/2`` times the mean KL to the optimal p, so 1e-5 at T <= lam_u
is below 5e-6 lam_u in objective, and the drift a looser test leaves at
one temperature continues at the next; (4) T0 = lam_u: the temperatures above it
only move p by KL ~ 1e-3 around r (the docstring's bound |g_j| <= 4 lam_u
|o_j|), and T0 in {1, 10, 100} lam_u ended in the same solutions. At
the last temperature, once p has settled after a partial w-step, one more
round with the whole w-step ends the annealing on an MFN optimum. g50c: 69
MFN calls, 72 Newton iterations (3.5x fewer, 2.9x less CPU); held-out data
(``bench/bench_linear_defaults.py``, 6 sets x 6 draws): 134.5 -> 64.8 MFN calls,
234 -> 68 Newton iterations, error 17.25 -> 17.14 %, objective +0.007 %;
one-vs-rest (3 sets x 6 draws): 161 -> 57 iterations, error 21.12 ->
20.94 %, objective +0.16 % (one Newton step per w-step lands a few class
problems in another local minimum; ``newton_steps=2`` keeps the objective,
-0.008 %, at 90 iterations, but its error was 21.30 %). Anderson
acceleration of the logits (depth 1-3) did worse than (2); capping the
rounds per temperature or ``kl_tol`` 1e-4 cost 0.5-1 % in objective.

**Cost per MFN call** (``inner_tol``). Most switching rounds change a few
labels and most alternating rounds move p a little; solving each of those
warm-started MFN problems to the CGLS tolerance ``tol`` is where the
reference implementation spends its time (about 11 CGLS iterations per call
on a 30,000-row text-like problem). Here TSVM's rounds at one unlabeled
weight lam_u' go through three tiers, each left for the next when a round
switches nothing: (1) CGLS to ``inner_tol * lam_u' / lam_u`` (the unlabeled
part of the right-hand side grows with lam_u', so does the tolerance),
(2) one inexact Newton step (CGLS until its residual fell tenfold from the
seeded start, then the line search), (3) MFN to ``tol``. Intermediate
weights of the annealing end after tier (1); the final weight ends, as in
the paper, on an exact solve whose switching check finds nothing. DA's
w-steps all use ``inner_tol``. Each call starts from the outputs and the
CG setup sums (X_J'At, the preconditioner's diagonal, the residual) where
the last one ended, brought up to date for the rows whose costs changed
(:class:`semisvm._rows.LocalRows`: TSVM's switched pairs; DA's p-step
moves every unlabeled row's target but, inside the margin, not its weight,
so one blocked pass of a third of a setup pass's work does it: 200,000
text-like rows, DA 10.4 -> 9.0 CPU s, the same iterations and labels). Every MFN step, exact or not, lowers the
objective (CGLS iterates lower the quadratic model, the line search the
true objective), so each round still lowers the TSVM (resp. DA) objective
and every switch is tested on the outputs of the w it applies to. On that
30,000-row problem: TSVM 129 MFN calls / 1027 CGLS iterations -> 86 / 254,
DA 254 / 2156 -> 131 / 285, final objectives within 0.03 %. On large
problems the last rounds at each weight switch a few pairs each, every one
at the cost of a whole solve: ``switch_tol`` (1e-4) counts a round that
switches at most ``switch_tol * u`` pairs as one that switches none (the
final weight solves once more for them), which leaves fewer than 10,000
unlabeled rows untouched and took 200,000 text-like rows (1 % labeled)
from 72 to 50 MFN calls at an objective 5.7e-6 higher. At the
intermediate weights the loose tier solves to ``inner_tol`` itself (not
scaled down by lam_u' / lam_u; their solves only lead the labels to the
final weight), and at every weight the inexact Newton tier's CGLS stops
once its residual fell twofold (``NEWTON_FORCING_SCALE``, not tenfold).
1,000,000 text-like rows: 53 MFN calls / 124 CG iterations -> 43 / 78;
200,000: 50 / 129 -> 40 / 79. ``MID_SWITCH`` (default 1, off) would also
end an intermediate weight on a round switching at most that many times
``int(switch_tol * u)`` pairs: 100 (0.5-1 % of the unlabeled rows) took
1,000,000 rows to 31 / 75 and 200,000 to 29 / 73, but it ends the weights
on other local minima of the TSVM objective, on noisy problems often
higher: sparse planted-direction rows with label noise, 1 % labeled,
relative to the default, 12,000 rows up to +1.6e-2 (mean +6.7e-3, three
seeds), 20,000 rows -4.1e-3..+2.2e-3 (four seeds), 4,000 rows with
switch_tol shrunk +1.7e-3..+1.6e-2 (six seeds). Factors 10, 5, 3 and 2
still moved single seeds up by 2e-3 to 9e-3 (2: by 2.3e-2 on a 3,000-row
problem) and keep none of the 200,000-row gain (10: 40 / 79), so it is
off. Below 10,000 unlabeled rows nothing changes.

**DA at scale** (``kl_tol="auto"``, ``inner_tol="auto"``). From 10,000
unlabeled rows on, each temperature stops at a mean KL of 1e-4 (not
1e-5) and the w-steps' CG tolerance is 1e-3 times ``min(10, max(1, 30
T / lam_u))`` (1e-2 down to T = lam_u / 3, 1e-3 from T = lam_u / 30
on). At 200,000 text-like rows the rounds that take the KL from 1e-4 to
1e-5 were 21 of 72 MFN calls and left the objective within 3e-8; on
small sets the same settings cost up to 0.4 % in objective (3,000 sparse
rows), hence the switch by size. Below it the arithmetic is the former
one, so the papers' sets and the held-out suite are untouched. At scale
the settled test (``settled``) also counts temperatures of several rounds
that did not lower the best objective once p has nearly committed (mean
entropy below 1e-2 nats; the same best point, fewer temperatures).
Loosening the KL test at hot temperatures as the w-steps' tolerance
(``KL_HOT``, off) took 1,000,000 text-like rows further (51 MFN calls / 88
CG iterations -> 38 / 80 with the settled rule) but ended noisy problems
0.3-2 % higher in objective.

**Threads** (``n_jobs``). Besides the passes over the rows, the steps
over the unlabeled rows -- the switching round's bounds and candidates
(each block's sorted, the first S of all merged), DA's g, balance root
evaluations and new p, the label costs, the objectives' terms and pairwise
sums, the copies of the reused outputs -- run on the ``n_jobs`` threads in
fixed blocks of 8192 unlabeled rows (:mod:`semisvm._core._ssl`), so the
bits do not depend on the thread count; up to 8192 unlabeled rows (the
papers' sets, the held-out suite) the arithmetic is the former one, bit for
bit. 1,000,000 text-like rows (1 % labeled), the samples of the main
thread beyond the worker's at ``n_jobs=2`` (the share that runs on one
thread): DA 25.6 -> 10.4 %, TSVM 15.0 -> 12.9 % (the rest: the MFN
loop's own steps); 200,000 rows: TSVM the same bits, DA the same labels
and its objective within one rounding (the balance root's sums by block).

**Continuation in lam** (``lam_factor``, off by default): the annealing
runs at ``lam_factor * lam`` and lam then comes down to its value (TSVM:
after lam_u is reached, by ``lam_u_rate`` per step with switching rounds
at each value, the intermediate ones on the loose tier; DA: divided by
``T_rate`` per temperature, T held once the entropy is small, the kept
point the best one at lam itself). Every step still lowers the objective
of its own lam, and the result is a local minimum (TSVM) or kept point
(DA) of the objective at ``lam``. It reaches other local minima, better
on Gaussian clusters (g50c) but on average slightly worse on held-out data
(``bench/bench_linear_defaults.py``), hence off.

Constants follow the authors' SVMlin release (lam_u = 1, rates 1.5,
T0 = 10 lam_u, 30 temperatures, 100 inner rounds, tolerances 1e-6), except
TSVM's ``lam_u_init`` (1e-2, not 1e-5: see :func:`tsvm`), DA's T0
(lam_u), ``kl_tol`` (1e-5) and iteration options (above), and ``lam``: its default ``"auto"`` is ``0.003 mean ||x_i||^2``
(:func:`default_lam`: scale-invariant like SVM-light's C rule, chosen on
held-out binary and one-vs-rest data) where SVMlin's 0.001 assumes
unit-norm rows.
"""
from __future__ import annotations

import logging

import numpy as np
import scipy.sparse as sp
from scipy.special import xlogy

from semisvm._results import DAResult, TSVMResult
from semisvm._rows import (
    FLOAT32_TOL,
    LocalSSL,
    check_mfn_memory,
    n_threads,
    run_mfn,
)
from semisvm._threads import follows_n_jobs
from semisvm._validation import (
    check_fraction,
    check_int,
    check_positive,
    check_X,
    is_dask,
)

__all__ = ["LAM_SCALE", "da_s3vm", "default_lam", "tsvm"]

logger = logging.getLogger("semisvm")


# ---------------------------------------------------------------------------
# TSVM (§3.1) and DA-S3VM (§3.2)

_MFN_MAX_ITER = 2
# DA: a temperature whose one round left the TSVM objective within this
# (relative) of the last temperature's has settled
_SETTLED_RTOL = 1e-9
#: DA's ``kl_tol="auto"`` and ``inner_tol="auto"`` (see :func:`da_s3vm`):
#: below DA_SCALE_ROWS unlabeled rows KL_TOL and INNER_TOL; from there on
#: KL_TOL_SCALE, and INNER_TOL times min(HOT_FACTOR, max(1, HOT_SLOPE T /
#: lam_u)) at temperature T
KL_TOL = 1e-5
KL_TOL_SCALE = 1e-4
INNER_TOL = 1e-3
HOT_FACTOR = 10.0
HOT_SLOPE = 30.0
DA_SCALE_ROWS = 10_000
#: DA at scale: a temperature that did not lower the best objective counts as
#: settled once the mean entropy of p (less the least the balance allows) is
#: below this (nats)
STALL_ENTROPY = 1e-2
#: DA at scale: loosen the KL test of ``kl_tol="auto"`` at hot temperatures
#: as the w-steps' tolerance (1e-3 down to T = lam_u / 3). Off: it took
#: 1,000,000 text-like rows from 51 to 38 MFN calls (with STALL_ENTROPY) at
#: the same objective, but on noisy sparse problems (12,000-20,000 rows,
#: planted direction plus label noise, 1 % labeled) DA ended 0.3-2.0 %
#: higher in objective (five problems; STALL_ENTROPY alone: the same
#: objectives as without it)
KL_HOT = False
#: TSVM: a switching round at an intermediate weight of the annealing that
#: switches at most MID_SWITCH times ``int(switch_tol * u)`` pairs (none
#: below 1 / switch_tol unlabeled rows) ends that weight. 1 (off): the
#: intermediate weights end on switch_tol as the final one; larger factors
#: (100: 0.5-1 % of the unlabeled rows) take fewer MFN calls but end on other,
#: on noisy problems often higher, local minima (module docstring)
MID_SWITCH = 1
#: TSVM at scale (``int(switch_tol * u) > 0``): the forcing factor of the
#: inexact Newton steps of the switching rounds (0.1 below)
NEWTON_FORCING_SCALE = 0.5


class _Problem:
    """The parameters of one TSVM / DA fit and its rows backend.

    The loops of :func:`tsvm` and :func:`da_s3vm` reach the rows only through
    ``self.ssl``: a :class:`semisvm._rows.LocalSSL` (in memory) or a
    :class:`semisvm._distributed.DaskSSL` (row blocks on a Dask cluster),
    which take the same steps through the same methods. In memory the loops
    hold the outputs o, temporary labels yu and DA's p, z and pass them to
    each step; on a cluster they stay on the workers and the loops hold None.
    This object adds the MFN calls (counted here) and the current ``lam``.
    """

    def __init__(self, X, y, costs, lam, lam_u, r, fit_intercept,
                 intercept_scaling, tol, rel_tol, max_iter, cg_max_iter,
                 n_jobs=None):
        nt = n_threads(n_jobs)
        if is_dask(X):
            from semisvm._distributed import DaskSSL
            self.ssl = DaskSSL.load(X, y, costs)
        else:
            self.ssl = LocalSSL(X, y, costs, n_threads=nt)
        ssl = self.ssl
        self.rows = ssl.rows
        self.n, self.d, self.dtype = ssl.n, ssl.d, ssl.dtype
        self.l, self.u = ssl.l, ssl.u
        self.lam = check_positive(lam, "lam")
        self.lam_u = check_positive(lam_u, "lam_u", allow_zero=True)
        self.s = (check_positive(intercept_scaling, "intercept_scaling")
                  if fit_intercept else 0.0)
        ssl.set_bias(self.s)
        tol = check_positive(tol, "tol")
        if self.dtype == np.float32:
            # as l2svm_mfn: float32 cannot resolve CGLS residuals much lower
            tol = max(tol, FLOAT32_TOL)
        self.mfn_kw = {
            "tol": tol,
            "rel_tol": check_positive(rel_tol, "rel_tol", allow_zero=True),
            "max_iter": check_int(max_iter, "max_iter"),
            "cg_max_iter": check_int(cg_max_iter, "cg_max_iter"),
            # few features: exact Newton steps by Cholesky (see l2svm_mfn)
            "direct": ssl.use_direct(),
        }
        self.n_mfn = self.n_iter = self.n_cg = 0
        self.mfn_capped = self.last_capped = False
        self.r = ssl.positive_fraction() if r is None else check_fraction(r, "r")
        check_mfn_memory(0, self.d, self.dtype)
        self.w = np.zeros(self.d + 1, dtype=self.dtype)

    def mfn(self, cold_start, verbose, label, tol=None, max_iter=None,
            forcing=0.1):
        """One MFN call from the current w (updated in place); return outputs
        (None on a cluster: they stay on the workers).

        ``tol`` overrides the CGLS tolerance for this call (a looser one for
        the intermediate solves of the switching/alternating loops);
        ``"newton"``: one inexact Newton step (CGLS until its residual fell
        by the factor ``forcing`` from the seeded start, max_iter 1).
        ``max_iter``: a cap on the MFN iterations of this call (a partial
        w-step; hitting it is not reported as ``mfn_max_iter``).
        """
        kw = self.mfn_kw
        newton = tol == "newton"
        if newton:
            # one inexact Newton step: CGLS stops once its residual fell by
            # the forcing factor from the seeded start (the core's cold-start
            # rule), then the line search
            kw = dict(kw, max_iter=1, forcing=forcing)
            cold_start = True
        elif tol is not None and tol > kw["tol"]:
            kw = dict(kw, tol=tol)
        capped = max_iter is not None and max_iter < kw["max_iter"]
        if capped:
            kw = dict(kw, max_iter=max_iter)
        out = run_mfn(self.rows, self.lam, self.w, cold_start=cold_start,
                      verbose=verbose, label=label, **kw)
        n_iter, n_cg, status = out[:3]
        self.n_mfn += 1
        self.n_iter += int(n_iter)
        self.n_cg += int(n_cg)
        # a partial w-step that stopped short of the MFN optimum
        self.last_capped = capped and status == _MFN_MAX_ITER
        if not (newton or capped):
            self.mfn_capped |= status == _MFN_MAX_ITER
        return None if self.ssl.distributed else self.rows.outputs()

    def objective(self, w, o, lam_u):
        """TSVM objective (label-free unlabeled loss l2(|o_j|)) at this lam."""
        return self.ssl.objective(self.lam, w, o, lam_u)

    def label_objective(self, o, yu, cu):
        """TSVM objective with the temporary labels, unlabeled weight cu u."""
        return self.ssl.label_objective(self.lam, self.w, o, yu, cu)

    def da_objective(self, w, o, lam_u, p, T):
        """DA objective of (w, p) at temperature T, in float64."""
        return self.ssl.da_objective(self.lam, w, o, lam_u, p, T)

    def coef_intercept(self, w):
        return w[: self.d].copy(), float(self.s * w[self.d])


#: default ``lam`` per unit of the mean squared row norm (``lam="auto"``)
LAM_SCALE = 3e-3


def default_lam(X, lam="auto"):
    """Resolve ``lam="auto"`` to ``LAM_SCALE * mean_i ||x_i||^2`` (else ``lam``).

    Why: scaling the features by a multiplies the solution w by 1/a, so the
    regulariser must scale by a^2 for the outputs (and the labels found) to
    stay the same; SVM-light sets its default C to ``1 / avg(x.x)`` for that
    reason. Its ``1/2 ||w||^2 + C sum_L loss_i`` times lam is this
    objective's ``lam/2 ||w||^2 + 1/(2l) sum_L loss_i`` when
    ``lam C = 1/(2l)``, i.e. ``lam = avg(x.x) / (2l)``. As in SVMlin, lam is
    kept independent of l (the 1/l costs already normalise the labeled loss,
    and the MFN solves stay well conditioned at large l). On dense
    unnormalised data (pixels, Gaussian features: avg(x.x) from 50 to 4000)
    a fixed 0.001 is hundreds to thousands of times weaker than SVM-light's
    default and leaves 50 labels in 50+ dimensions almost unregularised,
    which hurt TSVM and most of all DA (g50c: 12 and 23 % error against
    SVM-light's 7 %).

    The constant, 0.003, is SVM-light's rule at l ~ 170 (at l = 50 the
    rule gives 0.01). It was chosen on held-out data only (never the
    pcmac/g50c/uspst splits of ``bench/bench_linear_tsvm.py``), with
    ``bench/bench_linear_defaults.py``: six binary sets (USPS training digits 0-4
    vs 5-9, MNIST 3 vs 8, scikit-learn digits 0-4 vs 5-9, a9a, isolet,
    kr-vs-kp; 50 random labels, 4000 rows at most) and three 10-class
    one-vs-rest sets (scikit-learn digits, USPS test, 2000 MNIST test
    digits; 5 labels per class). Mean error % on the unlabeled rows,
    TSVM / DA::

        LAM_SCALE   binary (3 draws)   one-vs-rest (2 draws)
        1e-3        17.10 / 17.02      20.67 / 20.63
        3e-3        16.98 / 16.72      21.14 / 21.18
        1e-2        17.95 / 17.75      22.17 / 25.46
        minority    17.68 / 17.49      20.92 / 20.78

    On the binary sets with 6 draws (seeds 0-5), 2e-3: 17.31 / 17.35,
    3e-3: 17.30 / 17.25, 5e-3: 17.60 / 17.31: flat around 0.003 (the
    spread between draws is about 1 point), then worse at 0.01.
    "minority" is ``0.02 avg(x.x) l_min / l``, l_min the smaller labeled
    class: 0.01 on a balanced split, keeping the regulariser at the same
    ratio to the minority class's labeled loss; it fixes one-vs-rest as
    well, but costs 0.7 points on the binary sets, so over all nine sets
    0.003 is better: DA 18.2 against 18.6 %.

    The one-vs-rest column is why 0.01 (SVM-light's rule at 50 labels,
    the previous default) was dropped: each one-vs-rest problem has about
    l/K positive labels, so the positive class carries 1/K of the labeled
    loss and the regulariser is K/2 times stronger against it than in a
    balanced binary problem; at 0.01 DA let that class shrink to the
    negative side (10-class digits 17.7 % error, MNIST 32.8 %, against
    12.3 % and 27.4 % at 0.003). Class-balanced labeled costs in
    one-vs-rest recovered part of that at 0.01 (DA 21.95 %) but did not
    beat 0.003 with unit costs (with balanced costs at 0.003: 20.94 /
    20.93 %, within the spread between draws), so they are not used.
    0.001 did slightly better on one-vs-rest and worse on binary sets;
    0.003 is the best compromise and the best binary value. The mean is
    over all rows (labeled and unlabeled, as SVM-light), without the bias
    feature; an all-zero X counts as unit norm.

    Parameters
    ----------
    X : {ndarray, sparse matrix, dask array} of shape (n_samples, n_features)
        All rows (labeled and unlabeled).
    lam : "auto" or float, default="auto"
        A float is returned unchanged.

    Returns
    -------
    float
        The regularisation weight.

    See Also
    --------
    TSVM, DASVM : Use it for ``lam="auto"`` (``lam_`` after ``fit``).

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.linear import LAM_SCALE, default_lam
    >>> X = np.array([[3.0, 4.0], [0.0, 5.0]])          # squared norms 25, 25
    >>> default_lam(X) == 25 * LAM_SCALE, default_lam(X, 0.1)
    (True, 0.1)
    """
    if isinstance(lam, str):
        if lam != "auto":
            raise ValueError(f'lam must be a number > 0 or "auto", got {lam!r}')
    else:
        return lam
    if is_dask(X):
        from semisvm import _distributed

        # one blockwise reduction; a non-finite block is reported by the load
        sq = _distributed.mean_sq_norm(X)
        if not np.isfinite(sq):
            sq = 1.0
        return LAM_SCALE * (sq if sq > 0 else 1.0)
    X = check_X(X)
    n = X.shape[0]
    if sp.issparse(X):
        v = X.data
    else:
        v = X.reshape(-1)
    # one BLAS dot (no copy; float32 accumulation is enough for a scale)
    sq = float(np.dot(v, v)) / n if n else 0.0
    return LAM_SCALE * (sq if sq > 0 else 1.0)


def _tiers(inner_tol, cur, lam_u):
    """CGLS tolerances of TSVM's switching rounds at unlabeled weight ``cur``:
    the loose one scaled by cur / lam_u, one inexact Newton step, then tol."""
    if inner_tol is None or lam_u == 0:
        return [None]
    return [inner_tol * cur / lam_u, "newton", None]


def _w_step_tol(inner_tol, hot, T, lam_u):
    """DA's w-step tolerance at temperature T: ``inner_tol``, times
    ``min(HOT_FACTOR, max(1, HOT_SLOPE T / lam_u))`` when ``hot``."""
    if not hot or inner_tol is None:
        return inner_tol
    return inner_tol * min(HOT_FACTOR, max(1.0, HOT_SLOPE * T / lam_u))


@follows_n_jobs
def tsvm(X, y, *, lam="auto", lam_u=1.0, r=None, S=10000, lam_u_init=1e-2,
         lam_u_rate=1.5, lam_factor=1.0, costs=None, fit_intercept=True, intercept_scaling=1.0,
         tol=1e-6, max_iter=50, cg_max_iter=10000, rel_tol=1e-9,
         max_inner_iter=10000, inner_tol=1e-2, switch_tol=1e-4, n_jobs=None,
         verbose=0) -> TSVMResult:
    r"""Linear transductive SVM with multiple label switching (TSVM, §3.1).

    Minimises, over w (the bias is a regularised constant feature
    ``intercept_scaling``, as in :func:`l2svm_mfn`) and the
    temporary labels y_j in {-1, +1} of the unlabeled rows with
    ``round(r u)`` of them +1,

    .. math::

        \frac{\lambda}{2}\|w\|^2 + \frac{1}{2l}\sum_{i\in L} c_i\,
        \ell_2(y_i o_i) + \frac{\lambda_u}{2u}\sum_{j\in U}\ell_2(y_j o_j),
        \qquad \ell_2(z) = \max(0, 1 - z)^2,

    a local minimum of the TSVM objective whose unlabeled loss is
    :math:`\ell_2(|o_j|)` under the class balance. See
    the module docstring for the algorithm.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        float32 or float64, dense or CSR (never copied or densified); or a
        dask array of row blocks, as in :func:`l2svm_mfn`
        (``labels``, ``outputs`` and ``unlabeled_index`` are then lazy dask
        arrays).
    y : array-like of shape (n_samples,)
        1 (positive) / 0 (negative) on the labeled rows, **-1 on the unlabeled
        rows** (the estimators' and :func:`semisvm.graph_tv.graph_tv`'s
        marker; until 0.1 this function took +1/-1 labeled, 0 unlabeled, the
        SVMlin convention that svmlight files keep). ``labels`` in the result
        are +1 / -1.
    lam : float > 0 or "auto", default="auto"
        Regularisation weight lambda; "auto": ``0.003 * mean_i ||x_i||^2``
        (0.003 on unit-norm rows), scale-invariant like SVM-light's default
        C; see :func:`default_lam` for the reasoning.
    lam_u : float >= 0, default=1.0
        Final weight lambda_u of the unlabeled loss. 1 (SVMlin's usual value)
        weighs the unlabeled loss like the labeled one whatever l and u; an
        unlabeled row is then l/u times weaker than a labeled one, where
        SVM-light ends with them equal (``lam_u = u / l``): on held-out sets
        that left TSVM unchanged and made DA worse (one-vs-rest DA 30 %
        error against 21 %; ``bench/bench_linear_defaults.py``).
    r : float in (0, 1), optional
        Fraction of the unlabeled rows labelled +1; default: the fraction of
        +1 among the labeled rows.
    S : int >= 1, default=10000
        Maximum label pairs switched per round (1: Joachims' TSVM).
    lam_u_init : float > 0, default=1e-2
        First unlabeled weight of the annealing (clipped to lam_u). SVMlin
        and SVM-light start at 1e-5, but below about 1e-2 the unlabeled
        loss (normalised by 1/u, the labeled one by 1/l) moves w by next to
        nothing: each step's switching rounds re-threshold the labels on
        almost the supervised outputs (pcmac, g50c, uspst split 0: 8, 1 and
        1 pairs switched in the 18 steps from 1e-5 to 1e-2, which took 24,
        19 and 19 of 62, 38 and 56 MFN calls). On held-out sets
        (``bench/bench_linear_defaults.py``, 6 binary sets x 6 draws and 3
        one-vs-rest sets x 2 draws) 1e-2 gave the same errors (17.32 against
        17.30 %, one-vs-rest 21.00 against 21.14 %) and objectives (within
        0.03 %) with 30 % (binary) and 38 % (one-vs-rest) fewer MFN calls;
        1e-1 saved more but began to move the benchmark's labels.
    lam_u_rate : float > 1, default=1.5
        Factor on the unlabeled weight between annealing steps.
    lam_factor : float >= 1, default=1.0
        Continuation in lam: the lam_u annealing runs at ``lam_factor * lam``;
        once lam_u is reached, lam is divided by ``lam_u_rate`` per step
        (switching rounds at each value) down to ``lam``. 1: no continuation.
    costs : array-like of shape (n_samples,), optional
        Per-example costs c_i of the labeled rows (ignored on unlabeled rows).
    fit_intercept, intercept_scaling, tol, max_iter, cg_max_iter, rel_tol
        As in :func:`l2svm_mfn` (per MFN call).
    max_inner_iter : int, default=10000
        Cap on switching rounds at one unlabeled weight.
    inner_tol : float > 0 or None, default=1e-2
        Loose CGLS tolerance of the switching rounds, ``inner_tol * lam_u' /
        lam_u`` at the current unlabeled weight lam_u' (never below ``tol``).
        A round that switches nothing moves on to one inexact Newton step per
        round, then to solves to ``tol`` (see the module docstring);
        intermediate weights stop after the loose tier, the final weight on
        an exact solve with no lowering pair switch. None: every call to
        ``tol`` (the reference implementation).
    switch_tol : float >= 0, default=1e-4
        A switching round that switches at most ``int(switch_tol * u)``
        pairs (u the unlabeled rows) counts as one that switches none; at
        the final weight those last pairs get one exact solve, then the
        rounds stop, as at the intermediate weights of the annealing, whose
        loose tier solves to ``inner_tol`` itself: the next weight's rounds
        go on from their labels, and only the final weight's are the
        result; the inexact Newton tier's forcing factor
        is 0.5 (not 0.1). None of this below ``1 /
        switch_tol`` unlabeled rows, so small problems (the papers' sets,
        the held-out suite) are untouched. On
        large ones the last rounds switch a few pairs each at the cost of a
        whole solve: on 200,000 text-like rows, 1 % labeled, 1e-4 took 50
        MFN calls and 129 CG iterations instead of 72 and 177, at an
        objective 5.7e-6 (relative) higher and 98 of 198,000 labels changed
        (``bench/bench_linear_ssl_speed.py``; 1e-3: 33 and 98, 3.1e-5, 644).
        0: every round to none switched (the reference).
    n_jobs : int or None, default=None
        Threads of the passes over the rows, as in :func:`l2svm_mfn` (None:
        one; the same bits for any value; BLAS held at one thread), and of
        the steps over the unlabeled rows (switching / p-steps, label costs,
        objectives), in fixed blocks of 8192 unlabeled rows.
    verbose : int
        1: log each annealing step; 2: also each switching round and each
        MFN iteration (logger ``"semisvm"``, INFO).

    Returns
    -------
    TSVMResult
        ``coef``, ``intercept``, ``objective``, ``labels`` (+1/-1 on every
        row), ``decision``, ``history``, ``lam_u_history``,
        ``switch_history``, ``n_mfn``, ``converged``, ``status``.

    See Also
    --------
    TSVM : The estimator (any labels, one-vs-rest for more classes).
    da_s3vm : The same objective by deterministic annealing.
    l2svm_mfn : The supervised solver it calls.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.solvers import tsvm
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(-2, 1, (50, 2)), rng.normal(2, 1, (50, 2))]
    >>> y = np.full(100, -1)
    >>> y[[0, 50]] = [0, 1]                         # one label per class
    >>> res = tsvm(X, y, r=0.5)
    >>> bool(np.mean(res.labels == np.repeat([-1, 1], 50)) > 0.9)
    True
    """
    lam = default_lam(X, lam)
    P = _Problem(X, y, costs, lam, lam_u, r, fit_intercept, intercept_scaling,
                 tol, rel_tol, max_iter, cg_max_iter, n_jobs)
    S = check_int(S, "S")
    lam_u_init = check_positive(lam_u_init, "lam_u_init")
    lam_u_rate = check_positive(lam_u_rate, "lam_u_rate")
    if not lam_u_rate > 1:
        raise ValueError(f"lam_u_rate must be > 1, got {lam_u_rate!r}")
    lam_factor = check_positive(lam_factor, "lam_factor")
    if not lam_factor >= 1:
        raise ValueError(f"lam_factor must be >= 1, got {lam_factor!r}")
    max_inner_iter = check_int(max_inner_iter, "max_inner_iter")
    if inner_tol is not None:
        inner_tol = check_positive(inner_tol, "inner_tol")
    switch_tol = check_positive(switch_tol, "switch_tol", allow_zero=True)
    verbose = int(verbose)
    u = P.u
    # a round that switches at most k_stop pairs counts as one that switches
    # none (0 below 1 / switch_tol unlabeled rows)
    k_stop = int(min(switch_tol * u, u))
    # ... and at the intermediate weights of the annealing MID_SWITCH times
    # that many (0 where k_stop is)
    k_mid = min(MID_SWITCH * k_stop, u)
    # continuation in lam: the annealing runs at lam * lam_factor (P.lam is
    # the lam of the MFN calls), then lam comes down to its value
    P.lam = lam * lam_factor

    # supervised start on the labeled rows (unlabeled costs are 0)
    o = P.mfn(True, verbose > 1, "TSVM supervised MFN")
    n_pos = int(np.floor(P.r * u + 0.5))
    yu = P.ssl.init_labels(o, n_pos)
    hist_lam, hist_obj, hist_sw, hist_mfn, hist_reg = [], [], [], [], []
    n_switches = 0
    capped = False
    cur = min(lam_u_init, P.lam_u)
    while u:
        cu = cur / u
        P.ssl.set_label_costs(yu, cu)
        sw = rounds = 0
        n_mfn0 = P.n_mfn
        # solve tiers of the rounds: loose CGLS tolerance, one inexact Newton
        # step per round, then tol; a round that switches nothing moves to
        # the next tier
        final = cur >= P.lam_u and P.lam <= lam
        # (at scale, k_stop > 0, the intermediate weights' solves only lead
        # the labels to the final weight: inner_tol, not scaled down)
        tiers = _tiers(inner_tol, P.lam_u if k_stop and not final else cur,
                       P.lam_u)
        tier = 0
        while True:
            o = P.mfn(False, verbose > 1, f"TSVM MFN (lam_u={cur:.3g})",
                      tol=tiers[tier],
                      forcing=NEWTON_FORCING_SCALE if k_stop else 0.1)
            if rounds == max_inner_iter:
                capped = True
                break
            k = P.ssl.switch(o, yu, S, cu)
            rounds += 1
            sw += k
            if verbose > 1:
                logger.info("TSVM lam_u=%.4g round %d: %d pairs switched%s",
                            cur, rounds, k,
                            "" if tiers[tier] is None else " (inexact w)")
            if k <= (k_stop if final else k_mid):
                if tiers[tier] is None and final and k:
                    # the last few switched pairs: one exact solve for them
                    o = P.mfn(False, verbose > 1,
                              f"TSVM MFN (lam_u={cur:.3g})")
                    break
                if tiers[tier] is None or not final:
                    # intermediate weights of the annealing end on the
                    # inexact w; the final one on an exact solve
                    break
                tier += 1
                continue
        n_switches += sw
        F = P.label_objective(o, yu, cu)
        hist_lam.append(cur)
        hist_reg.append(P.lam)
        hist_obj.append(F)
        hist_sw.append(sw)
        hist_mfn.append(P.n_mfn - n_mfn0)
        if verbose:
            logger.info("TSVM lam_u=%.4g lam=%.4g: %d pairs switched, %d MFN "
                        "calls, objective %.10g", cur, P.lam, sw,
                        P.n_mfn - n_mfn0, F)
        if cur >= P.lam_u:
            if P.lam <= lam:
                break
            P.lam = max(P.lam / lam_u_rate, lam)
        else:
            cur = min(cur * lam_u_rate, P.lam_u)
    P.lam = lam
    final_lam_u = cur if u else P.lam_u

    labels = P.ssl.tsvm_labels(yu)
    objective = P.objective(P.w, o, final_lam_u)
    label_objective = float(hist_obj[-1]) if u else objective
    status = ("max_inner_iter" if capped else
              "mfn_max_iter" if P.mfn_capped else "optimal")
    if verbose:
        logger.info("TSVM done (%s): %d MFN calls, %d pairs switched, "
                    "objective %.10g", status, P.n_mfn, n_switches, objective)
    coef, intercept = P.coef_intercept(P.w)
    return TSVMResult(
        coef=coef, intercept=intercept, objective=objective,
        label_objective=label_objective, labels=labels,
        unlabeled_index=P.ssl.unlabeled_index(), r=P.r, n_positive=n_pos,
        lam_u=final_lam_u, n_mfn=P.n_mfn, n_iter=P.n_iter, n_cg_iter=P.n_cg,
        n_switches=n_switches, converged=status == "optimal", status=status,
        lam_u_history=np.asarray(hist_lam, dtype=np.float64),
        history=np.asarray(hist_obj, dtype=np.float64),
        switch_history=np.asarray(hist_sw, dtype=np.int64),
        mfn_history=np.asarray(hist_mfn, dtype=np.int64),
        decision=P.ssl.decision(o),
        lam_history=np.asarray(hist_reg, dtype=np.float64),
    )


@follows_n_jobs
def da_s3vm(X, y, *, lam="auto", lam_u=1.0, r=None, T0=None, T_rate=1.5,
            lam_factor=1.0, max_outer_iter=30, max_inner_iter=100,
            kl_tol="auto", entropy_tol=1e-6, costs=None, fit_intercept=True,
            intercept_scaling=1.0, tol=1e-6, max_iter=50, cg_max_iter=10000,
            rel_tol=1e-9, root_tol=1e-12, inner_tol="auto", relax=1.5,
            newton_steps=1, settled=2, n_jobs=None, verbose=0) -> DAResult:
    r"""Deterministic-annealing semi-supervised linear SVM (DA-S3VM, §3.2).

    At each temperature T minimises, over w and p in [0, 1]^u with
    mean(p) = r,

    .. math::

        \frac{\lambda}{2}\|w\|^2 + \frac{1}{2l}\sum_{i\in L} c_i\,
        \ell_2(y_i o_i) + \frac{\lambda_u}{2u}\sum_{j\in U}
        [p_j \ell_2(o_j) + (1 - p_j)\ell_2(-o_j)]
        + \frac{T}{2u}\sum_{j\in U}[p_j\log p_j + (1-p_j)\log(1-p_j)]

    by alternating minimisation, lowering T geometrically; returns the w with
    the lowest TSVM objective (unlabeled loss :math:`\ell_2(|o_j|)`) seen.
    See the module docstring.

    Parameters
    ----------
    X, y, lam, lam_u, r, costs, fit_intercept, intercept_scaling, tol, max_iter, cg_max_iter, rel_tol
        As in :func:`tsvm` (y: 1 / 0 labeled, -1 unlabeled).
    T0 : float > 0, optional
        Starting temperature; default ``lam_u`` (the reference: ``10
        lam_u``, the same solutions after more rounds). Hot enough: with outputs in margin units the first p-step gives
        ``p_j = 1 / (1 + exp((g_j - nu) / T))`` with ``|g_j| <= 4 lam_u
        |o_j|``, so p stays near r; T0 = 1, 10 or 100 lam_u reached the
        same solutions on pcmac and g50c, whatever lam (only T0 <= 0.1
        lam_u, which commits p at the first step, did worse).
    T_rate : float > 1, default=1.5
        T is divided by it after each temperature.
    lam_factor : float >= 1, default=1.0
        Continuation in lam: the first temperature runs at ``lam_factor *
        lam``, lam is divided by ``T_rate`` after each temperature down to
        ``lam`` (with T fixed once the entropy is small), and the returned
        point is the best seen at ``lam`` itself. 1: no continuation.
    max_outer_iter, max_inner_iter : int, default=30, 100
        Caps on temperatures and on alternating rounds per temperature.
    kl_tol : float > 0 or "auto", default="auto"
        Inner stop: mean KL(p_new || p_old) below it (the reference: 1e-6;
        see the module docstring). ``"auto"``: 1e-5 below 10,000 unlabeled
        rows (every set the defaults were chosen on), 1e-4 from there on.
        On large problems the rounds that take the KL from 1e-4 to 1e-5 at
        each temperature are a third of all rounds and move little: on
        200,000 text-like rows (1 % labeled) 1e-4 took 51 MFN calls and 132
        CG iterations against 72 and 145, objective +2.5e-8 (relative), 28
        of 198,000 labels differing; 1,000,000 rows: 51 / 117 against 84 /
        135, +6.9e-8. On small sets 1e-4 cost 0.5-1 % in objective
        (module docstring), hence the switch by size.
    entropy_tol : float > 0, default=1e-6
        Outer stop: mean entropy of p (nats) less the least mean entropy the
        balance allows (``h(frac(r u)) / u``, h the binary entropy: one row
        must keep a fractional p when r u is not an integer) below it.
    root_tol : float > 0, default=1e-12
        Balance root finder tolerance on ``|mean(p) - r|``.
    inner_tol : float > 0, "auto" or None, default="auto"
        CGLS tolerance of the w-steps (never below ``tol``): an inexact
        w-step still lowers the DA objective, so the alternation stays a
        descent method. None: every w-step to ``tol`` (the reference
        implementation). ``"auto"``: 1e-3 below 10,000 unlabeled rows; from
        there on 1e-3 times ``min(10, max(1, 30 T / lam_u))`` at temperature
        T: 1e-2 from T0 = lam_u down to lam_u / 3, 1e-3 from T = lam_u / 30
        on (as TSVM's loose tier grows with its unlabeled weight). At hot
        temperatures p still moves by a KL of 1e-2 a round and the next
        p-step revises what a tighter w-step would have settled; the best
        point comes at cold ones. With ``kl_tol="auto"``: 200,000 text-like
        rows 96 CG iterations against 132 (1e-3 throughout), objective
        within 3e-8 (relative); 1,000,000 rows 88 against 117, +7e-9;
        20,000-50,000 rows 15-25 % fewer, objectives within 3e-5. A slope
        of 10 kept 112 / 101 CG iterations, one of 100 cost 2e-6 in
        objective at 200,000 rows.
    relax : float in (0, 2), default=1.5
        Over-relaxation of the p-steps after the first of each temperature:
        logits ``(1 - relax) z_old + relax (g - nu) / T``, nu such that
        mean(p) = r. 1: plain alternating minimisation (the reference).
    newton_steps : int >= 1 or None, default=1
        MFN iterations per w-step (a partial w-step still lowers the DA
        objective); None: each w-step solved to ``inner_tol`` (the
        reference).
    settled : int >= 1 or None, default=2
        Outer stop, besides the entropy test: this many temperatures in a
        row (at ``lam``) that each took one round and left the TSVM
        objective within 1e-9 (relative) of the last temperature's (status
        ``"settled"``). The entropy test is a mean over the rows, so on
        large problems one or two near-tied rows (entropy up to log 2 each,
        above ``entropy_tol * u`` in all) keep it from passing until T falls
        below their gap: on 200,000 text-like rows (1 % labeled) the best
        point came at the 13th temperature; of the 14 after the 16th, 13
        took one round each, none lowered the objective, and the entropy
        test passed only at the 30th (``max_outer_iter``; at 1M rows it
        did not pass).
        settled=2 stopped after 18 temperatures and 72 MFN calls (was 30 and
        85) with the same best point and labels; on the papers' sets
        (pcmac, g50c, uspst, every split, float64 and float32) the same
        labels and objectives. From 10,000 unlabeled rows on, a
        temperature of any number of rounds that did not lower the best
        objective (to 1e-9, relative) counts too, once the mean entropy of
        p (less the least the balance allows) is below 1e-2 nats
        (``STALL_ENTROPY``): on 1,000,000 text-like rows the best point came
        at the 13th temperature and the 6 after it (13 rounds) only raised
        the objective. None: the entropy test only (the reference).
    n_jobs : int or None, default=None
        Threads of the passes over the rows, as in :func:`l2svm_mfn` (None:
        one; the same bits for any value; BLAS held at one thread), and of
        the steps over the unlabeled rows (switching / p-steps, label costs,
        objectives), in fixed blocks of 8192 unlabeled rows.
    verbose : int
        1: log each temperature; 2: also each alternating round and MFN
        iteration.

    Returns
    -------
    DAResult
        ``coef``, ``intercept``, ``objective``, ``labels``, ``p`` (the final
        label probabilities), ``decision``, ``history``, ``T_history``,
        ``kl_history``, ``entropy_history``, ``n_mfn``, ``converged``.

    See Also
    --------
    DASVM : The estimator.
    tsvm : The same objective by label switching.

    Examples
    --------
    >>> import numpy as np
    >>> from semisvm.solvers import da_s3vm
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(-2, 1, (50, 2)), rng.normal(2, 1, (50, 2))]
    >>> y = np.full(100, -1)
    >>> y[[0, 50]] = [0, 1]
    >>> res = da_s3vm(X, y, r=0.5)
    >>> bool(np.mean(res.labels == np.repeat([-1, 1], 50)) > 0.9)
    True
    """
    lam = default_lam(X, lam)
    P = _Problem(X, y, costs, lam, lam_u, r, fit_intercept, intercept_scaling,
                 tol, rel_tol, max_iter, cg_max_iter, n_jobs)
    T_rate = check_positive(T_rate, "T_rate")
    if not T_rate > 1:
        raise ValueError(f"T_rate must be > 1, got {T_rate!r}")
    lam_factor = check_positive(lam_factor, "lam_factor")
    if not lam_factor >= 1:
        raise ValueError(f"lam_factor must be >= 1, got {lam_factor!r}")
    max_outer_iter = check_int(max_outer_iter, "max_outer_iter")
    max_inner_iter = check_int(max_inner_iter, "max_inner_iter")
    if isinstance(kl_tol, str):
        if kl_tol != "auto":
            raise ValueError(f'kl_tol must be a number > 0 or "auto", got {kl_tol!r}')
        kl_tol = KL_TOL_SCALE if P.u >= DA_SCALE_ROWS else KL_TOL
        kl_hot = KL_HOT and P.u >= DA_SCALE_ROWS
    else:
        kl_hot = False
    kl_tol = check_positive(kl_tol, "kl_tol")
    # at scale the settled test also counts temperatures of several rounds
    # that did not lower the best objective, once p has nearly committed
    stall = P.u >= DA_SCALE_ROWS
    entropy_tol = check_positive(entropy_tol, "entropy_tol")
    root_tol = check_positive(root_tol, "root_tol")
    relax = check_positive(relax, "relax")
    if not relax < 2:
        raise ValueError(f"relax must be in (0, 2), got {relax!r}")
    if newton_steps is not None:
        newton_steps = check_int(newton_steps, "newton_steps")
    if settled is not None:
        settled = check_int(settled, "settled")
    hot = False
    if isinstance(inner_tol, str):
        if inner_tol != "auto":
            raise ValueError(f'inner_tol must be a number > 0, "auto" or None, '
                             f'got {inner_tol!r}')
        hot = P.u >= DA_SCALE_ROWS
        inner_tol = INNER_TOL
    if inner_tol is not None:
        inner_tol = check_positive(inner_tol, "inner_tol")
    verbose = int(verbose)
    if T0 is None:
        T = float(P.lam_u)
    else:
        T = check_positive(T0, "T0")
    u, lam_u = P.u, P.lam_u
    if u and lam_u:
        # continuation in lam (P.lam: the lam of the MFN calls)
        P.lam = lam * lam_factor

    o = P.mfn(True, verbose > 1, "DA supervised MFN")
    nu = 0.0
    p = z = None
    best = None
    best_relaxed = False
    hist_T, hist_F, hist_kl, hist_H, hist_in, hist_reg = [], [], [], [], [], []
    n_inner_total = 0
    inner_capped = root_capped = False
    status = "entropy"
    if u == 0 or lam_u == 0:
        # the unlabeled rows carry no weight: the supervised solution
        best = (P.w.copy(), *P.ssl.snapshot(o, np.full(u, P.r)), T, nu,
                P.objective(P.w, o, lam_u))
    else:
        cu = lam_u / u
        # mean(p) = r forces a fractional p on at least one row when r u is
        # not an integer: the least mean entropy the balance allows
        frac = P.r * u - np.floor(P.r * u)
        H_min = float(-(xlogy(frac, frac) + xlogy(1 - frac, 1 - frac))) / u
        # p starts at r everywhere (logit z = (g - nu)/T with p = 1/(1 + e^z))
        p, z = P.ssl.da_init(P.r, cu)
        n_settled, F_last = 0, None
        for outer in range(1, max_outer_iter + 1):
            kl = H = np.inf
            # the best objective before this temperature
            F_prev = best[5] if best is not None else np.inf
            steps = newton_steps
            for inner in range(1, max_inner_iter + 1):
                o = P.mfn(False, verbose > 1, f"DA MFN (T={T:.3g})",
                          tol=_w_step_tol(inner_tol, hot, T, lam_u),
                          max_iter=steps)
                # over-relaxed p-steps within a temperature (the first step
                # at each T is the plain one)
                nu, kl, H, _resid, n_root, rs = P.ssl.pstep(
                    o, lam_u, T, P.r, z, p, cu, nu, root_tol,
                    relax if inner > 1 else 1.0)
                root_capped |= rs == 2
                F = P.objective(P.w, o, lam_u)
                if P.lam <= lam and (best is None or F < best[5]):
                    best = (P.w.copy(), *P.ssl.snapshot(o, p), T, nu, F)
                    best_relaxed = relax != 1.0 and inner > 1
                if verbose > 1:
                    logger.info("DA T=%.4g round %d: KL %.3g, entropy %.3g, "
                                "nu %.6g (%d root steps)", T, inner, kl, H, nu,
                                n_root)
                if kl < _w_step_tol(kl_tol, kl_hot, T, lam_u):
                    if not (P.last_capped and H - H_min < entropy_tol
                            and P.lam <= lam):
                        break
                    # p has settled at the last temperature after a partial
                    # w-step: one more round with the whole w-step, so that
                    # the annealing ends on an MFN optimum as with exact
                    # w-steps (earlier temperatures go on from where they
                    # stopped)
                    steps = None
            else:
                inner_capped = True
            n_inner_total += inner
            hist_T.append(T)
            hist_F.append(F)
            hist_kl.append(kl)
            hist_H.append(H)
            hist_in.append(inner)
            hist_reg.append(P.lam)
            if verbose:
                logger.info("DA T=%.4g lam=%.4g: %d rounds, KL %.3g, entropy "
                            "%.3g, objective %.10g", T, P.lam, inner, kl, H, F)
            cold = H - H_min < entropy_tol
            # a temperature settled: one round, and the TSVM objective of
            # its w that of the last temperature (to rounding); at scale
            # also one of any rounds that did not lower the best objective
            # (to rounding) once the mean entropy is below STALL_ENTROPY
            stalled = (stall and P.lam <= lam and best is not None
                       and best[5] >= F_prev - _SETTLED_RTOL * abs(F_prev)
                       and H - H_min < STALL_ENTROPY)
            if stalled or (inner == 1 and P.lam <= lam and F_last is not None
                           and abs(F - F_last) <= _SETTLED_RTOL * abs(F)):
                n_settled += 1
            else:
                n_settled = 0
            F_last = F
            if settled and n_settled >= settled and not cold:
                status = "settled"
                break
            if cold and P.lam <= lam:
                break
            if P.lam > lam:
                P.lam = max(P.lam / T_rate, lam)
            if not cold:  # (never 0: a huge T_rate holds T at the floor)
                T = max(T / T_rate, 1e-300)
        else:
            status = "max_outer_iter"
    if status in ("entropy", "settled"):
        status = ("max_inner_iter" if inner_capped else
                  "mfn_max_iter" if P.mfn_capped else
                  "root_max_iter" if root_capped else status)
    P.lam = lam
    if best is None:
        # max_outer_iter ran out before lam came down: the last point
        best = (P.w.copy(), *P.ssl.snapshot(o, p), T, nu, P.objective(P.w, o, lam_u))
    w, o, p, T_best, nu_best, F = best
    if best_relaxed:
        # the kept p came from an over-relaxed step: replace it by the
        # p-step's own answer to the kept w (p = 1 / (1 + exp((g - nu)/T)))
        o, p, nu_best = P.ssl.plain_pstep(o, p, lam_u, T_best, P.r, nu_best,
                                          root_tol)
    labels, p = P.ssl.da_labels(o, p, P.r)
    if verbose:
        logger.info("DA done (%s): %d temperatures, %d MFN calls, best objective "
                    "%.10g at T=%.4g", status, len(hist_T), P.n_mfn, F, T_best)
    coef, intercept = P.coef_intercept(w)
    return DAResult(
        coef=coef, intercept=intercept, objective=F,
        da_objective=P.da_objective(w, o, lam_u, p, T_best), p=p,
        labels=labels, unlabeled_index=P.ssl.unlabeled_index(), r=P.r,
        T=T_best, nu=nu_best, n_outer=len(hist_T), n_inner=n_inner_total,
        n_mfn=P.n_mfn, n_iter=P.n_iter, n_cg_iter=P.n_cg,
        converged=status in ("entropy", "settled"), status=status,
        T_history=np.asarray(hist_T, dtype=np.float64),
        history=np.asarray(hist_F, dtype=np.float64),
        kl_history=np.asarray(hist_kl, dtype=np.float64),
        entropy_history=np.asarray(hist_H, dtype=np.float64),
        inner_history=np.asarray(hist_in, dtype=np.int64),
        decision=P.ssl.decision_of(o),
        lam_history=np.asarray(hist_reg, dtype=np.float64),
    )
