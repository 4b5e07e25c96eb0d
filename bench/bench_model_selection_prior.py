#!/usr/bin/env python
"""Which estimator of the unlabeled rows' class balance ``r="auto"`` uses.

On a part of the held-out benchmark suite (``bench/_suite.py``; ``--part tune`` is the
only part used to choose), every label draw (schemes 5 / 25 / prop, seeds
0-2): the true fraction of each class among the unlabeled rows against the
estimates of :func:`semisvm.linear.class_balance` with ``method`` = ``em``
(Platt + Saerens-Latinne-Decaestecker EM), ``pcc`` (mean Platt posterior),
``cc`` (fraction of positive outputs), and ``labeled`` (the labeled
fraction, the old default). Printed: the mean absolute error of the
estimate (percentage points, every class of every draw), and with ``--fit``
the mean TSVM / DASVM error (%) on the unlabeled rows with each r.

    python bench/bench_model_selection_prior.py --part tune --fit
"""
import argparse
import os
import sys
import warnings
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _suite  # noqa: E402

from semisvm import DASVM, TSVM  # noqa: E402
from semisvm.linear import class_balance  # noqa: E402

METHODS = ("labeled", "cc", "pcc", "em")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", default="tune", choices=("tune", "report"))
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("--sets", default="")
    a = ap.parse_args()
    only = set(a.sets.split(",")) if a.sets else None
    mae = defaultdict(list)
    err = defaultdict(list)
    print(f"# load average: {os.getloadavg()[0]:.2f}")
    for d, scheme, seed, ys in _suite.cells(a.part, only=only):
        u = ys < 0
        K = d.n_classes
        true = np.bincount(d.y[u], minlength=K) / u.sum()
        line = f"{d.name:14s} {scheme:4s} s{seed} true {true[1] if K == 2 else '':<6}"
        for m in METHODS:
            if m == "labeled":
                lab = ys[~u]
                r = np.bincount(lab, minlength=K) / lab.size
            else:
                r = class_balance(d.X, ys, method=m)
                if r is None:
                    r = np.bincount(ys[~u], minlength=K) / (~u).sum()
            r = np.atleast_1d(r) if K > 2 else np.array([1 - r, r]) if np.ndim(r) == 0 else r
            mae[m].extend(100 * np.abs(r - true))
            mae[(m, scheme)].extend(100 * np.abs(r - true))
            line += f" {m} {r[1]:.3f}" if K == 2 else ""
            if a.fit:
                rr = float(r[1]) if K == 2 else r
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for E in (TSVM, DASVM):
                        e = E(r=rr).fit(d.X, ys)
                        err[(E.__name__, m)].append(100 * np.mean(e.transduction_[u] != d.y[u]))
                        err[(E.__name__, m, scheme)].append(err[(E.__name__, m)][-1])
        print(line, flush=True)
    print("\nmean |r_hat - r| (points), all classes and draws:")
    for m in METHODS:
        per = "  ".join(f"{s}: {np.mean(mae[(m, s)]):5.2f}" for s in _suite.SCHEMES)
        print(f"  {m:8s} {np.mean(mae[m]):5.2f}   ({per})")
    if a.fit:
        print("\nmean error % on the unlabeled rows with each r:")
        for E in ("TSVM", "DASVM"):
            for m in METHODS:
                per = "  ".join(f"{s}: {np.mean(err[(E, m, s)]):5.2f}" for s in _suite.SCHEMES)
                print(f"  {E:6s} {m:8s} {np.mean(err[(E, m)]):6.2f}   ({per})")


if __name__ == "__main__":
    main()
