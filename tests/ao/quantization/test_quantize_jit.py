"""ember.ao.quantization.quantize_jit: torch's names and argument errors; the TorchScript
rewrites themselves raise NotImplementedError (ember has no TorchScript)."""
import inspect
import sys

import pytest
import torch

import ember

pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")

NAMES = ['quantize_jit', 'quantize_dynamic_jit', 'prepare_jit', 'prepare_dynamic_jit',
         'convert_jit', 'convert_dynamic_jit', 'fuse_conv_bn_jit', 'script_qconfig',
         'script_qconfig_dict']


@pytest.mark.parametrize('name', NAMES)
def test_exported_with_torchs_signature(name):
    for pkg in (ember.ao.quantization, ember.quantization):
        assert name in pkg.__all__
        f = getattr(pkg, name)
        assert f is getattr(sys.modules['ember.ao.quantization.quantize_jit'], name)
        assert inspect.signature(f) == inspect.signature(getattr(torch.ao.quantization, name))
        assert 'NOTE: unlike PyTorch' in f.__doc__
    assert ember.quantization.quantize_jit is ember.ao.quantization.quantize_jit
    assert sorted(sys.modules['ember.ao.quantization.quantize_jit'].__all__) == \
        sorted(sys.modules['torch.ao.quantization.quantize_jit'].__all__)


def _both(call):
    """call(torch) and call(ember): the exceptions raised."""
    out = []
    for lib in (torch, ember):
        with pytest.raises(Exception) as e:
            call(lib)
        out.append(e.value)
    return out


def test_not_a_module_raises_torchs_value_error():
    f = (lambda x: x)
    for name, args in (('prepare_jit', ({},)), ('prepare_dynamic_jit', ({},)),
                       ('convert_jit', ()), ('convert_dynamic_jit', ()),
                       ('quantize_dynamic_jit', ({},))):
        te, ee = _both(lambda lib: getattr(lib.ao.quantization, name)(f, *args))
        assert type(te) is type(ee) is ValueError
        assert str(ee) == str(te) == "input must be a script module, got: <class 'function'>"
    te, ee = _both(lambda lib: lib.ao.quantization.fuse_conv_bn_jit(f))
    assert type(te) is type(ee) is AttributeError and str(ee) == str(te)


def test_scripted_module_is_checked_then_refused():
    qc = {'': None, 1: None}
    te, ee = _both(lambda lib: lib.ao.quantization.prepare_jit(
        lib.jit.script(lib.nn.Linear(2, 2)), qc))
    assert type(te) is type(ee) is ValueError
    assert str(ee) == str(te) == "qconfig_dict should only contain names(str) as keys."
    # a missing calibration function / dataset: torch's AssertionError, before anything else
    for args in ((None, [1]), (print, [])):
        te, ee = _both(lambda lib: lib.ao.quantization.quantize_jit(
            lib.jit.script(lib.nn.Linear(2, 2)), {'': None}, *args))
        assert type(te) is type(ee) is AssertionError and str(ee) == str(te)
    # what torch rewrites in TorchScript, ember refuses clearly
    lin = ember.jit.script(ember.nn.Linear(2, 2))
    qc = {'': ember.ao.quantization.default_qconfig}
    calls = [lambda: ember.ao.quantization.prepare_jit(lin, qc),
             lambda: ember.ao.quantization.prepare_dynamic_jit(lin, qc),
             lambda: ember.ao.quantization.convert_jit(lin),
             lambda: ember.ao.quantization.convert_dynamic_jit(lin, debug=True),
             lambda: ember.ao.quantization.quantize_jit(lin, qc, print, [()]),
             lambda: ember.ao.quantization.quantize_dynamic_jit(lin, qc),
             lambda: ember.ao.quantization.fuse_conv_bn_jit(lin),
             lambda: ember.ao.quantization.script_qconfig(qc['']),
             lambda: ember.ao.quantization.script_qconfig_dict(qc)]
    for call in calls:
        with pytest.raises(NotImplementedError, match='ember has no TorchScript'):
            call()
    assert ember.ao.quantization.script_qconfig_dict({'': None, 'fc': None}) == \
        torch.ao.quantization.script_qconfig_dict({'': None, 'fc': None})
