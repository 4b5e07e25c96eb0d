"""The ``safe="auto"`` check's fold stop rule, before and after, side by side.

Each fit runs twice in one process: with the fold solves stopped as the fit
(``FOLD_TOL = 0``, ``FOLD_N_STABLE`` unbounded: the rule of before) and with
``--new TOL N_STABLE`` (default: the module's ``FOLD_TOL``, ``FOLD_N_STABLE``).
Prints CPU seconds, error on the unlabeled rows and whether the check fell
back.  ``--part small``: the 5,000-row problems of
``bench_graph_tv_scale.py --part small`` (2 / 10 classes, 10 / 60 features);
``--part tune``: the tune part of ``bench/_suite.py`` (``--max-rows 600``,
``--classic`` for its classic cases), one JSON line per fit::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 \\
        python bench/bench_tv_check_folds.py --part tune --models CheegerRLS CheegerSVM
"""
import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _suite  # noqa: E402
from bench_graph_tv_scale import _problem  # noqa: E402

import semisvm  # noqa: E402
from semisvm import _tv_check as tv_check  # noqa: E402


def _pair(name, X, y_semi, y, new):
    unl = y_semi == -1
    out = {}
    for tag, (ft, fn) in (("old", (0.0, 10**9)), ("new", new)):
        tv_check.FOLD_TOL, tv_check.FOLD_N_STABLE = ft, fn
        est = getattr(semisvm, name)()
        t0 = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y_semi)
        out[tag] = dict(cpu=round(time.process_time() - t0, 3),
                        err=100 * float(np.mean(est.transduction_[unl] != y[unl])),
                        fb=bool(getattr(est, "fell_back_", False)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", default="small", choices=["small", "tune"])
    ap.add_argument("--models", nargs="+",
                    default=["TVRLS", "TVSVM", "CheegerRLS", "CheegerSVM"])
    ap.add_argument("--new", nargs=2, type=float, default=None,
                    metavar=("TOL", "N_STABLE"))
    ap.add_argument("--only", nargs="+", default=None, help="tune part: these sets")
    ap.add_argument("--classic", action="store_true")
    ap.add_argument("--max-rows", type=int, default=600)
    args = ap.parse_args()
    new = ((args.new[0], int(args.new[1])) if args.new
           else (tv_check.FOLD_TOL, tv_check.FOLD_N_STABLE))
    print("# load", os.getloadavg(), "new", new, flush=True)
    if args.part == "small":
        for d, c in [(10, 2), (10, 10), (60, 2), (60, 10)]:
            X, y_semi, y = _problem(5000, d, c, min(d, 10))
            for name in args.models:
                r = _pair(name, X, y_semi, y, new)
                print(f"d={d} c={c} {name:10s} | " + " | ".join(
                    f"{t} cpu {r[t]['cpu']:5.2f} err {r[t]['err']:5.2f} "
                    f"fb {int(r[t]['fb'])}" for t in ("old", "new")), flush=True)
    else:
        schemes = list(_suite.CLASSIC_SCHEMES if args.classic else _suite.SCHEMES)
        for d, scheme, seed, y_semi in _suite.cells(
                "tune", schemes=schemes, seeds=list(_suite.SEEDS),
                max_rows=args.max_rows, only=args.only, classic=args.classic):
            for name in args.models:
                r = _pair(name, d.X, y_semi, d.y, new)
                print(json.dumps(dict(set=d.name, scheme=scheme, seed=seed,
                                      model=name, **r)), flush=True)
    print("# load", os.getloadavg(), flush=True)


if __name__ == "__main__":
    main()
