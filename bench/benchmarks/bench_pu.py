"""USMO (PUSVM) benchmarks: the paper's UCI tables and scaling.

Run as a script (nothing is downloaded; the data come from ../shared/data):

    export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
    python bench/benchmarks/bench_pu.py tables [n_seeds]
    python bench/benchmarks/bench_pu.py scale
    (or scale-qp / scale-rbf / scale-text, optionally followed by sizes)

``tables`` reproduces Tables III (linear) and IV (Gaussian, s = 1, i.e.
gamma = 0.5) of Sansone, De Natale & Zhou (TPAMI 2019) with the paper's
protocol (its ``demo2.m``): floor(N pi 0.2) positives, taken in a seeded
random order, are labeled, every other row is unlabeled, rows keep the file's
order, pi = the prior of the paper's demo, lam in
{1e-4, 1e-3, 1e-2, 1e-1}. It prints, per cell, the mean over seeds of

* ``F+``   F-measure of the positive class on U, predictions aligned (correct);
* ``Fmaj`` F-measure of the majority class of U, predictions aligned (the
  paper's metric, scored correctly);
* ``Fpap`` the paper's own scoring: the majority-class F of the U labels
  against the predictions for rows 1..n_u of the whole set in file order
  (misaligned; see ../shared/papers/notes/usmo.md);
* ``Fbias`` the biased SVM (scikit-learn SVC, P vs U, class_weight
  "balanced", C = 1 / (2 lam N)), majority-class F aligned, for comparison;
* ``Felk`` pulearn's ElkanotoPuClassifier around the same SVC (probability
  outputs, 20% hold-out), majority-class F aligned (nan if pulearn is absent).

``scale`` times the RBF kernel solver on a seeded synthetic set and the linear
solver on a synthetic sparse text-like set (peak RSS from a fresh process per
size), beside LIBSVM's C-SVC (scikit-learn SVC) on the same kernel and size.
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

DATA = Path(os.environ.get("SEMISVM_SHARED_DATA",
                           Path(__file__).resolve().parents[3] / "shared" / "data"))

# the priors passed by the paper's demo (fraction of y == 1 in each file)
PRIORS = {"australian": 0.56, "clean1": 0.44, "diabetes": 0.35, "heart": 0.44,
          "heart_statlog": 0.44, "house": 0.47, "house_votes": 0.61,
          "ionosphere": 0.64, "isolet": 0.50, "krvskp": 0.48,
          "liverdisorders": 0.58, "spectf": 0.73}
LAMS = (1e-4, 1e-3, 1e-2, 1e-1)
# Tables III/IV, USMO averages over the 12 sets (paper's scoring)
PAPER_AVG = {"linear": (67.6, 68.3, 71.3, 74.3), "rbf": (66.3, 68.9, 68.4, 69.1)}


def _load(name):
    with np.load(DATA / f"{name}.npz", allow_pickle=False) as z:
        return np.ascontiguousarray(z["X"], dtype=np.float64), np.asarray(z["y"])


def _f1(y_true, y_pred, label):
    tp = np.sum((y_pred == label) & (y_true == label))
    fp = np.sum((y_pred == label) & (y_true != label))
    fn = np.sum((y_pred != label) & (y_true == label))
    return 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)


def _split(y01, prior, seed):
    """The demo's protocol: floor(N pi 0.2) positives, picked in a seeded
    random order, are labeled; the rows keep the file's order."""
    rng = np.random.RandomState(seed)
    n_lab = int(np.floor(y01.shape[0] * prior * 0.2))
    pos = [k for k in rng.permutation(y01.shape[0]) if y01[k] == 1][:n_lab]
    y_pu = -np.ones(y01.shape[0], dtype=np.int64)
    y_pu[pos] = 1
    return y_pu


def _cell(X, y01, prior, lam, kernel, seeds):
    from sklearn.svm import SVC

    from semisvm import PUSVM

    out = {"F+": [], "Fmaj": [], "Fpap": [], "Fbias": [], "Felk": [], "time": []}
    for seed in seeds:
        y_pu = _split(y01, prior, seed)
        u = y_pu != 1
        yu = y01[u]
        # the demo's "performance": F of the majority class of the U labels
        maj = 1 if np.sum(yu == 0) < np.sum(yu == 1) else 0
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf = PUSVM(prior=prior, lam=lam, kernel=kernel, gamma=0.5,
                        init="parzen").fit(X, y_pu)
        out["time"].append(time.perf_counter() - t0)
        pred_all = (clf.decision_function(X) > 0).astype(int)
        out["F+"].append(_f1(yu, pred_all[u], 1))
        out["Fmaj"].append(_f1(yu, pred_all[u], maj))
        # the demo predicts all N rows (file order) and scores rows 1..n_u
        out["Fpap"].append(_f1(yu, pred_all[: yu.shape[0]], maj))
        svc = SVC(kernel=kernel, gamma=0.5, C=1.0 / (2 * lam * X.shape[0]),
                  class_weight="balanced").fit(X, (y_pu == 1).astype(int))
        out["Fbias"].append(_f1(yu, svc.predict(X[u]), maj))
        # pulearn's Elkan-Noto classifier around the same SVC, when installed
        try:
            from pulearn import ElkanotoPuClassifier
        except ImportError:
            out["Felk"].append(np.nan)
            continue
        svp = SVC(kernel=kernel, gamma=0.5, C=1.0 / (2 * lam * X.shape[0]),
                  probability=True, random_state=seed)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                elk = ElkanotoPuClassifier(svp, hold_out_ratio=0.2,
                                           random_state=seed).fit(X, y_pu)
                pred = (np.asarray(elk.predict(X[u])) == 1).astype(int)
        except ValueError:
            pred = np.zeros(int(u.sum()), dtype=int)
        out["Felk"].append(_f1(yu, pred, maj))
    return {k: 100 * np.mean(v) if k != "time" else np.mean(v)
            for k, v in out.items()}


def tables(n_seeds=5):
    seeds = range(n_seeds)
    for kernel in ("linear", "rbf"):
        title = "III (linear)" if kernel == "linear" else "IV (Gaussian s=1)"
        print(f"\n=== Table {title}"
              f", {n_seeds} seeded splits per cell ===")
        print(f"{'data set':15s}" + "".join(
            f" | lam={lam:<7g} F+   Fmaj  Fpap Fbias  Felk" for lam in LAMS))
        sums = np.zeros((len(LAMS), 6))
        for name, prior in PRIORS.items():
            X, y01 = _load(name)
            row = f"{name:15s}"
            for k, lam in enumerate(LAMS):
                r = _cell(X, y01, prior, lam, kernel, seeds)
                row += (f" | {'':6s}{r['F+']:5.1f} {r['Fmaj']:5.1f} {r['Fpap']:5.1f}"
                        f" {r['Fbias']:5.1f} {r['Felk']:5.1f}")
                sums[k] += [r["F+"], r["Fmaj"], r["Fpap"], r["Fbias"], r["Felk"],
                            r["time"]]
            print(row, flush=True)
        avg = sums / len(PRIORS)
        print(f"{'average':15s}" + "".join(
            f" | {'':6s}{a[0]:5.1f} {a[1]:5.1f} {a[2]:5.1f} {a[3]:5.1f} {a[4]:5.1f}"
            for a in avg))
        print(f"{'paper (Fpap)':15s}" + "".join(
            f" | {'':18s}{p:5.1f}{'':12s}" for p in PAPER_AVG[kernel]))
        print(f"{'PUSVM fit time':15s}" + "".join(
            f" | {'':6s}{a[5] * 1e3:8.1f} ms{'':18s}" for a in avg))


def synthetic_dense(n, d=10, seed=0):
    rng = np.random.RandomState(seed)
    y01 = (rng.rand(n) < 0.4).astype(int)
    X = rng.randn(n, d) + 0.8 * y01[:, None]
    return X, y01


def synthetic_text(n, d=20000, nnz_row=30, seed=0):
    """Sparse, unit-norm, Zipf-distributed 'bag of words' with topic words."""
    rng = np.random.RandomState(seed)
    y01 = (rng.rand(n) < 0.4).astype(int)
    ind = np.minimum(rng.zipf(1.3, size=n * nnz_row) - 1, d - 1)
    topic = rng.randint(0, 200, size=n * nnz_row)
    swap = rng.rand(n * nnz_row) < 0.2
    ind = np.where(swap, 1000 + topic + 200 * np.repeat(y01, nnz_row), ind)
    X = sp.csr_matrix((np.ones(n * nnz_row), ind.astype(np.int32),
                       np.arange(0, n * nnz_row + 1, nnz_row)), shape=(n, d))
    X.sum_duplicates()
    norms = np.sqrt(np.asarray(X.multiply(X).sum(1)).ravel())
    return sp.csr_matrix(sp.diags(1 / norms) @ X), y01


def _one_run(kind, n, solver):
    """Child process: fit once, print time, peak RSS and accuracy on U."""
    if kind == "rbf":
        X, y01 = synthetic_dense(n)
    else:
        X, y01 = synthetic_text(n)
    rng = np.random.RandomState(1)
    pos = rng.permutation(np.flatnonzero(y01))[: max(100, n // 20)]
    y = -np.ones(n)
    y[pos] = 1
    u = y != 1
    # imports happen before the clock starts
    if solver == "usmo":
        from semisvm.solvers import usmo
    elif solver == "qp":
        import cvxpy as cp
        from sklearn.metrics.pairwise import rbf_kernel
    else:
        from sklearn.svm import SVC
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    if solver == "usmo":
        # the sparse start pays off with kernel columns, not with explicit w
        r = usmo(X, y, prior=y01[u].mean(), lam=1e-3 if kind == "rbf" else 1e-4,
                 kernel="rbf" if kind == "rbf" else "linear", gamma=0.1,
                 init="parzen" if kind == "rbf" else "uniform")
        pred = r.decision[u] > 0
        extra = f"steps={r.n_iter} passes={r.n_pass} status={r.status}"
    elif solver == "qp":
        # competitor [7]: the same dual as a dense QP (n x n Gram matrix)
        lam, prior = 1e-3, y01[u].mean()
        P = ~u
        p, nu = int(P.sum()), int(u.sum())
        c1, c2 = prior / (2 * lam * p), 1 / (2 * lam * nu)
        Kuu = rbf_kernel(X[u], gamma=0.1)
        q = rbf_kernel(X[u], X[P], gamma=0.1).sum(1)
        s = cp.Variable(nu)
        obj = (0.5 * cp.quad_form(s, cp.psd_wrap(Kuu)) - c1 * q @ s
               - cp.sum(cp.minimum(s, c2 - s)))
        cp.Problem(cp.Minimize(obj), [cp.sum(s) == c1 * p, s >= 0, s <= c2]).solve(
            solver=cp.CLARABEL)
        F = c1 * q - Kuu @ s.value
        free = (s.value > 1e-6 * c2) & (s.value < (1 - 1e-6) * c2)
        b = (np.median(-F[free] + np.where(s.value[free] < c2 / 2, -1, 1))
             if free.any() else 0.0)
        pred = F + b > 0
        extra = "dense QP (cvxpy/Clarabel)"
    else:
        svc = SVC(kernel="rbf" if kind == "rbf" else "linear", gamma=0.1,
                  C=1.0, cache_size=200).fit(X, (y == 1).astype(int))
        pred = svc.predict(X[u]) == 1
        extra = f"n_sv={svc.n_support_.sum()}"
    dt = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    acc = np.mean(pred == (y01[u] == 1))
    print(f"{dt:.3f} {peak / 1024:.0f} {(peak - base) / 1024:.0f} {acc:.4f} {extra}")


def _child(kind, n, solver, timeout=900):
    cmd = [sys.executable, __file__, "_one", kind, str(n), solver]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                             check=True).stdout.split()
    except subprocess.TimeoutExpired:
        return None
    return float(out[0]), float(out[1]), float(out[2]), float(out[3]), " ".join(out[4:])


def scale_qp(sizes=(1000, 2000, 4000)):
    print("\n=== dense QP of the same dual (competitor [7]) vs USMO, RBF ===")
    print(f"{'n':>9s} {'USMO s':>9s} {'peak MB':>8s} {'QP s':>9s} {'peak MB':>8s}")
    for n in sizes:
        a = _child("rbf", n, "usmo")
        b = _child("rbf", n, "qp")
        qs = f"{b[0]:9.2f} {b[1]:8.0f}" if b else "  timeout      n/a"
        print(f"{n:9d} {a[0]:9.2f} {a[1]:8.0f} {qs}", flush=True)


def scale_rbf(sizes=(10_000, 30_000), libsvm_max=30_000):
    print("\n=== scale: RBF kernel (gamma 0.1, lam 1e-3, cache 200 MB) ===")
    print(f"{'n':>9s} {'USMO s':>9s} {'peak MB':>8s} {'acc':>6s} {'C-SVC s':>9s}"
          f" {'ratio':>6s}  details")
    for n in sizes:
        a = _child("rbf", n, "usmo", timeout=3600)
        b = _child("rbf", n, "svc") if n <= libsvm_max else None
        ratio = f"{a[0] / b[0]:6.2f}" if (a and b) else "   n/a"
        print(f"{n:9d} {a[0]:9.2f} {a[1]:8.0f} {a[3]:6.3f} "
              f"{(f'{b[0]:9.2f}' if b else '      n/a')} {ratio}  {a[4]}", flush=True)


def scale_text(sizes=(100_000, 1_000_000)):
    print("\n=== scale: linear kernel, sparse text-like (d = 20000, 30 nnz/row) ===")
    print(f"{'n':>9s} {'USMO s':>9s} {'peak MB':>8s} {'acc':>6s}  details")
    for n in sizes:
        a = _child("text", n, "usmo")
        print(f"{n:9d} {a[0]:9.2f} {a[1]:8.0f} {a[3]:6.3f}  {a[4]}", flush=True)


class TimeUSMO:
    """asv: the kernel solver on a small seeded dense problem."""

    params = ((2000,), ("rbf", "linear"))
    param_names = ("n_samples", "kernel")

    def setup(self, n, kernel):
        X, y01 = synthetic_dense(n)
        y = -np.ones(n)
        y[np.flatnonzero(y01)[: n // 10]] = 1
        self.X, self.y, self.kernel = X, y, kernel

    def time_fit(self, n, kernel):
        from semisvm.solvers import usmo

        usmo(self.X, self.y, prior=0.35, lam=1e-3, kernel=self.kernel, gamma=0.1)

    def track_objective(self, n, kernel):
        from semisvm.solvers import usmo

        return usmo(self.X, self.y, prior=0.35, lam=1e-3, kernel=self.kernel,
                    gamma=0.1).objective


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "tables"
    if what == "_one":
        _one_run(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif what == "tables":
        tables(int(sys.argv[2]) if len(sys.argv) > 2 else 5)
    elif what in ("scale", "scale-qp", "scale-rbf", "scale-text"):
        sizes = tuple(int(v) for v in sys.argv[2:])
        parts = {"scale-qp": scale_qp, "scale-rbf": scale_rbf,
                 "scale-text": scale_text}
        for name, fn in parts.items():
            if what in ("scale", name):
                fn(sizes) if sizes else fn()
    else:
        raise SystemExit(f"unknown part {what!r}: use tables, scale, scale-qp, "
                         "scale-rbf or scale-text")
