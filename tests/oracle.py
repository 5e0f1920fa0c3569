"""The test oracle: run the same function on ember and on torch and compare values,
dtypes, shapes, and gradients under a random upstream gradient.

    check(lambda m, x, y: m.add(x, y), [a_np, b_np])          # forward only
    check(fn, [a_np], grad=True)                                # + backward vs torch
    gradcheck_ember(fn, [a_np])                                 # float64 finite differences
    run_both(lambda m: m.ones(2).sum())                         # any fn(m), results compared
    errors_both(lambda m: m.ones(2).view(3), match='shape')     # both raise the same error
    e, t = both(lambda m: m.ones(2).stride())                   # both results, not compared

``fn(m, *tensors)`` receives the module (``ember`` or ``torch``) and tensors made from
the numpy inputs by that module.

Under the strict check backend (``EMBER_STRICT_BACKEND=1`` or ``pytest --strict-backend``;
see ember/_backend/strict_backend.py) ember's inputs and upstream gradients hold strict
arrays, and every ember result must still hold one: an op body that computes with numpy
directly instead of its inputs' ``xp`` fails.
"""
import numpy as np
import torch

import ember
from ember._backend import strict_backend as _sb
from ember._tensor import _new_tensor

torch.set_num_threads(1)

TOL = {  # PyTorch's assert_close defaults
    'float16': (1e-3, 1e-5), 'bfloat16': (1.6e-2, 1e-5), 'float32': (1.3e-6, 1e-5),
    'float64': (1e-7, 1e-7), 'complex64': (1.3e-6, 1e-5), 'complex128': (1e-7, 1e-7),
}


def to_np(x):
    if isinstance(x, torch.Tensor):
        x = x.detach()
        if x.dtype == torch.bfloat16:
            return x.float().numpy()
        return x.resolve_conj().numpy(force=True)  # force: ZeroTensor grads (sgn, sign)
    if isinstance(x, ember.Tensor):
        a = x.detach().numpy(force=True)   # force: a strict array's host copy
        if x.dtype is ember.bfloat16:
            return a.astype(np.float32)
        return a
    return np.asarray(x)


def dtype_name(d):
    return str(d).replace('torch.', '')


def assert_same(e, t, rtol=None, atol=None, check_dtype=True, equal_nan=True, path='out'):
    """Compare an ember result (tensor, number, or nested tuple/list) with torch's."""
    if isinstance(t, (tuple, list)):
        assert isinstance(e, (tuple, list)), f"{path}: ember gave {type(e)}, torch a sequence"
        assert len(e) == len(t), f"{path}: length {len(e)} != {len(t)}"
        for i, (a, b) in enumerate(zip(e, t)):
            assert_same(a, b, rtol, atol, check_dtype, equal_nan, f"{path}[{i}]")
        return
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), f"{path}: ember gave {type(e)}, torch a Tensor"
        assert tuple(e.shape) == tuple(t.shape), f"{path}: shape {tuple(e.shape)} != {tuple(t.shape)}"
        if check_dtype:
            assert dtype_name(e.dtype) == dtype_name(t.dtype), \
                f"{path}: dtype {e.dtype} != {t.dtype}"
        a, b = to_np(e), to_np(t)
        rt, at = TOL.get(dtype_name(t.dtype), (0, 0))
        if rtol is not None:
            rt = rtol
        if atol is not None:
            at = atol
        if a.dtype.kind in 'biu' and b.dtype.kind in 'biu':
            np.testing.assert_array_equal(a, b, err_msg=path)
        else:
            np.testing.assert_allclose(a, b, rtol=rt, atol=at, equal_nan=equal_nan, err_msg=path)
        return
    if isinstance(t, torch.dtype):
        assert dtype_name(e) == dtype_name(t), path
        return
    if isinstance(t, torch.Size):
        assert tuple(e) == tuple(t), path
        return
    if isinstance(t, float):
        assert np.isclose(e, t, rtol=rtol or 1e-6, atol=atol or 1e-6, equal_nan=True), f"{path}: {e} != {t}"
        return
    assert e == t, f"{path}: {e!r} != {t!r}"


def on_backend(t):
    """An ember tensor made from host data, moved onto the strict backend when it is on
    (the tensor itself otherwise)."""
    if not _sb.enabled() or type(t._data) is not np.ndarray:
        return t
    return _new_tensor(_sb.to_strict(t._data))


def check_backend(result, path='out'):
    """Under the strict backend: every tensor of ``result`` holds a strict array (an op
    that went around ``xp`` hands back a plain numpy array)."""
    if not _sb.enabled():
        return
    for i, o in enumerate(_flat_tensors(result)):
        if isinstance(o, ember.Tensor):
            assert type(o._data) is _sb.StrictArray, \
                f"{path}[{i}]: the result left the strict backend ({type(o._data).__name__})"


def _make(mod, arrays, requires_grad):
    out = []
    for a in arrays:
        if isinstance(a, np.ndarray):
            if mod is torch:
                if a.dtype == np.dtype('V2') or str(a.dtype) == 'bfloat16':
                    t = torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)
                else:
                    t = torch.from_numpy(a.copy())
            else:
                t = on_backend(ember.from_numpy(a.copy()))
            if requires_grad and a.dtype.kind in 'fc':
                t.requires_grad_(True)
            out.append(t)
        else:
            out.append(a)
    return out


def _flat_tensors(x):
    if isinstance(x, (tuple, list)):
        r = []
        for v in x:
            r.extend(_flat_tensors(v))
        return r
    return [x] if isinstance(x, (torch.Tensor, ember.Tensor)) else []


def check(fn, arrays, grad=False, rtol=None, atol=None, check_dtype=True, seed=0):
    """Run ``fn`` under both libraries and compare outputs (and gradients with ``grad``).

    Returns (ember_result, torch_result)."""
    te = _make(torch, arrays, grad)
    ee = _make(ember, arrays, grad)
    rt = fn(torch, *te)
    re = fn(ember, *ee)
    check_backend(re)
    assert_same(re, rt, rtol, atol, check_dtype)
    if grad:
        outs_t = [o for o in _flat_tensors(rt) if o.requires_grad]
        outs_e = [o for o in _flat_tensors(re) if o.requires_grad]
        assert len(outs_t) == len(outs_e), "different number of differentiable outputs"
        if not outs_t:
            return re, rt
        rng = np.random.default_rng(seed)
        gts, ges = [], []
        for ot in outs_t:
            g = rng.standard_normal(tuple(ot.shape))
            if ot.is_complex():
                g = g + 1j * rng.standard_normal(tuple(ot.shape))
            g = np.asarray(g).astype(to_np(ot).dtype)   # 0-d complex: keep an array
            gts.append(torch.from_numpy(g.copy()).to(ot.dtype))
            ges.append(on_backend(ember.from_numpy(g.copy())).to(ember.bfloat16)
                       if ot.dtype == torch.bfloat16 else on_backend(ember.from_numpy(g.copy())))
        ins_t = [t for t in te if isinstance(t, torch.Tensor) and t.requires_grad]
        ins_e = [t for t in ee if isinstance(t, ember.Tensor) and t.requires_grad]
        gt = torch.autograd.grad(outs_t, ins_t, gts, allow_unused=True)
        ge = ember.autograd.grad(outs_e, ins_e, ges, allow_unused=True)
        check_backend([a for a in ge if a is not None], 'grad')
        for i, (a, b) in enumerate(zip(ge, gt)):
            if b is None:
                assert a is None or not np.any(to_np(a)), f"grad[{i}]: torch None, ember nonzero"
                continue
            assert a is not None, f"grad[{i}]: ember None, torch has a gradient"
            assert_same(a, b, rtol, atol, check_dtype, path=f"grad[{i}]")
    return re, rt


def both(fn):
    """``(fn(ember), fn(torch))``: the two results, for the caller to compare."""
    return fn(ember), fn(torch)


def run_both(fn, rtol=None, atol=None, check_dtype=True):
    """Run ``fn(m)`` under torch and ember and compare the results with
    :func:`assert_same`. Returns ``(ember_result, torch_result)``."""
    rt = fn(torch)
    re = fn(ember)
    assert_same(re, rt, rtol, atol, check_dtype)
    return re, rt


def errors_both(fn, match=None):
    """``fn(m)`` raises under both torch and ember, the same exception type (by name or a
    subclass), and both messages contain ``match``. Returns ``(ember_exc, torch_exc)``."""
    import pytest
    errs = []
    for m in (torch, ember):
        with pytest.raises(Exception) as ei:
            fn(m)
        errs.append(ei.value)
    et, ee = errs
    assert type(ee).__name__ == type(et).__name__ or isinstance(ee, type(et)), (ee, et)
    if match is not None:
        assert match in str(et), f"torch message changed: {et}"
        assert match in str(ee), f"ember message {ee!r} lacks {match!r}"
    return ee, et


def check_error(fn, arrays=(), match=None):
    """Both libraries raise the same exception type (and torch's key phrase ``match``)."""
    te = _make(torch, arrays, False)
    ee = _make(ember, arrays, False)
    et = ee_ = None
    try:
        fn(torch, *te)
    except Exception as e:
        et = e
    try:
        fn(ember, *ee)
    except Exception as e:
        ee_ = e
    assert et is not None, "torch did not raise"
    assert ee_ is not None, f"ember did not raise (torch raised {type(et).__name__}: {et})"
    assert isinstance(ee_, type(et)) or type(et).__name__ == type(ee_).__name__ or \
        issubclass(type(et), type(ee_)), f"ember raised {type(ee_).__name__}: {ee_}; torch {type(et).__name__}: {et}"
    if match is not None:
        assert match in str(ee_), f"ember message {str(ee_)!r} lacks {match!r}"
    return ee_, et


def gradcheck_ember(fn, arrays, **kw):
    """float64 finite-difference gradcheck of ``fn(ember, *tensors)``."""
    ins = _make(ember, [a if not isinstance(a, np.ndarray) else
                        a.astype(np.complex128) if a.dtype.kind == 'c' else
                        a.astype(np.float64) if a.dtype.kind == 'f' else a for a in arrays], True)
    f = lambda *xs: fn(ember, *xs)  # noqa: E731
    assert ember.autograd.gradcheck(f, tuple(ins), **kw)


def rand(*shape, dtype=np.float32, seed=None, low=-2, high=2):
    rng = np.random.default_rng(seed if seed is not None else hash(shape) % (2 ** 32))
    if np.dtype(dtype).kind == 'c':
        return (rng.uniform(low, high, shape) + 1j * rng.uniform(low, high, shape)).astype(dtype)
    if np.dtype(dtype).kind in 'iu':
        return rng.integers(low, high, shape).astype(dtype)
    if np.dtype(dtype).kind == 'b':
        return rng.integers(0, 2, shape).astype(bool)
    return rng.uniform(low, high, shape).astype(dtype)
