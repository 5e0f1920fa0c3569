"""``ember.quantization`` is ``ember.ao.quantization`` under torch's older name: the same
objects, the submodules under the old names, the lazily resolved tables."""
import importlib
import warnings

import pytest
import torch

import ember


def test_names_are_torchs_and_the_same_objects():
    import ember.quantization as q
    import ember.ao.quantization as aq
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        import torch.quantization as tq
    missing = sorted(n for n in tq.__all__ if hasattr(tq, n) and not hasattr(q, n)
                     and not n.endswith('_jit')
                     and n not in ('script_qconfig', 'script_qconfig_dict'))
    assert not missing, missing
    for n in ('MinMaxObserver', 'QConfig', 'prepare', 'convert', 'quantize_dynamic',
              'QuantStub', 'get_default_qconfig'):
        assert getattr(q, n) is getattr(aq, n)


def test_submodules_under_old_names():
    for sub in ('observer', 'fake_quantize', 'qconfig', 'quantize_fx', 'fuser_method_mappings',
                'quantization_mappings', 'stubs'):
        old = importlib.import_module(f'ember.quantization.{sub}')
        assert old is importlib.import_module(f'ember.ao.quantization.{sub}')
    assert ember.quantization.DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS[ember.nn.Linear] is \
        ember.ao.nn.quantized.dynamic.Linear
    with pytest.raises(AttributeError, match="ember.quantization"):
        ember.quantization.no_such_name
    assert torch.quantization.DEFAULT_DYNAMIC_QUANT_MODULE_MAPPINGS[torch.nn.Linear] is \
        torch.ao.nn.quantized.dynamic.Linear
