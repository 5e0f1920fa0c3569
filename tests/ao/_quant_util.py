"""Helpers for the eager-quantization tests: the same model in ember and torch with equal
weights, warnings recorded (and the filters given back), outputs compared."""
import warnings

import numpy as np
import pytest
import torch

import ember


def to_np(t):
    """A tensor's values as a numpy array (quantized tensors: their float values)."""
    if getattr(t, 'is_quantized', False):
        t = t.dequantize()
    return t.detach().numpy()


def e_tensor(a):
    """An ember tensor holding ``a`` (numpy array or torch tensor)."""
    if isinstance(a, torch.Tensor):
        a = a.detach().numpy()
    return ember.from_numpy(np.array(a, copy=True))


def copy_state(e_mod, t_mod):
    """Copy torch module ``t_mod``'s float parameters and buffers into ember's ``e_mod``
    (same names, in the same order)."""
    te = dict(t_mod.named_parameters())
    te.update(dict(t_mod.named_buffers()))
    with ember.no_grad():
        for name, a in list(e_mod.named_parameters()) + list(e_mod.named_buffers()):
            b = te[name]
            a.copy_(e_tensor(b).to(a.dtype))
    return e_mod


def both(factory, seed=0):
    """``factory(torch)`` and ``factory(ember)`` (each after ``manual_seed(seed)``), with
    torch's parameters and buffers copied into ember's."""
    torch.manual_seed(seed)
    t = factory(torch)
    ember.manual_seed(seed)
    e = factory(ember)
    return copy_state(e, t), t


def record(fn, *args, **kwargs):
    """``(result, [(category name, message)])`` of ``fn(*args, **kwargs)``, every warning
    recorded; the warning filters are given back afterwards."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        out = fn(*args, **kwargs)
    return out, [(x.category.__name__, str(x.message)) for x in w]


def quiet(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` with warnings silenced (filters given back)."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return fn(*args, **kwargs)


def same_repr(e_mod, t_mod):
    """Assert that ember's and torch's modules print the same."""
    assert repr(e_mod) == repr(t_mod)


def close(e_out, t_out, atol=1e-6, rtol=1e-5):
    np.testing.assert_allclose(to_np(e_out), to_np(t_out), atol=atol, rtol=rtol)


def qat_qconfig(T, backend='fbgemm'):
    """``get_default_qat_qconfig(backend)`` of torch or ember."""
    return quiet(T.ao.quantization.get_default_qat_qconfig, backend)


def compare_state(e_mod, t_mod, atol=1e-6):
    """Same state_dict keys, and the same values (within ``atol``)."""
    es, ts = e_mod.state_dict(), t_mod.state_dict()
    assert list(es) == list(ts)
    for k in ts:
        a, b = es[k], ts[k]
        if isinstance(b, torch.Tensor):
            assert tuple(a.shape) == tuple(b.shape), k
            np.testing.assert_allclose(to_np(a), to_np(b), atol=atol, rtol=1e-5, err_msg=k)


def train_steps(e_mod, t_mod, shape, steps=2, seed=0, atol=1e-5, make_input=None):
    """Run ``steps`` forward/backward passes of both modules on the same random inputs and
    upstream gradients; compare outputs and parameter gradients at each step."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        x = (make_input(rng) if make_input is not None
             else rng.standard_normal(shape).astype(np.float32))
        ye, yt = e_mod(e_tensor(x)), t_mod(torch.from_numpy(x))
        close(ye, yt, atol=atol)
        if yt.requires_grad:
            g = rng.standard_normal(tuple(yt.shape)).astype(np.float32)
            ye.backward(e_tensor(g))
            yt.backward(torch.from_numpy(g))
            tp = dict(t_mod.named_parameters())
            for n, p in e_mod.named_parameters():
                if tp[n].grad is None:
                    assert p.grad is None, n
                else:
                    np.testing.assert_allclose(to_np(p.grad), to_np(tp[n].grad), atol=atol * 10,
                                               rtol=1e-4, err_msg=n)
                    p.grad = None
                    tp[n].grad = None


def dyadic_params(e_mod, t_mod, step=64):
    """Round both modules' float parameters to multiples of ``1/step`` (same values): with
    dyadic inputs too, float convolutions and matmuls are exact, so observers see the very
    same numbers in both libraries and the quantized results can be compared for equality."""
    with torch.no_grad():
        for p in t_mod.parameters():
            p.copy_(torch.round(p * step) / step)
    return copy_state(e_mod, t_mod)


def dyadic(shape, seed=0, step=8):
    """Random float32 inputs that are multiples of ``1/step``."""
    x = np.random.default_rng(seed).standard_normal(shape)
    return (np.round(x * step) / step).astype(np.float32)


@pytest.fixture(autouse=True)
def keep_rng():
    """Give back torch's and ember's global random states after each test (the tests seed
    them); imported by each quantization test module."""
    ts, es = torch.get_rng_state(), ember.get_rng_state()
    yield
    torch.set_rng_state(ts)
    ember.set_rng_state(es)
