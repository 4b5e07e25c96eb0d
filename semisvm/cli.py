"""Command line of semisvm (``semisvm`` console script, ``python -m semisvm``)."""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def _demo(args):
    from sklearn.datasets import load_digits

    from semisvm import LinearSVM

    X, digit = load_digits(return_X_y=True)
    X = X / 16.0
    y = np.where(digit >= 5, 1, 0)           # digits 0-4 vs 5-9
    rng = np.random.RandomState(args.seed)
    idx = rng.permutation(X.shape[0])
    train, test = idx[: X.shape[0] // 2], idx[X.shape[0] // 2:]
    rows = []
    t0 = time.perf_counter()
    clf = LinearSVM(lam=0.01).fit(X[train], y[train])
    rows.append(("LinearSVM (all labels)", 1 - clf.score(X[test], y[test]),
                 time.perf_counter() - t0))
    print(f"{'algorithm':<28}{'test error':>12}{'time (s)':>10}")
    for name, err, sec in rows:
        print(f"{name:<28}{err:>12.4f}{sec:>10.3f}")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="semisvm", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="run the embedded demo (scikit-learn digits)")
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=_demo)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
