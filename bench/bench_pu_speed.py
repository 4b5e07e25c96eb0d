"""PUSVM (USMO, RBF, defaults) against the biased SVM (LIBSVM) at n = 5k, 20k.

    export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
    nice -n 10 python bench/bench_pu_speed.py [n ...]      (default 5000 20000)

The protocol: ``make_classification(n, 20, n_informative=10,
random_state=0)``, a third of the positives labeled, the true prior of the
unlabeled rows given (and ``prior="auto"`` in a second row). Peers measured
side by side in one process, interleaved, best of k CPU times
(``time.process_time``): PUSVM with its defaults (parzen start, no
shrinking), with shrinking, from the uniform start, and scikit-learn's
SVC(class_weight="balanced") on positives vs unlabeled. Error = misclassified
unlabeled rows; F1 of the positive class on them. Ratios are PUSVM / SVC.
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.metrics import f1_score
from sklearn.svm import SVC

from semisvm.pu import PUSVM


def problem(n):
    X, yt = make_classification(n, 20, n_informative=10, random_state=0)
    rng = np.random.RandomState(0)
    pos = np.flatnonzero(yt == 1)
    lab = rng.choice(pos, pos.size // 3, replace=False)
    y = -np.ones(n)
    y[lab] = 1
    return X, y, yt


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [5000, 20000]
    print(f"# load {os.getloadavg()}")
    print(f"{'n':>7s} {'model':24s} {'cpu_s':>7s} {'err':>6s} {'F1':>6s} "
          f"{'t/t_svc':>7s}")
    for n in sizes:
        X, y, yt = problem(n)
        U = y != 1
        truth = yt[U]
        prior = float(truth.mean())
        models = {
            "svc_balanced": lambda: SVC(class_weight="balanced"),
            "pusvm": lambda: PUSVM(prior=prior),
            "pusvm_shrink": lambda: PUSVM(prior=prior, shrinking=True),
            "pusvm_uniform": lambda: PUSVM(prior=prior, init="uniform"),
            "pusvm_auto_prior": lambda: PUSVM(),
        }
        k = 2 if n <= 5000 else 1
        best = {m: np.inf for m in models}
        pred = {}
        for _ in range(k):
            for name, make in models.items():
                t0 = time.process_time()
                est = make().fit(X, y)
                best[name] = min(best[name], time.process_time() - t0)
                pred[name] = (est.predict(X[U]) == 1) if name == "svc_balanced" \
                    else (est.transduction_[U] == 1)
        for name in models:
            err = np.mean(pred[name] != (truth == 1))
            f1 = f1_score(truth, pred[name])
            print(f"{n:7d} {name:24s} {best[name]:7.2f} {100 * err:6.2f} "
                  f"{f1:6.3f} {best[name] / best['svc_balanced']:7.2f}",
                  flush=True)
    print(f"# load {os.getloadavg()}")


if __name__ == "__main__":
    main()
