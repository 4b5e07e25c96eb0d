"""Replay the default fallback (``safe="auto"``) under other decision rules.

Reads the ``--jsonl`` files of ``bench/bench_graph_tv_suite.py`` (run with
the estimators' defaults: each line holds the check's held-out counts
``check = [semi right, SVC right, only semi right, only SVC right]``, the
error after the check and, when it fell back, the error before it) and
recomputes, for each rule "fall back when ``only_SVC - only_semi > z *
sqrt(only_SVC + only_semi)`` and ``only_SVC - only_semi >= min_lead``", the
cells where each model is more than 2 points worse / better than the SVC on
the labels. The semi-supervised fits are deterministic, so this is exact for
two classes (the fallback is then the SVC's decision); with more classes the
fallback's one-vs-rest SVCs are replaced by the SVC's error. Choose a rule on
the tune part only::

    python bench/bench_fallback_rules.py /tmp/tune_auto.jsonl --z 0 0.5 1 1.5

With ``--min-per-class 4 --z-few ...`` the cells where some class has fewer
than 4 labels (the check then holds out one label per class per solve) get
their own z (no value: no check there).
"""
import argparse
import json
from collections import defaultdict

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--z", type=float, nargs="+", default=[0.0, 0.5, 1.0, 1.5])
    ap.add_argument("--min-lead", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--tag", default=None)
    ap.add_argument("--skip-schemes", nargs="*", default=[],
                    help="label schemes on which the check is not run")
    ap.add_argument("--min-per-class", type=int, default=0,
                    help="cells where some class has fewer labels than this "
                         "(recomputed from the suite's label draws) are 'few-label' "
                         "cells: the check runs there with --z-few (or not at all)")
    ap.add_argument("--z-few", type=float, nargs="+", default=[None],
                    help="z of the rule on the few-label cells (default: no check there)")
    ap.add_argument("--stab", type=float, nargs="+", default=[None],
                    help="also fall back when the held-out gain is <= 0 and the two "
                         "held-out solves agree on fewer unlabeled rows than the "
                         "SVCs of the same folds minus this (check_stats; "
                         "default: not used)")
    ap.add_argument("--rbf-only", action="store_true",
                    help="replay as if the counterpart were always the RBF SVC "
                         "(check_stats['first'] counts; the fallback's error is "
                         "the SVC's on the labels)")
    ap.add_argument("--max-rows", type=int, default=600,
                    help="the --max-rows of the runs (for --min-per-class)")
    args = ap.parse_args()
    rows = [json.loads(line) for f in args.files for line in open(f) if line.strip()]
    if args.tag:
        rows = [r for r in rows if r.get("tag") == args.tag]
    svc = {(r["set"], r["scheme"], r["seed"]): r["err"] for r in rows if r["model"] == "SVC"}
    few = set()
    if args.min_per_class:
        import os
        import sys
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import _suite
        for name in sorted({k[0] for k in svc}):
            yy = _suite.load(name, max_rows=args.max_rows).y
            for key in [k for k in svc if k[0] == name]:
                lab = _suite.label_draw(yy, key[1], key[2])
                if np.bincount(lab[lab >= 0]).min() < args.min_per_class:
                    few.add(key)
    models = sorted({r["model"] for r in rows} - {"SVC"})
    print(f"{'rule':36s} " + " ".join(f"{m:>16s}" for m in models) + "   (worse/better, fell back)")
    for z, z_few, lead_min, stab in [(z, zf, m, st) for z in args.z for zf in args.z_few
                                     for m in args.min_lead for st in args.stab]:
        out = []
        for m in models:
            cells = defaultdict(list)
            fb_n = 0
            for r in rows:
                if r["model"] != m:
                    continue
                key = (r["set"], r["scheme"], r["seed"])
                pre = r["err_semi"] if r.get("fell_back") else r["err"]
                c = r.get("check")
                st = r.get("check_stats") or {}
                rbf_fb = r.get("fell_back") and st.get("chosen", "rbf") == "rbf"
                if args.rbf_only and c is not None and "first" in st:
                    c = st["first"]
                fire = False
                zz = z_few if key in few else z
                if (c is not None and r["scheme"] not in args.skip_schemes
                        and zz is not None):
                    only_semi, only_sup = c[2], c[3]
                    lead = only_sup - only_semi
                    fire = (c[0] < c[1] and lead >= lead_min
                            and lead > zz * np.sqrt(only_sup + only_semi))
                fb_n += fire
                if args.rbf_only:
                    err = (r["err"] if rbf_fb else svc[key]) if fire else pre
                else:
                    err = (r["err"] if r.get("fell_back") else svc[key]) if fire else pre
                cells[key[:2]].append((err, svc[key]))
            d = np.array([np.mean([e for e, _ in v]) - np.mean([s for _, s in v])
                          for v in cells.values()])
            out.append(f"{int(np.sum(d > 2)):3d}/{int(np.sum(d < -2)):3d} ({fb_n:3d})")
        zf = "-" if z_few is None else f"{z_few:g}"
        sf = "-" if stab is None else f"{stab:g}"
        print(f"z={z:<4g} few={zf:<4s} lead>={lead_min:<2d} stab={sf:<5s} "
              + " ".join(f"{o:>16s}" for o in out))
    print(f"cells: {len(cells)}; fits per model: {sum(len(v) for v in cells.values())}")


if __name__ == "__main__":
    main()
