# SPDX-License-Identifier: BSD-3-Clause
"""Fixed-width scalar types shared by the Cython kernels."""

ctypedef float float32_t
ctypedef double float64_t
ctypedef int int32_t
ctypedef unsigned int uint32_t
ctypedef Py_ssize_t intp_t
