"""The linear family on a Dask cluster: row blocks held by the workers.

``LinearSVM``, ``TSVM`` and ``DASVM`` (and :func:`semisvm.linear.l2svm_mfn`,
``tsvm``, ``da_s3vm``) accept a ``dask.array.Array`` X whose chunks are row
blocks (all columns in one chunk) of dense or ``scipy.sparse`` CSR rows. This
module is imported only when such a collection is passed; dask is the
optional extra ``semisvm[dask]``.

How the data is reached (:class:`DaskRows`, the distributed rows backend of
:func:`semisvm._rows.mfn_loop`):

* each row block is validated (dtype, finiteness, labels, costs) and turned
  into a block *state* on a worker once; the states stay there (futures held
  by the driver) for the whole fit;
* every step is one task per block running the compiled kernels of
  :mod:`semisvm._core._mfn` (the single-machine ones) on the block, and a
  reduction on the driver: only d-length vectors (w, CG directions, partial
  products), block-length summaries (break-point bins, switch candidates) and
  scalars travel;
* the tasks are pure: a step that changes a block's outputs or costs returns
  a *new* state (a shallow copy sharing the unchanged arrays), so a block
  lost with a worker is recomputed by Dask from its lineage (the X chunk's
  graph and the chain of steps) and the fit goes on with the same numbers;
* the CGLS is the driver-side twin :func:`semisvm._rows.cgls_twin` with one
  round trip per CG iteration (the fused block product X_J' A X_J p); the
  line search bins the break points on a geometric ladder, refines the
  bracket holding the root and gathers only its break points.

``round_trips`` counts driver waits on workers, ``bytes_moved`` the payload
of arguments and results (NumPy buffers) both ways.
"""
from __future__ import annotations

import logging
import operator

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from semisvm._core import _mfn as K
from semisvm._core import _ssl
from semisvm._core._dataset import RowData
from semisvm._rows import (
    _REFINE_BINS,
    LADDER,
    MAX_GATHERED_EVENTS,
    bracket_from_bins,
    cgls_twin,
    scan_events,
)
from semisvm._validation import (
    canonical_csr,
    check_costs,
    check_pm1,
    check_X,
    is_dask,
    ssl_block_targets,
)

logger = logging.getLogger("semisvm")


def _client():
    try:
        from distributed import default_client
    except ImportError as exc:  # pragma: no cover - dask without distributed
        raise ImportError(
            "fitting on a dask array needs dask.distributed: "
            "pip install 'semisvm[dask]'") from exc
    try:
        return default_client()
    except ValueError as exc:
        raise ValueError(
            "fitting on a dask array needs a running dask.distributed Client "
            "(e.g. Client(LocalCluster())); none was found") from exc


def _nbytes(obj):
    if isinstance(obj, np.ndarray):
        return obj.nbytes
    if isinstance(obj, (tuple, list)):
        return sum(_nbytes(v) for v in obj)
    if isinstance(obj, dict):
        return sum(_nbytes(v) for v in obj.values())
    if obj is None:
        return 0
    return 8


# ---------------------------------------------------------------------------
# input checks (driver side, before anything runs)

def check_row_blocks(X, y=None, costs=None, *, name="X"):
    """Check that X is a 2-D dask array chunked by rows only and that y /
    costs (dask arrays or NumPy) match its row chunks. Returns the per-block
    pieces of y and costs: lists of delayed chunks or NumPy slices."""
    import dask.array as da

    if not isinstance(X, da.Array):
        raise TypeError(f"{name} must be a dask.array.Array, got {type(X).__name__}")
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got {X.ndim} dimensions")
    if X.numblocks[1] != 1:
        raise ValueError(
            f"{name} must be split into row blocks only, each chunk holding all "
            f"{X.shape[1]} columns; got column chunks {X.chunks[1]} (use "
            f"{name}.rechunk({{1: -1}}))")
    if any(np.isnan(c) for c in X.chunks[0]):
        raise ValueError(f"{name} has unknown chunk sizes; call "
                         f"{name}.compute_chunk_sizes() first")
    sizes = [int(c) for c in X.chunks[0]]
    if any(c == 0 for c in sizes):
        raise ValueError(f"{name} has an empty row block; rechunk it")
    n = sum(sizes)
    bounds = np.r_[0, np.cumsum(sizes)]

    def pieces(v, vname):
        if v is None:
            return [None] * len(sizes)
        if is_dask(v):
            if not isinstance(v, da.Array) or v.ndim != 1:
                raise ValueError(f"{vname} must be a 1-D dask array or NumPy array")
            if v.chunks[0] != X.chunks[0]:
                raise ValueError(
                    f"{vname}'s chunks {v.chunks[0]} do not match the row chunks "
                    f"of {name} {X.chunks[0]}; rechunk {vname} with "
                    f"{vname}.rechunk({name}.chunks[0])")
            return list(v.to_delayed().ravel())
        arr = np.asarray(v)
        if arr.ndim == 0:
            return [arr] * len(sizes)
        if arr.shape != (n,):
            raise ValueError(f"{vname} must have shape ({n},), got {arr.shape}")
        return [arr[bounds[i]:bounds[i + 1]] for i in range(len(sizes))]

    return sizes, pieces(y, "y"), pieces(costs, "costs")


# ---------------------------------------------------------------------------
# tasks run on the workers (pure: they never change their inputs)

def _t_load(Xb, yb, cb, i, row0, d, dtype, kind):
    """Validate one row block and build its state; returns (state, info)."""
    where = f"row block {i} (rows {row0} to {row0 + Xb.shape[0] - 1})"
    if getattr(Xb, "ndim", 2) != 2 or Xb.shape[1] != d:
        raise ValueError(f"X {where} has shape {Xb.shape}, expected (*, {d})")
    try:
        Xb = check_X(Xb, reset_dtype=dtype)
    except ValueError as exc:
        raise ValueError(f"X {where}: {exc}") from None
    n = Xb.shape[0]
    try:
        c = check_costs(cb, n, np.float64, name="costs")
        if kind == "pm1":
            # 0/1 or -1/+1, as in memory; a 0 is a negative, and load
            # refuses a y holding both 0 and -1 (over all blocks)
            y_raw = np.asarray(yb)
            codes = (int(np.count_nonzero(y_raw == 0)) if y_raw.dtype.kind in "biuf"
                     else 0, 0)
            y = check_pm1(np.where(y_raw == 0, -1, y_raw) if codes[0] else y_raw, n)
            codes = (codes[0], int(np.count_nonzero(y_raw == -1)))
        else:
            y = ssl_block_targets(yb, n)
    except (ValueError, TypeError) as exc:
        raise type(exc)(f"{where}: {exc}") from None
    if sp.issparse(Xb):
        row_nnz = np.diff(Xb.indptr).astype(np.float64)
    else:
        row_nnz = np.full(n, float(d))
    st = {"X": RowData(Xb), "n": n, "row0": row0, "y": y, "c": c}
    if kind == "pm1":
        st["cpos"] = np.where(y > 0, c, 0).astype(dtype)
        st["cneg"] = np.where(y < 0, c, 0).astype(dtype)
    info = (n, float(row_nnz.sum()), float(row_nnz @ row_nnz),
            int(np.sum(y > 0)), int(np.sum(y < 0)), float(np.sum(c[y != 0] > 0)))
    if kind == "pm1":
        info += codes  # rows labeled 0, rows labeled -1
    info += (bool(sp.issparse(Xb)),)  # last: the block's rows are sparse
    return st, info


def _t_reset(st, w, s):
    o = np.zeros(st["n"], dtype=w.dtype)
    K.outputs(st["X"], s, w, np.zeros(st["n"], dtype=np.int32), o)
    return dict(st, o=o, obar=None), K.loss(o, st["cpos"], st["cneg"])


def _t_activate(st, s, direct):
    n = st["n"]
    dt = st["o"].dtype
    a, t = np.zeros(n, dtype=dt), np.zeros(n, dtype=dt)
    active = np.zeros(n, dtype=np.int32)
    n_act = K.activate(st["o"], st["cpos"], st["cneg"], a, t, active)
    if direct:
        piece = K.normal_matrix(st["X"], s, active, n_act, a, t)
    else:
        piece = K.cg_start(st["X"], s, active, n_act, a, t, st["o"])
    return dict(st, a=a, t=t, active=active, n_act=n_act), (n_act, piece)


def _t_cg_start(st, s):
    return K.cg_start(st["X"], s, st["active"], st["n_act"], st["a"], st["t"],
                      st["o"])


def _t_cg_product(st, s, p):
    return K.cg_product(st["X"], s, st["active"], st["n_act"], st["a"], p)


def _t_cg_product_group(states, s, p):
    """Sum of :func:`_t_cg_product` over the blocks of one worker."""
    u, qaq = _t_cg_product(states[0], s, p)
    u = u.copy()
    for st in states[1:]:
        ub, qb = _t_cg_product(st, s, p)
        u += ub
        qaq += qb
    return u, qaq


def _t_newton_end(st, s, wbar):
    """obar = X wbar on every row; same active terms?; loss at obar; the
    line-search bins on the ladder (the next step needs one of them)."""
    obar = np.zeros(st["n"], dtype=wbar.dtype)
    K.outputs(st["X"], s, wbar, np.zeros(st["n"], dtype=np.int32), obar)
    o, cp, cn = st["o"], st["cpos"], st["cneg"]
    same = K.same_state(o, obar, cp, cn)
    bins = K.ls_bins(o, obar, cp, cn, LADDER)
    return dict(st, obar=obar), (same, K.loss(obar, cp, cn), bins)


def _t_accept(st):
    return dict(st, o=st["obar"], obar=None)


def _t_ls_bins(st, edges):
    return K.ls_bins(st["o"], st["obar"], st["cpos"], st["cneg"], edges)


def _t_ls_events(st, lo, hi):
    return K.ls_events(st["o"], st["obar"], st["cpos"], st["cneg"], lo, hi,
                       2 * st["row0"])


def _t_step(st, delta):
    o = np.empty_like(st["o"])
    loss = K.step(st["o"], st["obar"], delta, st["cpos"], st["cneg"], o)
    return dict(st, o=o, obar=None), loss


def _t_get(st, key):
    return st[key]


def _t_n_unlabeled(st):
    return int(st["idx_u"].shape[0])


# ---------------------------------------------------------------------------
# the distributed rows backend

class DaskRows:
    """Rows backend over row-block states held by Dask workers.

    Built by :func:`load`; see the module docstring and
    :mod:`semisvm._rows` for the methods :func:`semisvm._rows.mfn_loop` uses.
    """

    distributed = True
    # the CG preconditioner's weight (as LocalRows.prec_mix; < 0: default)
    prec_mix = -1.0

    def __init__(self, client, states, sizes, d, dtype, s=1.0):
        self.client = client
        self.states = list(states)
        self.sizes = list(sizes)
        self.row0 = np.r_[0, np.cumsum(self.sizes)[:-1]].astype(int)
        self.n = int(sum(self.sizes))
        self.d = d
        self.D = d + 1
        self.dtype = np.dtype(dtype)
        self.s = float(s)
        self.round_trips = 0
        self.bytes_moved = 0
        self._pieces = None
        self._end = None

    # -- plumbing -----------------------------------------------------------
    def _submit(self, fn, *args, per_block=None):
        """One task per block on its state; returns the futures."""
        n = len(self.states)
        cols = [[a] * n for a in args]
        if per_block is not None:
            # per-block extras, transposed into one list per argument
            cols += [list(c) for c in zip(*per_block, strict=True)]
        # one batched submission (client.map), not a message per block
        futs = self.client.map(fn, self.states, *cols, pure=False)
        self.bytes_moved += len(self.states) * _nbytes(args)
        if per_block is not None:
            self.bytes_moved += _nbytes(per_block)
        return futs

    def _gather(self, futs):
        # direct: results come from the workers, not through the scheduler
        out = self.client.gather(futs, direct=True)
        self.round_trips += 1
        self.bytes_moved += _nbytes(out)
        return out

    def map(self, fn, *args, per_block=None):
        """Run ``fn(state, *args)`` on every block; gather the results."""
        return self._gather(self._submit(fn, *args, per_block=per_block))

    def update(self, fn, *args, per_block=None, wait=True):
        """Run ``fn(state, *args) -> (new_state, result)`` on every block: the
        new states replace the old ones; returns the gathered results (or
        None when ``wait`` is false: the new states are then pending)."""
        futs = self._submit(fn, *args, per_block=per_block)
        n = len(futs)
        self.states = self.client.map(operator.getitem, futs, [0] * n, pure=False)
        if not wait:
            return None
        return self._gather(self.client.map(operator.getitem, futs, [1] * n,
                                            pure=False))

    def replace(self, fn, *args, per_block=None):
        """Run ``fn(state, *args) -> new_state`` on every block, no wait."""
        self.states = self._submit(fn, *args, per_block=per_block)

    def array(self, key, dtype=None):
        """A block field (length n_b each) as a lazy dask array."""
        import dask.array as da

        dt = self.dtype if dtype is None else np.dtype(dtype)
        parts = [da.from_delayed(self.client.submit(_t_get, st, key, pure=False),
                                 shape=(nb,), dtype=dt)
                 for st, nb in zip(self.states, self.sizes, strict=True)]
        return da.concatenate(parts)

    def unlabeled_index(self):
        """Row numbers of the unlabeled rows (lazy dask array)."""
        return self.array_from(_t_unlabeled_rows, np.intp, key="u")

    def array_from(self, fn, dtype, states=None, key="n", args=()):
        """``fn(state)`` per block (length n_b, or u_b with ``key="u"``) as a
        lazy dask array."""
        import dask.array as da

        states = self.states if states is None else states
        if key == "n":
            sizes = self.sizes
        else:
            sizes = self.client.gather([self.client.submit(
                _t_n_unlabeled, st, pure=False) for st in states])
        parts = [da.from_delayed(self.client.submit(fn, st, *args, pure=False),
                                 shape=(nb,), dtype=np.dtype(dtype))
                 for st, nb in zip(states, sizes, strict=True)]
        return da.concatenate(parts)

    # -- the MFN steps (see semisvm._rows) ----------------------------------
    def reset(self, w):
        return float(sum(self.update(_t_reset, w, self.s)))

    def activate(self, direct):
        self.direct = bool(direct)
        out = self.update(_t_activate, self.s, self.direct)
        self._pieces = [p for _, p in out]
        if not self.direct:
            self._group()
            self.round_trips += 1
        return int(sum(n for n, _ in out))

    def _group(self):
        """Blocks by the worker holding their state (one task per worker for
        the CG products: half the tasks and bytes of one task per block)."""
        who = self.client.who_has(self.states)
        groups = {}
        for b, st in enumerate(self.states):
            holders = sorted(who.get(st.key, ()))
            groups.setdefault(holders[0] if holders else None, []).append(b)
        # a fixed order of the partial sums: by each group's first block
        self._groups = sorted(groups.items(), key=lambda kv: kv[1][0])

    def _cg_prod(self, p):
        # one batched submission (client.map: one message to the scheduler,
        # ~5 ms less per CG iteration than a submit per group); each task
        # runs where its blocks' states live (data locality), and a block
        # lost with a worker is recomputed elsewhere
        groups = [[self.states[b] for b in blocks] for _, blocks in self._groups]
        k = len(groups)
        futs = self.client.map(_t_cg_product_group, groups, [self.s] * k,
                               [p] * k, pure=False)
        self.bytes_moved += len(futs) * _nbytes(p)
        out = self._gather(futs)
        u = out[0][0].copy()
        qaq = out[0][1]
        for ub, qb in out[1:]:
            u += ub
            qaq += qb
        return u, qaq

    def newton_point(self, wbar, lam, tol, eta, max_iter, gstop2=0.0):
        status, n_iter = 1, 0
        self.gnorm2 = -1.0
        solved = False
        if self.direct:
            H = sum(h for h, _ in self._pieces)
            b = sum(v for _, v in self._pieces)
            H[np.diag_indices_from(H)] += lam
            try:
                cf = sla.cho_factor(H, lower=False, check_finite=False)
                wbar[:] = sla.cho_solve(cf, b, check_finite=False).astype(self.dtype)
                solved = bool(np.all(np.isfinite(wbar)))
            except (sla.LinAlgError, ValueError):
                solved = False
            if not solved:
                self._pieces = self.map(_t_cg_start, self.s)
        if not solved:
            rhs = sum(p[0] for p in self._pieces)
            r0 = sum(p[1] for p in self._pieces)
            diag = sum(p[2] for p in self._pieces)
            info = {}
            status, n_iter = cgls_twin(self._cg_prod, rhs, r0, diag, wbar, lam,
                                       tol, eta, max_iter, gstop2, info,
                                       self.prec_mix)
            self.gnorm2 = info["gnorm2"]
            if status == 3:
                return status, n_iter
        self._end = self.update(_t_newton_end, self.s, wbar)
        return status, n_iter

    def same_state(self):
        return all(e[0] for e in self._end)

    def accept(self):
        loss = float(sum(e[1] for e in self._end))
        self.replace(_t_accept)
        return loss

    def line_search(self, w, wbar, lam):
        # regulariser part of the slope, then the blocks' loss parts in order
        wd = (wbar - w).astype(np.float64)
        L = lam * float(np.dot(w.astype(np.float64), wd))
        R = lam * float(np.dot(wd, wd))
        bins = [e[2] for e in self._end]
        for bl in bins:
            L += bl[0]
            R += bl[1]
        if L >= 0 or R <= 0:
            return 0.0
        edges = LADDER
        bl = sum(b[2] for b in bins)
        br = sum(b[3] for b in bins)
        cnt = sum(b[4] for b in bins)
        lo, hi, L_lo, R_lo, count = bracket_from_bins(L, R, edges, bl, br, cnt)
        for _ in range(8):
            if count <= MAX_GATHERED_EVENTS or not np.isfinite(hi):
                break
            edges = np.unique(np.linspace(lo, hi, _REFINE_BINS + 1))
            if edges.shape[0] < 3:
                break
            out = self.map(_t_ls_bins, edges)
            lo, hi, L_lo, R_lo, count = bracket_from_bins(
                L, R, edges, sum(o[2] for o in out), sum(o[3] for o in out),
                sum(o[4] for o in out))
        ev = self.map(_t_ls_events, lo, hi)
        cat = [np.concatenate([e[k] for e in ev]) for k in range(4)]
        return scan_events(L_lo, R_lo, *cat)

    def step(self, delta):
        return float(sum(self.update(_t_step, float(delta))))

    def outputs(self):
        """The outputs X w, a lazy dask array over the blocks."""
        return self.array("o")


def load(X, y, costs=None, *, kind="pm1"):
    """Validate and load the row blocks of a dask X (with y, costs) onto the
    workers, once. ``kind``: "pm1" (labels -1/+1, the MFN costs are set) or
    "ssl" (1 / 0 labeled, -1 unlabeled; held as +1/-1/0). Returns ``(rows, stats)`` with
    ``stats`` a dict of totals (n, nnz, sum of squared row nnz, positives,
    negatives; "sparse": every block's rows are sparse, whatever the dask
    array's ``_meta`` says). Every check runs before any solver iteration: a bad block
    raises here, naming the block and its rows."""
    import dask

    sizes, ys, cs = check_row_blocks(X, y, costs)
    client = _client()
    d = int(X.shape[1])
    dtype = np.dtype(X.dtype)
    if dtype not in (np.float32, np.float64):
        dtype = np.dtype(np.float64)
    row0 = np.r_[0, np.cumsum(sizes)[:-1]].astype(int)
    xs = list(X.to_delayed().ravel())
    tasks = [dask.delayed(_t_load, pure=True, nout=2)(
                 xs[i], ys[i], cs[i], i, int(row0[i]), d, dtype, kind)
             for i in range(len(sizes))]
    pairs = client.compute([t for t in tasks])
    states = [client.submit(operator.getitem, f, 0, pure=False) for f in pairs]
    infos = client.gather([client.submit(operator.getitem, f, 1, pure=False)
                           for f in pairs])
    del pairs
    rows = DaskRows(client, states, sizes, d, dtype)
    rows.round_trips += 1
    rows.bytes_moved += _nbytes(infos)
    if kind == "pm1" and sum(i[6] for i in infos) and sum(i[7] for i in infos):
        raise ValueError("y must contain only -1 and +1, or only 0 and 1 (0 is the "
                         "negative class then); it holds both 0 and -1")
    tot = np.sum(np.array([i[:5] for i in infos], dtype=np.float64), axis=0)
    stats = {"n": int(tot[0]), "nnz": tot[1], "nnz_sq": tot[2],
             "n_pos": int(tot[3]), "n_neg": int(tot[4]), "blocks": infos,
             "sparse": all(i[-1] for i in infos)}
    return rows, stats


def _sq_sum(b):
    if sp.issparse(b):  # duplicates summed first, as in memory
        b = canonical_csr(sp.csr_matrix(b))
    v = b.data if sp.issparse(b) else np.asarray(b).reshape(-1)
    v = v.astype(np.float64, copy=False)
    return np.array([[float(np.dot(v, v))]])


def mean_sq_norm(X):
    """``mean_i ||x_i||^2`` of a row-blocked dask X by one blockwise
    reduction (only one scalar per block travels); 0 for no rows."""
    check_row_blocks(X)
    n = int(X.shape[0])
    if n == 0:
        return 0.0
    sums = X.map_blocks(_sq_sum, chunks=((1,) * X.numblocks[0], (1,)),
                        dtype=np.float64, meta=np.zeros((0, 0)))
    return float(sums.sum().compute()) / n


def decision_function(X, coef, intercept):
    """Blockwise ``X @ coef.T + intercept`` of a dask X: a lazy dask array."""
    sizes, _, _ = check_row_blocks(X)
    del sizes
    coef = np.asarray(coef)
    if coef.ndim == 1:
        def f(b):
            b = check_X(b)
            out = np.asarray(b @ coef.astype(b.dtype)).ravel()
            return out + b.dtype.type(intercept)
        return X.map_blocks(f, drop_axis=1, dtype=X.dtype, meta=np.zeros(0, X.dtype))
    k = coef.shape[0]

    def g(b):
        b = check_X(b)
        return np.asarray(b @ coef.T.astype(b.dtype)) + np.asarray(intercept, b.dtype)
    return X.map_blocks(g, chunks=(X.chunks[0], (k,)), dtype=X.dtype,
                        meta=np.zeros((0, 0), X.dtype))


# ---------------------------------------------------------------------------
# estimator helpers (label encoding without pulling y to the driver)

def check_fit_input(est, X):
    """Row-block checks of a dask X for ``est.fit``; sets ``n_features_in_``."""
    check_row_blocks(X)
    est.n_features_in_ = int(X.shape[1])
    if hasattr(est, "feature_names_in_"):
        del est.feature_names_in_


def check_predict_input(est, X):
    check_row_blocks(X)
    if X.shape[1] != est.n_features_in_:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(est).__name__} is expecting "
            f"{est.n_features_in_} features as input.")


def unique_labels(y):
    """Sorted distinct values of y (dask or NumPy) and their counts."""
    if is_dask(y):
        import dask.array as da

        vals, counts = da.compute(*da.unique(y, return_counts=True))
        return np.asarray(vals), np.asarray(counts)
    return np.unique(np.asarray(y), return_counts=True)


def map_labels(y, fn, dtype=np.float64):
    """``fn`` applied to y blockwise (lazily for a dask y)."""
    if is_dask(y):
        return y.map_blocks(fn, dtype=dtype, meta=np.zeros(0, dtype))
    return fn(np.asarray(y))


def predict_labels(scores, classes):
    """Class labels from (lazy) scores: sign for (n,), argmax for (n, k)."""
    if scores.ndim == 1:
        return scores.map_blocks(lambda s: classes[(s > 0).astype(np.intp)],
                                 dtype=classes.dtype, meta=np.zeros(0, classes.dtype))
    return scores.map_blocks(lambda s: classes[np.argmax(s, axis=1)], drop_axis=1,
                             dtype=classes.dtype, meta=np.zeros(0, classes.dtype))


# ---------------------------------------------------------------------------
# TSVM / DA on row blocks: the unlabeled rows' steps as reductions
#
# Block fields: idx_l / idx_u (local labeled / unlabeled rows), y_l, c_l
# (labeled costs c_i / l), u0 (global index of the block's first unlabeled
# row: ties are broken by it as the in-memory code breaks them by position),
# yu (TSVM's temporary labels, int8) or z / p (DA's logits / probabilities).

def _t_ssl_setup(st, l, u0):
    y = st["y"]
    lab = y != 0
    dt = st["X"].dtype
    c_l = st["c"][lab] / l
    y_l = y[lab]
    cpos = np.zeros(st["n"], dtype=dt)
    cneg = np.zeros(st["n"], dtype=dt)
    idx_l = np.flatnonzero(lab)
    cpos[idx_l] = np.where(y_l > 0, c_l, 0)
    cneg[idx_l] = np.where(y_l < 0, c_l, 0)
    return dict(st, idx_l=idx_l, idx_u=np.flatnonzero(~lab).astype(np.int32),
                y_l=y_l, c_l=c_l, u0=u0, cpos=cpos, cneg=cneg)


def _l2(z):
    m = np.maximum(0.0, 1.0 - z)
    return m * m


def _t_base_loss(st):
    """1/2 sum_L c_i l2(y_i o_i) (float64)."""
    m = np.maximum(0.0, 1.0 - st["y_l"] * st["o"][st["idx_l"]].astype(np.float64))
    return float(np.sum(st["c_l"] * m * m))


def _t_unlabeled_loss(st):
    """(sum_U l2(|o_j|), sum_U l2(yu_j o_j) if TSVM labels are set)."""
    ou = st["o"][st["idx_u"]].astype(np.float64)
    a = float(np.sum(_l2(np.abs(ou))))
    b = float(np.sum(_l2(st["yu"] * ou))) if "yu" in st else 0.0
    return _t_base_loss(st), a, b


def _t_da_loss(st, lam_u, T):
    """sum_U [p l2(o) + (1-p) l2(-o)], sum_U [p log p + (1-p) log(1-p)]."""
    from scipy.special import xlogy

    ou = st["o"][st["idx_u"]].astype(np.float64)
    p = st["p"]
    return (_t_base_loss(st), float(np.sum(_l2(np.abs(ou)))),
            float(np.sum(p * _l2(ou) + (1 - p) * _l2(-ou))),
            float(np.sum(xlogy(p, p) + xlogy(1 - p, 1 - p))))


def _t_count_ge(st, edges):
    """#{unlabeled o_j >= e} for each edge e."""
    ou = np.sort(st["o"][st["idx_u"]].astype(np.float64))
    return ou.shape[0] - np.searchsorted(ou, edges, side="left")


def _t_minmax_u(st):
    ou = st["o"][st["idx_u"]]
    if ou.shape[0] == 0:
        return np.inf, -np.inf
    return float(ou.min()), float(ou.max())


def _t_values_in(st, a, b):
    """Unlabeled outputs in [a, b) with their global unlabeled index."""
    ou = st["o"][st["idx_u"]].astype(np.float64)
    j = np.flatnonzero((ou >= a) & (ou < b))
    return ou[j], j + st["u0"]


def _with_label_costs(st, yu, cu):
    cpos, cneg = st["cpos"].copy(), st["cneg"].copy()
    iu = st["idx_u"]
    cpos[iu] = np.where(yu > 0, cu, 0)
    cneg[iu] = np.where(yu < 0, cu, 0)
    return dict(st, yu=yu, cpos=cpos, cneg=cneg)


def _t_init_labels(st, b, chosen, cu):
    """yu = +1 where o_j >= b or j (global) is in ``chosen``, else -1."""
    ou = st["o"][st["idx_u"]].astype(np.float64)
    yu = np.where(ou >= b, 1, -1).astype(np.int8)
    loc = np.asarray(chosen, dtype=np.int64) - st["u0"]
    loc = loc[(loc >= 0) & (loc < yu.shape[0])]
    yu[loc] = 1
    return _with_label_costs(st, yu, cu)


def _t_label_costs(st, cu):
    return _with_label_costs(st, st["yu"], cu)


def _t_switch_bounds(st):
    ou = st["o"][st["idx_u"]].astype(np.float64)
    yu = st["yu"]
    pos, neg = ou[yu > 0], ou[yu < 0]
    return (float(pos.min()) if pos.size else np.inf,
            float(neg.max()) if neg.size else -np.inf)


def _t_switch_candidates(st, min_pos, max_neg, S):
    """Up to S positives below max_neg (ascending) and S negatives above
    min_pos (descending), with global unlabeled indices."""
    ou = st["o"][st["idx_u"]].astype(np.float64)
    yu = st["yu"]
    jp = np.flatnonzero((yu > 0) & (ou < max_neg))
    jn = np.flatnonzero((yu < 0) & (ou > min_pos))
    jp = jp[np.lexsort((jp, ou[jp]))][:S]
    jn = jn[np.lexsort((jn, -ou[jn]))][:S]
    return ou[jp], jp + st["u0"], ou[jn], jn + st["u0"]


def _t_flip(st, flips, cu):
    loc = np.asarray(flips, dtype=np.int64) - st["u0"]
    loc = loc[(loc >= 0) & (loc < st["yu"].shape[0])]
    if loc.size == 0:
        return st
    yu = st["yu"].copy()
    yu[loc] = -yu[loc]
    return _with_label_costs(st, yu, cu)


def _t_tsvm_labels(st):
    lab = st["y"].copy()
    lab[st["idx_u"]] = st["yu"]
    return lab


def _t_da_init(st, r, cu):
    u = st["idx_u"].shape[0]
    p = np.full(u, r)
    z = np.full(u, -np.log(r / (1 - r)))
    return _with_prob_costs(dict(st, z=z), p, cu)


def _with_prob_costs(st, p, cu):
    cpos, cneg = st["cpos"].copy(), st["cneg"].copy()
    iu = st["idx_u"]
    cpos[iu] = cu * p
    cneg[iu] = cu * (1 - p)
    return dict(st, p=p, cpos=cpos, cneg=cneg)


def _g(st, lam_u):
    ou = st["o"][st["idx_u"]].astype(np.float64)
    return lam_u * (_l2(ou) - _l2(-ou))


def _sigmoid_neg(z):
    """1 / (1 + exp(z)) without overflow."""
    e = np.exp(-np.abs(z))
    return np.where(z > 0, e / (1.0 + e), 1.0 / (1.0 + e))


def _softplus(x):
    return np.logaddexp(0.0, x)


def _g_relaxed(st, lam_u, T, omega):
    """g, or for DA's over-relaxed p-step G = g + (1/omega - 1) T z (the
    twin of ``semisvm._core._ssl._pstep``)."""
    g = _g(st, lam_u)
    if omega != 1.0:
        g = g + (1.0 / omega - 1.0) * T * st["z"]
    return g


def _t_g_range(st, lam_u, T=1.0, omega=1.0):
    g = _g_relaxed(st, lam_u, T, omega)
    if g.size == 0:
        return np.inf, -np.inf
    return float(g.min()), float(g.max())


def _t_balance_eval(st, lam_u, T, nu, omega=1.0):
    p = _sigmoid_neg((_g_relaxed(st, lam_u, T, omega) - nu) / (T / omega))
    return float(np.sum(p)), float(np.sum(p * (1.0 - p)))


def _t_pstep(st, lam_u, T, nu, cu, omega=1.0):
    zq = st["z"]
    z = (_g_relaxed(st, lam_u, T, omega) - nu) / (T / omega)
    p = _sigmoid_neg(z)
    kl = float(np.sum(p * (_softplus(zq) - _softplus(z))
                      + (1.0 - p) * (_softplus(-zq) - _softplus(-z))))
    h = float(np.sum(p * _softplus(z) + (1.0 - p) * _softplus(-z)))
    new = _with_prob_costs(dict(st, z=z), p, cu)
    return new, (kl, h, float(np.sum(p)))


def _t_da_labels(st, r):
    lab = st["y"].copy()
    p = st.get("p", np.full(st["idx_u"].shape[0], r))
    lab[st["idx_u"]] = np.where(p > 0.5, 1.0, -1.0)
    return lab


class DaskSSL:
    """TSVM/DA's unlabeled-row steps over the row blocks of a :class:`DaskRows`.

    Same answers as the in-memory steps of :mod:`semisvm.linear`:
    the initial labelling and the switch pairs are selected exactly (ties by
    position), DA's balance multiplier by the same safeguarded Newton /
    bisection, its sums reduced over blocks (one round trip per step).
    """

    def __init__(self, rows, stats):
        self.rows = rows
        infos = stats["blocks"]
        l_b = np.array([i[3] + i[4] for i in infos], dtype=np.int64)
        u_b = np.array([i[0] for i in infos], dtype=np.int64) - l_b
        self.l = int(l_b.sum())
        self.u = int(u_b.sum())
        self.n_pos = int(stats["n_pos"])
        u0 = np.r_[0, np.cumsum(u_b)[:-1]]
        if self.l:
            rows.replace(_t_ssl_setup, self.l, per_block=[(int(v),) for v in u0])

    # -- objectives ---------------------------------------------------------
    def losses(self):
        """(labeled loss sum, sum l2(|o_u|), sum l2(yu o_u))."""
        out = self.rows.map(_t_unlabeled_loss)
        return tuple(float(sum(o[k] for o in out)) for k in range(3))

    def da_losses(self, lam_u, T, states=None):
        rows = self.rows
        if states is not None:
            saved, rows.states = rows.states, states
        try:
            out = rows.map(_t_da_loss, lam_u, T)
        finally:
            if states is not None:
                rows.states = saved
        return tuple(float(sum(o[k] for o in out)) for k in range(4))

    # -- TSVM ---------------------------------------------------------------
    def init_labels(self, o, n_pos, cu=0.0):
        """The n_pos largest unlabeled outputs labelled +1 (ties: lowest
        position first), the others -1; sets the costs."""
        rows = self.rows
        u = self.u
        if n_pos <= 0:
            b, chosen = np.inf, []
        elif n_pos >= u:
            b, chosen = -np.inf, []
        else:
            mm = rows.map(_t_minmax_u)
            lo = min(m[0] for m in mm)
            hi = max(m[1] for m in mm)
            a, b = lo, np.inf        # count(o >= a) = u >= n_pos > count(o >= b) = 0
            ca, cb = u, 0
            for _ in range(64):
                if ca - cb <= MAX_GATHERED_EVENTS:
                    break
                top = hi if np.isinf(b) else b
                edges = np.unique(np.linspace(a, top, 1025))
                cnt = sum(rows.map(_t_count_ge, edges))
                k = int(np.flatnonzero(cnt >= n_pos)[-1])
                new_a = float(edges[k])
                new_b = float(edges[k + 1]) if k + 1 < edges.shape[0] else b
                new_cb = int(cnt[k + 1]) if k + 1 < edges.shape[0] else cb
                if new_a == a and new_b == b:
                    break
                a, b, ca, cb = new_a, new_b, int(cnt[k]), new_cb
            vals = rows.map(_t_values_in, a, b)
            v = np.concatenate([x[0] for x in vals])
            j = np.concatenate([x[1] for x in vals])
            order = np.lexsort((j, -v))
            chosen = j[order[: n_pos - cb]].tolist()
        rows.replace(_t_init_labels, b, chosen, cu)

    def set_label_costs(self, yu, cu):
        self.rows.replace(_t_label_costs, cu)

    def switch(self, o, yu, S, cu):
        """Switch up to S label pairs (those lowering the objective most)."""
        rows = self.rows
        bounds = rows.map(_t_switch_bounds)
        min_pos = min(b[0] for b in bounds)
        max_neg = max(b[1] for b in bounds)
        if not min_pos < max_neg:
            return 0
        cand = rows.map(_t_switch_candidates, min_pos, max_neg, S)
        op = np.concatenate([c[0] for c in cand])
        jp = np.concatenate([c[1] for c in cand])
        on = np.concatenate([c[2] for c in cand])
        jn = np.concatenate([c[3] for c in cand])
        ip = np.lexsort((jp, op))[:S]
        in_ = np.lexsort((jn, -on))[:S]
        m = min(ip.shape[0], in_.shape[0])
        k = 0
        while k < m and op[ip[k]] < on[in_[k]]:
            k += 1
        if k:
            flips = np.r_[jp[ip[:k]], jn[in_[:k]]].tolist()
            rows.replace(_t_flip, flips, cu)
        return k

    def tsvm_labels(self, yu):
        return self.rows.array_from(_t_tsvm_labels, np.float64)

    # -- DA -----------------------------------------------------------------
    def da_init(self, r, cu):
        self.rows.replace(_t_da_init, r, cu)
        return None, None

    def pstep(self, o, lam_u, T, r, z, p, cu, nu0, tol, omega=1.0, max_iter=500):
        """DA's p-step: the balance root by reductions (the twin of
        ``semisvm._core._ssl._balance``), then the new p and costs
        (``omega``: over-relaxed, as ``semisvm._core._ssl.da_pstep``)."""
        rows = self.rows
        u = self.u
        rng = rows.map(_t_g_range, lam_u, T, omega)
        gmin = min(x[0] for x in rng)
        gmax = max(x[1] for x in rng)
        # the compiled root finder's bracket and steps; only its mean(p)
        # and slope come from reductions over the blocks
        Te = T / omega
        lo, hi, nu = _ssl.root_bracket(gmin, gmax, Te, r, nu0)
        status, n_iter = 2, 0
        for it in range(1, max_iter + 1):
            n_iter = it
            ev = rows.map(_t_balance_eval, lam_u, T, nu, omega)
            f = sum(e[0] for e in ev) / u - r
            fp = sum(e[1] for e in ev) / (u * Te)
            if abs(f) <= tol:
                status = 0
                break
            if it == max_iter:
                break
            stalled, lo, hi, nu = _ssl.root_step(f, fp, lo, hi, nu)
            if stalled:
                status = 1
                break
        out = rows.update(_t_pstep, lam_u, T, nu, cu, omega)
        kl = sum(o[0] for o in out) / u
        h = sum(o[1] for o in out) / u
        resid = sum(o[2] for o in out) / u - r
        return nu, kl, h, resid, n_iter, status

    def da_labels(self, states, p, r):
        """(labels, p) at a kept point, lazy arrays over the blocks."""
        return (self.rows.array_from(_t_da_labels, np.float64, states=states,
                                     args=(r,)),
                self.p_array(states, r))

    def p_array(self, states, r):
        return self.rows.array_from(_t_get_p, np.float64, states=states, key="u",
                                    args=(r,))

    # -- the rest of the SSL backend protocol (see semisvm._rows.LocalSSL);
    #    o, yu, p and z live on the workers: the loops pass None -------------
    distributed = True

    @classmethod
    def load(cls, X, y, costs):
        """Validate and load the row blocks of dask X, y (1 / 0 labeled, -1
        unlabeled) and costs, once; needs labeled rows of both classes."""
        rows, stats = load(X, y, costs, kind="ssl")
        n_pos, n_neg = stats["n_pos"], stats["n_neg"]
        if n_pos + n_neg == 0:
            raise ValueError("y has no labeled rows (all entries are -1 = unlabeled)")
        if not (n_pos and n_neg):
            raise ValueError("y needs labeled rows of both classes (1 and 0); "
                             f"got only {1 if n_pos else 0}")
        self = cls(rows, stats)
        self.stats = stats
        self.n, self.d, self.dtype = rows.n, rows.d, rows.dtype
        return self

    def set_bias(self, s):
        self.rows.s = float(s)

    def use_direct(self):
        from semisvm._rows import use_direct_stats
        return use_direct_stats(self.stats, self.d, "auto")

    def positive_fraction(self):
        return self.n_pos / self.l

    def base_objective(self, lam, w, o):
        w = w.astype(np.float64)
        return 0.5 * lam * np.sum(w * w) + 0.5 * self.losses()[0]

    def objective(self, lam, w, o, lam_u):
        base, unl, _ = self.losses()
        w = w.astype(np.float64)
        F = 0.5 * lam * np.sum(w * w) + 0.5 * base
        if self.u:
            F += 0.5 * lam_u / self.u * unl
        return float(F)

    def label_objective(self, lam, w, o, yu, cu):
        base, _, lab = self.losses()
        w = w.astype(np.float64)
        return 0.5 * lam * np.sum(w * w) + 0.5 * base + 0.5 * cu * lab

    def da_objective(self, lam, w, o, lam_u, p, T):
        # o: the block states of the point (p is in them)
        base, _, loss_u, ent = self.da_losses(lam_u, T, states=o)
        w = w.astype(np.float64)
        F = 0.5 * lam * np.sum(w * w) + 0.5 * base
        if self.u:
            F += 0.5 * lam_u / self.u * loss_u + 0.5 * T / self.u * ent
        return float(F)

    def plain_pstep(self, o, p, lam_u, T, r, nu0, tol):
        cu = lam_u / self.u
        self.rows.states = list(o)
        nu = self.pstep(None, lam_u, T, r, None, None, cu, nu0, tol)[0]
        return list(self.rows.states), None, nu

    def snapshot(self, o, p):
        """The block states of the point (p is in them)."""
        return list(self.rows.states), None

    def decision(self, o):
        """The decision values of the training rows (a lazy dask array)."""
        return self.rows.outputs()

    def decision_of(self, o):
        """Decision values at a kept point (``snapshot``'s states)."""
        return self.rows.array_from(_t_get_o, self.dtype, states=o)

    def unlabeled_index(self):
        return self.rows.unlabeled_index()


def _t_get_p(st, r):
    return st.get("p", np.full(st["idx_u"].shape[0], r))


def _t_get_o(st):
    return st["o"]


def _t_unlabeled_rows(st):
    return (st["idx_u"] + st["row0"]).astype(np.intp)


def materialize(value):
    """``value`` with every dask array in it computed to NumPy: a dask array,
    or one inside a list/tuple/dict or a result dataclass. Used when a model
    fitted on dask is pickled or saved, so that it is stored as the in-memory
    fit would be (a lazy graph of closures over worker data cannot be)."""
    import dataclasses
    if is_dask(value):
        return np.asarray(value.compute())
    if isinstance(value, dict):
        return {k: materialize(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(materialize(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: materialize(getattr(value, f.name))
                   for f in dataclasses.fields(value)
                   if f.init and _holds_dask(getattr(value, f.name))}
        return dataclasses.replace(value, **changes) if changes else value
    return value


def _holds_dask(value):
    if is_dask(value):
        return True
    if isinstance(value, dict):
        return any(_holds_dask(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds_dask(v) for v in value)
    return False
