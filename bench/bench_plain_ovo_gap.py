"""scikit-learn's ``SVC()`` one-vs-one against one-vs-rest on the suite's
multi-class cells (``semisvm._fallback.PLAIN_FALLBACK_OVO``).

The plain fallback's model (``PLAIN_FALLBACK``) is ``SVC()`` trained on the
labeled rows; with more than two classes the library fitted one binary
``SVC()`` per class against the rest (``OneVsRestClassifier(SVC())`` here),
scikit-learn's ``SVC()`` is one-vs-one. For every multi-class cell of the
given (read) parts (main sets and classic cases, ``--max-rows`` 600, seeds
0-2, the suite's label draws) both are fitted on the labeled rows and scored
on the unlabeled rows; prints per part the mean error of each, their
difference and the cells where one-vs-rest is worse / better by more than 2
points (per draw, and per set and scheme over the seeds). SVC fits only (no estimator of the library). The reserved parts
(never run) are refused.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 python bench/bench_plain_ovo_gap.py --parts tune tenth eleventh
"""
import argparse
import os
import sys
import time

import numpy as np
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _suite  # noqa: E402

# parts no estimator may run on here: reserved for judging declared rules
RESERVED = ("twelfth", "thirteenth", "fourteenth", "fifteenth")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parts", nargs="+", default=["tune"])
    ap.add_argument("--max-rows", type=int, default=600)
    args = ap.parse_args()
    for part in args.parts:
        if part in RESERVED or part not in _suite.PARTS:
            raise SystemExit(f"part {part!r}: not a read part of the suite")
    print(f"# load average before: {os.getloadavg()[0]:.2f}", flush=True)
    t0 = time.time()
    for part in args.parts:
        rows, keys = [], []
        for classic, schemes in ((False, _suite.SCHEMES), (True, _suite.CLASSIC_SCHEMES)):
            for d, scheme, seed, ys in _suite.cells(part, schemes=schemes,
                                                    max_rows=args.max_rows,
                                                    classic=classic):
                if d.n_classes <= 2:
                    continue
                lab = ys != -1
                err = []
                for m in (SVC(), OneVsRestClassifier(SVC())):
                    pred = m.fit(d.X[lab], ys[lab]).predict(d.X[~lab])
                    err.append(100.0 * float(np.mean(pred != d.y[~lab])))
                rows.append(err)
                keys.append((d.name, scheme))
                print(f"{part:9s} {d.name:14s} {scheme:4s} {seed} K={d.n_classes} "
                      f"ovo {err[0]:6.2f} ovr {err[1]:6.2f}", flush=True)
        e = np.array(rows)
        diff = e[:, 1] - e[:, 0]
        print(f"## {part}: {len(rows)} multi-class cells, mean error ovo {e[:, 0].mean():.2f} "
              f"ovr {e[:, 1].mean():.2f} (ovr - ovo {diff.mean():+.2f} points); "
              f"ovr worse by > 2 points in {int(np.sum(diff > 2))}, better in "
              f"{int(np.sum(diff < -2))}", flush=True)
        # cells as the suite's tables count them: a set and a scheme, the
        # error the mean over the seeds
        cell = {}
        for k, dv in zip(keys, diff):
            cell.setdefault(k, []).append(dv)
        dc = np.array([np.mean(v) for v in cell.values()])
        print(f"## {part}: {dc.size} cells (set x scheme, mean over seeds): ovr worse by "
              f"> 2 points in {int(np.sum(dc > 2))}, better in {int(np.sum(dc < -2))}",
              flush=True)
    print(f"# load average after: {os.getloadavg()[0]:.2f}; wall {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
