"""The result dataclasses share one vocabulary (semisvm._results)."""
import dataclasses

import numpy as np
import pytest

from semisvm import _results

SHARED = {"objective", "n_iter", "converged", "status", "history", "decision"}
CLASSES = [getattr(_results, name) for name in _results.__all__]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_result_names_the_same_things_alike(cls):
    names = {f.name for f in dataclasses.fields(cls)}
    assert SHARED <= names, SHARED - names
    # other traces are "<thing>_history", never "history_<thing>"
    assert not [n for n in names if n.startswith("history_") and n != "history_stride"]
    assert "outputs" not in names


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_results_are_frozen_and_documented(cls):
    fields = dataclasses.fields(cls)
    kw = {f.name: np.zeros(1) for f in fields}
    res = cls(**kw)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.objective = 1.0
    # each field is described in the class docstring's Attributes
    for f in fields:
        assert f.name in cls.__doc__, f"{cls.__name__}.{f.name} undocumented"
