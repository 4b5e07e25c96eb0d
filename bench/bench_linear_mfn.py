#!/usr/bin/env python
"""LinearSVM (L2-SVM-MFN) against LIBLINEAR 2.50 and scikit-learn's LinearSVC.

Builds a seeded synthetic sparse text-like problem (or reads a shared data
set), fits every solver at the same regularisation in its own subprocess (so
that peak memory is per solver), and prints one table: fit time, the primal
objective computed by one shared NumPy function, the relative objective gap to
the best solver, test accuracy, the ratio of each time to LinearSVM float64's,
and the peak extra memory of each fit next to the CSR matrix's size.

The objective (LinearSVM's, ``lam`` times LIBLINEAR's ``-s 2`` objective at
``C = 1 / (2 lam)``; the bias b is the weight of a constant feature 1, i.e.
intercept_scaling = 1 / LIBLINEAR ``-B 1``)::

    F(w, b) = lam/2 (||w||^2 + b^2) + 1/2 sum_i max(0, 1 - y_i (x_i.w + b))^2

Usage (from the repository root)::

    python bench/bench_linear_mfn.py                 # 200,000 x 50,000, ~50 nnz/row
    python bench/bench_linear_mfn.py --small         # 20,000 x 5,000
    python bench/bench_linear_mfn.py --dataset adult_a9a
    python bench/bench_linear_mfn.py --dataset pcmac
    python bench/bench_linear_mfn.py --n 100000 --d 20000 --nnz 30 --skip-sklearn

Peers: ``pip install liblinear-official`` (the ``bench`` extra); a peer that
cannot be imported is skipped with a message. Threads are pinned to 1.
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
SOLVERS = ("mfn64", "mfn32", "liblinear_s2", "liblinear_s1", "sklearn")
LABELS = {
    "mfn64": "LinearSVM float64",
    "mfn32": "LinearSVM float32",
    "liblinear_s2": "LIBLINEAR -s 2",
    "liblinear_s1": "LIBLINEAR -s 1",
    "sklearn": "sklearn LinearSVC",
}


def parse(solver):
    """``base[@tol][:key=val+key=val]`` -> (base, tol text, LinearSVM keywords)."""
    head, _, opts = solver.partition(":")
    base, _, tol = head.partition("@")
    kw = {}
    if tol and not base.startswith("liblinear"):
        kw["tol"] = float(tol)
    for item in filter(None, opts.split("+")):
        k, _, v = item.partition("=")
        kw[k] = int(v) if k == "n_jobs" else float(v)
    return base, tol, kw


def label(solver):
    base, tol, kw = parse(solver)
    if base.startswith("liblinear"):
        return LABELS[base] + (f" -e {tol}" if tol else "")
    if not kw:
        return LABELS[base]
    return LABELS[base] + " " + " ".join(
        f"n_jobs={v}" if k == "n_jobs" else f"{k}={v:g}" for k, v in kw.items())


# --tolerances: both defaults, matched objectives, float32, 1 and 2 threads
TOLERANCE_ROWS = ("liblinear_s2,liblinear_s2@0.001,liblinear_s2@0.0001,"
           "mfn64,mfn64:grad_tol=0,mfn64:grad_tol=0.001,mfn64:grad_tol=0.0001,"
           "mfn32,mfn64:n_jobs=2,mfn64:grad_tol=0+n_jobs=2")


# --------------------------------------------------------------------------
# the one shared objective
# --------------------------------------------------------------------------
def primal_objective(X, y, w, b, lam):
    """lam/2 (||w||^2 + b^2) + 1/2 sum max(0, 1 - y (X w + b))^2, in float64."""
    w = np.asarray(w, dtype=np.float64)
    X = X.astype(np.float64, copy=False)
    margin = 1.0 - y * (np.asarray(X @ w).ravel() + float(b))
    np.maximum(margin, 0.0, out=margin)
    return 0.5 * lam * (w @ w + float(b) ** 2) + 0.5 * (margin @ margin)


def accuracy(X, y, w, b):
    scores = np.asarray(X.astype(np.float64, copy=False) @ w).ravel() + float(b)
    return float(np.mean(np.where(scores > 0, 1.0, -1.0) == y))


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------
def make_text_like(n, d, nnz, *, seed=0, noise=0.05, zipf=1.1, n_test=None):
    """Seeded sparse text-like binary problem (train and held-out test CSR).

    Column popularity follows a Zipf law ``p_j ~ 1 / (rank_j + 10)^zipf`` over a
    random permutation of the columns; each row draws about ``nnz`` tokens
    (Poisson length), repeated tokens become counts, values are
    ``(1 + log count) * idf_j`` and every row is L2-normalised. Labels come from
    a planted separator ``sign(x.w* - median)`` with a fraction ``noise``
    flipped. Returns ``X, y, X_test, y_test`` (float64 CSR, int32 indices,
    labels in {-1, +1}).
    """
    rng = np.random.default_rng(seed)
    if n_test is None:
        n_test = max(1000, n // 5)
    m = n + n_test
    p = 1.0 / (np.arange(1, d + 1) + 10.0) ** zipf
    p /= p.sum()
    cdf = np.cumsum(p)
    perm = rng.permutation(d)
    lengths = np.maximum(rng.poisson(nnz, size=m), 1)
    total = int(lengths.sum())
    rows = np.repeat(np.arange(m, dtype=np.int64), lengths)
    toks = np.searchsorted(cdf, rng.random(total) * cdf[-1]).clip(max=d - 1)
    key = rows * d + perm[toks]
    del rows, toks
    key, counts = np.unique(key, return_counts=True)
    rows = key // d
    cols = (key - rows * d).astype(np.int32)
    del key
    idf = np.log1p(1.0 / (p * nnz))[np.argsort(perm)]      # by column index
    vals = (1.0 + np.log(counts)) * idf[cols]
    norms = np.sqrt(np.bincount(rows, weights=vals * vals, minlength=m))
    vals /= norms[rows]
    indptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=m), out=indptr[1:])
    idx_dtype = np.int32 if indptr[-1] < np.iinfo(np.int32).max else np.int64
    X = sp.csr_matrix((vals, cols, indptr.astype(idx_dtype)), shape=(m, d))
    X.has_sorted_indices = True
    w_true = rng.standard_normal(d)
    score = np.asarray(X @ w_true).ravel()
    y = np.where(score > np.median(score), 1.0, -1.0)
    flip = rng.random(m) < noise
    y[flip] = -y[flip]
    return X[:n], y[:n], X[n:], y[n:]


def load_shared(name, seed=0):
    """Train/test split of ``../shared/data/<name>.npz`` (read in place), or None."""
    path = SHARED_DATA / f"{name}.npz"
    if not path.exists():
        return None
    with np.load(path, allow_pickle=False) as z:
        raw = {k: z[k] for k in z.files}

    def mat(key):
        if key in raw:
            return sp.csr_matrix(np.asarray(raw[key], dtype=np.float64))
        return sp.csr_matrix(
            (raw[key + "_data"].astype(np.float64), raw[key + "_indices"],
             raw[key + "_indptr"]), shape=tuple(int(s) for s in raw[key + "_shape"]))

    def labels(v):
        v = np.asarray(v)
        classes = np.unique(v)
        if len(classes) != 2:
            raise ValueError(f"{name}: expected two classes, got {classes}")
        return np.where(v == classes[1], 1.0, -1.0)

    X = mat("X")
    y = labels(raw["y"])
    if "y_test" in raw:
        Xt, yt = mat("X_test"), labels(raw["y_test"])
        if Xt.shape[1] != X.shape[1]:
            raise ValueError(f"{name}: train/test feature counts differ")
    else:   # seeded stratified-free 75/25 split
        perm = np.random.default_rng(seed).permutation(X.shape[0])
        cut = int(0.75 * X.shape[0])
        tr, te = np.sort(perm[:cut]), np.sort(perm[cut:])
        X, Xt, y, yt = X[tr], X[te], y[tr], y[te]
    for M in (X, Xt):
        M.sort_indices()
        if M.indices.dtype != np.int32:
            M.indices = M.indices.astype(np.int32)
            M.indptr = M.indptr.astype(np.int32)
    return X, y, Xt, yt


def save_problem(folder, X, y):
    np.save(folder / "data.npy", X.data)
    np.save(folder / "indices.npy", X.indices)
    np.save(folder / "indptr.npy", X.indptr)
    np.save(folder / "y.npy", y)
    (folder / "shape.json").write_text(json.dumps(list(X.shape)))


def read_problem(folder):
    folder = Path(folder)
    shape = tuple(json.loads((folder / "shape.json").read_text()))
    X = sp.csr_matrix((np.load(folder / "data.npy"), np.load(folder / "indices.npy"),
                       np.load(folder / "indptr.npy")), shape=shape)
    X.has_sorted_indices = True
    return X, np.load(folder / "y.npy")


def csr_bytes(X):
    return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes


# --------------------------------------------------------------------------
# per-solver worker (runs in a subprocess)
# --------------------------------------------------------------------------
def _status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1


def _reset_peak():
    """Reset the kernel's peak-RSS counter (VmHWM); False if not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


class _PeakPoller:
    """Fallback when VmHWM cannot be reset: poll VmRSS from a thread."""

    def __init__(self):
        import threading
        self.peak = _status_kb("VmRSS")
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.wait(0.002):
            self.peak = max(self.peak, _status_kb("VmRSS"))

    def __enter__(self):
        self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()
        self.peak = max(self.peak, _status_kb("VmRSS"))


def _clock(start=None):
    """(wall, CPU) seconds now, or elapsed since ``start``.

    CPU time of this (single-threaded) process is the headline timing: the
    benchmark machine's cores may be shared, which inflates wall time.
    """
    now = (time.perf_counter(), time.process_time())
    if start is None:
        return now
    return (now[0] - start[0], now[1] - start[1])


def _fit_once(solver, X, y, lam):
    """Fit one solver; returns (w, b, (wall, cpu) seconds, extra info dict)."""
    C = 1.0 / (2.0 * lam)
    info = {}
    if solver.startswith("mfn"):
        from semisvm import LinearSVM
        kw = parse(solver)[2]
        clf = LinearSVM(lam=lam, **kw)
        c0 = _clock()
        clf.fit(X, y)
        t = _clock(c0)
        r = clf.result_
        # the functional solver alone (no estimator validation / label encoding)
        from semisvm.linear import l2svm_mfn
        y_pm = np.where(y > 0, 1.0, -1.0).astype(X.dtype)
        c0 = _clock()
        l2svm_mfn(X, y_pm, lam=lam, **kw)
        t_solver = _clock(c0)
        info = {"solver_time": t_solver[1], "n_iter": int(r.n_iter),
                "n_cg_iter": int(r.n_cg_iter),
                "status": r.status, "cg_history": r.cg_history.tolist(),
                "active_history": r.active_history.tolist(),
                "solver_objective": float(r.objective)}
        return np.asarray(clf.coef_, dtype=np.float64), float(clf.intercept_), t, info
    if solver.startswith("liblinear"):
        from liblinear import liblinearutil
        base, eps, _ = parse(solver)
        opts = f"-s {base[-1]} -c {C!r} -B 1 -q" + (f" -e {eps}" if eps else "")
        c0 = _clock()
        prob = liblinearutil.problem(y, X, bias=1)
        t_conv = _clock(c0)
        param = liblinearutil.parameter(opts)
        c0 = _clock()
        model = liblinearutil.train(prob, param)
        t = _clock(c0)
        nf = model.get_nr_feature()
        wfull = np.ctypeslib.as_array(model.w, (nf + 1,)).astype(np.float64)
        w, b = wfull[:nf].copy(), float(wfull[nf]) * model.bias
        if model.get_labels()[0] != 1:          # LIBLINEAR's +1 is its first label
            w, b = -w, -b
        info = {"convert_time": t_conv[1], "convert_wall": t_conv[0]}
        return w, b, t, info
    if solver == "sklearn":
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.svm import LinearSVC
        clf = LinearSVC(C=C, loss="squared_hinge", penalty="l2", fit_intercept=True,
                        intercept_scaling=1.0)
        c0 = _clock()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            clf.fit(X, y)
        t = _clock(c0)
        info = {"n_iter": int(np.max(clf.n_iter_)), "dual": str(clf.dual),
                "warning": "; ".join(str(c.message)[:60] for c in caught)}
        return clf.coef_.ravel().astype(np.float64), float(clf.intercept_[0]), t, info
    raise ValueError(solver)


def worker(spec):
    """Load the training problem, fit ``spec['solver']``, write a JSON result."""
    import importlib
    out = Path(spec["out"])
    mod = spec["solver"]
    try:
        if mod.startswith("mfn"):
            importlib.import_module("semisvm")
        elif mod.startswith("liblinear"):
            importlib.import_module("liblinear.liblinearutil")
        else:
            importlib.import_module("sklearn.svm")
    except ImportError as exc:
        out.write_text(json.dumps({"skipped": f"cannot import: {exc}"}))
        return
    X, y = read_problem(spec["train"])
    if mod.startswith("mfn32"):
        X = X.astype(np.float32)
    times, peak_kb, info = [], 0, {}
    for rep in range(spec["repeat"]):
        gc.collect()
        base_kb = _status_kb("VmRSS")
        if _reset_peak():
            w, b, t, info = _fit_once(mod, X, y, spec["lam"])
            peak = _status_kb("VmHWM")
            method = "VmHWM"
        else:
            with _PeakPoller() as poll:
                w, b, t, info = _fit_once(mod, X, y, spec["lam"])
            peak, method = poll.peak, "VmRSS poll"
        times.append(t)
        peak_kb = max(peak_kb, peak - base_kb)
        if rep + 1 < spec["repeat"]:
            del w, b
    if mod.startswith("mfn"):
        # mat-vec floor in this process, on the full matrix and on the rows
        # active at the solution (the rows CGLS multiplies with)
        act = np.flatnonzero(y * (np.asarray(X @ w.astype(X.dtype)).ravel() + b) < 1)
        info["floor_full"] = matvec_floor(X)
        info["floor_active"] = matvec_floor(X[act])
        info["n_active_final"] = int(act.size)
        info["pass_one"], info["pass_two"] = product_times(X, act)
        XJ = X[act]
        info["bytes_active"] = int(XJ.data.nbytes + XJ.indices.nbytes
                                   + XJ.indptr.nbytes)
    np.save(out.with_suffix(".npy"), np.append(w, b))
    out.write_text(json.dumps({"time": min(t[1] for t in times),
                               "wall": min(t[0] for t in times), "times": times,
                               "peak_extra_bytes": peak_kb * 1024,
                               "mem_method": method, "info": info}))


def run_worker(solver, train_dir, tmp, lam, repeat, timeout):
    out = tmp / f"res_{solver}.json"
    spec = {"solver": solver, "train": str(train_dir), "lam": lam,
            "repeat": repeat, "out": str(out)}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--_worker", json.dumps(spec)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env=os.environ.copy())
    except subprocess.TimeoutExpired:
        return {"skipped": f"timed out after {timeout} s"}, None
    if proc.returncode != 0 or not out.exists():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return {"skipped": f"failed (exit code {proc.returncode}): "
                + " | ".join(tail)}, None
    res = json.loads(out.read_text())
    if "skipped" in res:
        return res, None
    wb = np.load(out.with_suffix(".npy"))
    return res, (wb[:-1], wb[-1])


# --------------------------------------------------------------------------
# mat-vec floor
# --------------------------------------------------------------------------
def product_times(X, act, reps=15):
    """Median CPU seconds of CG's product X_J' A X_J v on the rows ``act``, in
    one pass (row by row) and in CGLS's two (X_J v, then X_J' (A q)), one
    thread, through the compiled kernels' test hook."""
    from semisvm._core._cgls import _product_py
    from semisvm._core._dataset import RowData
    R = RowData(X)
    rng = np.random.default_rng(0)
    a = np.ones(X.shape[0], dtype=X.dtype)
    v = rng.standard_normal(X.shape[1] + 1).astype(X.dtype)
    rows = np.asarray(act, dtype=np.int32)
    out = []
    for one_pass in (True, False):
        ts = []
        for _ in range(reps):
            c0 = _clock()
            _product_py(R, 1.0, rows, a, v, 1, one_pass)
            ts.append(_clock(c0)[1])
        out.append(float(np.median(ts)))
    return out


def read_bandwidth(mib=256, reps=5):
    """Bytes per CPU second of a streaming read (NumPy sum of float64)."""
    big = np.ones(mib * 2**17)
    big.sum()
    best = min(_timed(big.sum) for _ in range(reps))
    return big.nbytes / best


def _timed(f):
    c0 = _clock()
    f()
    return _clock(c0)[1]


def matvec_floor(X, reps=15):
    """Median seconds of ``X @ v`` and ``X.T @ u`` (SciPy CSR, one thread)."""
    rng = np.random.default_rng(0)
    v = rng.standard_normal(X.shape[1]).astype(X.dtype)
    u = rng.standard_normal(X.shape[0]).astype(X.dtype)
    tf, tt = [], []
    for _ in range(reps):
        c0 = _clock()
        X @ v
        tf.append(_clock(c0)[1])
        c0 = _clock()
        X.T @ u
        tt.append(_clock(c0)[1])
    return float(np.median(tf)), float(np.median(tt))


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------
def fmt_mb(b):
    return f"{b / 2**20:8.1f}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--small", action="store_true", help="20,000 x 5,000")
    ap.add_argument("--n", type=int, help="training rows")
    ap.add_argument("--d", type=int, help="columns")
    ap.add_argument("--nnz", type=float, help="mean non-zeros per row")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--noise", type=float, default=0.05)
    ap.add_argument("--lam", type=float, default=0.5,
                    help="LinearSVM lam; LIBLINEAR/LinearSVC C = 1/(2 lam)")
    ap.add_argument("--dataset", choices=("adult_a9a", "pcmac"),
                    help="read ../shared/data/<name>.npz instead of synthetic data")
    ap.add_argument("--solvers", default=",".join(SOLVERS),
                    help=f"comma list from {SOLVERS}")
    ap.add_argument("--skip-sklearn", action="store_true")
    ap.add_argument("--extra-tol", type=float, action="append", default=[],
                    help="also fit LinearSVM float64 and float32 with this CGLS tol "
                         "(repeatable)")
    ap.add_argument("--repeat", type=int, default=1, help="fits per solver (min time)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="rounds over all solvers (interleaved best of ROUNDS)")
    ap.add_argument("--tolerances", action="store_true",
                    help="the tolerance study: LIBLINEAR -s 2 -e 0.01/1e-3/1e-4, "
                         "LinearSVM at its default (grad_tol=0.01), at the former "
                         "default (grad_tol=0), at grad_tol 1e-3/1e-4, float32, "
                         "and both defaults with n_jobs=2")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per solver")
    ap.add_argument("--extra-eps", type=float, action="append", default=[],
                    help="also fit LIBLINEAR -s 2 and -s 1 with this -e (repeatable)")
    ap.add_argument("--png", help="write a bar chart of fit times (needs matplotlib)")
    ap.add_argument("--json", help="write all results as JSON")
    ap.add_argument("--_worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._worker:
        worker(json.loads(args._worker))
        return 0

    lam, C = args.lam, 1.0 / (2.0 * args.lam)
    t0 = time.perf_counter()
    if args.dataset:
        data = load_shared(args.dataset, seed=args.seed)
        if data is None:
            print(f"{SHARED_DATA / (args.dataset + '.npz')} not found: skipping "
                  f"the {args.dataset} benchmark.")
            return 0
        name = args.dataset
    else:
        n, d, nnz = (20_000, 5_000, 50) if args.small else (200_000, 50_000, 50)
        n, d, nnz = args.n or n, args.d or d, args.nnz or nnz
        data = make_text_like(n, d, nnz, seed=args.seed, noise=args.noise)
        name = f"synthetic text-like (seed {args.seed}, noise {args.noise})"
    X, y, Xt, yt = data
    t_data = time.perf_counter() - t0
    n, d = X.shape
    mb = csr_bytes(X)
    print(f"# {name}: train {n} x {d}, nnz {X.nnz} ({X.nnz / n:.1f}/row), "
          f"test {Xt.shape[0]} rows, positives {np.mean(y > 0):.3f}; "
          f"CSR {mb / 2**20:.1f} MiB (float64, int32 indices); built in {t_data:.1f} s")
    print(f"# lam = {lam:g}  (LIBLINEAR / LinearSVC C = {C:g}), bias as a constant "
          f"feature 1 (regularised), threads pinned to 1")

    if args.tolerances:
        args.solvers = TOLERANCE_ROWS
    solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    if args.skip_sklearn and "sklearn" in solvers:
        solvers.remove("sklearn")
    for tol in args.extra_tol:
        pos = max([i for i, s in enumerate(solvers) if s.startswith("mfn")],
                  default=-1) + 1
        solvers[pos:pos] = [f"mfn64@{tol:g}", f"mfn32@{tol:g}"]
    for eps in args.extra_eps:
        pos = max([i for i, s in enumerate(solvers) if s.startswith("liblinear")],
                  default=len(solvers) - 1) + 1
        solvers[pos:pos] = [f"liblinear_s2@{eps:g}", f"liblinear_s1@{eps:g}"]
    print(f"# load average before: {os.getloadavg()[0]:.2f} (2 cores are shared)")
    floor64 = matvec_floor(X)
    bw = read_bandwidth()
    X32 = X.astype(np.float32)
    floor32 = matvec_floor(X32)
    del X32

    tmp = Path(tempfile.mkdtemp(prefix="bench_mfn_"))
    results = {}
    try:
        train_dir = tmp / "train"
        train_dir.mkdir()
        save_problem(train_dir, X, y)
        loads = []
        for rnd in range(args.rounds):
            # interleaved: every solver once per round, best round kept
            loads.append(os.getloadavg()[0])
            for s in solvers:
                if "skipped" in results.get(s, {}):
                    continue
                print(f"# round {rnd + 1}/{args.rounds}: fitting {label(s)} ...",
                      flush=True)
                res, wb = run_worker(s, train_dir, tmp, lam, args.repeat,
                                     args.timeout)
                if wb is not None:
                    w, b = wb
                    res["objective"] = primal_objective(X, y, w, b, lam)
                    res["test_acc"] = accuracy(Xt, yt, w, b)
                    res["train_acc"] = accuracy(X, y, w, b)
                    old = results.get(s)
                    if old is not None:
                        res["wall"] = min(res["wall"], old["wall"])
                        if old["time"] < res["time"]:
                            old["wall"] = res["wall"]
                            res = old
                else:
                    print(f"#   skipped {label(s)}: {res['skipped']}")
                results[s] = res
        print(f"# load average (1 min) at the start of each round: "
              f"{', '.join(f'{v:.2f}' for v in loads)}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    ok = {s: r for s, r in results.items() if "objective" in r}
    if not ok:
        print("no solver ran")
        return 1
    best = min(r["objective"] for r in ok.values())
    ref = ok.get("mfn64", {}).get("time")
    ref2 = ok.get("liblinear_s2", {}).get("time")
    refw = ok.get("liblinear_s2", {}).get("wall")
    hdr = (f"{'solver':<40} {'cpu s':>8} {'wall s':>8} {'x mfn64':>8} {'x -s 2':>7} "
           f"{'wall x':>6} "
           f"{'convert s':>9} "
           f"{'objective':>16} {'rel. gap':>9} {'test acc':>8} "
           f"{'peak MiB':>8} {'x CSR':>6}")
    print()
    print(hdr)
    print("-" * len(hdr))
    for s, r in results.items():
        if "objective" not in r:
            print(f"{label(s):<40} skipped: {r['skipped']}")
            continue
        ratio = f"{r['time'] / ref:8.2f}" if ref else f"{'-':>8}"
        ratio2 = f"{r['time'] / ref2:7.2f}" if ref2 else f"{'-':>7}"
        ratio2 += f" {r['wall'] / refw:6.2f}" if refw else f" {'-':>6}"
        conv = r["info"].get("convert_time")
        conv = f"{conv:9.3f}" if conv is not None else f"{'-':>9}"
        gap = (r["objective"] - best) / abs(best)
        print(f"{label(s):<40} {r['time']:8.3f} {r['wall']:8.3f} {ratio} {ratio2} "
              f"{conv} "
              f"{r['objective']:16.8f} {gap:9.2e} {r['test_acc']:8.4f} "
              f"{fmt_mb(r['peak_extra_bytes'])} {r['peak_extra_bytes'] / mb:6.2f}")
    print("\n'cpu s' = CPU time of the fit in its process (all its threads: with "
          "n_jobs=2 it is the sum over both), the timing of the ratios 'x mfn64' and "
          "'x -s 2'; 'wall s' = wall-clock time (inflated when other jobs share the "
          "cores), of the ratio 'wall x' (to LIBLINEAR -s 2's wall time): the one "
          "that tells what a second thread buys. LIBLINEAR's fit is train() only, "
          "'convert s' is its problem() conversion (CPU).")
    pairs = [("liblinear_s2", "mfn64"), ("liblinear_s2@0.001", "mfn64:grad_tol=0.001"),
             ("liblinear_s2@0.0001", "mfn64:grad_tol=0.0001"),
             ("liblinear_s2", "mfn64:grad_tol=0"), ("liblinear_s2", "mfn32"),
             ("mfn64", "mfn64:n_jobs=2"), ("mfn64:grad_tol=0", "mfn64:grad_tol=0+n_jobs=2")]
    for p, q in pairs:
        if p in ok and q in ok:
            a_, b_ = ok[p], ok[q]
            print(f"ratio {label(q)} / {label(p)}: CPU {b_['time'] / a_['time']:.2f}, "
                  f"wall {b_['wall'] / a_['wall']:.2f}; objective "
                  f"{b_['objective']:.6f} vs {a_['objective']:.6f} "
                  f"({'<=' if b_['objective'] <= a_['objective'] else '>'})")
    print(f"'peak MiB' = peak RSS during the fit (LIBLINEAR: problem() + train()) "
          f"above the RSS before it; 'x CSR' divides it by the training CSR "
          f"({mb / 2**20:.1f} MiB). So the fit's total footprint is (1 + x CSR) "
          f"times the matrix.")
    print(f"SciPy CSR mat-vec floor (CPU) on the full training matrix: X @ v "
          f"{floor64[0] * 1e3:.2f} ms, X.T @ u {floor64[1] * 1e3:.2f} ms (float64); "
          f"{floor32[0] * 1e3:.2f} / {floor32[1] * 1e3:.2f} ms (float32).")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    for s in [s for s in ok if s.startswith("mfn")]:
        r = ok.get(s)
        if not r:
            continue
        inf = r["info"]
        act = np.asarray(inf["active_history"])
        cg = np.asarray(inf["cg_history"])
        fl = inf["floor_full"]
        fa = inf["floor_active"]
        na = max(inf["n_active_final"], 1)
        # SciPy-floor cost of MFN's mat-vec work, per Newton iteration k: cg_k
        # CGLS iterations x (X_J p, X_J' z) plus 2 X_J' products (right-hand side,
        # first residual) on the act_k active rows, X wbar on the other rows; plus
        # the initial X w. Row costs are taken from the floor on the final J.
        fwd, bwd = fa[0] / na, fa[1] / na
        fwd_all = fl[0] / n
        work = float(np.sum(cg * act * (fwd + bwd) + 2 * act * bwd
                            + (n - act) * fwd_all)) + fl[0]
        per_cg = r["time"] / max(inf["n_cg_iter"], 1)
        print(f"{label(s)}: {inf['n_iter']} Newton iterations ({inf['status']}), "
              f"{inf['n_cg_iter']} CG iterations")
        print(f"    CG iterations per Newton iteration: {cg.tolist()}")
        print(f"    active rows per Newton iteration:   {act.tolist()}")
        print(f"    fit {r['time']:.3f} s CPU / {inf['n_cg_iter']} CG iterations = "
              f"{per_cg * 1e3:.2f} ms per CG iteration; SciPy floor "
              f"X_J @ v + X_J.T @ u "
              f"on the {na} final active rows {(fa[0] + fa[1]) * 1e3:.2f} ms "
              f"(full X: {(fl[0] + fl[1]) * 1e3:.2f} ms)")
        if "pass_one" in inf:
            floor1 = inf["bytes_active"] / bw
            print(f"    CG's product on the {na} final active rows, one thread: "
                  f"one pass {inf['pass_one'] * 1e3:.2f} ms, two passes "
                  f"{inf['pass_two'] * 1e3:.2f} ms; one read of those rows "
                  f"({inf['bytes_active'] / 2**20:.1f} MiB) at the streaming read "
                  f"bandwidth ({bw / 2**30:.1f} GiB/s) {floor1 * 1e3:.2f} ms: one "
                  f"pass is {inf['pass_one'] / floor1:.1f}x that floor")
        print(f"    this run's mat-vec work at the SciPy floor: {work:.3f} s = "
              f"{work / r['time']:.0%} of the fit; l2svm_mfn alone "
              f"{inf['solver_time']:.3f} s CPU (one run)")
    for s in ("sklearn",):
        if s in ok:
            print(f"{LABELS[s]}: dual={ok[s]['info']['dual']}, n_iter "
                  f"{ok[s]['info']['n_iter']} {ok[s]['info']['warning']}")
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"dataset": name, "shape": [n, d], "nnz": int(X.nnz), "csr_bytes": mb,
             "lam": lam, "floor64": floor64, "floor32": floor32,
             "results": results}, indent=1))
    if args.png:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib not installed: no PNG written")
        else:
            fig, ax = plt.subplots(figsize=(7, 3))
            names = [label(s) for s in ok]
            ax.barh(names, [ok[s]["time"] for s in ok])
            ax.set_xlabel("fit time (s)")
            ax.set_title(f"{n} x {d}, C = {C:g}")
            fig.tight_layout()
            fig.savefig(args.png, dpi=120)
            print(f"wrote {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
