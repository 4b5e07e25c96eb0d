"""What ``feature_scaling="auto"`` sees on the tune part, per set and row count.

For each tune set of ``bench/_suite.py`` subsampled to each ``--rows``
(stratified, the suite's fixed seed): the spread ratio over all the columns
with a positive interquartile range (the rule as first declared), the
spread ratio of :func:`semisvm._feature_scale.spread_ratio` (only the
columns whose IQR is at least ``IQR_STD_SHARE`` of their standard
deviation), the smallest IQR / std share among the columns with a positive
IQR, and whether "auto" scales (ratio above ``FEATURE_SCALE_RATIO``). No fit;
the tune part only (the report part is never used to choose)::

    python bench/bench_spread_ratio.py
    python bench/bench_spread_ratio.py --only mnist10 --rows 300 600 1000 2000 10000
"""
import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _suite  # noqa: E402

from semisvm import _feature_scale as fs  # noqa: E402


def shares(X):
    """(ratio over all columns with IQR > 0, spread_ratio, min IQR / std)."""
    q = fs.column_quartiles(X)
    iqr = q[1] - q[0]
    pos = iqr > 0
    if np.count_nonzero(pos) < 2:
        return 1.0, fs.spread_ratio(X), np.nan
    s = fs._column_std(X)
    return (float(iqr[pos].max() / iqr[pos].min()), fs.spread_ratio(X),
            float(np.min(iqr[pos] / s[pos])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="+", default=None)
    ap.add_argument("--rows", type=int, nargs="+", default=[300, 600, 1000, 2000, 10000])
    args = ap.parse_args()
    print(f"FEATURE_SCALE_RATIO {fs.FEATURE_SCALE_RATIO:g}, IQR_STD_SHARE {fs.IQR_STD_SHARE:g}")
    print("| set | rows | all IQR > 0 | spread_ratio | min IQR / std | auto scales |")
    print("|---|---|---|---|---|---|")
    for name in _suite.names("tune"):
        if args.only and name not in args.only:
            continue
        ok, why = _suite.available(name)
        if not ok:
            print(f"| {name} | skipped: {why} | | | | |")
            continue
        seen = set()
        for m in args.rows:
            d = _suite.load(name, max_rows=m)
            n = d.X.shape[0]
            if n in seen:
                continue
            seen.add(n)
            r0, r, sh = shares(d.X)
            print(f"| {name} | {n} | {r0:.4g} | {r:.4g} | {sh:.3g} | "
                  f"{'yes' if r > fs.FEATURE_SCALE_RATIO else 'no'} |", flush=True)


if __name__ == "__main__":
    main()
