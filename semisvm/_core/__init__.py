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


def _source_tree_message(package_dir):
    """The one sentence said when the compiled kernels are missing."""
    return (f"semisvm is being imported from its source tree ({package_dir}), "
            "which has no compiled extensions: install it (`pip install .`, or "
            "`pip install --no-build-isolation -e .` for development) and run "
            "Python from another folder, or from this one only with the "
            "editable install")


def _check_built():
    # A checkout's semisvm/ shadows an installed package when Python runs in
    # the checkout's root; its _core/ holds no compiled modules. Say so in one
    # sentence instead of "cannot import name '_mfn' from 'semisvm._core'".
    import importlib.util

    if importlib.util.find_spec(f"{__name__}._dataset") is None:
        here = os.path.dirname(os.path.abspath(__file__))
        if os.path.exists(os.path.join(here, "meson.build")):
            raise ImportError(_source_tree_message(os.path.dirname(here)))
        raise ImportError(f"semisvm's compiled extensions are missing from {here}: "
                          "reinstall semisvm (`pip install --force-reinstall "
                          "semisvm`)")


_check_built()
