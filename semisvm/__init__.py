"""semisvm: large-scale semi-supervised and positive-unlabeled SVMs."""
from importlib.metadata import PackageNotFoundError, version

from semisvm.graph_tv import TVRLS, TVSVM, CheegerRLS, CheegerSVM
from semisvm.io import load, save
from semisvm.linear import DASVM, TSVM, LinearSVM
from semisvm.manifold import LapRLS, LapSVM
from semisvm.pu import PUSVM

try:
    __version__ = version("semisvm")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0+unknown"

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
