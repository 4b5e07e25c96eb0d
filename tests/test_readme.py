"""The README runs as written.

* every fenced ``python`` block is executed, self-contained (a block that
  starts a Dask LocalCluster is run as a script, so its ``__main__`` guard
  holds);
* every line of the fenced ``sh`` blocks runs in an empty temporary folder,
  except the installation and test-suite commands, which must appear verbatim
  in ``.ci/run`` (CI runs them there, from a fresh clone);
* the benchmark table names every benchmark script.
"""
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
if not README.is_file():        # an installed wheel's test run has no source tree
    pytest.skip("README.md is not beside the tests (not a source checkout)",
                allow_module_level=True)
TEXT = README.read_text(encoding="utf-8")
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)
BLOCKS = [(lang, body) for lang, body in FENCE.findall(TEXT)]
PYTHON = [body for lang, body in BLOCKS if lang == "python"]
SHELL = [body for lang, body in BLOCKS if lang == "sh"]
# commands CI runs itself (.ci/run), never from this test
CI_ONLY = ("pip", "pytest", "sphinx-build")


def _env():
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


def test_every_fence_is_labelled():
    assert PYTHON and SHELL
    assert all(lang in ("python", "sh") for lang, _ in BLOCKS), \
        [lang for lang, _ in BLOCKS]


# seconds, not a fraction of one: a Dask cluster, a grid search with the safety net
SLOW = ("LocalCluster", "GridSearchCV")


@pytest.mark.parametrize("i", [
    pytest.param(i, marks=[pytest.mark.slow] if any(w in src for w in SLOW) else [])
    for i, src in enumerate(PYTHON)])
def test_python_block_runs(i, tmp_path):
    src = PYTHON[i]
    if "LocalCluster" in src:
        pytest.importorskip("distributed")
        assert 'if __name__ == "__main__":' in src     # STANDARDS: guarded
        script = tmp_path / "block.py"
        script.write_text(src)
        proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path,
                              env=_env(), capture_output=True, text=True,
                              timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return
    code = compile(src, f"README.md python block {i}", "exec")
    exec(code, {"__name__": "readme_block"})


def _shell_lines():
    for body in SHELL:
        for line in body.splitlines():
            line = line.split("  #")[0].strip()
            if line and not line.startswith("#"):
                yield line


def test_install_and_test_lines_are_what_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text()
    for line in _shell_lines():
        first = shlex.split(line)[0]
        if first in CI_ONLY and line != "pip install . && semisvm demo":
            assert line in ci, f"README line not run by .ci/run: {line}"


@pytest.mark.slow
def test_shell_lines_run_in_an_empty_folder(tmp_path):
    for line in _shell_lines():
        parts = [p.strip() for p in line.split("&&")]
        parts = [p for p in parts if shlex.split(p)[0] not in CI_ONLY]
        for cmd in parts:
            proc = subprocess.run(cmd, shell=True, cwd=tmp_path, env=_env(),
                                  capture_output=True, text=True, timeout=600)
            assert proc.returncode == 0, f"{cmd}: {proc.stderr[-2000:]}"
            if "predict" in cmd and "--labels" not in cmd:
                acc = float(proc.stderr.split("accuracy ")[1].split("%")[0])
                assert acc > 85.0, proc.stderr
    labels = (tmp_path / "example" / "labels.txt").read_text().split()
    assert len(labels) == 359 and set(labels) == {"-1", "1"}


def test_benchmark_table_lists_every_script():
    scripts = sorted(
        p.relative_to(ROOT).as_posix()
        for p in [*ROOT.glob("bench/*.py"), *ROOT.glob("bench/benchmarks/*.py")]
        if not p.name.startswith("_"))
    table = TEXT[TEXT.index("## Benchmarks"):]
    missing = [s for s in scripts if f"`{s}`" not in table]
    assert scripts and not missing, missing
