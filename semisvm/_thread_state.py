"""The thread count of the innermost :func:`semisvm._threads.limit` (a leaf
module: validation reads it without importing the thread-pool machinery)."""
import threading

__all__ = ["STATE", "current"]

STATE = threading.local()


def current():
    """The threads :func:`semisvm._threads.map_blocks` and the compiled
    validation pass may use: the OpenMP count of the innermost
    :func:`semisvm._threads.limit` of this thread when it holds BLAS at one
    thread, else 1 (also outside any limit)."""
    return getattr(STATE, "n", 1)
