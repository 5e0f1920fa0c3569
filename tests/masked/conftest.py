"""The first MaskedTensor a process makes switches every op to the observing bindings (so
that ops reach ``MaskedTensor.__torch_function__``) for the rest of the process. Tests of
other modules assert the plain bindings (the profiler's "no cost when off"), so each test
module here gives that switch back when it is done."""
import pytest


@pytest.fixture(autouse=True, scope='module')
def _plain_bindings_afterwards():
    yield
    from ember._ops import _dispatch
    from ember.masked import maskedtensor
    if maskedtensor._OBSERVING:
        maskedtensor._OBSERVING.clear()
        _dispatch._deactivate('subclass')
