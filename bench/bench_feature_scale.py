"""The cost of ``feature_scaling="auto"``'s decision and scale at fit time.

What a fit of LapSVM / LapRLS / TVRLS / TVSVM / CheegerRLS / CheegerSVM pays
for the rule (semisvm._feature_scale): ``spread_ratio`` (the columns'
quartiles: dense in column blocks, CSR from the stored values and the count
of implicit zeros), then, where it fires, ``feature_scale`` (the columns'
standard deviations) and ``apply_scale`` (the scaled copy of X). CPU
seconds (time.process_time), best of ``--repeat`` runs, each step measured
alone; ``x dense copy`` compares with one ``X.copy()`` (dense) or
``X.copy()`` of the CSR matrix, a floor for any pass over X.

    python bench/bench_feature_scale.py
    python bench/bench_feature_scale.py --cases 100k-csr --density 0.005
    python bench/bench_feature_scale.py --moons     # what the rule is for

``--moons``: two moons (300 rows, noise 0.15, seed 0, 3 labels per class)
with the axes x100 / x0.01, each estimator's transduction error with
``feature_scaling=False`` and ``"auto"``, and whether "auto" gives the
labels of ``feature_scaling=False`` on ``X / X.std(0)``.
"""
import argparse
import os
import time

import numpy as np
import scipy.sparse as sp

from semisvm import _feature_scale as fs

CASES = {
    "5k-dense": (5_000, 60, None),
    "100k-dense": (100_000, 50, None),
    "100k-csr": (100_000, 10_000, "csr"),
    # MNIST-sized float32 pixels in [0, 255], a border of constant zeros:
    # the rule does not fire (the cost of the decision alone)
    "70k-pixels": (70_000, 784, "pixels"),
}


def _data(n, d, kind, density, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "pixels":
        X = (rng.random((n, d)) * 255).astype(np.float32)
        X[:, :100] = 0
        return X
    if kind is None:
        # columns of scales 10^-3 .. 10^3: the rule fires
        return rng.normal(size=(n, d)) * np.logspace(-3, 3, d)
    nnz = int(n * d * density)
    rows = rng.integers(0, n, nnz)
    cols = rng.integers(0, d, nnz)
    # a tf-idf-like matrix, a few columns dense enough that their quartiles
    # fall among the stored values (these need a partition each)
    dense_cols = rng.choice(d, size=max(1, d // 100), replace=False)
    extra_r = np.repeat(np.arange(n), dense_cols.size)
    extra_c = np.tile(dense_cols, n)
    r = np.concatenate([rows, extra_r])
    c = np.concatenate([cols, extra_c])
    v = rng.random(r.size) * np.logspace(-3, 3, d)[c]
    X = sp.csr_matrix((v, (r, c)), shape=(n, d))
    X.sum_duplicates()
    return X


def _best(f, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t = time.process_time()
        out = f()
        best = min(best, time.process_time() - t)
    return best, out


def moons():
    from sklearn.datasets import make_moons

    from semisvm import TVRLS, TVSVM, CheegerRLS, CheegerSVM, LapRLS, LapSVM
    X, y = make_moons(300, noise=0.15, random_state=0)
    ys = np.full(300, -1)
    for c in (0, 1):
        ys[np.flatnonzero(y == c)[:3]] = c
    X = X * np.array([100.0, 0.01])
    print(f"spread ratio {fs.spread_ratio(X):.3g}")
    print("| estimator | False | auto | auto == False on X / X.std(0) | CPU s (3 fits) |")
    print("|---|---|---|---|---|")
    for cls in (LapSVM, LapRLS, TVRLS, TVSVM, CheegerRLS, CheegerSVM):
        t = time.process_time()
        off = cls(feature_scaling=False).fit(X, ys)
        auto = cls().fit(X, ys)
        ref = cls(feature_scaling=False).fit(X / X.std(0), ys)
        t = time.process_time() - t
        print(f"| {cls.__name__} | {100 * np.mean(off.transduction_ != y):.1f} % | "
              f"{100 * np.mean(auto.transduction_ != y):.1f} % | "
              f"{np.array_equal(auto.transduction_, ref.transduction_)} | {t:.2f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--moons", action="store_true",
                    help="the two moons table instead of the cost table")
    ap.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    ap.add_argument("--density", type=float, default=0.005,
                    help="CSR density of the random part (default 0.005)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if args.moons:
        moons()
        return
    print(f"load {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    print("| case | shape | nnz | spread_ratio s | ratio | feature_scale s | "
          "apply_scale s | total s | X.copy() s | total x copy |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in args.cases:
        n, d, kind = CASES[name]
        X = _data(n, d, kind, args.density)
        nnz = X.nnz if sp.issparse(X) else n * d
        t_r, ratio = _best(lambda: fs.spread_ratio(X), args.repeat)
        # (feature_scale and apply_scale as where the rule fires)
        t_s, s = _best(lambda: fs.feature_scale(X, True), args.repeat)
        t_a, _ = _best(lambda: fs.apply_scale(X, s), args.repeat)
        t_c, _ = _best(lambda: X.copy(), args.repeat)
        total = t_r + t_s + t_a
        print(f"| {name} | {n} x {d} | {nnz} | {t_r:.3f} | {ratio:.3g} | {t_s:.3f} | "
              f"{t_a:.3f} | {total:.3f} | {t_c:.3f} | {total / max(t_c, 1e-9):.1f} |",
              flush=True)
    print(f"load {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")


if __name__ == "__main__":
    main()
