"""semisvm: large-scale semi-supervised and positive-unlabeled SVMs."""
from importlib.metadata import PackageNotFoundError, version

from semisvm.graph_tv import TVRLS, TVSVM, CheegerRLS, CheegerSVM
from semisvm.linear import LinearSVM

try:
    __version__ = version("semisvm")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0+unknown"

__all__ = [
    "CheegerRLS",
    "CheegerSVM",
    "LinearSVM",
    "TVRLS",
    "TVSVM",
    "__version__",
]
