"""Mutation check of the test suite: plant one-line bugs, rebuild, run the tests.

Each mutant is a one-line edit of a source file (``src/*.pyx`` mostly) and the
test files that should catch it. The script copies the repository (the files
git tracks, plus untracked ones it does not ignore) to a work directory,
builds it once with meson into one build directory, and then, per mutant:
applies the edit to the copy, rebuilds incrementally (ninja recompiles the one
extension), runs the named test files against that build and restores the
line. A mutant is *caught* when the tests fail (or time out), *survived* when
they pass, *stillborn* when it does not compile. Run it before a release::

    nice -n 10 python bench/mutate.py                 # every mutant
    python bench/mutate.py --list                     # names only
    python bench/mutate.py --only ls_last_break mfn_same_state_last
    python bench/mutate.py --work /tmp/mut --timeout 300

It needs only what building and testing semisvm needs (meson, ninja, Cython,
pytest) and never touches the checkout it is run from. The tests run with
the copy's compiled modules first on ``sys.path`` (an editable install's
import hook is removed in the test process), so an installed semisvm does not
interfere. The table is printed as Markdown; ``--json`` writes it as well.

A surviving mutant is either a hole in the tests (write the test that pins
the behaviour) or an *equivalent* mutant (no input can tell it apart: note it
as such in ``EQUIVALENT`` below with the reason).
"""
import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# (name, file, old, new, tests): ``old`` must occur exactly once in ``file``
# and lie on one line; ``tests`` are paths (or node ids) relative to the root.
MUTANTS = [
    # -- line search (src/_linesearch.pyx) and its users
    ("ls_last_break", "src/_linesearch.pxd",
     "    for j in range(m):\n        if events[j].delta >= root:",
     "    for j in range(m - 1):\n        if events[j].delta >= root:",
     ["tests/core/test_linesearch.py", "tests/core/test_lapsvm.py"]),
    ("ls_break_strict", "src/_linesearch.pxd",
     "        if events[j].delta >= root:",
     "        if events[j].delta > root + 1e-3:",
     ["tests/core/test_linesearch.py", "tests/core/test_lapsvm.py"]),
    ("ls_hi_not_doubled", "src/_linesearch.pyx",
     "    while _slope(hi, L, R, events, n_ev) < 0 and hi < 1e30:",
     "    while _slope(hi, L, R, events, n_ev) < 0 and hi < 1.0:",
     ["tests/core/test_linesearch.py"]),
    ("ls_filter_le", "src/_linesearch.pyx",
     "        if events[j].delta < hi:",
     "        if events[j].delta < 0.5 * hi:",
     ["tests/core/test_linesearch.py"]),
    ("ls_tie_order", "src/_linesearch.pxd",
     "    return (ea.key > eb.key) - (ea.key < eb.key)",
     "    return (ea.key < eb.key) - (ea.key > eb.key)",
     ["tests/core/test_linesearch.py", "tests/core/test_ssl.py"]),
    ("ls_no_descent", "src/_linesearch.pyx",
     "    if L >= 0 or R <= 0:\n        return 0.0\n    # phi' is",
     "    if L >= 1e-3 or R <= 0:\n        return 0.0\n    # phi' is",
     ["tests/core/test_linesearch.py"]),
    # -- MFN (src/_mfn.pyx)
    ("mfn_same_state_last", "src/_mfn.pyx",
     "    for i in range(n):\n        if _state(obar[i]",
     "    for i in range(n - 1):\n        if _state(obar[i]",
     ["tests/core/test_mfn.py"]),
    ("mfn_same_state_first", "src/_mfn.pyx",
     "    for i in range(n):\n        if _state(obar[i]",
     "    for i in range(1, n):\n        if _state(obar[i]",
     ["tests/core/test_mfn.py"]),
    ("mfn_state_margin", "src/_mfn.pyx",
     "    return (cp > 0 and oi < 1) | ((cn > 0 and oi > -1) << 1)",
     "    return (cp > 0 and oi <= 1) | ((cn > 0 and oi > -1) << 1)",
     ["tests/core/test_mfn.py"]),
    ("mfn_rel_tol", "src/_mfn.pyx",
     "            if F - F_new <= rel_tol * fabs(F_new):",
     "            if F - F_new <= 10 * rel_tol * fabs(F_new):",
     ["tests/core/test_mfn.py"]),
    ("mfn_loose_restart", "src/_mfn.pyx",
     "                if not loose:\n                    status = 1",
     "                if True:\n                    status = 1",
     ["tests/core/test_mfn.py"]),
    # -- CGLS (src/_cgls.pyx)
    ("cgls_one_short", "src/_cgls.pyx",
     "    for it in range(1, max_iter + 1):\n        n_iter[0] = it\n        # q = X_J p",
     "    for it in range(1, max_iter):\n        n_iter[0] = it\n        # q = X_J p",
     ["tests/core/test_cgls.py"]),
    ("cgls_tol_unsquared", "src/_cgls.pyx",
     "    tol2 = tol * tol * (bnorm2 if bnorm2 > 0 else 1.0)",
     "    tol2 = tol * (bnorm2 if bnorm2 > 0 else 1.0)",
     ["tests/core/test_cgls.py"]),
    ("cgls_prec_mix", "src/_cgls.pyx",
     "        minv[j] = 1 / (lam + PREC_MIX * minv[j])",
     "        minv[j] = 1 / (lam + minv[j])",
     ["tests/core/test_cgls.py"]),
    # -- LapSVM PCG (src/_lapsvm.pyx)
    ("lap_val_no_tolerance", "src/_lapsvm.pyx",
     "                    val_stop = err_v > st[j].err_prev - inv_nv + 1e-12",
     "                    val_stop = err_v > st[j].err_prev + 1e-12",
     ["tests/core/test_lapsvm.py"]),
    ("lap_joint_val_no_tolerance", "src/_lapsvm.pyx",
     "                j_val = j_err > j_prev - inv_nv + 1e-12",
     "                j_val = j_err > j_prev + 1e-12",
     ["tests/core/test_lapsvm.py"]),
    ("lap_stability_first_check", "src/_lapsvm.pyx",
     "                    stable = frac < eta and st[j].n_chk > 0",
     "                    stable = frac < eta",
     ["tests/core/test_lapsvm.py"]),
    ("lap_beta_no_restart", "src/_lapsvm.pyx",
     "            if beta < 0:\n                beta = 0.0",
     "            if beta < -1e300:\n                beta = 0.0",
     ["tests/core/test_lapsvm.py"]),
    ("lap_objective_rule", "src/_lapsvm.pyx",
     "                                     - st[j].F) / st[j].F0 < tol:",
     "                                     - st[j].F) / st[j].F0 < 10 * tol:",
     ["tests/core/test_lapsvm.py"]),
    ("lap_hinge_margin", "src/_lapsvm.pyx",
     "        if not hinge or yi * o < 1:",
     "        if not hinge or yi * o <= 1:",
     ["tests/core/test_lapsvm.py"]),
    # -- TSVM switching and DA's root finder (src/_ssl.pyx)
    ("ssl_switch_le", "src/_ssl.pyx",
     "    while k < S and k < n_p and k < n_n and kp[k].delta < -kn[k].delta:",
     "    while k < S and k < n_p and k < n_n and kp[k].delta <= -kn[k].delta:",
     ["tests/core/test_ssl.py"]),
    ("ssl_switch_S", "src/_ssl.pyx",
     "    while k < S and k < n_p",
     "    while k <= S and k < n_p",
     ["tests/core/test_ssl.py"]),
    ("ssl_root_stall", "src/_ssl.pyx",
     "        if it == max_iter:\n            break",
     "        if it == max_iter - 1:\n            break",
     ["tests/core/test_ssl.py"]),
    ("ssl_root_tol", "src/_ssl.pyx",
     "        if fabs(f) <= tol:",
     "        if fabs(f) <= 100 * tol:",
     ["tests/core/test_ssl.py"]),
    # -- graph TV (src/_graph_tv.pyx)
    ("tv_theta", "src/_graph_tv.pyx",
     "            theta[k] = 1.0 / sqrt(1.0 + 2.0 * rho[k] * tau[k])",
     "            theta[k] = 1.0 / sqrt(1.0 + 4.0 * rho[k] * tau[k])",
     ["tests/core/test_graph_tv.py"]),
    ("tv_gap_tol", "src/_graph_tv.pyx",
     "                if not (gap[k] <= tol * fabs(primal[k]) or gap[k] <= 1e-300):",
     "                if not (gap[k] <= 10 * tol * fabs(primal[k]) or gap[k] <= 1e-300):",
     ["tests/core/test_graph_tv.py"]),
    ("tv_keep_ghat", "src/_graph_tv.pyx",
     "                if gap[k] < primal[k]:",
     "                if gap[k] < -1e300:",
     ["tests/core/test_graph_tv.py"]),
    ("tv_smo_tol", "src/_graph_tv.pyx",
     "        if i < 0 or j < 0 or Gmax - Gmin < eps:",
     "        if i < 0 or j < 0 or Gmax - Gmin < 10 * eps:",
     ["tests/core/test_graph_tv.py"]),
    # -- kernel cache and USMO (src/_kernel_cache.pyx, src/_smo.pyx)
    ("cache_evict_head", "src/_kernel_cache.pyx",
     "            slot = self.tail\n",
     "            slot = self.head\n",
     ["tests/core/test_kernel_cache.py"]),
    ("cache_one_slot_less", "src/_kernel_cache.pyx",
     "        if self.n_used < self.n_slots:",
     "        if self.n_used < self.n_slots - 1 or self.n_used == 0:",
     ["tests/core/test_kernel_cache.py"]),
    ("smo_tol", "src/_smo.pyx",
     "        if bmax - amin <= tol or i < 0 or j < 0:",
     "        if bmax - amin <= 10 * tol or i < 0 or j < 0:",
     ["tests/core/test_smo.py", "tests/test_pu.py"]),
    ("smo_max_iter", "src/_smo.pyx",
     "        if it >= max_iter:",
     "        if it > max_iter:",
     ["tests/core/test_smo.py", "tests/test_pu.py"]),
    # -- Python layer (semisvm/): no rebuild needed
    ("io_member_upper_bound", "semisvm/io.py",
     "            _expect(nbytes <= info.file_size <= nbytes + _NPY_HEADER_MAX,",
     "            _expect(nbytes <= info.file_size,",
     ["tests/test_io_limits.py"]),
    ("io_metadata_bound", "semisvm/io.py",
     "        _expect(info.file_size <= _MAX_METADATA_BYTES, \"metadata member too large\")",
     "        _expect(info.file_size <= 2 * _MAX_METADATA_BYTES, \"metadata member too large\")",
     ["tests/test_io_limits.py"]),
    ("rows_scan_last_break", "semisvm/_rows.py",
     "    for j in order:\n        dj = delta[j]",
     "    for j in order[:-1]:\n        dj = delta[j]",
     ["tests/test_rows.py"]),
    ("rows_python_rel_tol", "semisvm/_rows.py",
     "        if F - F_new <= rel_tol * abs(F_new):",
     "        if F - F_new <= 10 * rel_tol * abs(F_new):",
     ["tests/test_rows.py"]),
    ("rows_cgls_twin_tol", "semisvm/_rows.py",
     "    tol2 = tol * tol * (bnorm2 if bnorm2 > 0 else 1.0)",
     "    tol2 = tol * (bnorm2 if bnorm2 > 0 else 1.0)",
     ["tests/test_rows.py"]),
]

# mutants no input can tell apart from the original (with the reason)
EQUIVALENT = {}

_RUNNER = r"""
import sys
stage = sys.argv[1]
sys.meta_path[:] = [f for f in sys.meta_path
                    if "editable" not in type(f).__module__.lower()]
sys.path.insert(0, stage)
import pytest
sys.exit(pytest.main(sys.argv[2:]))
"""


def _tracked(root):
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"],
                         cwd=root, capture_output=True, check=True).stdout
    return [p for p in out.decode().split("\0") if p]


def sync(root, dest):
    """Copy the tracked files of ``root`` to ``dest``, touching only changed
    ones (so that ninja rebuilds only what changed)."""
    dest.mkdir(parents=True, exist_ok=True)
    for rel in _tracked(root):
        src, dst = root / rel, dest / rel
        if not src.is_file():
            continue
        if dst.exists() and filecmp.cmp(src, dst, shallow=False):
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
        os.utime(dst)   # newer than the build's outputs


def _run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def build(repo, build_dir, opt="1"):
    """Configure once (release, ``-Doptimization=opt``: -O1 compiles several
    times faster than the release -O3 and gives the same IEEE arithmetic, no
    fast-math either way), then rebuild incrementally."""
    nice = ["nice", "-n", "10"] if shutil.which("nice") else []
    meson = [sys.executable, "-m", "mesonbuild.mesonmain"]
    marker = build_dir / ".mutate-optimization"
    if not (build_dir / "build.ninja").exists():
        r = _run(nice + meson + ["setup", str(build_dir), str(repo),
                                 "-Dbuildtype=release", "-Db_ndebug=if-release",
                                 f"-Doptimization={opt}"])
        if r.returncode:
            raise SystemExit("meson setup failed:\n" + r.stdout + r.stderr)
        marker.write_text(opt)
    elif not marker.exists() or marker.read_text() != opt:
        r = _run(meson + ["configure", str(build_dir), f"-Doptimization={opt}"])
        if r.returncode:
            raise SystemExit("meson configure failed:\n" + r.stdout + r.stderr)
        marker.write_text(opt)
    r = _run(nice + ["ninja", "-C", str(build_dir)])
    return r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


def stage(repo, build_dir, stage_dir):
    """A package tree importable as ``semisvm``: the copy's Python files and
    the build's extension modules, all symlinked."""
    pkg = stage_dir / "semisvm"
    core = pkg / "_core"
    if stage_dir.exists():
        shutil.rmtree(stage_dir)
    core.mkdir(parents=True)
    for f in (repo / "semisvm").glob("*.py"):
        (pkg / f.name).symlink_to(f)
    (core / "__init__.py").symlink_to(repo / "semisvm" / "_core" / "__init__.py")
    for so in (build_dir / "src").glob("*.so"):
        (core / so.name).symlink_to(so)


def run_tests(repo, stage_dir, tests, timeout):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               PYTHONDONTWRITEBYTECODE="1")
    data = ROOT.parent / "shared" / "data"
    if "SEMISVM_SHARED_DATA" not in env and data.exists():
        env["SEMISVM_SHARED_DATA"] = str(data)
    cmd = ["nice", "-n", "10", sys.executable, "-c", _RUNNER, str(stage_dir),
           "-x", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
           "-m", "not slow", *tests]
    t0 = time.time()
    try:
        r = _run(cmd, cwd=repo, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.time() - t0, ""
    tail = (r.stdout + r.stderr).strip().splitlines()
    failed = [ln for ln in tail if ln.startswith(("FAILED", "ERROR"))]
    return r.returncode, time.time() - t0, (failed[0] if failed else tail[-1] if tail else "")


def apply(path, old, new):
    text = path.read_text()
    if text.count(old) != 1:
        raise SystemExit(f"{path}: the mutant's text occurs {text.count(old)} "
                         f"times (need exactly once): {old!r}")
    path.write_text(text.replace(old, new))
    return text


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", type=Path,
                    default=Path(os.environ.get("TMPDIR", "/tmp")) / "semisvm-mutate")
    ap.add_argument("--only", nargs="*", help="mutant names to run")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--json", type=Path, help="also write the results here")
    ap.add_argument("--opt", default="1", choices=["0", "1", "2", "3"],
                    help="C optimisation level of the mutation build (default 1)")
    args = ap.parse_args(argv)
    by_name = {m[0]: m for m in MUTANTS}
    unknown = set(args.only or ()) - set(by_name)
    if unknown:
        raise SystemExit(f"unknown mutant(s): {sorted(unknown)}")
    muts = [by_name[n] for n in args.only] if args.only else MUTANTS   # in the given order
    if args.list:
        for m in muts:
            print(f"{m[0]:28s} {m[1]}")
        return 0
    repo, build_dir, stage_dir = args.work / "repo", args.work / "build", args.work / "stage"
    sync(ROOT, repo)
    for name, rel, old, _new, _t in muts:      # check every edit applies
        if (repo / rel).read_text().count(old) != 1:
            raise SystemExit(f"mutant {name}: text not found once in {rel}")
    ok, log = build(repo, build_dir, args.opt)
    if not ok:
        raise SystemExit("the unmutated copy does not build:\n" + log)
    stage(repo, build_dir, stage_dir)
    tests = sorted({t for m in muts for t in m[4]})
    rc, dt, msg = run_tests(repo, stage_dir, tests, args.timeout)
    if rc != 0:
        raise SystemExit(f"the unmutated tests fail ({msg}): fix that first")
    print(f"baseline: {len(tests)} test files pass in {dt:.0f} s", flush=True)
    rows = []
    for name, rel, old, new, tests in muts:
        path = repo / rel
        orig = apply(path, old, new)
        try:
            ok, log = build(repo, build_dir, args.opt)
            if not ok:
                verdict, dt, msg = "stillborn", 0.0, "does not compile"
            else:
                rc, dt, msg = run_tests(repo, stage_dir, tests, args.timeout)
                verdict = "caught" if rc != 0 else "survived"
                if rc == "timeout":
                    msg = f"timeout after {args.timeout:.0f} s"
        finally:
            path.write_text(orig)
            os.utime(path)
        if verdict == "survived" and name in EQUIVALENT:
            verdict = "equivalent"
        rows.append(dict(name=name, file=rel, verdict=verdict, seconds=round(dt, 1),
                         by=msg, old=old.strip().splitlines()[-1].strip(),
                         new=new.strip().splitlines()[-1].strip()))
        print(f"{name:28s} {verdict:10s} {dt:6.1f} s  {msg[:100]}", flush=True)
    build(repo, build_dir, args.opt)            # leave the copy unmutated
    print("\n| mutant | file | edit | verdict | first failing test |")
    print("|---|---|---|---|---|")
    for r in rows:
        by = r["by"] if r["verdict"] == "caught" else EQUIVALENT.get(r["name"], "")
        print(f"| {r['name']} | {r['file']} | `{r['new']}` | {r['verdict']} | {by} |")
    counts = {v: sum(r["verdict"] == v for r in rows)
              for v in ("caught", "survived", "equivalent", "stillborn")}
    print("\n" + ", ".join(f"{k}: {v}" for k, v in counts.items()))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0 if counts["survived"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
