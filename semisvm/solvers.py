"""The functional API: one function per solver, plain arrays in, frozen results out.

A facade, as SciPy's ``optimize`` sits over its method modules: each function
is defined in its paper family's module, beside the estimators that call it,
and only re-exported here. Nothing inside :mod:`semisvm` imports this module.

=====================  ==========================  =======================
function               family module               result
=====================  ==========================  =======================
:func:`l2svm_mfn`      :mod:`semisvm.linear`       ``MFNResult``
:func:`tsvm`           :mod:`semisvm.linear`       ``TSVMResult``
:func:`da_s3vm`        :mod:`semisvm.linear`       ``DAResult``
:func:`lapsvm_primal`  :mod:`semisvm.manifold`     ``LapSVMResult``
:func:`usmo`           :mod:`semisvm.pu`           ``USMOResult``
:func:`graph_tv`       :mod:`semisvm.graph_tv`     ``GraphTVResult``
:func:`graph_cheeger`  :mod:`semisvm.graph_tv`     ``GraphTVResult``
=====================  ==========================  =======================

Every result shares one vocabulary: ``objective``, ``n_iter``, ``converged``,
``status``, ``history`` (the objective per iteration or step), ``decision``
(the decision values of the training rows) and ``<thing>_history`` for other
traces. Semi-supervised functions take ``y`` with ``-1`` marking unlabeled
rows and class indices (``1`` / ``0`` for binary problems) elsewhere.
"""
from semisvm.graph_tv import graph_cheeger, graph_tv
from semisvm.linear import da_s3vm, l2svm_mfn, tsvm
from semisvm.manifold import lapsvm_primal
from semisvm.pu import usmo

__all__ = ["da_s3vm", "graph_cheeger", "graph_tv", "l2svm_mfn", "lapsvm_primal",
           "tsvm", "usmo"]
