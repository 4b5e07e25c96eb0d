"""Compiled kernels of semisvm (Cython, built from ``src/``)."""
