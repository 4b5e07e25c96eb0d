"""Compare safe=True checks recorded by bench/record_tv_safe_checks.py on two versions (base, new),
both under the declared first-repeat stop (``_tv_check.SAFE_FIRST_REPEAT_MIN_GAIN = 0.05``, one sign,
centred on ``-safe_margin`` = 0): fallbacks, first-repeat stops, decisions moved (keep <-> fall back),
the mean change of the returned error, cells (set, scheme, model) moved and worse / better by more
than 2 points, the counterpart's own error.

Run::

    python bench/compare_tv_safe_checks.py base.jsonl new.jsonl [-v]
"""
import collections
import json
import sys

import numpy as np


def load(f):
    return {(r["set"], r["scheme"], r["seed"], r["model"]): r for r in map(json.loads, open(f))}


def decide(r):
    """(falls back, the first repeat decided) under the declared stop; None: no check ran."""
    if r.get("s") is None:
        return None
    d = np.array(r["s"]) - np.array(r["b"])
    n1 = d.size // 2
    d1 = d[:n1]
    one = (d1 >= 0).all() or (d1 <= 0).all()
    if n1 == 5 and abs(d1.mean()) >= 0.05 and d1.mean() != 0 and one:
        return d1.mean() < 0, True
    return float(np.mean(d)) < 0, False


def main(base, new, verbose):
    for m in sorted({k[3] for k in new}) + ["all"]:
        keys = [k for k in new if k in base and (m == "all" or k[3] == m)]
        n = moved = same_s = stop_b = stop_n = fb_b = fb_n = 0
        derr, cell, mv = [], collections.defaultdict(list), []
        for k in keys:
            rb, rn = base[k], new[k]
            if "err_sup" not in rn and "err_sup" in rb:
                # (a SCORES_ONLY run of the same counterpart: the base's)
                rn = dict(rn, err_sup=rb["err_sup"])
            db, dn = decide(rb), decide(rn)
            if db is None or dn is None:
                continue
            n += 1
            same_s += rb["s"] == rn["s"]
            stop_b += db[1]
            stop_n += dn[1]
            fb_b += db[0]
            fb_n += dn[0]
            eb = rb["err_sup"] if db[0] else rb["err_semi"]
            en = rn["err_sup"] if dn[0] else rn["err_semi"]
            derr.append(en - eb)
            cell[k[:2] + (k[3],)].append(en - eb)
            if db[0] != dn[0]:
                moved += 1
                mv.append((k, round(en - eb, 2)))
        cm = np.array([np.mean(v) for v in cell.values()])
        both = [k for k in keys if "err_sup" in base[k] and "err_sup" in new[k]]
        sup_b = np.mean([base[k]["err_sup"] for k in both])
        sup_n = np.mean([new[k]["err_sup"] for k in both])
        print(f"== {m}: {n} checks (model fold scores equal on {same_s}), fallbacks {fb_b} -> {fb_n}, "
              f"first-repeat stops {stop_b} -> {stop_n}; decisions moved {moved} ({moved / max(n, 1):.1%}); "
              f"mean err change {np.mean(derr):+.3f}; cells {cm.size}: moved {int(np.sum(cm != 0))}, "
              f"worse>2 {int(np.sum(cm > 2))}, better>2 {int(np.sum(cm < -2))}; "
              f"counterpart err {sup_b:.2f} -> {sup_n:.2f}")
        if verbose or m == "all":
            for x in mv:
                print("     ", x)


if __name__ == "__main__":
    main(load(sys.argv[1]), load(sys.argv[2]), "-v" in sys.argv[3:])
