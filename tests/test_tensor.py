"""Tensor metadata, storage sharing, protocol methods and conversions, vs torch."""
import copy
import pickle

import numpy as np
import pytest
import torch

import ember
from oracle import both


def test_size_and_attributes():
    e, t = both(lambda m: m.zeros(2, 3, 4))
    assert e.shape == t.shape and repr(e.shape) == repr(t.shape)
    assert isinstance(e.shape, ember.Size) and isinstance(e.shape, tuple)
    assert e.size() == t.size() and e.size(1) == t.size(1) and e.size(-1) == t.size(-1)
    assert e.shape.numel() == t.shape.numel() == 24
    assert (e.dim(), e.ndim, e.numel(), e.element_size(), e.itemsize, e.nbytes) == \
        (t.dim(), t.ndim, t.numel(), t.element_size(), t.itemsize, t.nbytes)
    assert str(e.device) == str(t.device) and e.is_cuda is False
    assert e.stride() == t.stride() and e.storage_offset() == t.storage_offset()
    assert e.type() == t.type() == 'torch.FloatTensor'
    assert repr(e.shape[1:]) == repr(t.shape[1:])


def test_size_index_error():
    with pytest.raises(IndexError):
        ember.zeros(2).size(3)
    with pytest.raises(IndexError):
        torch.zeros(2).size(3)


def test_item_tolist_len_iter_bool():
    e, t = both(lambda m: m.tensor([[1.5, 2.0], [3.0, 4.0]]))
    assert e.tolist() == t.tolist()
    assert len(e) == len(t) == 2
    assert [r.tolist() for r in e] == [r.tolist() for r in t]
    assert e[0, 1].item() == t[0, 1].item()
    assert ember.tensor(3).item() == 3 and isinstance(ember.tensor(3).item(), int)
    assert isinstance(ember.tensor(True).item(), bool)
    with pytest.raises(RuntimeError):
        bool(e)
    with pytest.raises(RuntimeError):
        e.item()
    assert bool(ember.tensor([0.0])) is False
    with pytest.raises(TypeError):
        len(ember.tensor(1.0))


def test_index_format_float_int():
    assert [10, 20, 30][ember.tensor(1)] == 20
    with pytest.raises(TypeError):
        [1][ember.tensor(1.0)]
    assert f"{ember.tensor(3.14159):.2f}" == f"{torch.tensor(3.14159):.2f}"
    assert float(ember.tensor([2.5])) == 2.5 and int(ember.tensor(7)) == 7


def test_identity_hash():
    a, b = ember.zeros(2), ember.zeros(2)
    d = {a: 1, b: 2}
    assert d[a] == 1 and d[b] == 2 and hash(a) != hash(b)


def test_numpy_shares_memory_and_from_numpy():
    a = np.arange(6, dtype=np.float32)
    t = ember.from_numpy(a)
    t.view(2, 3)[0, 0] = 100
    assert a[0] == 100
    a[1] = 7
    assert t.tolist()[1] == 7
    n = t.numpy()
    n[2] = -1
    assert t.tolist()[2] == -1
    assert np.shares_memory(np.asarray(t), a)


def test_from_numpy_errors():
    with pytest.raises(ValueError):
        ember.from_numpy(np.arange(4)[::-1])
    with pytest.raises(TypeError):
        ember.from_numpy(np.array(['a']))


def test_numpy_requires_grad_error():
    x = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        x.numpy()
    assert x.detach().numpy().tolist() == [1.0, 1.0]


def test_storage_shared_by_views():
    x = ember.zeros(9, 1)
    v = x.view(3, 3)
    assert v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert v.data_ptr() == x.data_ptr()
    s = x.narrow(0, 2, 3)
    assert s.storage_offset() == 2 and s.data_ptr() == x.data_ptr() + 2 * 4
    assert x.untyped_storage().nbytes() == 36
    e, t = both(lambda m: m.arange(12).reshape(3, 4).t())
    assert e.stride() == t.stride() and e.is_contiguous() == t.is_contiguous() is False


def test_detach_and_data_share_memory():
    x = ember.ones(3, requires_grad=True)
    d = x.detach()
    d.add_(1)
    assert x.tolist() == [2.0, 2.0, 2.0]
    assert not d.requires_grad and d.is_leaf
    x.data.mul_(2)
    assert x.tolist() == [4.0, 4.0, 4.0]
    x.data = ember.zeros(3)
    assert x.tolist() == [0.0, 0.0, 0.0] and x.requires_grad


def test_clone_new_and_copy():
    e, t = both(lambda m: m.arange(6.).reshape(2, 3))
    c = e.clone()
    c.add_(1)
    assert e.tolist() == t.tolist()
    nt = e.new_tensor([1, 2])
    assert nt.dtype is ember.float32
    for name, args in [('new_zeros', (2, 3)), ('new_ones', ((2,),)), ('new_empty', (1,))]:
        assert getattr(e, name)(*args).shape == getattr(t, name)(*args).shape
        assert repr(getattr(e, name)(*args).dtype) == repr(getattr(t, name)(*args).dtype)
    assert e.new_full((2,), 3).tolist() == t.new_full((2,), 3).tolist()
    # copy_ converts dtype and broadcasts
    ei, ti = both(lambda m: m.zeros(2, 3, dtype=m.int32))
    ei.copy_(ember.tensor([1.7, 2.2, -3.9]))
    ti.copy_(torch.tensor([1.7, 2.2, -3.9]))
    assert ei.tolist() == ti.tolist() and ei.dtype is ember.int32


@pytest.mark.parametrize('meth', ['float', 'double', 'half', 'bfloat16', 'long', 'int', 'bool',
                                  'short', 'char', 'byte'])
def test_cast_methods(meth):
    e, t = both(lambda m: getattr(m.tensor([0.5, -1.5, 2.0]), meth)())
    assert repr(e.dtype) == repr(t.dtype)
    np.testing.assert_array_equal(np.asarray(e.float()), t.float().numpy())


def test_to_variants():
    x = ember.tensor([1, 2])
    assert x.to(ember.float64).dtype is ember.float64
    assert x.to('cpu') is x
    assert x.to(ember.zeros(1, dtype=ember.float16)).dtype is ember.float16
    assert x.to('cpu', ember.float32).dtype is ember.float32
    assert x.to(dtype=ember.int64, copy=True) is not x
    assert x.type(ember.float64).dtype is ember.float64
    assert x.type('torch.DoubleTensor').dtype is ember.float64


def test_cuda_without_gpu_errors():
    try:
        import cupy  # noqa: F401
        pytest.skip("a CUDA stack is installed here")  # only CI without a GPU checks the error
    except ImportError:
        pass
    with pytest.raises((AssertionError, RuntimeError)):
        ember.zeros(2).cuda()
    with pytest.raises((AssertionError, RuntimeError)):
        ember.zeros(2, device='cuda')


def test_legacy_constructors():
    a = ember.FloatTensor(3, 3)
    assert a.shape == (3, 3) and a.dtype is ember.float32 and isinstance(a, ember.Tensor)
    b = ember.LongTensor([1, 2])
    assert b.dtype is ember.int64 and b.tolist() == [1, 2]
    c = ember.Tensor(2, 4)
    assert c.shape == (2, 4) and c.dtype is ember.float32
    d = ember.Tensor([1, 2])
    assert d.dtype is ember.float32
    assert isinstance(ember.zeros(2), ember.FloatTensor) and not isinstance(ember.zeros(2), ember.LongTensor)
    assert ember.is_tensor(a) and not ember.is_tensor([1])
    assert ember.is_floating_point(a) and ember.numel(a) == 9


def test_pickle_and_deepcopy():
    x = ember.arange(6.).reshape(2, 3)
    x.requires_grad_()
    y = pickle.loads(pickle.dumps(x))
    assert y.tolist() == x.tolist() and y.requires_grad and y.dtype is x.dtype
    z = copy.deepcopy(x)
    assert z.tolist() == x.tolist() and z.data_ptr() != x.data_ptr() and z.requires_grad
    with pytest.raises(RuntimeError):
        copy.deepcopy(x * 2)
    # views of one storage stay shared through one pickle
    base = ember.arange(4.)
    a, b = pickle.loads(pickle.dumps((base, base[1:])))
    a[1] = 50
    assert b.tolist()[0] == 50


def test_array_protocol():
    e = ember.tensor([[1, 2], [3, 4]], dtype=ember.int32)
    a = np.asarray(e)
    assert a.dtype == np.int32 and a.tolist() == [[1, 2], [3, 4]]
    assert np.asarray(e, dtype=np.float64).dtype == np.float64


def test_requires_grad_rules():
    x = ember.randn(2, 2, requires_grad=True)
    b = x + 1
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        b.requires_grad = False
    c = ember.ones(2) + 1
    c.requires_grad = True
    assert c.is_leaf and c.requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        ember.tensor([1, 2]).requires_grad_()


@pytest.mark.parametrize('expr', [
    'm.empty(0, 3)', 'm.empty(2, 0, 4)', 'm.zeros(3, 0)', 'm.empty(0)', 'm.ones(2, 3)[:, :0]',
    'm.empty(0, 2, 3).contiguous()', 'm.empty(0, 3) + 1', 'm.empty(0, 3).sum(0)',
    'm.zeros(0, 5, dtype=m.float64).clone()', 'm.empty(4, 0).reshape(0, 2, 2)',
    'm.tensor([]).view(0, 1)', 'm.empty(0, 3).unsqueeze(1)',
])
def test_empty_tensor_strides_match_torch(expr):
    def run(m):
        t = eval(expr)
        return t.stride(), t.is_contiguous(), tuple(t.shape)
    assert run(ember) == run(torch)


# storage_offset() of empty views: NumPy leaves an empty slice's data pointer where it
# was, PyTorch reports where the view starts
_EMPTY_VIEWS = [
    lambda m, t: t[5:5], lambda m, t: t[7:3], lambda m, t: t[10:], lambda m, t: t[12:],
    lambda m, t: t.narrow(0, 10, 0), lambda m, t: t.reshape(2, 5)[1:, 5:],
    lambda m, t: t.reshape(2, 5)[:, 2:2], lambda m, t: t.reshape(2, 5)[1:1, 2:],
    lambda m, t: t.split(5)[1][5:], lambda m, t: t[3:3].view(0),
    lambda m, t: t[3:3].reshape(0, 1).t(), lambda m, t: t.reshape(2, 5)[1:1].view(m.int32),
    lambda m, t: t.tensor_split([3, 3])[1], lambda m, t: t.reshape(2, 5)[1:1][:, 3],
    lambda m, t: t.reshape(5, 2)[:0].unbind(1)[1], lambda m, t: t.split([4, 0, 6])[1],
    lambda m, t: t[2:][4:4].unsqueeze(0).expand(3, 0),
]


@pytest.mark.parametrize('i', range(len(_EMPTY_VIEWS)))
def test_storage_offset_of_empty_views_matches_torch(i):
    import torch
    f = _EMPTY_VIEWS[i]
    e = f(ember, ember.arange(10.))
    t = f(torch, torch.arange(10.))
    assert e.shape == tuple(t.shape) and e.numel() == 0
    assert e.storage_offset() == t.storage_offset()
    assert e.stride() == t.stride()


# ------------------------------------------------------------------ Python number conversions
@pytest.mark.parametrize('conv', [int, float, complex, bool])
@pytest.mark.parametrize('make', [
    lambda m: m.ones(2), lambda m: m.ones(0), lambda m: m.ones(2, 2, dtype=m.int64),
    lambda m: m.ones((), dtype=m.complex64) * (1 + 2j), lambda m: m.ones(1, 1) * 2.5,
    lambda m: m.ones((), dtype=m.complex64) * (3 - 0j), lambda m: m.ones((), dtype=m.bool),
])
def test_python_number_conversions(conv, make):
    from oracle import errors_both, run_both
    try:
        conv(make(torch))
    except Exception as e:
        errors_both(lambda m: conv(make(m)), str(e))
    else:
        run_both(lambda m: conv(make(m)))


def test_numpy_scalars_and_ufuncs_give_tensors_as_torch():
    """``np.float64(.5) * t`` and ``np.float32(1) + t`` are tensors with autograd (NumPy
    defers to a tensor), NumPy ufuncs on tensors give tensors (NumPy 2's ``__array_wrap__``
    signature: no DeprecationWarning), bool results as uint8, as in torch."""
    import warnings
    res = {}
    for m in (ember, torch):
        t = m.tensor([1., 2.], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', DeprecationWarning)
            out = [np.float64(0.5) * t, t * np.float64(0.5), np.float32(1) + t, np.int64(2) * t,
                   np.float64(3) - t, np.exp(t.detach()), np.greater(t.detach(), 1.5),
                   np.add(t.detach(), 1)]
        (out[0] + out[2] + out[3] + out[4]).sum().backward()
        res[m.__name__] = ([type(o).__name__ for o in out], [str(o.dtype) for o in out],
                           [o.tolist() for o in out], [o.grad_fn is not None for o in out[:5]],
                           t.grad.tolist())
    assert res['ember'] == res['torch']
    with warnings.catch_warnings():
        warnings.simplefilter('error', DeprecationWarning)
        np.exp(ember.ones(2))


@pytest.mark.parametrize('shape', [(), (3,), (2, 3), (2, 1, 3)])
def test_contains_any_dims_as_torch(shape):
    n = int(np.prod(shape)) if shape else 1
    data = np.arange(n, dtype=np.float32).reshape(shape)
    for probe in (0, 2, 2.0, 5, -1, True, lambda m: m.tensor(2.), lambda m: m.tensor([0., 9.]),
                  lambda m: m.tensor([9.])):
        got = []
        for m in (ember, torch):
            x = m.tensor(data)
            try:
                got.append(probe(m) in x if callable(probe) else probe in x)
            except RuntimeError as e:
                got.append(type(e))
        assert got[0] == got[1], (shape, probe)
    for m in (ember, torch):
        with pytest.raises(RuntimeError, match='only supports Tensor or scalar'):
            'a' in m.tensor(data)
