"""``examples/quantize_digits.py``: the README's digits CNN through dynamic, static and QAT
quantization on ember, quickly (a few epochs): every model is evaluated, the quantized
models are smaller on disk than the float one and keep its accuracy, and their structure is
torch's (the same program on PyTorch builds the same modules)."""
import importlib.util
import os
import warnings

from ao._quant_util import keep_rng  # noqa: F401  (autouse fixture)

EXAMPLE = os.path.join(os.path.dirname(__file__), '..', '..', 'examples', 'quantize_digits.py')


def _example():
    spec = importlib.util.spec_from_file_location('quantize_digits', EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_quantize_digits_quick(capsys):
    import torch
    ex = _example()
    args = ['--epochs', '5', '--qat-epochs', '1', '--repeats', '1', '--calib-batches', '4']
    res, models = ex.main(args)
    out = capsys.readouterr().out
    for name in ('float', 'dynamic', 'static', 'qat'):
        assert name in out
        assert 0 < res[name]['latency_ms']
    assert res['float']['accuracy'] > 0.85
    for name in ('dynamic', 'static', 'qat'):
        assert res[name]['size'] < res['float']['size']
    for name in ('dynamic', 'static'):
        assert abs(res[name]['accuracy'] - res['float']['accuracy']) <= 0.02, name
    assert res['qat']['accuracy'] >= res['float']['accuracy'] - 0.02     # QAT fine-tunes
    assert res['static']['size'] < 0.5 * res['float']['size']
    # the same quantization steps on PyTorch give the same modules
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        t_models = ex.quantize_all(torch, ex.build_model(torch).eval(), [],
                                   ex.parse_args(args + ['--qat-epochs', '0']))
    for name in ('dynamic', 'static', 'qat'):
        kinds = [(n, type(m).__name__) for n, m in models[name].named_modules()]
        assert kinds == [(n, type(m).__name__) for n, m in t_models[name].named_modules()]
        assert list(models[name].state_dict()) == list(t_models[name].state_dict())
