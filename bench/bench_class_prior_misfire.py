"""The class-prior shift on small balanced sets (two moons, circles): how
often it fires and what it does to the error, with and without a guard.

Balanced classes and balanced labels: the unlabeled rows' class-1 fraction
is the labeled rows' (0.5), so every shift the rule makes is a misfire.
LapRLS with its defaults, ``make_moons(noise=0.1)`` /
``make_circles(noise=0.08, factor=0.5)`` (``--sets``; for the multi-class
rules ``blobs3`` / ``blobs4``: three / four equal 2-d blobs of std 2.5) at
120 / 200 / 300 rows, 5 and 10 labels per class (a stratified draw, the draw's seed), 40 draws each. Each
draw is fitted once with the library's shift off (``PRIOR_Z = None``) and
the check's folds kept (``RECORD_FOLDS``); the rules of
``bench/bench_class_prior.py`` are replayed on that fit (``--rules``), and
(``--library``) the draw is fitted again with the library as it stands, its
``class_prior_["shifted"]`` counted. Prints, per case and rule, the draws
where the rule fired, those made worse / better by more than 2 points, and
the mean error over the unlabeled rows::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 \\
        python bench/bench_class_prior_misfire.py --library
"""
import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import make_blobs, make_circles, make_moons

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_class_prior as bcp  # noqa: E402

import semisvm._fallback as fb  # noqa: E402
from semisvm import LapRLS  # noqa: E402

SETS = {"moons": lambda n, s: make_moons(n, noise=0.1, random_state=s),
        "circles": lambda n, s: make_circles(n, noise=0.08, factor=0.5, random_state=s),
        # balanced multi-class blobs (for the multi-class rules): 3 / 4 equal
        # 2-d blobs of std 2.5, centres drawn in [-10, 10]^2 (some overlap)
        "blobs3": lambda n, s: make_blobs(n, centers=3, cluster_std=2.5, random_state=s),
        "blobs4": lambda n, s: make_blobs(n, centers=4, cluster_std=2.5, random_state=s)}


def draw(name, n, k, seed):
    X, yt = SETS[name](n, seed)
    rng = np.random.RandomState(seed)
    y = np.full(n, -1)
    for c in np.unique(yt):
        y[rng.choice(np.flatnonzero(yt == c), k, replace=False)] = c
    return X, yt, y


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[120, 200, 300])
    ap.add_argument("--labels", type=int, nargs="+", default=[5, 10])
    ap.add_argument("--draws", type=int, default=40)
    ap.add_argument("--rules", nargs="+",
                    default=["sup z1 gap0.2 half", "sup z1 gap0.2 half spread",
                             "sup z1 gap0.2 half held11", "sup z1 gap0.2 half held16",
                             "sup z1 gap0.2 half held20"])
    ap.add_argument("--sets", nargs="+", default=["moons", "circles"], choices=list(SETS))
    ap.add_argument("--library", action="store_true",
                    help="also fit with the library's own shift as it stands")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    load0, t0, c0 = os.getloadavg()[0], time.time(), time.process_time()
    z0 = fb.PRIOR_Z
    cols = ["none"] + args.rules + (["library"] if args.library else [])
    print(f"{'case':20s} " + " ".join(f"{c[-22:]:>26s}" for c in cols))
    print(f"{'':20s} " + " ".join(f"{'fired worse/better err':>26s}" for _ in cols))
    for name in args.sets:
        for n in args.rows:
            for k in args.labels:
                stat = {c: [0, 0, 0, []] for c in cols}
                for seed in range(args.draws):
                    X, yt, y = draw(name, n, k, seed)
                    unl = y == -1
                    fb.RECORD_FOLDS, fb.PRIOR_Z = True, None
                    try:
                        est = LapRLS().fit(X, y)
                    finally:
                        fb.RECORD_FOLDS, fb.PRIOR_Z = False, z0
                    pred = np.asarray(est.transduction_)[unl]
                    r = dict(pred=pred, n_classes=int(np.unique(yt).size), y_lab=y[~unl],
                             score=np.asarray(est.decision_function(X[unl]), dtype=np.float64),
                             folds=getattr(est, "_check_folds", None),
                             fell_back=bool(getattr(est, "fell_back_", False)),
                             guard=bool(getattr(est, "laplacian_fallback_", False)))
                    e0 = 100.0 * np.mean(pred != yt[unl])
                    labs = {"none": (pred, False)}
                    for rn in args.rules:
                        lab, p = bcp.apply_rule(r, bcp.RULES[rn])
                        labs[rn] = (lab, p is not None and lab is not pred)
                    if args.library and r["n_classes"] == 2:
                        lib = LapRLS().fit(X, y)
                        labs["library"] = (np.asarray(lib.transduction_)[unl],
                                           bool(lib.class_prior_ and lib.class_prior_["shifted"]))
                    for c, (lab, fired) in labs.items():
                        e = 100.0 * np.mean(lab != yt[unl])
                        s = stat[c]
                        s[0] += fired
                        s[1] += e > e0 + 2
                        s[2] += e < e0 - 2
                        s[3].append(e)
                print(f"{name:7s} n={n:4d} k={k:2d}  " + " ".join(
                    f"{s[0]:5d} {s[1]:5d}/{s[2]:<5d} {np.mean(s[3]):7.2f}"
                    + " " * 2 for s in (stat[c] for c in cols)), flush=True)
    print(f"# {args.draws} draws per case, LapRLS; load {load0:.2f} -> "
          f"{os.getloadavg()[0]:.2f}; wall {time.time() - t0:.0f} s, "
          f"cpu {time.process_time() - c0:.0f} s")


if __name__ == "__main__":
    main()
