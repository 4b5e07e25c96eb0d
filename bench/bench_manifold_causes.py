"""Why the low-rank (Nystroem) LapRLS is inaccurate at large n: one factor at a time.

    OMP_NUM_THREADS=2 nice -n 10 python bench/bench_manifold_causes.py [--n 20000]

The scale benchmark's problem (``make_classification(n, 50, n_informative=20,
n_classes=10, n_clusters_per_class=1, class_sep=2.0, random_state=0)``, 10
labels per class drawn with ``numpy.random.default_rng(0)``), one kNN graph
(k = 10, heat weights, :func:`semisvm.graph.knn_affinity`) shared by every
row, the normalised Laplacian. Each row changes one factor of the coupled
Nystroem objective

    1/2 [ sum_{labeled} (y_i - f_i)^2 + gamma_A ||w||^2 + gamma_I f'L^p f ],
    f = Z w + b,  Z = K(X, X_m) K_mm^{-1/2}

from the defaults (m = 1000 landmarks: the labeled rows, then uniform rows;
p = 2, the estimators' rule for this data; gamma_A = 1e-4, gamma_I = 1),
one-vs-rest, error % on the unlabeled rows. Then the graph alone (f free on
the n rows, the same objective with ``1e-8 ||f||^2`` in place of the RKHS
term: :func:`semisvm._lowrank.graph_transduction`) and the two-stage mode
(graph scores, then the Nystroem ridge fit that makes them inductive).
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np


def problem(n):
    from sklearn.datasets import make_classification
    X, y = make_classification(n, 50, n_informative=20, n_classes=10,
                               n_clusters_per_class=1, class_sep=2.0,
                               random_state=0)
    rng = np.random.default_rng(0)
    yl = np.full_like(y, -1)
    for c in np.unique(y):
        yl[rng.choice(np.flatnonzero(y == c), 10, replace=False)] = c
    return X.astype(np.float32), y, yl


def targets(yl, classes):
    Y = np.where(yl[:, None] == classes[None, :], 1.0, -1.0)
    Y[yl == -1] = 0.0
    return Y


def nystroem_from_centres(X, C, kern):
    import scipy.linalg as sla
    Kmm = kern(C, C).astype(np.float64)
    s, U = sla.eigh((Kmm + Kmm.T) / 2)
    keep = s > s.max() * len(C) * np.finfo(float).eps
    N = (U[:, keep] / np.sqrt(s[keep])) @ U[:, keep].T
    return (kern(X, C).astype(np.float64) @ N).astype(X.dtype)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    args = ap.parse_args()
    from semisvm._lowrank import (
        graph_transduction,
        landmark_ridge,
        lap_gram,
        lap_primal_w,
        nystroem_features,
    )
    from semisvm.graph import knn_affinity, laplacian
    from semisvm.kernels import kernel_matrix, scale_gamma

    X, y, yl = problem(args.n)
    classes = np.unique(y)
    Y = targets(yl, classes)
    unl = yl == -1
    lab = np.flatnonzero(~unl)
    W = knn_affinity(X, 10)
    L = laplacian(W)
    g = scale_gamma(X)

    def kern(A, B):
        return kernel_matrix(A, B, kernel="rbf", gamma=g)

    def err(F):
        return 100.0 * float(np.mean(classes[np.argmax(F, 1)][unl] != y[unl]))

    rows = []

    def coupled(name, Z, p=2, gI=1.0, gA=1e-4):
        t = time.process_time()
        gram = lap_gram(Z, L, p)
        F = np.column_stack([
            lap_primal_w(Z, L, Y[:, j], gamma_A=gA, gamma_I=gI, loss="squared",
                         power=p, gram=gram).decision for j in range(len(classes))])
        rows.append((name, err(F), time.process_time() - t))
        print(rows[-1], flush=True)

    Zd, _, _ = nystroem_features(X, kern, 1000, include=lab)
    coupled("defaults: m=1000 labeled+uniform, p=2, gI=1, gA=1e-4", Zd)
    for m in (250, 2000):
        Z, _, _ = nystroem_features(X, kern, m, include=lab)
        coupled(f"m={m}", Z)
    Z, _, _ = nystroem_features(X, kern, 1000)
    coupled("landmarks uniform only (labeled rows not forced)", Z)
    from sklearn.cluster import MiniBatchKMeans
    C = MiniBatchKMeans(1000, random_state=0, n_init=1).fit(X).cluster_centers_
    coupled("landmarks k-means centres (m=1000)", nystroem_from_centres(X, C, kern))
    coupled("p=1", Zd, p=1)
    for gI in (1e-3, 1e-2, 1e-1, 10.0):
        coupled(f"gamma_I={gI:g}", Zd, gI=gI)
    for gA in (1e-6, 1e-2):
        coupled(f"gamma_A={gA:g}", Zd, gA=gA)
    for gI in (1e-3, 1e-1):
        coupled(f"gamma_I={gI:g}, p=1", Zd, p=1, gI=gI)
    # the graph alone (stage 1), with and without the null-vector
    # normalisation, and the two-stage fit (stage 2: landmark kernel ridge
    # on stage 1's labels, the m = 1000 default landmarks)
    deg = np.asarray(W.sum(axis=1), dtype=np.float64).ravel()
    null = np.sqrt(deg)
    perm = np.random.RandomState(0).permutation(args.n)
    perm = np.concatenate([lab, perm[~np.isin(perm, lab)]])
    landmarks = np.sort(perm[:1000])
    for p in (1, 2):
        for gI in (1e-2, 1.0, 10.0):
            t = time.process_time()
            F, _, _, _ = graph_transduction(L, Y, gamma_I=gI, power=p)
            tg = time.process_time() - t
            rows.append((f"graph alone, p={p}, gI={gI:g}, no normalisation",
                         err(F), tg))
            print(rows[-1], flush=True)
            v = null[:, None]
            Fp = F - v * (v.T @ F) / (v.T @ v)
            rows.append((f"graph alone, p={p}, gI={gI:g}, null-vector "
                         "normalisation", err(Fp), tg))
            print(rows[-1], flush=True)
            if gI != 1.0:
                continue
            t = time.process_time()
            pseudo = np.where(unl, np.argmax(Fp, 1), yl)
            T = np.where(pseudo[:, None] == classes[None, :], 1.0, -1.0)
            beta, b = landmark_ridge(X, kern, X[landmarks], T, 1e-4)
            Fi = np.vstack([kern(X[a:a + 4096], X[landmarks]) @ beta + b
                            for a in range(0, args.n, 4096)])
            rows.append((f"two-stage (p={p}, gI=1, m=1000): inductive model",
                         err(Fi), tg + time.process_time() - t))
            print(rows[-1], flush=True)
            Ts = Fp / Fp.std(axis=0)
            beta, b = landmark_ridge(X, kern, X[landmarks], Ts, 1e-4)
            Fi = np.vstack([kern(X[a:a + 4096], X[landmarks]) @ beta + b
                            for a in range(0, args.n, 4096)])
            rows.append((f"two-stage (p={p}, gI=1, m=1000), stage 2 fitted to "
                         "the scores instead of the labels", err(Fi), float("nan")))
            print(rows[-1], flush=True)
    print(f"\nn = {args.n}, load {os.getloadavg()}")
    print("| variant | error % (unlabeled) | CPU s |\n|---|---|---|")
    for name, e, t in rows:
        print(f"| {name} | {e:.2f} | {t:.1f} |")


if __name__ == "__main__":
    main()
