"""Malformed CSR / dense / memmap input to every public entry point.

The driver ``tests/_fuzz_driver.py`` runs in a subprocess so that a memory
error in compiled code (a segfault before the structure checks existed) fails
this test with the signal instead of killing pytest.
"""
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

DRIVER = Path(__file__).with_name("_fuzz_driver.py")


def _run(seed):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, str(DRIVER), str(seed)], env=env,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode < 0:
        last = proc.stdout.strip().splitlines()[-1:] or ["(nothing)"]
        pytest.fail(f"fuzz driver killed by {signal.Signals(-proc.returncode).name} "
                    f"after: {last[0]}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.strip().splitlines()
    assert lines[-1] == "DONE"
    return lines[:-1]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_no_crash_and_every_malformed_input_refused(seed):
    lines = _run(seed)
    assert len(lines) > 1000  # every entry point x every case ran
    wrong = []
    for line in lines:
        entry, case, outcome = line.split(" ", 2)
        malformed = case.endswith("!")
        if "UNEXPECTED" in outcome or "NONFINITE" in outcome:
            wrong.append(line)
        elif malformed and outcome == "ok":
            wrong.append(line + "  (malformed input accepted)")
        elif not malformed and outcome != "ok":
            wrong.append(line + "  (valid input refused)")
    assert not wrong, "\n".join(wrong[:40])
    # the structure errors name the argument and the problem
    text = "\n".join(lines)
    for fragment in ("X is a malformed sparse matrix: column index",
                     "indptr decreases", "indptr[0]", "stored indices",
                     "W is a malformed sparse matrix", "L is a malformed sparse matrix",
                     "row index", "squared norm of a row"):
        assert fragment in text, fragment
