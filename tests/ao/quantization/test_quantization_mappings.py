"""The default module mappings and propagation list against torch's (by class names and
their module paths, torch. -> ember.)."""
import torch

import ember.ao.quantization as eq
from ao._quant_util import keep_rng  # noqa: F401  (autouse fixture)

tq = torch.ao.quantization


def _names(table):
    def name(c):
        return f"{c.__module__.replace('torch.', 'ember.', 1)}.{c.__qualname__}"
    if isinstance(table, dict):
        return {(name(k), name(v)) for k, v in table.items()}
    return {name(c) for c in table}


def test_qat_and_dynamic_mappings_are_torch_s():
    assert _names(eq.get_default_qat_module_mappings()) == \
        _names(tq.get_default_qat_module_mappings())
    assert _names(eq.get_embedding_qat_module_mappings()) == \
        _names(tq.get_embedding_qat_module_mappings())
    assert _names(eq.get_default_dynamic_quant_module_mappings()) == \
        _names(tq.get_default_dynamic_quant_module_mappings())
    assert eq.DEFAULT_QAT_MODULE_MAPPINGS is eq.quantization_mappings.DEFAULT_QAT_MODULE_MAPPINGS


def test_static_mapping_and_propagation_list():
    mine = _names(eq.get_default_static_quant_module_mappings())
    assert mine <= _names(tq.get_default_static_quant_module_mappings())
    assert len(mine) >= 44
    assert _names(eq.get_default_qconfig_propagation_list()) == \
        _names(tq.get_default_qconfig_propagation_list())
    assert eq.get_default_static_quant_module_mappings() is not \
        eq.get_default_static_quant_module_mappings()        # copies, as torch


def test_class_getters_and_errors_as_torch():
    import ember
    assert eq.get_static_quant_module_class(ember.nn.Conv2d) is ember.ao.nn.quantized.Conv2d
    assert eq.get_dynamic_quant_module_class(ember.nn.LSTM) is \
        ember.ao.nn.quantized.dynamic.LSTM
    msgs = []
    for q, T in ((tq, torch), (eq, ember)):
        try:
            q.get_static_quant_module_class(T.nn.Softplus)
        except AssertionError as exc:
            msgs.append(str(exc).replace('torch.', 'ember.'))
    assert len(msgs) == 2 and msgs[0] == msgs[1]
    op = eq.get_quantized_operator(ember.nn.functional.leaky_relu)
    assert repr(op) == repr(tq.get_quantized_operator(torch.nn.functional.leaky_relu))


def test_quantized_operator_found_whichever_binding_was_taken():
    # F.leaky_relu taken while no quantized tensor lives is the plain function; with one
    # alive it is the seam's observing binding: both name the same op
    import gc
    import ember
    import ember.nn.functional as F
    from ember.ao.quantization import get_quantized_operator
    gc.collect()
    ember._ops._dispatch.sync_released()
    plain = F.leaky_relu
    q = ember.quantize_per_tensor(ember.ones(2), 0.1, 0, ember.quint8)
    assert repr(get_quantized_operator(plain)) == repr(get_quantized_operator(F.leaky_relu))
    del q
