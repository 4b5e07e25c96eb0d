#!/usr/bin/env python
"""TSVM and DASVM at scale against LIBLINEAR's supervised fit, side by side.

A seeded text-like problem (``bench_linear_tsvm.make_text_like``: Zipf
columns, tf-idf rows, ~50 stored entries per row, 50,000 features), 1 %
labeled, ``lam=0.001, lam_u=1, r=0.5`` (the settings of the scale table of
``bench_linear_tsvm.py``). Printed per fit: wall and CPU seconds, CPU / wall
(``n_jobs=1`` must stay near 1: every thread follows ``n_jobs``), MFN calls,
CG iterations, and the CPU-time ratio to LIBLINEAR ``-s 2 -B 1`` trained on
all rows with all labels (``train()`` only; ``pip install
liblinear-official``). ``--two-pass`` adds TSVM/DASVM with the former two-pass
CG step (the previous arithmetic) for comparison. Run it in a default
environment (no ``OPENBLAS_NUM_THREADS``) and beside it with BLAS pinned.

    python bench/bench_linear_ssl_speed.py --rows 200000 --jobs 1 2 --two-pass
"""
import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_linear_tsvm import make_text_like  # noqa: E402

from semisvm import DASVM, TSVM  # noqa: E402
from semisvm._rows import LocalSSL  # noqa: E402


def timed(fn):
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t, time.process_time() - c


def liblinear_fit(X, y):
    from liblinear import liblinearutil
    prob = liblinearutil.problem(np.where(y > 0, 1.0, -1.0), X, bias=1)
    param = liblinearutil.parameter("-s 2 -c 1 -B 1 -q")
    _, t, c = timed(lambda: liblinearutil.train(prob, param))
    return t, c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, nargs="+", default=[200000])
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--two-pass", action="store_true")
    a = ap.parse_args()
    env = {k: os.environ.get(k) for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    print(f"# environment {env}; load average {os.getloadavg()}")
    for n in a.rows:
        X, y = make_text_like(n)
        rng = np.random.default_rng(0)
        ys = np.where(rng.random(n) < 0.01, y, -1)
        try:
            t_ll, c_ll = liblinear_fit(X, y)
            print(f"{n} rows: LIBLINEAR -s 2 (all labels) wall {t_ll:.2f} s, CPU {c_ll:.2f} s")
        except ImportError:
            c_ll = np.nan
            print("LIBLINEAR absent (pip install liblinear-official)")
        print(f"{'model':<22}{'n_jobs':>7}{'wall':>8}{'CPU':>8}{'CPU/wall':>9}"
              f"{'mfn':>6}{'cg':>6}{'CPU/LIBLINEAR':>15}  load")
        variants = [("one-pass", False)] + ([("two-pass", True)] if a.two_pass else [])
        for label, two in variants:
            orig = LocalSSL.__init__

            def init(self, *args, **kw):
                orig(self, *args, **kw)
                self.rows.one_pass = False
            if two:
                LocalSSL.__init__ = init
            try:
                for Est in (TSVM, DASVM):
                    for k in a.jobs:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            est, t, c = timed(lambda: Est(lam=1e-3, lam_u=1.0, r=0.5,
                                                          n_jobs=k).fit(X, ys))
                        res = est.result_
                        print(f"{Est.__name__ + ' ' + label:<22}{k:>7}{t:>8.2f}{c:>8.2f}"
                              f"{c / t:>9.2f}{res.n_mfn:>6}{res.n_cg_iter:>6}"
                              f"{c / c_ll:>15.2f}  {os.getloadavg()[0]:.1f}", flush=True)
            finally:
                LocalSSL.__init__ = orig


if __name__ == "__main__":
    main()
