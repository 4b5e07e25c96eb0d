#!/usr/bin/env python
"""Semi-supervised estimators against their supervised counterparts on the
broad held-out benchmark suite (``bench/_suite.py``).

For every cell (set, label scheme) of the part asked (``--part tune`` -- the
only part on which defaults may be chosen -- or ``--part report``, never used
to choose anything) and every label draw (seeds 0-2), each estimator is fitted

* ``def``: with its default parameters (or those given in ``--estimators``,
  e.g. ``"TSVM(r='auto')"``), beside its supervised counterpart with defaults;
* ``ms`` (``--modes ms``): tuned by ``GridSearchCV`` over
  ``semisvm.model_selection.default_param_grid`` with
  ``RepeatedLabeledStratifiedKFold`` folds (test folds hold labeled rows
  only), beside its supervised counterpart tuned the same way.

Supervised counterparts: for TSVM/DASVM the same objective without the
unlabeled rows (``TSVM(lam_u=0)``: a linear L2-SVM on the labeled rows with the
same ``lam``; model selection over the same ``lam`` values); for the
kernel/graph estimators an RBF ``sklearn.svm.SVC`` on the labeled rows (C=1,
``gamma="scale"``; model selection over C and gamma).

Figure: % error on the unlabeled rows (transductive), mean over the draws.
Printed per estimator: the table of cells, and the counts of cells where the
semi-supervised model is worse / better than its counterpart by more than 2
points (the target: worse in at most 1 cell in 12).

Examples::

    nice -n 10 python bench/bench_model_selection_suite.py --part tune \\
        --estimators TSVM,DASVM --modes def,ms --out /tmp/tune_linear.jsonl
    python bench/bench_model_selection_suite.py --part report \\
        --estimators "TSVM(r='auto'),TSVM(safe=True)" --sets digits,a9a

``--out FILE`` appends one JSON line per fit; ``--replay FILE`` re-prints the
tables from such a file without fitting.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
import time
import warnings
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _suite  # noqa: E402

LINEAR = ("TSVM", "DASVM")
ALL = ("TSVM", "DASVM", "LapSVM", "LapRLS", "TVRLS", "TVSVM", "CheegerRLS", "CheegerSVM")


def parse_estimator(spec):
    """``"TSVM(r='auto', safe=True)"`` -> ("TSVM", {"r": "auto", "safe": True})."""
    m = re.fullmatch(r"\s*(\w+)\s*(?:\((.*)\))?\s*", spec)
    if not m:
        raise SystemExit(f"bad --estimators entry {spec!r}")
    name, args = m.group(1), m.group(2)
    params = {}
    if args:
        call = ast.parse(f"f({args})", mode="eval").body
        for kw in call.keywords:
            params[kw.arg] = ast.literal_eval(kw.value)
    return name, params


def split_specs(text):
    """Split on commas outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip():
        out.append(cur)
    return [s.strip() for s in out]


def make(name, params):
    import semisvm
    cls = getattr(semisvm, name)
    est = cls(**params)
    if "random_state" in est.get_params() and "random_state" not in params:
        est.set_params(random_state=0)     # the suite is deterministic either way
    return est


def counterpart(name, params):
    from sklearn.svm import SVC

    from semisvm import TSVM
    from semisvm.model_selection import LabeledOnly
    if name in LINEAR:
        keep = {k: v for k, v in params.items() if k in ("lam",)}
        return TSVM(lam_u=0.0, **keep), "linSVM"
    return LabeledOnly(SVC()), "rbfSVC"


def search(est, X, cv_splits, cv_repeats, sup=False, name=None):
    from sklearn.model_selection import GridSearchCV

    from semisvm.model_selection import (
        RepeatedLabeledStratifiedKFold,
        default_param_grid,
    )
    grid = default_param_grid(est, X)
    if sup and name in LINEAR:           # TSVM(lam_u=0): only lam is searched
        grid = {"lam": grid["lam"]}
    cv = RepeatedLabeledStratifiedKFold(cv_splits, n_repeats=cv_repeats, random_state=0)
    return GridSearchCV(est, grid, cv=cv, error_score=0.0)


def unl_error(fitted, X, y_true, y_semi, transductive=True):
    u = y_semi < 0
    est = getattr(fitted, "best_estimator_", fitted)
    if transductive and hasattr(est, "transduction_"):
        pred = np.asarray(est.transduction_)[u]
    else:
        pred = est.predict(X[np.flatnonzero(u)])
    return 100.0 * float(np.mean(pred != y_true[u]))


def run(args):
    specs = [parse_estimator(s) for s in split_specs(args.estimators)]
    modes = args.modes.split(",")
    only = set(args.sets.split(",")) if args.sets else None
    schemes = tuple(args.schemes.split(",")) if args.schemes else (
        _suite.CLASSIC_SCHEMES if args.classic else _suite.SCHEMES)
    seeds = tuple(int(s) for s in args.seeds.split(","))
    out = open(args.out, "a") if args.out else None
    recs = []
    load0 = os.getloadavg()[0]
    print(f"# load average before: {load0:.2f} (2 cores shared)", flush=True)
    for d, scheme, seed, ys in _suite.cells(args.part, schemes, seeds, args.max_rows, only,
                                               classic=args.classic):
        for spec, (name, params) in zip(split_specs(args.estimators), specs):
            for mode in modes:
                sup, sup_name = counterpart(name, params)
                semi = make(name, params)
                if mode == "ms":
                    semi = search(semi, d.X, args.cv_splits, args.cv_repeats)
                    sup = search(sup, d.X, args.cv_splits, args.cv_repeats, sup=True, name=name)
                row = {"part": args.part, "set": d.name, "scheme": scheme, "seed": seed,
                       "est": spec, "mode": mode, "sup_name": sup_name}
                for tag, model in (("semi", semi), ("sup", sup)):
                    t = time.process_time()
                    with warnings.catch_warnings(record=True) as w:
                        warnings.simplefilter("always")
                        try:
                            model.fit(d.X, ys)
                            # the supervised model's labels are its predictions
                            # (TSVM(lam_u=0)'s transduction_ would follow r)
                            err = unl_error(model, d.X, d.y, ys, tag == "semi")
                        except Exception as exc:   # report, do not hide
                            err = float("nan")
                            row[tag + "_exc"] = f"{type(exc).__name__}: {exc}"[:200]
                    row[tag] = err
                    row[tag + "_cpu"] = time.process_time() - t
                    row[tag + "_warn"] = sum("converge" in str(x.message) or
                                             "stopped on a cap" in str(x.message) for x in w)
                    best = getattr(model, "best_params_", None)
                    if best is not None:
                        row[tag + "_best"] = {k: (v if isinstance(v, (str, int, float)) else str(v))
                                              for k, v in best.items()}
                    m = getattr(model, "best_estimator_", model)
                    if getattr(m, "unlabeled_gain_", None) is not None:
                        row["gain"] = m.unlabeled_gain_
                        row["fell_back"] = bool(m.fell_back_)
                    if tag == "semi" and getattr(m, "r_", None) is not None:
                        row["r_"] = np.asarray(m.r_).tolist()
                recs.append(row)
                if out:
                    out.write(json.dumps(row) + "\n")
                    out.flush()
                if args.verbose:
                    print(f"  {d.name:14s} {scheme:4s} s{seed} {spec:24s} {mode:3s} "
                          f"semi {row['semi']:6.2f} sup {row['sup']:6.2f} "
                          f"cpu {row['semi_cpu']:.2f}s", flush=True)
    print(f"# load average after: {os.getloadavg()[0]:.2f}")
    return recs


def report(recs, threshold=2.0):
    """Print the per-estimator tables and counts; returns the summary dict."""
    by = defaultdict(lambda: defaultdict(list))
    for r in recs:
        by[(r["est"], r["mode"])][(r["set"], r["scheme"])].append(r)
    summary = {}
    for (est, mode), cells in by.items():
        sup_name = next(iter(cells.values()))[0]["sup_name"]
        print(f"\n## {est}  mode={mode}  vs {sup_name}{' (tuned)' if mode == 'ms' else ''}")
        print(f"{'set':14s} {'lab':4s} {sup_name:>7s} {'semi':>7s} {'diff':>7s}  "
              f"{'cpu s':>6s} warn fallbacks")
        worse = better = n = 0
        sums = np.zeros(2)
        for (s, sch), rs in cells.items():
            a = np.mean([r["sup"] for r in rs])
            b = np.mean([r["semi"] for r in rs])
            cpu = np.mean([r["semi_cpu"] for r in rs])
            warn = sum(r["semi_warn"] for r in rs)
            fb = sum(bool(r.get("fell_back")) for r in rs)
            diff = b - a
            flag = " WORSE" if diff > threshold else (" better" if diff < -threshold else "")
            n += 1
            worse += diff > threshold
            better += diff < -threshold
            sums += (a, b)
            print(f"{s:14s} {sch:4s} {a:7.2f} {b:7.2f} {diff:+7.2f}  {cpu:6.2f} {warn:4d} "
                  f"{fb:3d}/{len(rs)}{flag}")
        print(f"{'mean':14s} {'':4s} {sums[0] / n:7.2f} {sums[1] / n:7.2f} "
              f"{(sums[1] - sums[0]) / n:+7.2f}")
        print(f"** {est} [{mode}]: worse by > {threshold:g} points in {worse}/{n} cells, "
              f"better by > {threshold:g} in {better}/{n} (target: worse <= {n / 12:.1f})")
        summary[(est, mode)] = (worse, better, n)
    print("\n## summary (cells worse / better by > 2 points, of n)")
    for (est, mode), (w, b, n) in summary.items():
        print(f"{est:32s} {mode:3s} worse {w:3d}  better {b:3d}  of {n}")
    return summary


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--part", choices=("tune", "report"), default="tune")
    p.add_argument("--estimators", default=",".join(ALL),
                   help="comma list, each Name or Name(param=value, ...)")
    p.add_argument("--modes", default="def,ms", help="def, ms or def,ms")
    p.add_argument("--sets", default="", help="comma list of set names (default: the part)")
    p.add_argument("--schemes", default="",
                   help="label schemes (default 5,25,prop; 1,3,10 with --classic)")
    p.add_argument("--classic", action="store_true",
                   help="the part's classic cases (moons, circles, nested clouds, XOR, "
                        "imbalanced blobs) instead of its main sets")
    p.add_argument("--seeds", default=",".join(map(str, _suite.SEEDS)))
    p.add_argument("--max-rows", type=int, default=_suite.MAX_ROWS)
    p.add_argument("--cv-splits", type=int, default=5)
    p.add_argument("--cv-repeats", type=int, default=1)
    p.add_argument("--out", default="", help="append one JSON line per fit to this file")
    p.add_argument("--replay", default="", help="print the tables of a --out file, no fits")
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args(argv)
    if args.replay:
        with open(args.replay) as f:
            recs = [json.loads(line) for line in f if line.strip()]
        recs = [r for r in recs if r["part"] == args.part]
        if args.estimators != ",".join(ALL):
            keep = set(split_specs(args.estimators))
            recs = [r for r in recs if r["est"] in keep]
        if args.sets:
            recs = [r for r in recs if r["set"] in set(args.sets.split(","))]
        report(recs)
        return
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    report(run(args))


if __name__ == "__main__":
    main()
