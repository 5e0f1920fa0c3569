"""ember._quantized.packed vs torch: the names in the errors of quantized linear and
convolution operators given a float input, and packed linear parameters with a bias of
another dtype (kept, as torch; refused when the layer runs)."""
import numpy as np
import pytest
import torch

import ember

pytestmark = pytest.mark.filterwarnings('ignore::UserWarning')


def _lin(lib):
    w = lib.quantize_per_tensor(lib.tensor(np.linspace(-1, 1, 12).reshape(3, 4).astype(
        np.float32)), 0.01, 0, lib.qint8)
    x = lib.tensor(np.linspace(-1, 1, 8).reshape(2, 4).astype(np.float32))
    return w, x


def _conv_packed(lib, nd, transpose):
    shape = (2, 2) + (1,) * nd
    w = lib.quantize_per_tensor(lib.ones(*shape), 0.1, 0, lib.qint8)
    name = f"conv{'_transpose' if transpose else ''}{nd}d_prepack"
    extra = ([[0] * nd] if transpose else [])
    return getattr(lib.ops.quantized, name)(w, None, [1] * nd, [0] * nd, *extra, [1] * nd, 1)


def _raises_alike(call):
    errs = []
    for lib in (torch, ember):
        with pytest.raises(Exception) as e:
            call(lib)
        errs.append(e.value)
    te, ee = errs
    assert type(ee) is type(te)
    return str(te), str(ee)


@pytest.mark.parametrize('nd', [1, 2, 3])
@pytest.mark.parametrize('kind', ['', '_relu', '_transpose'])
def test_float_input_names_the_quantized_op(nd, kind):
    name = f"conv_transpose{nd}d" if kind == '_transpose' else f"conv{nd}d{kind}"

    def call(lib):
        p = _conv_packed(lib, nd, kind == '_transpose')
        getattr(lib.ops.quantized, name)(lib.ones(1, 2, *([3] * nd)), p, 0.1, 0)
    t, e = _raises_alike(call)
    head = t.split(' This could')[0]
    assert e.startswith(head + ' '), (t, e)


def test_quantized_module_given_float_input():
    for mod, x in (('Conv2d', (1, 2, 3, 3)), ('Conv3d', (1, 2, 3, 3, 3)), ('Conv1d', (1, 2, 3)),
                   ('Linear', (1, 2))):
        def call(lib):
            getattr(lib.ao.nn.quantized, mod)(2, 3, *((1,) if mod != 'Linear' else ()))(
                lib.ones(*x))
        t, e = _raises_alike(call)
        assert e.split(' This could')[0] == t.split(' This could')[0]
    t, e = _raises_alike(lambda lib: lib.ops.quantized.linear(
        lib.ones(1, 4), lib.ops.quantized.linear_prepack(_lin(lib)[0]), 0.1, 0))
    assert e.split(' This could')[0] == t.split(' This could')[0]


@pytest.mark.parametrize('dtype', ['float16', 'float64', 'int64', 'bfloat16'])
def test_linear_prepack_keeps_bias_of_another_dtype(dtype):
    packed, outs = {}, {}
    for lib in (torch, ember):
        w = _lin(lib)[0]
        b = lib.tensor([0.5, 0.25, 1.0]).to(getattr(lib, dtype))
        p = lib.ops.quantized.linear_prepack(w, b)
        packed[lib] = p
        ub = p.unpack()[1]
        assert str(ub.dtype) == f'torch.{dtype}'
        outs[lib] = ub.float().numpy()
    np.testing.assert_array_equal(outs[ember], outs[torch])
    for call in (lambda lib: lib.ops.quantized.linear_dynamic(_lin(lib)[1], packed[lib]),
                 lambda lib: lib.ops.quantized.linear_relu_dynamic(_lin(lib)[1], packed[lib]),
                 lambda lib: lib.ops.quantized.linear(
                     lib.quantize_per_tensor(_lin(lib)[1], 0.1, 10, lib.quint8), packed[lib],
                     0.1, 0),
                 # the input's size is checked first, then the bias
                 lambda lib: lib.ops.quantized.linear_dynamic(lib.ones(2, 5), packed[lib])):
        t, e = _raises_alike(call)
        assert e == t


def test_linear_prepack_bias_shape_and_input_dtype_errors():
    for call in (lambda lib: lib.ops.quantized.linear_prepack(_lin(lib)[0], lib.ones(4)),
                 lambda lib: lib.ops.quantized.linear_prepack(_lin(lib)[0], lib.ones(3, 1)),
                 lambda lib: lib.ops.quantized.linear_prepack(_lin(lib)[0],
                                                              lib.ones(4).half()),
                 lambda lib: lib.ops.quantized.linear_dynamic(
                     _lin(lib)[1].double(), lib.ops.quantized.linear_prepack(_lin(lib)[0])),
                 lambda lib: lib.ops.quantized.linear_dynamic(
                     _lin(lib)[1].half(), lib.ops.quantized.linear_prepack(_lin(lib)[0]))):
        t, e = _raises_alike(call)
        assert e == t
    t, e = _raises_alike(lambda lib: lib.ops.quantized.linear_dynamic(
        lib.quantize_per_tensor(_lin(lib)[1], 0.1, 0, lib.quint8),
        lib.ops.quantized.linear_prepack(_lin(lib)[0])))
    assert e.split(' This could')[0] == t.split(' This could')[0]


def test_dynamic_linear_with_half_bias():
    mods = {}
    for lib in (torch, ember):
        w, x = _lin(lib)
        m = lib.ao.nn.quantized.dynamic.Linear(4, 3)
        m.set_weight_bias(w, lib.tensor([0.5, 0.25, 1.0]).half())
        mods[lib] = m
        assert str(m.bias().dtype) == 'torch.float16'
    assert repr(mods[ember]) == repr(mods[torch])
    t, e = _raises_alike(lambda lib: mods[lib](_lin(lib)[1]))
    assert e == t == 'expected scalar type Float but found Half'
