"""ember.utils.dlpack / ember.from_dlpack / Tensor.__dlpack__ against torch's: round trips
with torch tensors and NumPy arrays in both directions (values, dtypes, shapes, strides,
shared memory), capsules, the device codes, and the errors."""
import gc

import numpy as np
import pytest
import torch
import torch.utils.dlpack as tdl

import ember
import ember.utils.dlpack as edl
from oracle import on_backend

DTYPES = ['bool', 'uint8', 'int8', 'int16', 'int32', 'int64', 'uint16', 'uint32', 'uint64',
          'float16', 'bfloat16', 'float32', 'float64', 'complex64', 'complex128']


def _values(dtype, shape=(2, 3)):
    n = int(np.prod(shape))
    base = torch.arange(n).reshape(shape) % 3
    return base.to(getattr(torch, dtype))


def _ember_copy(t):
    """An ember tensor with the values of torch tensor ``t`` (made without DLPack)."""
    if t.dtype is torch.bfloat16:
        return on_backend(ember.tensor(t.float().numpy()).to(ember.bfloat16))
    return on_backend(ember.tensor(t.numpy()))


def _same(e, t):
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype) == str(t.dtype)
    if t.numel():       # (an empty tensor's strides are immaterial)
        assert tuple(e.stride()) == tuple(t.stride())
    if t.dtype is torch.bfloat16:
        np.testing.assert_array_equal(e.float().numpy(force=True), t.float().numpy())
    else:
        np.testing.assert_array_equal(e.numpy(force=True), t.numpy())


def _one(dtype):
    return True if dtype == 'bool' else 1


@pytest.mark.parametrize('dtype', DTYPES)
def test_torch_to_ember_shares_memory(dtype):
    t = _values(dtype)
    e = ember.from_dlpack(t)
    _same(e, t)
    e[0, 0] = _one(dtype)
    assert t[0, 0].item() == _one(dtype)            # a write through ember shows in torch
    t[1, 2] = 0
    assert e[1, 2].item() == 0                       # and the other way round


@pytest.mark.parametrize('dtype', DTYPES)
def test_ember_to_torch_shares_memory(dtype):
    e = _ember_copy(_values(dtype))
    t = torch.from_dlpack(e)
    _same(e, t)
    t[0, 1] = _one(dtype)
    assert e[0, 1].item() == _one(dtype)
    e[1, 0] = 0
    assert t[1, 0].item() == 0


@pytest.mark.parametrize('make', [
    lambda m: m.arange(24.).reshape(2, 3, 4)[:, 1],          # strided slice
    lambda m: m.arange(12.).reshape(3, 4).t(),               # transposed
    lambda m: m.arange(3.).expand(2, 3),                      # stride 0
    lambda m: m.arange(12.).reshape(3, 4)[1:, ::2],           # offset and step
    lambda m: m.tensor(3.5),                                  # 0-d
    lambda m: m.zeros(0, 3),                                  # empty
    lambda m: m.ones(2, 1, 3).permute(2, 0, 1),
])
def test_layouts_round_trip(make):
    t = make(torch)
    e = ember.from_dlpack(t)
    _same(e, t)
    e2 = make(ember)
    t2 = torch.from_dlpack(e2)
    _same(e2, t2)
    if t.numel():
        assert tuple(e2.stride()) == tuple(t.stride())


def test_capsules_between_libraries():
    e = ember.arange(4.)
    c = edl.to_dlpack(e)
    assert type(c).__name__ == 'PyCapsule' and repr(c).startswith('<capsule object "dltensor"')
    t = torch.from_dlpack(c)                     # torch consumes ember's capsule
    t[0] = 7.
    assert e.tolist() == [7., 1., 2., 3.]
    tc = tdl.to_dlpack(torch.arange(3))
    x = ember.from_dlpack(tc)                    # ember consumes torch's
    assert x.tolist() == [0, 1, 2] and x.dtype is ember.int64
    # a capsule is consumed once, with torch's error
    errs = []
    for mod, cap in ((ember, tc), (torch, c)):
        with pytest.raises(RuntimeError) as info:
            mod.from_dlpack(cap)
        errs.append(str(info.value))
    assert errs[0] == errs[1]
    assert 'consumed only once' in errs[0]
    # ember's own capsules, also after the source is gone
    src = ember.arange(5.)
    cap = ember.to_dlpack(src)
    del src
    gc.collect()
    back = ember.from_dlpack(cap)
    del cap
    gc.collect()
    back[4] = -1.
    assert back.tolist() == [0., 1., 2., 3., -1.]


def test_numpy_round_trips():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    e = ember.from_dlpack(a)
    e[0, 0] = 9.
    assert a[0, 0] == 9. and e.dtype is ember.float32
    t = ember.zeros(3, dtype=ember.int32)
    b = np.from_dlpack(t)
    b[2] = 5
    assert t.tolist() == [0, 0, 5]
    ro = np.ones(3)
    ro.flags.writeable = False
    er, tr = ember.from_dlpack(ro), torch.from_dlpack(ro)
    assert er.tolist() == tr.tolist()


def test_copy_and_device_arguments_match_torch():
    for mod in (ember, torch):
        src = mod.arange(3.)
        copied = mod.from_dlpack(src, copy=True)
        copied[0] = 5.
        assert src[0].item() == 0.
        shared = mod.from_dlpack(src, copy=False)
        shared[1] = 6.
        assert src[1].item() == 6.
        on_cpu = mod.from_dlpack(src, device='cpu')
        on_cpu[2] = 8.
        assert src.tolist() == [0., 6., 8.]
        np_src = np.arange(3.)
        mod.from_dlpack(np_src, copy=True)[0] = 1.
        assert np_src[0] == 0.
    errs = []
    for mod in (ember, torch):
        with pytest.raises(AssertionError) as info:
            mod.from_dlpack(mod.utils.dlpack.to_dlpack(mod.ones(1)), device='cpu')
        errs.append(str(info.value))
    assert errs[0] == errs[1]


def _err(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.type, str(info.value)


@pytest.mark.parametrize('call', [
    lambda m: m.ones(2, requires_grad=True).__dlpack__(),
    lambda m: m.ones(2).__dlpack__(stream=3),
    lambda m: m.ones(2).__dlpack__(stream='a'),
    lambda m: m.empty(2, device='meta').__dlpack__(),
    lambda m: m.empty(2, device='meta').__dlpack_device__(),
    lambda m: m.from_dlpack([1, 2]),
    lambda m: m.from_dlpack(np.ones(2), device=3),
    lambda m: m.utils.dlpack.to_dlpack([1, 2]),
])
def test_errors_match_torch(call):
    assert _err(lambda: call(ember)) == _err(lambda: call(torch))


def test_device_and_versions_match_torch():
    assert [(k, int(v)) for k, v in edl.DLDeviceType.__members__.items()] == \
        [(k, int(v)) for k, v in tdl.DLDeviceType.__members__.items()]
    ed, td = ember.ones(2).__dlpack_device__(), torch.ones(2).__dlpack_device__()
    assert repr(ed) == repr(td) and type(ed[0]) is edl.DLDeviceType
    for kw in ({}, {'max_version': None}, {'max_version': (0, 8)}, {'max_version': (1, 0)},
               {'max_version': (1, 3)}, {'stream': None}, {'copy': True}):
        ce, ct = ember.ones(2).__dlpack__(**kw), torch.ones(2).__dlpack__(**kw)
        assert repr(ce).split(' at ')[0] == repr(ct).split(' at ')[0], kw
        assert ember.from_dlpack(ct).tolist() == torch.from_dlpack(ce).tolist() == [1., 1.]
    e = ember.zeros(2)
    t = torch.from_dlpack(_Producer(e.__dlpack__(copy=True)))
    t[0] = 1.
    assert e.tolist() == [0., 0.]


class _Producer:
    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, **kw):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)


def test_to_dlpack_exports_the_data_of_a_tensor_requiring_grad_as_torch():
    # torch checks requires_grad in Tensor.__dlpack__ only (tested above), not in to_dlpack
    outs = []
    for mod in (ember, torch):
        x = mod.arange(3., requires_grad=True)
        y = torch.from_dlpack(mod.utils.dlpack.to_dlpack(x))
        y[0] = 4.
        outs.append((x.detach().tolist(), y.requires_grad))
    assert outs[0] == outs[1] == ([4., 1., 2.], False)


def test_namespace_matches_torch():
    assert edl.__all__ == tdl.__all__
    assert ember.from_dlpack is edl.from_dlpack
    assert ember.to_dlpack is edl.to_dlpack
    assert hasattr(torch, 'to_dlpack') and hasattr(torch, 'from_dlpack')
    assert ember.utils.dlpack is edl
