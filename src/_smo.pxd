# SPDX-License-Identifier: BSD-3-Clause
"""The exact two-variable step of USMO, shared by the kernel and linear solvers."""

cdef double _pair_t(double si, double sj, double g, double eta,
                    double c2) noexcept nogil

cdef void _pair_update(double si, double sj, double g, double eta, double c2,
                       double* new_si, double* new_sj) noexcept nogil
