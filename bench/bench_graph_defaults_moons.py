"""The newcomer's first try: two moons, 3 labels per class, every graph estimator.

``make_moons(1500, noise=0.15)``, 3 labeled rows per class, 5 label draws
(seeds 0-4); the error (%) on the unlabeled rows (transduction) of LapSVM,
LapRLS, TVRLS, TVSVM, CheegerRLS and CheegerSVM with their defaults (or
``--params`` overrides), beside scikit-learn's ``SVC()`` on the labels, and
how many fits fell back to the SVC (``fell_back_``) or took LapRLS's fit over
(the TV / Cheeger Laplacian guard, ``laplacian_fallback_``). The
target: each of the six at most 5 % mean error with its defaults. Prints the
CPU and wall seconds per fit and the load average::

    OMP_NUM_THREADS=1 nice -n 10 python bench/bench_graph_defaults_moons.py
    python bench/bench_graph_defaults_moons.py --models TVSVM --params '{"TVSVM": {"mu": 10}}'
"""
import argparse
import json
import os
import time
import warnings

import numpy as np
from sklearn.datasets import make_moons
from sklearn.svm import SVC

import semisvm

MODELS = ("LapSVM", "LapRLS", "TVRLS", "TVSVM", "CheegerRLS", "CheegerSVM")


def draws(n, noise, k, seeds):
    X, y = make_moons(n, noise=noise, random_state=0)
    for s in seeds:
        rng = np.random.RandomState(s)
        ys = np.full(n, -1)
        for c in (0, 1):
            ys[rng.choice(np.flatnonzero(y == c), k, replace=False)] = c
        yield s, X, y, ys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1500)
    ap.add_argument("--noise", type=float, default=0.15)
    ap.add_argument("--labels", type=int, default=3)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    ap.add_argument("--models", nargs="+", default=list(MODELS))
    ap.add_argument("--params", default="{}", help="JSON {model: {param: value}}")
    args = ap.parse_args()
    over = json.loads(args.params)
    print(f"# load average before: {os.getloadavg()}")
    res = {m: [] for m in ["SVC"] + args.models}
    for s, X, y, ys in draws(args.n, args.noise, args.labels, args.seeds):
        unl = ys == -1
        for m in res:
            t, w = time.process_time(), time.time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if m == "SVC":
                    pred = SVC().fit(X[~unl], ys[~unl]).predict(X[unl])
                    fb = lg = False
                else:
                    est = getattr(semisvm, m)(**over.get(m, {})).fit(X, ys)
                    pred = est.transduction_[unl]
                    fb = bool(getattr(est, "fell_back_", False))
                    lg = bool(getattr(est, "laplacian_fallback_", False))
            err = 100 * float(np.mean(pred != y[unl]))
            res[m].append((err, time.process_time() - t, time.time() - w, fb, lg))
            print(f"seed {s} {m:11s} err {err:6.2f} cpu {res[m][-1][1]:6.2f} "
                  f"wall {res[m][-1][2]:6.2f}{' fell back' if fb else ''}"
                  f"{' took LapRLS' if lg else ''}", flush=True)
    print(f"# load average after: {os.getloadavg()}")
    print("\n| model | mean err % | max err % | cpu s / fit | wall s / fit | fell back "
          "| took LapRLS |")
    print("|---|---|---|---|---|---|---|")
    for m, r in res.items():
        a = np.array([x[:3] for x in r])
        print(f"| {m} | {a[:, 0].mean():.1f} | {a[:, 0].max():.1f} | {a[:, 1].mean():.2f} "
              f"| {a[:, 2].mean():.2f} | {sum(x[3] for x in r)}/{len(r)} "
              f"| {sum(x[4] for x in r)}/{len(r)} |")


if __name__ == "__main__":
    main()
