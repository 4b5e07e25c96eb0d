"""CPU per default fit with the fallback check: the previous counterparts
(RBF / linear SVC, C = 1) against the current four (C = 10, three RBF widths
and linear), and ``safe=False``, alternated in one process (best of 2)::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python bench/bench_fallback_cost.py
"""
import os
import sys
import time
import warnings
from pathlib import Path

from sklearn.svm import SVC

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _suite  # noqa: E402

import semisvm  # noqa: E402
import semisvm._fallback as fb  # noqa: E402

CASES = [("breast_cancer", "25"), ("wine", "25"), ("mnist10", "25"), ("moons", "10")]
MODELS = ("LapSVM", "LapRLS", "TVRLS", "CheegerRLS")


def previous(kernel):
    """The counterparts before C = 10 and the three widths."""
    if kernel == "rbf":
        return [("rbf", SVC()), ("linear", SVC(kernel="linear"))]
    return CURRENT(kernel)


CURRENT = fb.supervised_candidates


def main():
    warnings.simplefilter("ignore")
    print(f"# load average before: {os.getloadavg()}")
    for name, scheme in CASES:
        d = _suite.load(name, max_rows=600)
        ys = _suite.label_draw(d.y, scheme, 0)
        for m in MODELS:
            t = {"off": [], "old": [], "new": []}
            for _ in range(2):
                for key, cand, safe in (("off", CURRENT, False), ("old", previous, "auto"),
                                        ("new", CURRENT, "auto")):
                    fb.supervised_candidates = cand
                    c = time.process_time()
                    getattr(semisvm, m)(safe=safe).fit(d.X, ys)
                    t[key].append(time.process_time() - c)
            fb.supervised_candidates = CURRENT
            o, a, b = (min(t[k]) for k in ("off", "old", "new"))
            print(f"{name:14s} {scheme:3s} {m:10s} CPU s: safe=False {o:.3f}  previous "
                  f"check {a:.3f} ({a / o:.2f}x)  check {b:.3f} ({b / o:.2f}x)  "
                  f"ratio {b / a:.2f}", flush=True)
    print(f"# load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
