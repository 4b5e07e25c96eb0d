"""Compare two ``--jsonl`` recordings of ``bench/bench_graph_tv_suite.py``.

Recording A is the current defaults, B a candidate (``--params``), on the same
cells and seeds. Prints per model, for three rules, the cells where the model
is more than 2 points worse / better than ``SVC()`` (A's SVC rows) and its
mean error over the cells: ``def`` (A), ``cand`` (B) and ``few`` (B for the
fits where a class has at most ``--few`` labels, A elsewhere: a candidate
switched on for few labels only); then the cells whose mean moved by more
than a point::

    python bench/compare_suite_recordings.py def.jsonl cand.jsonl \\
        --models CheegerRLS CheegerSVM --part tune
"""
import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _suite  # noqa: E402


def min_labels(part, max_rows):
    """The fewest labels of a class, per (set, scheme, seed) of the part."""
    out = {}
    for classic, schemes in ((False, _suite.SCHEMES), (True, _suite.CLASSIC_SCHEMES)):
        for d, sc, seed, ys in _suite.cells(part, schemes=list(schemes),
                                            seeds=list(_suite.SEEDS),
                                            max_rows=max_rows, classic=classic):
            out[d.name, sc, seed] = int(np.bincount(ys[ys >= 0]).min())
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--models", nargs="+", required=True)
    ap.add_argument("--part", default="tune", choices=["tune", "report"])
    ap.add_argument("--max-rows", type=int, default=600)
    ap.add_argument("--few", type=int, default=3)
    args = ap.parse_args()

    def key(r):
        return (r["set"], r["scheme"], r["seed"], r["model"])

    a = {key(r): r["err"] for r in map(json.loads, open(args.a)) if r}
    b = {key(r): r["err"] for r in map(json.loads, open(args.b)) if r}
    minlab = min_labels(args.part, args.max_rows)
    common = set(a) & set(b)
    cells = sorted({k[:2] for k in common})
    for m in args.models:
        for rule in ("def", "cand", "few"):
            diffs, errs, changed = [], [], 0
            for c in cells:
                e, s = [], []
                for seed in _suite.SEEDS:
                    k = c + (seed, m)
                    if k not in common or c + (seed, "SVC") not in a:
                        continue
                    use_b = rule == "cand" or (
                        rule == "few" and minlab[c + (seed,)] <= args.few)
                    e.append(b[k] if use_b else a[k])
                    s.append(a[c + (seed, "SVC")])
                    changed += bool(use_b and b[k] != a[k])
                if e:
                    errs.append(np.mean(e))
                    diffs.append(np.mean(e) - np.mean(s))
            d = np.array(diffs)
            print(f"{m:11s} {rule:4s} cells {len(d):3d} worse {int((d > 2).sum()):2d} "
                  f"better {int((d < -2).sum()):2d} mean err {np.mean(errs):6.2f} "
                  f"fits changed {changed}")
        for c in cells:
            ea = [a.get(c + (s, m)) for s in _suite.SEEDS]
            eb = [b.get(c + (s, m)) for s in _suite.SEEDS]
            if None in ea or None in eb or abs(np.mean(ea) - np.mean(eb)) <= 1:
                continue
            sv = np.mean([a[c + (s, "SVC")] for s in _suite.SEEDS])
            print(f"   {c[0]:14s} {c[1]:4s} SVC {sv:5.1f} A {np.mean(ea):5.1f} "
                  f"B {np.mean(eb):5.1f} fewest labels {[minlab[c + (s,)] for s in _suite.SEEDS]}")


if __name__ == "__main__":
    main()
