"""Compiled kernels of semisvm (Cython, built from ``src/``)."""
import os

# OpenMP threads waiting for work sleep rather than spin. libgomp's default
# keeps an idle thread polling for up to ~300,000 rounds (milliseconds) after
# every parallel region; semisvm's regions are one per pass over the rows,
# milliseconds apart, so with n_jobs=2 the idle thread polled through the
# serial steps between them, and on a machine whose cores are shared it burnt
# the time the working thread needed (measured on 60,000 x 30,000 CSR, load
# 18 on 2 cores: 3x the CPU time and 2-3x the wall time of one thread;
# passive: the same total CPU time as one thread, spread over two). The
# policy is read once, when the OpenMP runtime starts (at the first import
# of a kernel below); a value the user set is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
