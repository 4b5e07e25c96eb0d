"""Scale of LapSVM / LapRLS: exact and scalable modes beside graphlearning.

    # the scale table (each fit in its own process, for its peak RSS):
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 \
        python bench/bench_manifold_scale.py --scale 10000 100000 [--text]
    # the exact path's PCG at one size (kernel + graph and solve split):
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_manifold_scale.py \
        [--mnist] [--synthetic 20000]

``--scale N...`` (time and memory at scale): for each n, a seeded dense problem (scikit-learn
``make_classification``: 50 features, 10 informative, 10 classes, one
cluster per class, ``class_sep=2``, float32) with 10 labels per class; one symmetric kNN graph
(k = 10, heat weights, :func:`semisvm.graph.knn_affinity`: exact below
``ANN_MIN_SAMPLES`` = 50,000 points, pynndescent above) is built once per n
(its time is reported on its own, after a warm-up that compiles
pynndescent's numba kernels) and given to every method through
``fit(..., affinity=W)``, with the power p of the Laplacian set by the
estimators' own ``p=None`` rule (1 below intrinsic dimension 4, else 2) from
the graph's kNN distances:

- ``LapSVM-exact``: the n x n kernel path (``n_components=None``, PCG with
  early stopping), only up to 20,000 points;
- ``LapSVM-nys`` / ``LapRLS-nys``: Nystroem with 1,000 landmarks (Newton in
  1,001 dimensions, the graph term Z'L^pZ formed once);
- ``LapSVM-lin``: the linear primal in w (``kernel="linear"``);
- ``gl-laplace`` / ``gl-poisson``: graphlearning 1.7.5's Laplace and
  Poisson learning on the same W and labels.

``--text`` adds the seeded text-like CSR problem of bench_linear_mfn.py
(50,000 columns, about 50 tokens per row, binary, 1 % labeled): the linear
LapSVM in w on CSR (never densified) beside graphlearning on the same
approximate kNN graph (pynndescent on the CSR rows).

Every fit runs in a fresh process (``--worker``) that loads the data and the
graph, so that its peak RSS (``ru_maxrss``) is its own; ``rss0`` is the RSS
before the fit (data + graph). Times are wall and CPU seconds of the fit
alone; the load average is printed beside. Error: on the unlabeled rows.
``--no-dense`` skips the dense problem; the plot then holds what ran.
Writes bench/figures/manifold_scale.png (log-log time and peak RSS against
n) and prints a Markdown table.
"""
from __future__ import annotations

import argparse
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
EXACT_MAX = 20_000

METHODS_DENSE = ["LapSVM-exact", "LapSVM-nys", "LapRLS-nys", "LapSVM-lin",
                 "gl-laplace", "gl-poisson"]
METHODS_TEXT = ["LapSVM-lin", "gl-laplace", "gl-poisson"]


def _peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


# ------------------------------------------------------------------ data

def make_dense(n, seed=0):
    from sklearn.datasets import make_classification
    X, y = make_classification(n_samples=n, n_features=50, n_informative=10,
                               n_redundant=0, n_classes=10,
                               n_clusters_per_class=1, class_sep=2.0,
                               random_state=seed)
    return X.astype(np.float32), y


def make_text(n, seed=0):
    sys.path.insert(0, str(HERE))
    from bench_linear_mfn import make_text_like
    X, y, _, _ = make_text_like(n, 50_000, 50, seed=seed, n_test=1)
    return X.astype(np.float32), (y > 0).astype(int)


def labels(y, per_class=None, frac=None, seed=0):
    rng = np.random.RandomState(seed)
    yl = np.full_like(y, -1)
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        m = per_class if per_class is not None else max(1, int(frac * idx.size))
        yl[rng.choice(idx, m, replace=False)] = c
    return yl


def load_problem(kind, n):
    if kind == "dense":
        X, y = make_dense(n)
        return X, y, labels(y, per_class=10)
    X, y = make_text(n)
    return X, y, labels(y, frac=0.01)


# ------------------------------------------------------------------ worker

def worker(kind, n, method, graph_path):
    X, y, yl = load_problem(kind, n)
    W = sp.load_npz(graph_path).tocsr()
    # the estimators' p=None rule (1 below intrinsic dimension 4, else 2),
    # from the graph's own kNN distances (a given affinity has none)
    with open(graph_path + ".json") as f:
        p = json.load(f)["p"]
    unl = yl == -1
    rss0 = _rss_mb()
    t, c = time.perf_counter(), time.process_time()
    extra = {}
    if method.startswith("gl-"):
        import graphlearning as gl
        train = np.flatnonzero(~unl)
        model = (gl.ssl.laplace(W.astype(np.float64)) if method == "gl-laplace"
                 else gl.ssl.poisson(W.astype(np.float64)))
        pred = model.fit_predict(train, yl[train])
    else:
        from semisvm.manifold import LapRLS, LapSVM
        est = LapRLS if method.startswith("LapRLS") else LapSVM
        if method.endswith("-exact"):
            clf = est(n_components=None, p=p)
        elif method.endswith("-nys"):
            clf = est(n_components=1000, p=p)
        else:
            clf = est(kernel="linear", p=p)
        clf.fit(X, yl, affinity=W)
        pred = clf.transduction_
        res = clf.result_ if isinstance(clf.result_, list) else [clf.result_]
        extra = {"mode": clf.mode_, "p": clf.p_,
                 "newton": [r.n_iter for r in res]}
        if hasattr(res[0], "n_cg_iter"):
            extra["cg"] = [r.n_cg_iter for r in res]
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    err = 100.0 * float(np.mean(pred[unl] != y[unl]))
    print(json.dumps(dict(kind=kind, n=n, method=method, wall=wall, cpu=cpu,
                          err=err, peak_mb=_peak_mb(), rss0_mb=rss0,
                          load=os.getloadavg()[0], **extra)))


def build_graph(kind, n, path):
    from semisvm.graph import ANN_MIN_SAMPLES, intrinsic_dimension, knn_affinity
    X, _, _ = load_problem(kind, n)
    approximate = n >= ANN_MIN_SAMPLES or kind == "text"
    if approximate:
        # compile pynndescent's kernels outside the timing
        Xw = X[:2000]
        knn_affinity(Xw, K_GRAPH, method="approximate")
    t, c = time.perf_counter(), time.process_time()
    W, dist = knn_affinity(X, K_GRAPH, weight="heat", return_distances=True,
                           method="approximate" if approximate else "exact")
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    sp.save_npz(path, W, compressed=False)
    dim = intrinsic_dimension(dist)
    with open(path + ".json", "w") as f:
        json.dump({"p": 1 if dim < 4 else 2, "dim": dim}, f)
    print(json.dumps(dict(kind=kind, n=n, method="graph", wall=wall, cpu=cpu,
                          err=float("nan"), peak_mb=_peak_mb(), rss0_mb=0.0,
                          load=os.getloadavg()[0], nnz=int(W.nnz),
                          approximate=bool(approximate), dim=dim)))


def _child(args):
    out = subprocess.run([sys.executable, __file__] + args, capture_output=True,
                         text=True)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1:] or ["?"]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def scale(sizes, text, dense=True):
    rows = []
    kinds = (["dense"] if dense else []) + (["text"] if text else [])
    with tempfile.TemporaryDirectory() as tmp:
        for kind in kinds:
            for n in sizes:
                g = os.path.join(tmp, f"{kind}{n}.npz")
                r = _child(["--graph", kind, str(n), g])
                print(r, flush=True)
                rows.append(r)
                if "error" in r:
                    continue
                methods = METHODS_DENSE if kind == "dense" else METHODS_TEXT
                for m in methods:
                    if m.endswith("-exact") and n > EXACT_MAX:
                        continue
                    r = _child(["--worker", kind, str(n), m, g])
                    r.setdefault("method", m)
                    r.setdefault("n", n)
                    r.setdefault("kind", kind)
                    print(r, flush=True)
                    rows.append(r)
    print("\n| data | n | method | wall s | CPU s | error % | peak RSS MB | "
          "RSS before MB | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            print(f"| {r.get('kind')} | {r.get('n')} | {r.get('method')} | "
                  f"failed: {r['error']} | | | | | |")
            continue
        print(f"| {r['kind']} | {r['n']} | {r['method']} | {r['wall']:.1f} | "
              f"{r['cpu']:.1f} | {r['err']:.2f} | {r['peak_mb']:.0f} | "
              f"{r['rss0_mb']:.0f} | {r['load']:.1f} |")
    plot(rows)
    return rows


def plot(rows):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is absent: no plot")
        return
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    keys = sorted({(r["kind"], r["method"]) for r in rows if "error" not in r})
    for kind, m in keys:
        pts = sorted((r["n"], r["cpu"], r["peak_mb"]) for r in rows
                     if "error" not in r and r["kind"] == kind and r["method"] == m)
        if not pts:
            continue
        n, cpu, mem = map(np.array, zip(*pts))
        lab = f"{m} ({kind})"
        style = "o-" if kind == "dense" else "s--"
        axes[0].loglog(n, cpu, style, label=lab)
        axes[1].loglog(n, mem, style, label=lab)
    axes[0].set(xlabel="n", ylabel="CPU seconds (fit)", title="time")
    axes[1].set(xlabel="n", ylabel="peak RSS (MB, data + graph + fit)",
                title="memory")
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7)
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
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--graph":
        build_graph(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--mnist", action="store_true")
    ap.add_argument("--synthetic", type=int, default=0)
    ap.add_argument("--scale", type=int, nargs="*", default=[])
    ap.add_argument("--text", action="store_true")
    ap.add_argument("--no-dense", action="store_true",
                    help="with --text: the CSR problem only")
    args = ap.parse_args()
    if args.scale:
        scale(args.scale, args.text, dense=not args.no_dense)
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
