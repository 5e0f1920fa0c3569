"""ember.profiler.itt against torch.profiler.itt: the same names and call shapes; ember
emits no ITT annotations (NOTE in the module), so ranges and marks do nothing."""
import pytest
import torch.profiler.itt as T

import ember.profiler.itt as E


def test_names_and_calls_like_torch():
    assert E.__all__ == T.__all__
    assert E.is_available() is False               # NOTE: torch's x86 builds answer True
    for m in (E, T):
        assert m.range_push('step') is None
        assert m.range_pop() is None
        assert m.mark('here') is None
        with m.range('block'):
            pass


def test_range_does_not_swallow_errors():
    for m in (E, T):
        with pytest.raises(ValueError):
            with m.range('block'):
                raise ValueError('boom')
