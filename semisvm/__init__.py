"""semisvm: large-scale semi-supervised and positive-unlabeled SVMs."""
from importlib.metadata import PackageNotFoundError, version

from semisvm.linear import LinearSVM
from semisvm.manifold import LapRLS, LapSVM

try:
    __version__ = version("semisvm")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0+unknown"

__all__ = ["LapRLS", "LapSVM", "LinearSVM", "__version__"]
