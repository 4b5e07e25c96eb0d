"""semisvm: large-scale semi-supervised and positive-unlabeled SVMs.

The public names are imported on first use (PEP 562), so that ``import
semisvm`` -- and the command line's start-up, which installs its SIGINT /
SIGTERM handlers first -- does not wait for SciPy and scikit-learn.
"""
import importlib

_PUBLIC = {
    "CheegerRLS": "semisvm.graph_tv",
    "CheegerSVM": "semisvm.graph_tv",
    "DASVM": "semisvm.linear",
    "LapRLS": "semisvm.manifold",
    "LapSVM": "semisvm.manifold",
    "LinearSVM": "semisvm.linear",
    "PUSVM": "semisvm.pu",
    "TSVM": "semisvm.linear",
    "TVRLS": "semisvm.graph_tv",
    "TVSVM": "semisvm.graph_tv",
    "load": "semisvm.io",
    "save": "semisvm.io",
}

__all__ = [
    "CheegerRLS",
    "CheegerSVM",
    "DASVM",
    "LapRLS",
    "LapSVM",
    "LinearSVM",
    "PUSVM",
    "TSVM",
    "TVRLS",
    "TVSVM",
    "__version__",
    "load",
    "save",
]


def _version():
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("semisvm")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


def __getattr__(name):
    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
    elif name == "__version__":
        value = _version()
    elif not name.startswith("__"):
        try:  # semisvm.linear, semisvm.solvers, ... as attributes
            value = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            raise AttributeError(
                f"module {__name__!r} has no attribute {name!r}") from None
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
