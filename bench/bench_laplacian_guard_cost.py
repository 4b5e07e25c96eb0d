"""CPU per default fit of the TV / Cheeger estimators (``safe="auto"``: the
label-fold check, then the Laplacian guard with its LapRLS, which runs its
own check) beside the check alone (``GUARD_MAX_ROWS = 0``: no LapRLS) and
``safe=False``, alternated in one process (best of 2)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_laplacian_guard_cost.py

Cases: four cells of the tune part of ``bench/_suite.py`` (600 rows; the
check runs with 10-25 labels per class), two moons (1,500 rows, 3 labels per
class: the check cannot run, the guard can) and the ``semisvm demo`` digits
(718 rows, 10 labels per class, first draw).
"""
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import make_moons

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _suite  # noqa: E402

import semisvm  # noqa: E402
import semisvm._fallback as fb  # noqa: E402
from semisvm import cli  # noqa: E402

MODELS = ("TVRLS", "TVSVM", "CheegerRLS", "CheegerSVM")


def cases():
    for name, scheme in (("breast_cancer", "25"), ("wine", "25"), ("mnist10", "25"),
                         ("moons", "10")):
        d = _suite.load(name, max_rows=600)
        yield f"{name} {scheme}", d.X, _suite.label_draw(d.y, scheme, 0)
    X, yt = make_moons(1500, noise=0.15, random_state=0)
    rng = np.random.RandomState(3)
    y = np.full(1500, -1)
    for c in (0, 1):
        y[rng.choice(np.flatnonzero(yt == c), 3, replace=False)] = c
    yield "moons 1500, 3/class", X, y
    X, yd, lab, _, _ = cli._demo_splits(20, 0, 1)[0]
    y = np.full(X.shape[0], -1)
    y[lab] = yd[lab]
    yield "demo digits", X, y


def main():
    warnings.simplefilter("ignore")
    print(f"# load average before: {os.getloadavg()}")
    rows = fb.GUARD_MAX_ROWS
    print("| case | model | safe=False | check alone | defaults (check, then the "
          "guard) | defaults / safe=False | defaults / check |")
    print("|---|---|---|---|---|---|---|")
    for name, X, y in cases():
        for m in MODELS:
            t = {"off": [], "check": [], "defaults": []}
            for _ in range(2):
                # GUARD_MAX_ROWS = 0: the guard does not run
                for key, safe, r in (("off", False, rows), ("check", "auto", 0),
                                     ("defaults", "auto", rows)):
                    fb.GUARD_MAX_ROWS = r
                    c = time.process_time()
                    getattr(semisvm, m)(safe=safe).fit(X, y)
                    t[key].append(time.process_time() - c)
            fb.GUARD_MAX_ROWS = rows
            o, a, b = (min(t[k]) for k in ("off", "check", "defaults"))
            print(f"| {name} | {m} | {o:.3f} | {a:.3f} | {b:.3f} | {b / o:.2f} | "
                  f"{b / a:.2f} |", flush=True)
    print(f"# load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
