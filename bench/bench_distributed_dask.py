#!/usr/bin/env python
"""LinearSVM (L2-SVM-MFN) in memory against the same fit on a 2-worker Dask LocalCluster.

Builds the seeded synthetic sparse text-like problem of ``bench_linear_mfn.py``
(default 1,000,000 x 50,000, ~30 non-zeros per row), writes it as row blocks
(``.npz`` files the workers read, as they would read their shard of a data
set), and fits ``l2svm_mfn`` twice: on the CSR matrix in this process, and on
a ``dask.array`` of the row blocks with a ``LocalCluster`` of 2 worker
processes (1 thread each). Prints one table: wall and CPU time, Newton / CG
iterations, objective and its relative gap, worker round trips (per CG
iteration), bytes moved, and the overhead per CG iteration:

    overhead/CG = (distributed wall - in-memory wall / n_workers) / n_cg_iter

i.e. what each CG iteration costs beyond a perfect split of the in-memory
work over the workers; plus the measured latency of an empty round trip over
the block states (one no-op task per block, gathered). Threads are pinned to
1; the machine's load average is printed beside the timings.

Usage (from the repository root)::

    python bench/bench_distributed_dask.py                     # 1M x 50k, 8 blocks
    python bench/bench_distributed_dask.py --n 200000 --blocks 4
    python bench/bench_distributed_dask.py --json out.json
"""
import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_linear_mfn import make_text_like  # noqa: E402


def _load_block(path):
    return sp.load_npz(path).tocsr()


def _noop(st):
    return 0


class _Summary(logging.Handler):
    """Keeps the distributed MFN's closing log line (round trips, bytes)."""

    def __init__(self):
        super().__init__()
        self.final = None

    def emit(self, record):
        msg = record.getMessage()
        if "stopped" in msg:
            self.final = msg


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--d", type=int, default=50_000)
    ap.add_argument("--nnz", type=float, default=30)
    ap.add_argument("--lam", type=float, default=0.5)
    ap.add_argument("--blocks", type=int, default=8, help="row blocks")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json")
    args = ap.parse_args()

    import dask
    import dask.array as da
    from distributed import Client, LocalCluster

    from semisvm.linear import l2svm_mfn

    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    X, y, _, _ = make_text_like(args.n, args.d, args.nnz, seed=0, n_test=1000)
    print(f"# synthetic text-like: {X.shape[0]} x {X.shape[1]}, nnz {X.nnz} "
          f"({X.nnz / X.shape[0]:.1f}/row), CSR {(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 2**20:.0f} MiB, "
          f"built in {time.perf_counter() - t0:.1f} s; lam = {args.lam}")
    print(f"# load average before: {load:.2f} (2 cores shared)")

    # in memory
    c0, w0 = time.process_time(), time.perf_counter()
    ref = l2svm_mfn(X, y, lam=args.lam, newton="cgls")
    mem = {"wall": time.perf_counter() - w0, "cpu": time.process_time() - c0,
           "n_iter": ref.n_iter, "n_cg": ref.n_cg_iter, "objective": ref.objective}

    with tempfile.TemporaryDirectory() as tmp:
        bounds = np.linspace(0, X.shape[0], args.blocks + 1).astype(int)
        parts = []
        for i in range(args.blocks):
            path = os.path.join(tmp, f"block{i}.npz")
            sp.save_npz(path, X[bounds[i]:bounds[i + 1]], compressed=False)
            parts.append(da.from_delayed(
                dask.delayed(_load_block)(path),
                shape=(int(bounds[i + 1] - bounds[i]), X.shape[1]), dtype=X.dtype,
                meta=sp.csr_matrix((0, X.shape[1]), dtype=X.dtype)))
        Xd = da.concatenate(parts)
        d_shape = X.shape
        del X
        with LocalCluster(n_workers=args.workers, threads_per_worker=1,
                          processes=True, dashboard_address=None,
                          silence_logs=logging.ERROR) as cluster, \
                Client(cluster) as client:
            client.run(lambda: __import__("semisvm._distributed"))
            handler = _Summary()
            log = logging.getLogger("semisvm")
            log.addHandler(handler)
            log.setLevel(logging.INFO)
            load_d = os.getloadavg()[0]
            c0, w0 = time.process_time(), time.perf_counter()
            res = l2svm_mfn(Xd, y, lam=args.lam, newton="cgls", verbose=True)
            dist = {"wall": time.perf_counter() - w0,
                    "cpu": time.process_time() - c0, "n_iter": res.n_iter,
                    "n_cg": res.n_cg_iter, "objective": res.objective,
                    "load": load_d}
            log.removeHandler(handler)
            m = re.search(r"(\d+) worker round trips, ([\d.]+) MiB", handler.final)
            dist["round_trips"] = int(m.group(1))
            dist["mib"] = float(m.group(2))
            # latency of an empty round trip over the row-block states, and
            # the CG round trip taken apart: wall per iteration against the
            # slowest worker's compute (dask's task stream)
            from distributed import get_task_stream

            from semisvm import _distributed
            rows, _ = _distributed.load(Xd, y)
            rows.map(_noop)
            k = 20
            w1 = time.perf_counter()
            for _ in range(k):
                rows.map(_noop)
            dist["empty_rt_ms"] = (time.perf_counter() - w1) / k * 1e3
            wz = np.zeros(d_shape[1] + 1)
            rows.reset(wz)
            rows.activate(False)
            p = np.random.default_rng(0).standard_normal(d_shape[1] + 1)
            rows._cg_prod(p)
            with get_task_stream(client) as ts:
                w1 = time.perf_counter()
                for _ in range(k):
                    rows._cg_prod(p)
                wall_cg = (time.perf_counter() - w1) / k * 1e3
            comp = sorted(
                (ss["start"], ss["stop"] - ss["start"]) for t in ts.data
                if str(t["key"]).startswith("_t_cg_product_group")
                for ss in t["startstops"] if ss["action"] == "compute")
            g = len(rows._groups)
            per_rt = [max(c for _, c in comp[i * g:(i + 1) * g]) * 1e3
                      for i in range(len(comp) // g)]
            dist["cg_rt_wall_ms"] = wall_cg
            dist["k"] = k
            dist["cg_worker_compute_ms"] = float(np.median(per_rt))
            dist["cg_groups"] = g
            dist["cg_overhead_ms"] = wall_cg - float(np.median(per_rt))
            del rows

    gap = abs(dist["objective"] - mem["objective"]) / abs(mem["objective"])
    D = d_shape[1] + 1
    cg_rt = dist["round_trips"] / max(dist["n_cg"], 1)
    overhead = (dist["wall"] - mem["wall"] / args.workers) / max(dist["n_cg"], 1) * 1e3
    print()
    print(f"{'fit':<34}{'wall s':>9}{'cpu s':>9}{'Newton':>8}{'CG':>6}"
          f"{'objective':>20}{'rel. gap':>10}")
    print("-" * 96)
    print(f"{'in memory (1 thread)':<34}{mem['wall']:9.2f}{mem['cpu']:9.2f}"
          f"{mem['n_iter']:8d}{mem['n_cg']:6d}{mem['objective']:20.10f}{0:10.1e}")
    print(f"{f'Dask {args.workers} workers, {args.blocks} blocks':<34}"
          f"{dist['wall']:9.2f}{dist['cpu']:9.2f}{dist['n_iter']:8d}"
          f"{dist['n_cg']:6d}{dist['objective']:20.10f}{gap:10.1e}")
    print()
    print(f"driver CPU above is the driver process only; load average at the "
          f"distributed fit: {dist['load']:.2f}")
    print(f"worker round trips: {dist['round_trips']} in all, "
          f"{cg_rt:.2f} per CG iteration (1 per CG iteration + "
          f"{dist['round_trips'] - dist['n_cg']} for {dist['n_iter']} Newton "
          f"iterations and the loading)")
    print(f"bytes moved: {dist['mib']:.1f} MiB in all, "
          f"{dist['mib'] / max(dist['n_cg'], 1):.2f} MiB per CG iteration "
          f"(a CG iteration: 2 x {dist['cg_groups']} workers x (d+1) x 8 B = "
          f"{2 * dist['cg_groups'] * D * 8 / 2**20:.2f} MiB)")
    print(f"per CG iteration (whole fits): in memory "
          f"{mem['wall'] / max(mem['n_cg'], 1) * 1e3:.1f} ms wall / "
          f"{mem['cpu'] / max(mem['n_cg'], 1) * 1e3:.1f} ms CPU, distributed "
          f"{dist['wall'] / max(dist['n_cg'], 1) * 1e3:.1f} ms wall; "
          f"wall - in-memory wall / workers: {overhead:.1f} ms")
    print(f"one CG round trip ({dist['k']} timed): {dist['cg_rt_wall_ms']:.1f} ms wall, "
          f"slowest worker's compute {dist['cg_worker_compute_ms']:.1f} ms -> "
          f"overhead {dist['cg_overhead_ms']:.1f} ms per CG iteration "
          f"(target < 20 ms)")
    print(f"empty round trip over the {args.blocks} block states: "
          f"{dist['empty_rt_ms']:.1f} ms")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"args": vars(args), "memory": mem, "dask": dist,
             "overhead_ms": overhead}, indent=1))


if __name__ == "__main__":
    main()
