"""Multi-class LinearSVM (one-vs-rest) against LIBLINEAR's one-vs-rest on digits.

    python bench/bench_linear_multiclass.py [--C 0.1 1 10] [--repeat 3]

scikit-learn's bundled digits (1,797 x 64, 10 classes, scaled to [0, 1]),
a stratified 2/3 : 1/3 split per seed. At the same regularisation (LIBLINEAR
``-s 2 -c C -B 1``, semisvm ``LinearSVM(lam = 1 / (2 C))``, both one-vs-rest,
the bias a regularised constant feature) prints the test accuracy of both,
their difference (the target: within 0.5 points), the mean relative
objective gap of the ten binary problems, and CPU seconds per fit (best of
``--repeat``). Needs ``liblinear-official`` (``pip install ".[bench]"``).
"""
import argparse
import os
import time

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from semisvm import LinearSVM


def objective(w, b, X, y_pm, C):
    """LIBLINEAR -s 2 primal: 1/2 ||[w, b]||^2 + C sum max(0, 1 - y o)^2."""
    m = np.maximum(0.0, 1.0 - y_pm * (X @ w + b))
    return 0.5 * (w @ w + b * b) + C * np.sum(m * m)


def cpu(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t)
    return best, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--C", type=float, nargs="+", default=[0.1, 1.0, 10.0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from liblinear import liblinearutil as ll

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    print(f"load average {os.getloadavg()[0]:.2f}; digits {X.shape}, "
          f"{args.seeds} stratified 2/3:1/3 splits")
    print(f"{'C':>6} {'seed':>4} {'LIBLINEAR acc':>13} {'semisvm acc':>11} "
          f"{'diff (pts)':>10} {'obj gap':>9} {'LL cpu s':>9} {'semisvm cpu s':>13}")
    diffs = []
    for C in args.C:
        for seed in range(args.seeds):
            Xtr, Xte, ytr, yte = train_test_split(
                X, y, test_size=1 / 3, stratify=y, random_state=seed)
            prob = ll.problem(ytr.astype(float).tolist(),
                              [dict(enumerate(r, 1)) for r in Xtr.tolist()])
            t_ll, m = cpu(lambda: ll.train(prob, f"-s 2 -c {C} -B 1 -e 1e-4 -q"),
                          args.repeat)
            labels = np.array(m.get_labels())
            order = np.argsort(labels)
            Wl = np.array([m.get_decfun(i)[0] for i in range(len(labels))])[order]
            bl = np.array([m.get_decfun(i)[1] for i in range(len(labels))])[order]
            labels = labels[order]
            Wl = np.pad(Wl, ((0, 0), (0, X.shape[1] - Wl.shape[1])))
            acc_ll = np.mean(labels[np.argmax(Xte @ Wl.T + bl, 1)] == yte)
            t_s, clf = cpu(lambda: LinearSVM(lam=1 / (2 * C)).fit(Xtr, ytr),
                           args.repeat)
            acc_s = clf.score(Xte, yte)
            gaps = []
            for k, c in enumerate(clf.classes_):
                ypm = np.where(ytr == c, 1.0, -1.0)
                f_s = objective(clf.coef_[k], clf.intercept_[k], Xtr, ypm, C)
                f_l = objective(Wl[k], bl[k], Xtr, ypm, C)
                gaps.append((f_s - f_l) / f_l)
            d = 100 * (acc_s - acc_ll)
            diffs.append(d)
            print(f"{C:>6g} {seed:>4} {100 * acc_ll:>13.2f} {100 * acc_s:>11.2f} "
                  f"{d:>+10.2f} {np.mean(gaps):>+9.1e} {t_ll:>9.3f} {t_s:>13.3f}")
    print(f"largest |accuracy difference|: {np.max(np.abs(diffs)):.2f} points "
          f"(target <= 0.5); load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
