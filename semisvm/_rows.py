"""The L2-SVM-MFN outer loop, once, over a rows backend (in memory or Dask).

L2-SVM-MFN (Sindhwani & Keerthi 2006, §2; see :mod:`semisvm._core._mfn`)
touches the data only through products with X on the active rows. Its outer
loop -- active set, Newton point, finite-termination test, exact line search,
relative-decrease stop -- is :func:`mfn_loop`, written once; it reaches the
rows through a *backend* with these methods:

``reset(w)``
    o = X w on every row; returns the loss part of F(w).
``activate(direct)``
    the active loss terms at o (weights a, targets t); returns their count.
``newton_point(wbar, lam, tol, eta, max_iter, gstop2=0.0)``
    the Newton point of the active rows, seeded with ``wbar`` (in place), and
    its outputs obar on every row; returns ``(cg_status, cg_iter)``. The CG
    seed's residual is -grad F(wbar): its squared norm is left in
    ``gnorm2`` (-1 after a Cholesky step) and, when at most ``gstop2``,
    nothing is changed and the status is 3.
``same_state()``
    are the active terms at obar those at o (finite termination)?
``accept()``
    o = obar; returns the loss part at the new point.
``line_search(w, wbar, lam)``
    exact step along w -> wbar.
``step(delta)``
    o += delta (obar - o); returns the loss part there.

:class:`LocalRows` is the in-memory backend: one row block, the compiled
kernels of :mod:`semisvm._core._mfn` (the compiled CGLS and line search
included). Unless ``verbose`` asks for a log line per iteration,
:func:`mfn_loop` hands it the whole loop (``compiled``/``run``:
:func:`semisvm._core._mfn.mfn_run`, the same steps in the same order in one
call without the GIL), so a warm-started call on a small problem costs a
few microseconds of Python, not one Python round per step
(``tests/test_rows.py`` checks that both give the same bits).
:class:`semisvm._distributed.DaskRows` runs the same kernels on row blocks
held by Dask workers, reducing on the driver; its CGLS is the driver-side
twin :func:`cgls_twin` (one worker round trip per CG iteration), tested to
give the compiled CGLS's iterates.

TSVM and DA (:mod:`semisvm.linear`) add their own steps -- initial labels,
pair switching, label costs, DA's p-step, objectives, kept points -- through
a second backend with one protocol: :class:`LocalSSL` here (over a
:class:`LocalRows`) and :class:`semisvm._distributed.DaskSSL` (over the
workers' row blocks).
"""
from __future__ import annotations

import logging

import numpy as np
import scipy.sparse as sp

from semisvm._core import _mfn as K
from semisvm._core import _ssl
from semisvm._core._cgls import prec_mix as _PREC_MIX
from semisvm._validation import check_memory, check_n_jobs, fits_in_memory

logger = logging.getLogger("semisvm")

STATUS_OPTIMAL, STATUS_RELATIVE, STATUS_MAX_ITER, STATUS_GRADIENT = 0, 1, 2, 3


#: check_mfn_memory reads the memory budget from this many bytes on
MFN_MEMORY_FLOOR = 16 * 2**20


def check_mfn_memory(n, d, dtype, n_threads=1, slices=0):
    """Refuse (before allocating) an MFN solve whose working vectors do not fit.

    w, r, p, sv, minv, wbar, the callers' copies and one buffer per thread of
    length d + 1; a, t, z, q, o, obar and active of length n; the row
    blocks' slices (``slices`` entries: ``_mfn.slice_buffer_len``). The
    Cholesky steps' kept normal matrix is not counted here: it is a
    speed-up that a fit goes without when it does not fit
    (:func:`kept_normal_fits`).
    """
    item = np.dtype(dtype).itemsize
    k = 8 + int(n_threads)
    nbytes = k * (d + 1) * item + 7 * max(n, 1) * item + int(slices) * item
    if nbytes < MFN_MEMORY_FLOOR:
        # a small solve: reading the budget (two /proc files, about 0.5 ms)
        # cost more than a millisecond fit's solve steps; an allocation this
        # small that fails raises MemoryError by itself
        return
    check_memory(nbytes,
                 f"the L2-SVM-MFN solver on {n} rows x {d} features: {k} "
                 f"{np.dtype(dtype)} vectors of length {d + 1} and the row "
                 f"blocks' slices ({int(slices)} entries; a feature index "
                 "far above the others?)")


def kept_normal_fits(n, d, dtype):
    """Whether the Cholesky steps' kept normal matrix and its state fit in
    the memory left (the weights and targets it holds, a row list: 2n floats
    and n int32, and (d+1)^2 + d + 4 float64). The budget is read, as in
    :func:`check_mfn_memory`, only from ``MFN_MEMORY_FLOOR`` bytes on."""
    item = np.dtype(dtype).itemsize
    nbytes = (2 * item + 4) * max(n, 1) + 8 * ((d + 1) ** 2 + d + 4)
    return nbytes < MFN_MEMORY_FLOOR or fits_in_memory(nbytes)


_EVENT_BYTES = 32     # sizeof(Event): three doubles and a Py_ssize_t


def _fmt_bytes(b):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if b < 1024 or unit == "GiB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024.0
    return f"{b:.1f} GiB"


def mfn_loop(B, w, lam, *, tol, max_iter, cg_max_iter, cold_start, rel_tol,
             forcing=0.1, direct=False, verbose=False, label="MFN",
             grad_tol=0.0, grad_decrease=-1.0):
    """Run L2-SVM-MFN from ``w`` (d+1, updated in place) over backend ``B``.

    Cold start: until the first self-consistent point each CGLS solve stops
    once its residual fell by the factor ``forcing`` from its seeded start (an
    inexact Newton step); ``forcing`` < 0: once CG's last iteration decreased
    the quadratic model by at most ``-forcing / i`` times its decrease since
    the seed (i the iterations; the test of LIBLINEAR's truncated Newton
    solver, see :func:`semisvm._core._cgls.cgls`); from then on every
    solve runs to ``tol``, and finite termination needs one such solve whose
    active set is unchanged. The backend's ``prec_mix`` (< 0: the
    default) weighs the preconditioner's diagonal.

    ``grad_tol`` > 0 adds LIBLINEAR's test (its ``-e`` times its
    ``max(min(n+, n-), 1) / n``, applied by the caller): stop when
    ||grad F(w)|| <= grad_tol ||grad F(w_start)||, made on each CG solve's
    seed (whose residual is -grad F(w)), w_start's the first seed's (with
    Cholesky steps, exact ones, the test is not made); ``grad_decrease``
    >= 0: only on the seeds of iterations whose predecessor decreased F by
    at most ``grad_decrease`` relative (a large last step leaves the active
    set, and so the point's objective, less settled than its gradient
    says), or once one iteration whose seed passed the test went on (the
    wait is one Newton iteration at most: on badly scaled rows the steps
    stay large long after the test passes).

    ``direct``: Cholesky steps; one whose decrease of F is below
    ``rel_tol`` (where the loop would stop: lam I + X_J' A X_J too
    ill-conditioned for its factor, e.g. rows of norms far apart) hands the
    rest of the call to CGLS steps instead of stopping (``grad_tol``'s
    reference is then the first CG seed's gradient, at that stalled point:
    those steps solve at least as tightly as from w_start).

    Returns ``(n_iter, n_cg_iter, status, objective, hist_obj, hist_cg,
    hist_active)``; status 0 optimal, 1 relative decrease below ``rel_tol``,
    2 ``max_iter`` used, 3 gradient test. The outputs X w stay in the backend.
    """
    dt = w.dtype.type
    # the compiled kernels see lam, tol and eta in the data's precision
    lam = float(dt(lam))
    tol = float(dt(tol))
    # histories of the first HISTORY_CAP iterations (hcg's last entry adds
    # up the CG iterations of the later ones): nothing sized by max_iter
    nh = min(max_iter, HISTORY_CAP)
    hobj = np.full(nh + 1, np.nan)
    hcg = np.zeros(nh, dtype=np.int32)
    hact = np.zeros(nh, dtype=np.int32)
    loose = bool(cold_start)
    eta = float(dt(forcing)) if cold_start else 0.0
    if not verbose and getattr(B, "compiled", False):
        # the same loop in one compiled call (in memory, nothing to log)
        n_iter, status, F = B.run(w, lam, tol, eta, max_iter, cg_max_iter,
                                  loose, rel_tol, direct, hobj, hcg, hact,
                                  grad_tol=grad_tol,
                                  grad_decrease=grad_decrease)
        return _histories(n_iter, status, F, hobj, hcg, hact)
    F = 0.5 * lam * float(np.dot(w, w)) + B.reset(w)
    hobj[0] = F
    status, n_iter = STATUS_MAX_ITER, 0
    wbar = np.empty_like(w)
    gstop2 = 0.0
    dec = 0.0       # the last iteration's relative decrease of F
    waited = False  # an iteration whose seed passed the test unmade
    for it in range(1, max_iter + 1):
        n_iter = it
        rt0, by0 = B.round_trips, B.bytes_moved
        act = B.activate(direct)
        if it <= nh:
            hact[it - 1] = act
        # Newton point, seeded with w
        wbar[:] = w
        waits = not (grad_decrease < 0 or dec <= grad_decrease or waited)
        cg_status, cg_iter = B.newton_point(wbar, lam, tol, eta, cg_max_iter,
                                            gstop2=0.0 if waits else gstop2)
        hcg[min(it, nh) - 1] += cg_iter
        if cg_status == 3:
            # ||grad F(w)|| <= grad_tol ||grad F(w_start)||: w stays
            n_iter = it - 1
            status = STATUS_GRADIENT
            break
        if waits and gstop2 > 0 and 0 <= B.gnorm2 <= gstop2:
            # the test passed at this seed: it waited this one iteration
            # (a Cholesky step reports -1: no test was made)
            waited = True
        if grad_tol > 0 and gstop2 == 0 and B.gnorm2 > 0:
            gstop2 = grad_tol * grad_tol * B.gnorm2
        if B.same_state():
            # finite termination: the active terms are unchanged at wbar
            w[:] = wbar
            F_new = 0.5 * lam * float(np.dot(w, w)) + B.accept()
            dec = (F - F_new) / abs(F_new) if F_new != 0 else 0.0
            F = F_new
            if it <= nh:
                hobj[it] = F
            _log(verbose, B, label, it, F, act, cg_iter, rt0, by0)
            if cg_status == 1:
                status = STATUS_OPTIMAL
                break
            # self-consistent point of an inexact solve: solve to tol next
            loose = False
            eta = 0.0
            continue
        delta = B.line_search(w, wbar, lam)
        # w += delta (wbar - w);  o += delta (obar - o)
        w += dt(delta) * (wbar - w)
        F_new = 0.5 * lam * float(np.dot(w, w)) + B.step(delta)
        if it <= nh:
            hobj[it] = F_new
        _log(verbose, B, label, it, F_new, act, cg_iter, rt0, by0)
        dec = (F - F_new) / abs(F_new) if F_new != 0 else 0.0
        if F - F_new <= rel_tol * abs(F_new):
            F = F_new
            if direct:
                # a Cholesky step that (nearly) failed to decrease F: (lam I
                # + X_J' A X_J) too ill-conditioned for its factor; the rest
                # of the call takes CGLS steps (as mfn_run)
                direct = False
                continue
            if not loose:
                status = STATUS_RELATIVE
                break
            loose = False
            eta = 0.0
            continue
        F = F_new
    end = getattr(B, "_end_outputs", None)
    if end is not None:
        end(w)      # the outputs now held are those of this w
    return _histories(n_iter, status, F, hobj, hcg, hact)


# iterations whose objective, CG count and active-set size are kept
HISTORY_CAP = 10000


def _histories(n_iter, status, F, hobj, hcg, hact):
    """mfn_loop's return value: the histories of the first ``len(hcg)``
    iterations (the total CG count includes the later ones)."""
    k = min(n_iter, hcg.shape[0])
    return (n_iter, int(hcg[:k].sum()), status, F, hobj[:k + 1].copy(),
            hcg[:k].copy(), hact[:k].copy())


def _log(verbose, B, label, it, F, act, cg, rt0, by0):
    if not verbose:
        return
    if B.distributed:
        logger.info("%s iter %d: objective %.10g, active %d, cg %d, "
                    "%d worker round trips, %s moved", label, it, F,
                    act, cg, B.round_trips - rt0,
                    _fmt_bytes(B.bytes_moved - by0))
    else:
        logger.info("%s iter %d: objective %.10g, active %d, cg %d",
                    label, it, F, act, cg)


class LocalRows:
    """In-memory rows backend: the whole matrix as one block.

    ``cpos``/``cneg`` are held by reference: the semi-supervised loops change
    them between MFN calls (label switches, DA's p-step).
    """

    distributed = False
    round_trips = 0
    bytes_moved = 0
    # CG's product in one pass over the active rows (else CGLS's two: the
    # same solution to rounding, +-1 iterations; tests/core/test_cgls.py),
    # passes cut into row blocks by size (same bits for any thread count);
    # both False: the former single-threaded arithmetic, bit for bit
    one_pass = True
    blocked = True
    # an MFN call from the w the last one ended at takes its outputs (False:
    # one pass X w per call, the former arithmetic)
    reuse_outputs = True
    # ... and, on CSR rows, the setup sums of the CG solve that ended it
    # (X_J' A t, diag, the residual = -grad F(w)), brought up to date for the
    # rows whose weight or target changed, in place of its first setup pass
    # (TSVM's switching rounds change a few rows' costs, not w; DA's p-steps
    # move every unlabeled row's target and, inside the margin, not its
    # weight: one blocked pass of a third of a setup pass's work); the
    # semi-supervised loops turn it on (LocalSSL). A call that ended on a
    # line-search step carries them too (its residual moved along the step),
    # and so does each Newton iteration of a call to the next (brought up to
    # date for the rows that entered or left the active set).
    keep_start = False
    # ... but every ``carry_period``-th CG solve in a row makes its setup pass
    # afresh: the carried sums gather the rounding of each update and the
    # CG residual recurrence (which drifts from the true residual), and a
    # fresh pass puts them back on X_J' A (t - o) - lam w
    carry_period = 8
    # Cholesky steps keep the normal matrix X_J' A X_J from one Newton step
    # of a call to the next and bring it up to date for the rows whose
    # weight or target changed (rows leaving the active set subtract their
    # outer products); False: each step builds it from all active rows
    keep_normal = True
    # the CG preconditioner's weight of diag(X_J' A X_J) (< 0: _cgls's
    # PREC_MIX; see semisvm._core._cgls.cgls)
    prec_mix = -1.0

    def __init__(self, X, bias_scale, cpos, cneg, n_threads=1):
        self.X = X
        self.s = float(bias_scale)
        self.cpos, self.cneg = cpos, cneg
        self.n_threads = int(n_threads)
        n, D = X.n_rows, X.n_cols + 1
        self.n, self.D = n, D
        self.dtype = X.dtype
        nn = max(n, 1)
        dt = self.dtype
        # the row blocks' slices, kept across CG solves (allocated and first
        # touched once per fit, not per solve)
        n_slices = K.slice_buffer_len(X)
        check_mfn_memory(n, D - 1, dt, self.n_threads, n_slices)
        self.n_slices = n_slices
        self.a = np.zeros(nn, dtype=dt)[:n]
        self.t = np.zeros(nn, dtype=dt)[:n]
        self.z = np.zeros(nn, dtype=dt)[:n]
        self.q = np.zeros(nn, dtype=dt)[:n]
        self.active = np.zeros(nn, dtype=np.int32)[:n]
        self.r = np.zeros(D, dtype=dt)
        self.p = np.zeros(D, dtype=dt)
        self.sv = np.zeros(D, dtype=dt)
        self.minv = np.zeros(D, dtype=dt)
        self.tbuf = np.zeros(n_slices, dtype=dt)
        self.H = self.b = self.events = None
        self._h_keep = None
        self._h_valid = False
        self._none = np.zeros(1)
        self.o = self.obar = None
        # (w, bias scale) of the outputs in self.o, set when an MFN call ends
        self._last = None
        # the setup sums of the CG solve that ended the last call (keep_start)
        self.keep = self.a_old = self.t_old = None
        self._kept = False
        self._kept_lam = None
        # calls in a row whose first solve took carried sums
        self.n_carried = 0
        self.n_act = 0
        self.direct = False
        self.gnorm2 = -1.0

    # -- the MFN steps ------------------------------------------------------
    def _start_outputs(self, w):
        """Fresh output arrays for an MFN call from ``w`` (callers keep the
        returned ones): o = X w, reused from the last call when it ended at
        this very w with this bias scale (TSVM's switching rounds and
        annealing steps, DA's p-steps change the costs, not w), else one
        pass over the rows.

        The reused o is the one the last call kept up to date along its CG
        and line-search steps: X w up to rounding, each call adding its own,
        where a fresh pass costs as much as a CG iteration over every row.
        In float64 that rounding left the paper sets' labels and objectives
        (to 1e-6) as they were; in float32 (relative 1e-7 per call) it moved
        a few labels on 13 of 90 fits, so float32 outputs are recomputed.
        """
        last = self._last
        # obar is work (every step writes it whole before reading it): the
        # last call's, which no caller holds (callers keep the o returned)
        if self.obar is None:
            self.obar = np.zeros(self.n, dtype=self.dtype)
        if (self.reuse_outputs and self.dtype == np.float64
                and last is not None and last[1] == self.s
                and self.o is not None and np.array_equal(last[0], w)):
            # (copied and first touched on the pass threads)
            self.o = _ssl.copy_par(self.o, self.n_threads)
            return True
        self.o = np.zeros(self.n, dtype=self.dtype)
        if w.any():
            # (from w = 0, a cold start, X w is that zero vector: the same
            # bits, every entry of a validated X being finite)
            K.outputs(self.X, self.s, w, self.active, self.o, self.n_threads)
        return False

    def _end_outputs(self, w):
        # the w whose outputs self.o now holds
        self._last = (w.copy(), self.s)

    def reset(self, w):
        self._start_outputs(w)
        self._kept = False      # (the Python loop keeps no setup sums)
        self._h_valid = False   # each call builds its first normal matrix
        return K.loss(self.o, self.cpos, self.cneg, self.n_threads)

    def activate(self, direct):
        self.direct = bool(direct)
        if self.direct and self.H is None:
            self.H = np.zeros(self.D * self.D)
            self.b = np.zeros(self.D)
        self._kept_normal_state(self.direct)
        self.n_act = K.activate(self.o, self.cpos, self.cneg, self.a, self.t,
                                self.active, self.n_threads)
        return self.n_act

    def _kept_normal_state(self, direct):
        """The normal matrix kept between the Cholesky steps of a call (the
        Python loop's and mfn_run's): H0, b0 (and the rebuild rule's sums),
        the weights and targets it holds, a row list; allocated at the first
        direct step of the fit. It is a speed-up: where it does not fit in
        the memory left, the steps build the matrix afresh (``keep_normal``
        off for this fit: the former arithmetic)."""
        if direct and self.keep_normal and self._h_keep is None:
            n, D = self.n, self.D
            if not kept_normal_fits(n, D - 1, self.dtype):
                self.keep_normal = False
                return None
            nn = max(n, 1)
            self._h_keep = (np.zeros(D * D), np.zeros(D + 3),
                            np.zeros(nn, dtype=self.dtype)[:n],
                            np.zeros(nn, dtype=self.dtype)[:n],
                            np.zeros(nn, dtype=np.int32)[:n])
        return self._h_keep if direct and self.keep_normal else None

    def newton_point(self, wbar, lam, tol, eta, max_iter, gstop2=0.0):
        H = self.H if self.direct else np.zeros(1)
        b = self.b if self.direct else np.zeros(1)
        hk = (self._h_keep if self.direct and self.keep_normal
              else (None,) * 5)
        status, n_iter, self.gnorm2 = K.newton_point(
            self.X, self.s, self.active, self.n_act, self.a, self.t, lam, wbar,
            self.o, self.obar, tol, eta, max_iter, self.direct, self.z, self.q,
            self.r, self.p, self.sv, self.minv, self.tbuf, H, b, self.n_threads,
            self.one_pass, gstop2, self.blocked, *hk, self._h_valid,
            self.prec_mix)
        self._h_valid = self.direct and self.keep_normal
        return status, n_iter

    def same_state(self):
        return K.same_state(self.o, self.obar, self.cpos, self.cneg,
                            self.n_threads)

    def accept(self):
        self.o, self.obar = self.obar, self.o
        return K.loss(self.o, self.cpos, self.cneg, self.n_threads)

    def line_search(self, w, wbar, lam):
        if self.events is None:
            self.events = np.empty(max(2 * self.n, 1) * _EVENT_BYTES, dtype=np.uint8)
        return K.line_search(w, wbar, lam, self.o, self.obar, self.cpos,
                             self.cneg, self.events, self.n_threads)

    def step(self, delta):
        return K.step(self.o, self.obar, delta, self.cpos, self.cneg, self.o,
                      self.n_threads)

    def outputs(self):
        """The outputs X w of the last MFN call (an array of its own)."""
        return self.o

    @property
    def compiled(self):
        """Can :meth:`run` take the whole loop (at least one row)?"""
        return self.n > 0

    def run(self, w, lam, tol, eta, max_iter, cg_max_iter, loose, rel_tol,
            direct, hobj, hcg, hact, grad_tol=0.0, grad_decrease=-1.0):
        """:func:`mfn_loop` from ``reset(w)`` on, in one compiled call
        (:func:`semisvm._core._mfn.mfn_run`: the same kernels in the same
        order); returns ``(n_iter, status, F)``."""
        reused = self._start_outputs(w)
        if direct and self.H is None:
            self.H = np.zeros(self.D * self.D)
            self.b = np.zeros(self.D)
        wbar = np.empty_like(w)     # per call, as in the Python loop
        H = self.H if direct else self._none
        b = self.b if direct else self._none
        keep = None
        given = False
        if self.keep_start and self.one_pass and not direct and self.X.is_sparse:
            if self.keep is None:
                self.keep = np.zeros(4 * self.D, dtype=self.dtype)
                self.a_old = np.zeros(max(self.n, 1), dtype=self.dtype)[:self.n]
                self.t_old = np.zeros(max(self.n, 1), dtype=self.dtype)[:self.n]
            keep = self.keep
            # the last call ended on a CG solve at this w (its outputs
            # reused) and this lam: its setup sums serve the first solve
            # (and each solve's the next one's within the call), a setup
            # pass every carry_period-th solve in a row
            given = reused and self._kept and self._kept_lam == lam
        # in float32 no solve takes carried sums (as no call reuses its
        # outputs: the rounding of each update, relative 1e-7, moved a few
        # labels of the papers' float32 fits)
        old = self.a_old, self.t_old
        if self.dtype != np.float64:
            old = None, None
        # (the line search's buffer is allocated at its first use, as in
        # the Python loop: many warm-started calls never need it)
        out = K.mfn_run(
            self.X, self.s, w, lam, self.cpos, self.cneg, self.o, self.obar,
            wbar, self.a, self.t, self.active, self.z, self.q, self.r,
            self.p, self.sv, self.minv, self.tbuf, H, b, self.events, tol,
            max_iter, cg_max_iter, loose, rel_tol, eta, direct, hobj, hcg,
            hact, self.n_threads, grad_tol, self.one_pass, self.blocked,
            keep, *old, given,
            *(self._kept_normal_state(direct) or ()),
            n_carried=self.n_carried if given else 0,
            carry_max=self.carry_period - 1, prec_mix=self.prec_mix,
            grad_decrease=grad_decrease)
        n_iter, status, F, swapped, self.events = out[:5]
        if keep is not None:
            self._kept = bool(out[5])
            self.n_carried = out[7]
        else:
            self._kept = False
        self._kept_lam = lam
        if swapped:
            self.o, self.obar = self.obar, self.o
        self._end_outputs(w)
        return n_iter, status, F


def cgls_twin(prod, rhs, r0, diag, beta, lam, tol, eta, max_iter, gstop2=0.0,
              info=None, prec_mix=-1.0):
    """The compiled CGLS (:func:`semisvm._core._cgls.cgls`) driven from Python.

    Solves ``(lam I + X_J' A X_J) beta = X_J' A t`` seeded with ``beta``
    (updated in place) from the reductions of :func:`semisvm._core._mfn.cg_start`
    (``rhs = X_J' A t``, ``r0 = X_J' A (t - o)``, ``diag = diag(X_J' A X_J)``)
    and one call ``prod(p) -> (X_J' A X_J p, p' X_J' A X_J p)`` per
    iteration: one worker round trip on a cluster. The same preconditioner,
    stopping tests and arithmetic precision as the compiled loop; the residual
    follows the recurrence r -= gamma (X_J' A X_J p + lam p), equal in exact
    arithmetic to the compiled loop's r = X_J' z - lam beta, so the iterates
    agree to rounding (the compiled loop's default one-pass form follows the
    same recurrence). Returns ``(status, n_iter)`` (1 tol, 2 forcing, 0 cap,
    3 seed residual norm^2 <= ``gstop2`` > 0: ``beta`` unchanged); ``info``
    (a dict) receives ``gnorm2``, the seed residual's squared norm. ``eta``
    < 0: the model-decrease test; ``prec_mix`` < 0: the default weight.
    """
    dt = beta.dtype.type
    lam_f = dt(lam)
    lam = float(lam_f)
    tol = float(dt(tol))
    eta = float(dt(eta))
    bnorm2 = float(np.dot(rhs, rhs))
    tol2 = tol * tol * (bnorm2 if bnorm2 > 0 else 1.0)
    mix = prec_mix if prec_mix >= 0 else _PREC_MIX
    minv = (1.0 / (lam + mix * diag.astype(np.float64))).astype(beta.dtype)
    # r = X_J' A (t - o) - lam beta ; s = M^-1 r ; p = s
    r = r0 - lam_f * beta
    s = minv * r
    p = s.copy()
    omega_z = float(np.dot(r, r))
    if info is not None:
        info["gnorm2"] = omega_z
    if gstop2 > 0 and omega_z <= gstop2:
        return 3, 0
    rho = float(np.dot(r, s))
    force2 = eta * eta * omega_z if eta > 0 else 0.0
    qtol, qsum = (-eta if eta < 0 else 0.0), 0.0
    if omega_z <= tol2:
        return 1, 0
    for it in range(1, max_iter + 1):
        u, qaq = prod(p)
        pp = float(np.dot(p, p))
        g = dt(rho / (lam * pp + qaq))
        # beta += gamma p ; r -= gamma (X_J' A X_J p + lam p)
        beta += g * p
        r -= g * (u + lam_f * p)
        omega_z = float(np.dot(r, r))
        if omega_z <= tol2:
            return 1, it
        if omega_z <= force2:
            return 2, it
        if qtol > 0:
            # the model's decrease this iteration against qtol times its mean
            dq = 0.5 * (rho / (lam * pp + qaq)) * rho
            qsum += dq
            if it * dq <= qtol * qsum:
                return 2, it
        s = minv * r
        rho_new = float(np.dot(r, s))
        p = s + dt(rho_new / rho) * p
        rho = rho_new
    return 0, max_iter


# line search over row blocks: break points binned on a geometric ladder
# (quarter octaves from 2^-20 to 2^100; the compiled search doubles from 1),
# then the bracket holding the root is refined until it holds few enough
# break points to gather and scan exactly
LADDER = 2.0 ** (np.arange(-80, 401) / 4.0)
MAX_GATHERED_EVENTS = 50_000
_REFINE_BINS = 256


def bracket_from_bins(L0, R0, edges, bl, br, cnt):
    """From the summed bins, the bracket [lo, hi) whose break points must be
    scanned: returns ``(lo, hi, L_lo, R_lo, count)`` (slope at lo is
    ``L_lo + lo R_lo`` < 0 <= slope at hi)."""
    cL = L0 + np.cumsum(bl)
    cR = R0 + np.cumsum(br)
    # slope at edges[k]: every break point below edges[k] (bins 0..k) passed
    slope = cL[:-1] + edges * cR[:-1]
    pos = np.flatnonzero(slope >= 0)
    k = int(pos[0]) if pos.size else edges.shape[0]
    lo = 0.0 if k == 0 else float(edges[k - 1])
    hi = float(edges[k]) if k < edges.shape[0] else np.inf
    L_lo = L0 if k == 0 else float(cL[k - 1])
    R_lo = R0 if k == 0 else float(cR[k - 1])
    return lo, hi, L_lo, R_lo, int(cnt[k])


def scan_events(L, R, delta, dL, dR, key):
    """The root of the slope from its value L + delta R before the sorted
    break points (ties by key), as the compiled line search scans them."""
    order = np.lexsort((key, delta))
    root = -L / R
    for j in order:
        dj = delta[j]
        if dj >= root:
            break
        L += dL[j]
        R += dR[j]
        if R <= 0:
            return float(dj)
        root = -L / R
    return float(root)


# ---------------------------------------------------------------------------
# What every MFN caller shares (l2svm_mfn, TSVM, DA; in memory or on Dask):
# tolerances, w0 and n_jobs checks, the direct/CG choice, the logged run

FLOAT32_TOL = 1e-5
MFN_STATUS = {0: "optimal", 1: "relative", 2: "max_iter", 3: "gradient"}


def check_w0(w0, n_weights, dtype):
    w0 = np.asarray(w0)
    if w0.dtype.kind not in "biuf":
        raise TypeError(f"w0 must be numeric, got dtype {w0.dtype}")
    if w0.shape != (n_weights,):
        raise ValueError(
            f"w0 must have shape ({n_weights},) (n_features, plus 1 for the "
            f"bias weight when fit_intercept=True), got {w0.shape}"
        )
    if not np.all(np.isfinite(w0)):
        raise ValueError("w0 must be finite")
    return np.array(w0, dtype=dtype)


def n_threads(n_jobs):
    """scikit-learn's n_jobs convention, capped at the available cores
    (:func:`semisvm._validation.check_n_jobs`)."""
    return check_n_jobs(n_jobs)


NEWTON = ("auto", "cgls", "cholesky")
# "auto" factorises when (d+1) <= this and the estimated cost is lower than
# that of about _CG_ITER_GUESS CG iterations per Newton step
_DIRECT_MAX_D = 2000
_CG_ITER_GUESS = 50


def use_direct(X, newton):
    """Decide whether Newton systems are solved by Cholesky (small d) or CGLS."""
    if newton not in NEWTON:
        raise ValueError(f"newton must be one of {NEWTON}, got {newton!r}")
    D = X.shape[1] + 1
    if newton == "cgls":
        return False
    if newton == "cholesky":
        if D > 5 * _DIRECT_MAX_D:
            raise ValueError(
                f"newton='cholesky' needs a (d+1)^2 matrix; d={D - 1} is too large, "
                "use newton='cgls'")
        return True
    if D > _DIRECT_MAX_D:
        return False
    if sp.issparse(X):
        row_nnz = np.diff(X.indptr).astype(np.float64)
    else:
        row_nnz = np.full(X.shape[0], float(X.shape[1]))
    return _direct_cheaper(D, X.shape[0], float(row_nnz.sum()),
                           float(row_nnz @ row_nnz))


def _direct_cheaper(D, n, nnz, nnz_sq):
    """Cholesky (build + factor) cheaper than about _CG_ITER_GUESS CG iterations?"""
    direct = 0.5 * nnz_sq + D ** 3 / 6.0
    return direct <= _CG_ITER_GUESS * 2.0 * (nnz + n)


def use_direct_stats(stats, d, newton):
    """:func:`use_direct` from the row-nnz totals of distributed row blocks."""
    if newton not in NEWTON:
        raise ValueError(f"newton must be one of {NEWTON}, got {newton!r}")
    D = d + 1
    if newton != "auto" or D > _DIRECT_MAX_D:
        return use_direct(np.empty((0, d)), newton) if newton != "auto" else False
    return _direct_cheaper(D, stats["n"], stats["nnz"], stats["nnz_sq"])


def run_mfn(rows, lam, w, *, tol, max_iter, cg_max_iter, cold_start, rel_tol,
             verbose=False, label="MFN", direct=False, grad_tol=0.0,
             forcing=0.1, grad_decrease=-1.0):
    """Run L2-SVM-MFN over a rows backend; ``w`` (d+1) is updated in place.

    ``rows`` is a :class:`semisvm._rows.LocalRows` (in memory) or a
    :class:`semisvm._distributed.DaskRows` (row blocks on Dask workers); its
    costs ``cpos``/``cneg`` are two-sided, so the same call serves
    :func:`semisvm.linear.l2svm_mfn`, TSVM and DA. Returns ``(n_iter, n_cg_iter, status,
    objective, hist_obj, hist_cg, hist_active)``; the outputs X w stay in
    ``rows`` (``rows.outputs()``).
    """
    out = mfn_loop(rows, w, lam, tol=tol, max_iter=max_iter,
                   cg_max_iter=cg_max_iter, cold_start=cold_start,
                   rel_tol=rel_tol, direct=direct, verbose=verbose, label=label,
                   grad_tol=grad_tol, forcing=forcing,
                   grad_decrease=grad_decrease)
    if verbose:
        n_iter, n_cg, status = out[:3]
        extra = ""
        if rows.distributed:
            extra = (f"; {rows.round_trips} worker round trips, "
                     f"{rows.bytes_moved / 2**20:.1f} MiB moved in all")
        logger.info("%s stopped (%s) after %d iterations, %d CG iterations%s",
                    label, MFN_STATUS[status], n_iter, n_cg, extra)
    return out


# ---------------------------------------------------------------------------
# TSVM / DA steps over a rows backend (the semi-supervised loops of
# semisvm.linear reach the rows only through these methods)

class LocalSSL:
    """In-memory steps of TSVM (§3.1) and DA (§3.2); the protocol of
    :class:`semisvm._distributed.DaskSSL`, which runs the same steps over row
    blocks held by Dask workers.

    Validates ``X``, the targets (``1`` / ``0`` labeled, ``-1`` unlabeled)
    and the costs, and holds the labeled/unlabeled split and the MFN cost
    vectors ``cpos``/``cneg`` that the steps change between MFN calls. The
    loops pass their outputs ``o``, temporary labels ``yu`` and DA's ``p``,
    ``z`` to every step (a cluster backend holds them on the workers and gets
    None in their place).
    """

    distributed = False

    def __init__(self, X, y, costs, n_threads=1):
        from semisvm._core._dataset import RowData
        from semisvm._validation import check_costs, check_ssl_targets, check_X

        X = check_X(X)
        self.X = X
        self.n, self.d = X.shape
        self.dtype = X.dtype
        y = check_ssl_targets(y, self.n)
        c = check_costs(costs, self.n, np.float64, name="costs")
        lab = y != 0
        self.idx_l = np.flatnonzero(lab)
        self.idx_u = np.flatnonzero(~lab).astype(np.int32)
        self.l, self.u = self.idx_l.shape[0], self.idx_u.shape[0]
        self.y = y
        self.y_l = y[lab]
        # labeled costs c_i / l, on the side of the label
        self.c_l = c[lab] / self.l
        self.cpos = np.zeros(self.n, dtype=self.dtype)
        self.cneg = np.zeros(self.n, dtype=self.dtype)
        self.cpos[self.idx_l] = np.where(self.y_l > 0, self.c_l, 0)
        self.cneg[self.idx_l] = np.where(self.y_l < 0, self.c_l, 0)
        self.rows = LocalRows(RowData(X), 0.0, self.cpos, self.cneg,
                              n_threads=n_threads)
        # a switching round's (DA round's) MFN call starts where the last ended: its
        # outputs (float64) and its first CG solve's setup sums are carried
        # over (LocalRows.reuse_outputs, keep_start; the paper sets' labels
        # and objectives stay those of a fresh pass per call to 1e-7)
        self.rows.keep_start = True
        # TSVM/DA take LocalRows' fast path: the fused one-pass CG step and
        # passes cut into row blocks by size (the same bits for any n_jobs).
        # Their label switches turn rounding into other trajectories on some
        # splits: the papers' tables moved by at most 0.2 points
        # (bench/bench_linear_tsvm.py; the two-pass arithmetic: one_pass =
        # False here).
        self._no_yu = np.zeros(0, dtype=np.int8)
        # threads of the O(u) steps (switching, p-steps, costs, objectives):
        # those of the passes over the rows, in fixed blocks of unlabeled
        # rows (semisvm._core._ssl: the same bits for any n_jobs)
        self.nt = self.rows.n_threads
        self._switch_work = None

    def set_bias(self, s):
        self.rows.s = float(s)

    def use_direct(self):
        """Exact Newton steps by Cholesky for few features (see l2svm_mfn)."""
        return use_direct(self.X, "auto")

    def positive_fraction(self):
        return float(np.mean(self.y_l > 0))

    # -- objectives (float64; the sums of np.sum in one compiled call, no
    #    BLAS: the same bits whatever the BLAS threads) --------------------
    def base_objective(self, lam, w, o):
        """lam/2 ||w||^2 + 1/(2l) sum_L c_i l2(y_i o_i)."""
        s_w, s_l, _ = _ssl.objective_sums(w, o, self.idx_l, self.y_l, self.c_l,
                                          self.idx_u, self._no_yu, 0, self.nt)
        return 0.5 * lam * s_w + 0.5 * s_l

    def objective(self, lam, w, o, lam_u):
        """TSVM objective with the label-free unlabeled loss l2(|o_j|)."""
        s_w, s_l, s_u = _ssl.objective_sums(w, o, self.idx_l, self.y_l, self.c_l,
                                            self.idx_u, self._no_yu, 1, self.nt)
        F = 0.5 * lam * s_w + 0.5 * s_l
        if self.u:
            F += 0.5 * lam_u / self.u * s_u
        return float(F)

    def label_objective(self, lam, w, o, yu, cu):
        """TSVM objective with the temporary labels, unlabeled weight cu u."""
        s_w, s_l, s_u = _ssl.objective_sums(w, o, self.idx_l, self.y_l,
                                            self.c_l, self.idx_u, yu, 2, self.nt)
        return 0.5 * lam * s_w + 0.5 * s_l + 0.5 * cu * s_u

    def da_objective(self, lam, w, o, lam_u, p, T):
        """DA objective of (w, p) at temperature T."""
        from scipy.special import xlogy

        F = self.base_objective(lam, w, o)
        if self.u:
            ou = o[self.idx_u].astype(np.float64)
            F += 0.5 * lam_u / self.u * np.sum(p * _l2(ou) + (1 - p) * _l2(-ou))
            F += 0.5 * T / self.u * np.sum(xlogy(p, p) + xlogy(1 - p, 1 - p))
        return float(F)

    # -- TSVM's temporary labels -------------------------------------------
    def init_labels(self, o, n_pos):
        """The n_pos largest unlabeled outputs labelled +1 (ties: lowest
        position first, as a stable sort of -o), the rest -1."""
        return _top_labels(o[self.idx_u], n_pos)

    def set_label_costs(self, yu, cu):
        """Unlabeled MFN costs: cu on the side of the temporary label."""
        _ssl.set_label_costs(self.idx_u, yu, cu, self.cpos, self.cneg,
                             n_threads=self.nt)

    def switch(self, o, yu, S, cu):
        """Switch up to S lowering label pairs; returns their number."""
        need = _ssl.switch_work_len(self.u, S)
        work = self._switch_work
        if work is None or work.shape[0] < need:
            # kept across rounds (allocated and first touched once per fit)
            work = self._switch_work = np.empty(need, dtype=np.uint8)
        return _ssl.tsvm_switch(o, self.idx_u, yu, S, cu, self.cpos, self.cneg,
                                work=work, n_threads=self.nt)

    def tsvm_labels(self, yu):
        labels = self.y.copy()
        labels[self.idx_u] = yu
        return labels

    # -- DA's label probabilities -------------------------------------------
    def da_init(self, r, cu):
        """p = r everywhere (logits z = (g - nu) / T, p = 1 / (1 + e^z)) and
        the unlabeled costs cu p, cu (1 - p); returns (p, z)."""
        p = np.full(self.u, r)
        z = np.full(self.u, -np.log(r / (1 - r)))
        self.cpos[self.idx_u] = cu * p
        self.cneg[self.idx_u] = cu * (1 - p)
        # the p-steps' work: exps of the root finder, softplus(+-z) of the
        # last step's z (for the next KL term); the z of a step is the one
        # the last left (``_pstep_z``)
        self._pwork = np.empty(4 * self.u)
        self._pstep_z = None
        return p, z

    def pstep(self, o, lam_u, T, r, z, p, cu, nu0, tol, omega=1.0):
        """DA's p-step in place (over-relaxed by ``omega``): (nu, kl,
        entropy, resid, n_root, status)."""
        work = getattr(self, "_pwork", None)
        if work is None or work.shape[0] != 4 * self.u:
            work = self._pwork = np.empty(4 * self.u)
            self._pstep_z = None
        valid = self._pstep_z is z
        out = _ssl.da_pstep(o, self.idx_u, lam_u, T, r, z, p, cu, self.cpos,
                            self.cneg, nu0=nu0, tol=tol, omega=omega,
                            work=work, sp_valid=valid, n_threads=self.nt)
        self._pstep_z = z
        return out

    def plain_pstep(self, o, p, lam_u, T, r, nu0, tol):
        """The plain p-step at a kept point ``(o, p)`` (``snapshot``'s):
        returns the kept point with the new p, and nu (the MFN costs are
        left as they are)."""
        cu = lam_u / self.u
        z = np.zeros(self.u)
        p = np.empty(self.u)
        cpos, cneg = self.cpos.copy(), self.cneg.copy()
        nu = _ssl.da_pstep(o, self.idx_u, lam_u, T, r, z, p, cu, cpos, cneg,
                           nu0=nu0, tol=tol, n_threads=self.nt)[0]
        return o, p, nu

    def da_labels(self, o, p, r):
        """(labels of the training rows, p) at a kept point."""
        labels = self.y.copy()
        labels[self.idx_u] = np.where(p > 0.5, 1.0, -1.0)
        return labels, p

    # -- kept points and results --------------------------------------------
    def snapshot(self, o, p):
        """(o, p) kept for the best point (p copied on the pass threads)."""
        return o, _ssl.copy_par(p, self.nt)

    def decision(self, o):
        """The decision values of the training rows (a copy)."""
        return np.asarray(o).copy()

    decision_of = decision      # at a kept point (snapshot's o)

    def unlabeled_index(self):
        return self.idx_u.astype(np.intp)


def _l2(z):
    m = np.maximum(0.0, 1.0 - z)
    return m * m


def _top_labels(ou, n_pos):
    """+1 on the n_pos largest entries of ``ou`` (ties: lowest position
    first), -1 elsewhere: the first n_pos of a stable argsort of -ou, by a
    selection (O(u)) in place of the sort. The outputs are finite (a
    validated X and w)."""
    u = ou.shape[0]
    yu = np.full(u, -1, dtype=np.int8)
    if n_pos <= 0 or u == 0:
        return yu
    if n_pos >= u:
        yu[:] = 1
        return yu
    # v: the n_pos-th largest; every entry above it, then the first
    # positions of the entries equal to it
    v = np.partition(ou, u - n_pos)[u - n_pos]
    above = ou > v
    yu[above] = 1
    left = n_pos - int(np.count_nonzero(above))
    if left:
        yu[np.flatnonzero(ou == v)[:left]] = 1
    return yu
