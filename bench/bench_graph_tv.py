"""Reproduction of Bresson & Zhang's Tables 1-2 (USPS) for the graph TV models.

Protocol (the paper gives none; see ../shared/papers/notes/tv-svm.md):
transductive on the union of usps train + test restricted to the digits,
m labels per class drawn stratified with seeds 0..n_seeds-1, error on all
unlabeled points. Graph: symmetric 10-NN, self-tuning weights (7th
neighbour); kernel: RBF with width the median pairwise distance; estimator
defaults otherwise. Prints error (%) mean over seeds, fit time and the share
of the time spent in the graph-ROF solver.

    OMP_NUM_THREADS=1 python bench/bench_graph_tv.py --digits 4 9 --seeds 10
    python bench/bench_graph_tv.py --digits 0 1 4 9 --labels 10 --seeds 1
    python bench/bench_graph_tv.py --models LabelSpreading   # peer, same graph

LapRLS / LapSVM (the paper's baselines) come from semisvm.manifold once it
lands; graphlearning's Laplace/Poisson learning is not installed here.
"""
import argparse
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from semisvm import TVRLS, TVSVM, CheegerRLS, CheegerSVM
from semisvm.graph_tv import _build_graph


class _LabelSpreadingPeer:
    """scikit-learn's LabelSpreading on the same kNN graph as the TV models."""

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y):
        from sklearn.semi_supervised import LabelSpreading
        W = _build_graph(X).toarray()
        t0 = time.perf_counter()
        ls = LabelSpreading(kernel=lambda A, B: W, alpha=0.99, max_iter=1000, tol=1e-6)
        ls.fit(X, y)
        self.transduction_ = ls.transduction_
        self.n_iter_ = ls.n_iter_
        self.result_ = type("R", (), {"rof_time": 0.0, "status": "-"})()
        self.fit_time_ = time.perf_counter() - t0
        return self

PAPER = {  # Table 1 (4 vs 9) and Table 2 ({0,1,4,9}), error % for 1/5/10/50 labels
    (4, 9): {"TVRLS": [3.18, 3.16, 3.13, 3.16], "TVSVM": [3.18, 3.13, 3.13, 3.08],
             "CheegerRLS": [4.06, 3.74, 4.03, 2.84],
             "CheegerSVM": [3.87, 3.74, 4.00, 2.73]},
    (0, 1, 4, 9): {"TVRLS": [2.0, 2.06, 1.91, 1.98], "TVSVM": [1.75, 1.82, 1.77, 1.85],
                   "CheegerRLS": [3.35, 1.95, 1.85, 1.87],
                   "CheegerSVM": [2.94, 2.08, 1.72, 1.74]},
}
LABELS = [1, 5, 10, 50]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--digits", type=int, nargs="+", default=[4, 9])
    ap.add_argument("--labels", type=int, nargs="+", default=LABELS)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--models", nargs="+",
                    default=["TVRLS", "TVSVM", "CheegerRLS", "CheegerSVM"])
    ap.add_argument("--png", default=None, help="write error vs labels plot here")
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2]
                                          / "shared" / "data" / "usps.npz"))
    args = ap.parse_args()
    z = np.load(args.data)
    X = np.vstack([z["X"], z["X_test"]])
    Y = np.concatenate([z["y"], z["y_test"]])
    keep = np.isin(Y, args.digits)
    X, Y = X[keep], Y[keep]
    print(f"USPS digits {args.digits}: n = {X.shape[0]}")
    models = {"TVRLS": TVRLS, "TVSVM": TVSVM, "CheegerRLS": CheegerRLS,
              "CheegerSVM": CheegerSVM, "LabelSpreading": _LabelSpreadingPeer}
    paper = PAPER.get(tuple(args.digits), {})
    curves = {}
    for name in args.models:
        for m in args.labels:
            errs, times, shares, iters = [], [], [], []
            for seed in range(args.seeds):
                rng = np.random.default_rng(seed)
                y = np.full(Y.shape[0], -1)
                for c in args.digits:
                    y[rng.choice(np.flatnonzero(Y == c), m, replace=False)] = c
                unl = y == -1
                est = models[name](random_state=0)
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    est.fit(X, y)
                times.append(time.perf_counter() - t0)
                errs.append(100 * np.mean(est.transduction_[unl] != Y[unl]))
                shares.append(est.result_.rof_time / times[-1])
                iters.append(f"{est.n_iter_}:{est.result_.status[0]}")
            curves.setdefault(name, []).append(np.mean(errs))
            ref = paper.get(name, [None] * 4)
            ref = ref[LABELS.index(m)] if m in LABELS else None
            print(f"{name:11s} m={m:3d}  err {np.mean(errs):6.2f} +- "
                  f"{np.std(errs):5.2f}"
                  f"  (paper {ref})  fit {np.mean(times):6.2f} s  ROF share "
                  f"{100 * np.mean(shares):4.1f}%  iters {' '.join(iters)}", flush=True)
    if args.png:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4))
        for i, (name, errs) in enumerate(curves.items()):
            ax.plot(args.labels, errs, "o-", color=f"C{i}", label=f"{name} (semisvm)")
            if name in paper:
                ax.plot(LABELS, paper[name], "x--", color=f"C{i}", alpha=0.6,
                        label=f"{name} (paper)")
        ax.set_xscale("log")
        ax.set_xlabel("labels per class")
        ax.set_ylabel("error on unlabeled points (%)")
        ax.set_title(f"USPS {args.digits}, {args.seeds} draws")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(args.png, dpi=120)
        print("wrote", args.png)


if __name__ == "__main__":
    main()
