"""Scale of LapSVM / LapRLS beside graphlearning's Laplace and Poisson learning.

    # THE scale table (each method in its own process, for its peak RSS):
    nice -n 10 python bench/bench_manifold_scale.py --sizes 5000 100000 \
        [1000000] [--real] [--text]
    # the 16-core run (1M rows, semisvm's graph and CG on 16 threads):
    python bench/bench_manifold_scale.py --sizes 1000000 --n-jobs 16 \
        --methods gl-graph gl-poisson LapSVM LapRLS --timeout 240
    # a smoke run of the same (2,000 and 20,000 rows):
    python bench/bench_manifold_scale.py --quick --n-jobs 2
    # the exact path's PCG at one size (kernel + graph and solve split):
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_manifold_scale.py \
        [--mnist] [--synthetic 20000]

``--sizes N...``: for each n the problem of the targets,
``make_classification(n, 50, n_informative=20, n_classes=10,
n_clusters_per_class=1, class_sep=2.0, random_state=0)`` as float32, with 10
labels per class drawn per class (in class order) by
``numpy.random.default_rng(0).choice(rows of the class, 10, replace=False)``.
``--real``: the sets of ../shared/data with 20,000+ rows (bank_marketing,
adult_a9a (train), shuttle (train), poker_hand_train), features standardised
(a9a: its 0/1 features as they are, densified), 10 labels per class (at most
half of a class's rows), the same default_rng(0) draw. ``--text``: the
seeded text-like CSR problem of bench_linear_mfn.py (linear LapSVM only).

Methods, each in a fresh process (``--worker``), which loads the data, so
that ``ru_maxrss`` is its own (``rss0`` is the RSS before the timed part):

- ``gl-graph``: graphlearning's kNN graph, ``gl.weightmatrix.knn(X, 10)``
  (annoy; saved for the next two);
- ``gl-laplace`` / ``gl-poisson``: graphlearning's Laplace and Poisson
  learning on that graph and the same labels; their "total" time adds the
  graph's;
- ``LapSVM`` / ``LapRLS``: ``fit(X, y)`` with the defaults, graph build
  included (above 10,000 rows: the Nystroem mode's two-stage fit,
  ``lowrank_fit="auto"``; at 5,000: the exact path);
- ``LapSVM@gl`` / ``LapRLS@gl``: the same on graphlearning's graph
  (``affinity=W``): the same graph and labels as the peers.

Error: % of the unlabeled rows misclassified (``transduction_``, which is
the inductive model's ``predict`` on them). Ratios: wall and CPU time over
``gl-poisson``'s total (graph + solve) from the same run. The load average
is printed with each row (the machine is shared: CPU seconds are the
steadier figure). Writes bench/figures/manifold_scale.png (log-log time
against n) and prints a Markdown table.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
DATA_DIR = HERE.parents[1] / "shared" / "data"
FIG = HERE / "figures" / "manifold_scale.png"
K_GRAPH = 10
REAL = ["bank_marketing", "adult_a9a", "shuttle", "poker_hand_train"]
METHODS = ["gl-graph", "gl-laplace", "gl-poisson", "LapSVM", "LapRLS",
           "LapSVM@gl", "LapRLS@gl"]
METHODS_TEXT = ["LapSVM-lin"]
N_JOBS = None


def _peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


# ------------------------------------------------------------------ data

def make_dense(n, seed=0):
    from sklearn.datasets import make_classification
    X, y = make_classification(n, 50, n_informative=20, n_classes=10,
                               n_clusters_per_class=1, class_sep=2.0,
                               random_state=seed)
    return X.astype(np.float32), y


def labels(y, per_class=10, seed=0):
    """``per_class`` labels per class (at most half of its rows), drawn per
    class in class order with ``numpy.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    yl = np.full_like(y, -1)
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        m = min(per_class, max(1, idx.size // 2))
        yl[rng.choice(idx, m, replace=False)] = c
    return yl


def load_real(name):
    sys.path.insert(0, str(DATA_DIR))
    from load import load
    d = load(name)
    X = d["X"]
    if sp.issparse(X):
        X = X.toarray()
    X = np.asarray(X, dtype=np.float64)
    if name != "adult_a9a":
        sd = X.std(axis=0)
        X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    # classes 0..k-1 (a9a's -1 would read as "unlabeled")
    return X.astype(np.float32), np.unique(d["y"], return_inverse=True)[1]


def load_problem(kind, n):
    if kind == "dense":
        X, y = make_dense(n)
    elif kind == "text":
        sys.path.insert(0, str(HERE))
        from bench_linear_mfn import make_text_like
        X, y, _, _ = make_text_like(n, 50_000, 50, seed=0, n_test=1)
        X, y = X.astype(np.float32), (y > 0).astype(int)
        rng = np.random.default_rng(0)
        yl = np.full_like(y, -1)
        for c in (0, 1):
            idx = np.flatnonzero(y == c)
            yl[rng.choice(idx, max(1, idx.size // 100), replace=False)] = c
        return X, y, yl
    else:
        X, y = load_real(kind)
    return X, y, labels(y)


# ------------------------------------------------------------------ worker

def worker(kind, n, method, graph_path):
    X, y, yl = load_problem(kind, n)
    unl = yl == -1
    rss0 = _rss_mb()
    extra = {}
    t, c = time.perf_counter(), time.process_time()
    if method == "gl-graph":
        import graphlearning as gl
        W = sp.csr_matrix(gl.weightmatrix.knn(X, K_GRAPH))
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        sp.save_npz(graph_path, W, compressed=False)
        err = float("nan")
    elif method.startswith("gl-"):
        import graphlearning as gl
        W = sp.load_npz(graph_path).tocsr()
        rss0 = _rss_mb()
        t, c = time.perf_counter(), time.process_time()
        train = np.flatnonzero(~unl)
        # graphlearning wants the labels 0..k-1
        classes, code = np.unique(yl[train], return_inverse=True)
        model = (gl.ssl.laplace(W) if method == "gl-laplace"
                 else gl.ssl.poisson(W))
        pred = classes[model.fit_predict(train, code)]
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        err = 100.0 * float(np.mean(pred[unl] != y[unl]))
    else:
        from semisvm.manifold import LapRLS, LapSVM
        est = LapRLS if method.startswith("LapRLS") else LapSVM
        kw = {}
        if method.endswith("@gl"):
            W = sp.load_npz(graph_path).tocsr()
            kw["affinity"] = W
            rss0 = _rss_mb()
        if method.endswith("-lin"):
            clf = est(kernel="linear")
        elif N_JOBS is not None and not method.endswith("@gl"):
            # n_jobs threads for the graph's index and the graph CG
            clf = est(n_jobs=N_JOBS)
        else:
            clf = est()
        t, c = time.perf_counter(), time.process_time()
        clf.fit(X, yl, **kw)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        err = 100.0 * float(np.mean(clf.transduction_[unl] != y[unl]))
        extra = {"mode": clf.mode_, "p": clf.p_,
                 "fit": getattr(clf, "lowrank_fit_", None),
                 "agree": getattr(clf, "graph_agreement_", None)}
    print(json.dumps(dict(kind=kind, n=int(X.shape[0]), method=method, wall=wall,
                          cpu=cpu, err=err, peak_mb=_peak_mb(), rss0_mb=rss0,
                          load=os.getloadavg()[0], **extra)))


def _child(args, timeout=None):
    if N_JOBS is not None:
        args = args + ["--n-jobs", str(N_JOBS)]
    try:
        out = subprocess.run([sys.executable, __file__] + args,
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": [f"timed out after {timeout} s"]}
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1:] or ["?"]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def scale(problems, timeout=None, only=None):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for kind, n in problems:
            g = os.path.join(tmp, f"{kind}{n}.npz")
            methods = METHODS_TEXT if kind == "text" else METHODS
            if importlib.util.find_spec("graphlearning") is None:
                # the peers need graphlearning (the bench extra): without
                # it, semisvm's rows alone (no ratios)
                methods = [m for m in methods
                           if not m.startswith("gl-") and not m.endswith("@gl")]
            for m in methods:
                if only and m not in only:
                    continue
                if m.startswith("gl-") and m != "gl-graph" and not os.path.exists(g):
                    continue
                if m.endswith("@gl") and not os.path.exists(g):
                    continue
                r = _child(["--worker", kind, str(n), m, g], timeout)
                r.setdefault("method", m)
                r.setdefault("n", n)
                r.setdefault("kind", kind)
                print(r, flush=True)
                rows.append(r)
    table(rows)
    plot(rows)
    return rows


def table(rows):
    ok = [r for r in rows if "error" not in r]
    base = {}
    for r in ok:
        if r["method"] == "gl-graph":
            base[(r["kind"], r["n"], "graph")] = (r["wall"], r["cpu"])
    for r in ok:
        g = base.get((r["kind"], r["n"], "graph"), (0.0, 0.0))
        if r["method"] in ("gl-laplace", "gl-poisson"):
            r["twall"], r["tcpu"] = r["wall"] + g[0], r["cpu"] + g[1]
        else:
            r["twall"], r["tcpu"] = r["wall"], r["cpu"]
        if r["method"] == "gl-poisson":
            base[(r["kind"], r["n"], "poisson")] = (r["twall"], r["tcpu"])
    print("\n| data | n | method | wall s | CPU s | total wall / Poisson | "
          "total CPU / Poisson | error % | peak RSS MB | RSS before MB | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            print(f"| {r.get('kind')} | {r.get('n')} | {r.get('method')} | "
                  f"failed: {r['error']} | | | | | | | |")
            continue
        pw, pc = base.get((r["kind"], r["n"], "poisson"), (np.nan, np.nan))
        note = ""
        if r["method"] in ("gl-laplace", "gl-poisson"):
            note = " (+graph)"
        print(f"| {r['kind']} | {r['n']} | {r['method']} | {r['wall']:.1f} | "
              f"{r['cpu']:.1f} | {r['twall'] / pw:.2f}{note} | "
              f"{r['tcpu'] / pc:.2f}{note} | {r['err']:.2f} | "
              f"{r['peak_mb']:.0f} | {r['rss0_mb']:.0f} | {r['load']:.1f} |")


def plot(rows):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is absent: no plot")
        return
    ok = [r for r in rows if "error" not in r and r["kind"] == "dense"
          and "twall" in r]
    if not ok:
        return
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for m in sorted({r["method"] for r in ok}):
        pts = sorted((r["n"], r["twall"], r["tcpu"]) for r in ok
                     if r["method"] == m)
        if len(pts) < 1:
            continue
        n, wall, cpu = map(np.array, zip(*pts))
        lab = m + (" (+graph)" if m in ("gl-laplace", "gl-poisson") else "")
        axes[0].loglog(n, wall, "o-", label=lab)
        axes[1].loglog(n, cpu, "o-", label=lab)
    axes[0].set(xlabel="n (rows)", ylabel="wall seconds", title="wall time")
    axes[1].set(xlabel="n (rows)", ylabel="CPU seconds", title="CPU time")
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.suptitle("make_classification(n, 50, 20 informative, 10 classes), "
                 "10 labels per class", fontsize=9)
    fig.tight_layout()
    FIG.parent.mkdir(exist_ok=True)
    fig.savefig(FIG, dpi=110)
    print(f"plot: {FIG}")


# ------------------------------------------------------- exact path detail

def _timed(obj, name, store):
    """Wrap obj.name to record (wall, cpu) seconds of its calls in store."""
    f = getattr(obj, name)

    def g(*a, **k):
        t, c = time.perf_counter(), time.process_time()
        r = f(*a, **k)
        store[name] = (time.perf_counter() - t, time.process_time() - c)
        return r

    setattr(obj, name, g)
    return f


def _run(name, X, y, n_lab_per_class, seed=0):
    import semisvm.manifold as manifold
    from semisvm import LapSVM
    yl = labels(y, per_class=n_lab_per_class, seed=seed)
    n = X.shape[0]
    base = _peak_mb()
    parts = {}
    orig = (_timed(manifold._LaplacianBase, "_kernel_and_laplacian", parts),
            _timed(manifold, "_lapsvm_multi", parts))
    try:
        t, c = time.perf_counter(), time.process_time()
        clf = LapSVM(n_components=None).fit(X, yl)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
    finally:
        manifold._LaplacianBase._kernel_and_laplacian = orig[0]
        manifold._lapsvm_multi = orig[1]
    res = clf.result_ if isinstance(clf.result_, list) else [clf.result_]
    unl = yl == -1
    err = 100 * np.mean(clf.transduction_[unl] != y[unl])
    gram_mb = n * n * X.dtype.itemsize / 2**20
    kg, sv = parts["_kernel_and_laplacian"], parts["_lapsvm_multi"]
    print(f"{name}: n={n}, d={X.shape[1]}, classes={np.unique(y).size}, "
          f"dtype={X.dtype}, p_={clf.p_} (intrinsic dim {clf.intrinsic_dim_:.1f})")
    print(f"  LapSVM().fit: {wall:.2f} s wall, {cpu:.2f} s CPU; kernel + kNN graph "
          f"{kg[0]:.2f} s ({kg[1]:.2f} CPU), PCG {sv[0]:.2f} s ({sv[1]:.2f} CPU), "
          f"iterations per problem {[r.n_iter for r in res]}")
    print(f"  error on unlabeled {err:.2f}%")
    print(f"  peak RSS {_peak_mb():.0f} MB (before: {base:.0f} MB); Gram matrix "
          f"{gram_mb:.0f} MB; O(n) work vectors {12 * len(res) * n * 4 / 2**20:.1f} MB")
    print(f"  load: {os.getloadavg()}")


def main():
    global N_JOBS
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        if len(sys.argv) > 7 and sys.argv[6] == "--n-jobs":
            N_JOBS = int(sys.argv[7])
        worker(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--replot":
        # the table and the plot again from the rows a run printed (its log)
        import ast
        rows = [ast.literal_eval(line) for line in open(sys.argv[2])
                if line.startswith("{")]
        table(rows)
        plot(rows)
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--mnist", action="store_true")
    ap.add_argument("--synthetic", type=int, default=0)
    ap.add_argument("--sizes", type=int, nargs="*", default=[])
    ap.add_argument("--real", nargs="*", default=None,
                    help="the real sets (all 20k+ ones if none named)")
    ap.add_argument("--text", type=int, default=0,
                    help="rows of the text-like CSR problem (linear LapSVM)")
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds per method process")
    ap.add_argument("--methods", nargs="*", default=None,
                    help=f"only these of {METHODS} (gl-laplace / gl-poisson "
                         "and the @gl rows need gl-graph)")
    ap.add_argument("--n-jobs", type=int, default=None,
                    help="LapSVM / LapRLS on graph=KNNGraph(10, n_jobs=N) "
                         "(the default graph, N threads; the same bits)")
    ap.add_argument("--quick", action="store_true",
                    help="a smoke run: --sizes 2000 20000 unless --sizes is given")
    args = ap.parse_args()
    N_JOBS = args.n_jobs
    if args.quick and not args.sizes:
        args.sizes = [2000, 20000]
    problems = [("dense", n) for n in args.sizes]
    if args.real is not None:
        problems += [(name, 0) for name in (args.real or REAL)
                     if (DATA_DIR / f"{name}.npz").exists()]
    if args.text:
        problems.append(("text", args.text))
    if problems:
        print(f"load before: {os.getloadavg()}")
        scale(problems, args.timeout, args.methods)
        print(f"load after: {os.getloadavg()}")
    if args.mnist:
        if not (DATA_DIR / "mnist_t10k.npz").exists():
            print("skipped mnist_t10k: ../shared/data is absent")
        else:
            sys.path.insert(0, str(DATA_DIR))
            from load import load

            d = load("mnist_t10k")
            _run("mnist_t10k", (d["X"] / 255.0).astype(np.float32), d["y"], 10)
    if args.synthetic:
        n = args.synthetic
        rng = np.random.RandomState(0)
        y = np.repeat([0, 1], n // 2)
        X = (rng.randn(y.size, 10) + 0.8 * (2 * y - 1)[:, None]).astype(np.float32)
        _run(f"synthetic{n}", X, y, 2)


if __name__ == "__main__":
    main()
