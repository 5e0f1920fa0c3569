"""ember.nn.utils.rnn vs torch.nn.utils.rnn: PackedSequence, pack_padded_sequence,
pad_packed_sequence, pad_sequence, pack_sequence, unpack_sequence, unpad_sequence,
invert_permutation: values, dtypes, strides, gradients through packing and padding,
errors."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import assert_same


def _both(fn):
    return fn(ember), fn(torch)


def _err(fn):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        try:
            fn(torch)
        except Exception as et:   # noqa: BLE001
            with pytest.raises(type(et)) as ee:
                fn(ember)
            assert str(ee.value) == str(et), (str(ee.value), str(et))
            return
    raise AssertionError('torch did not raise')


def _packed_same(pe, pt):
    assert type(pe).__name__ == 'PackedSequence'
    assert pe._fields == pt._fields
    for a, b in zip(pe, pt):
        if b is None:
            assert a is None
        else:
            assert_same(a, b)


X = np.random.default_rng(0).standard_normal((5, 4, 2))


@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('lengths', [[5, 4, 2, 1], [2, 5, 1, 4], [3, 3, 3, 3]])
@pytest.mark.parametrize('as_tensor', [False, True])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_pack_pad_roundtrip_and_grads(batch_first, lengths, as_tensor, dtype):
    sorted_ = lengths == sorted(lengths, reverse=True)
    x = X.transpose(1, 0, 2).copy() if batch_first else X.copy()
    x = x.astype(dtype)
    res = {}
    for m in (ember, torch):
        R = m.nn.utils.rnn
        xx = m.from_numpy(x.copy()).requires_grad_()
        ln = m.tensor(lengths) if as_tensor else lengths
        p = R.pack_padded_sequence(xx, ln, batch_first=batch_first,
                                   enforce_sorted=sorted_ and not as_tensor)
        out, lens = R.pad_packed_sequence(p, batch_first=batch_first, padding_value=-2.5,
                                          total_length=6)
        g = np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(dtype)
        (out * m.from_numpy(g)).sum().backward()
        res[m] = (p, out, lens, xx.grad)
    (pe, oe, le, ge), (pt, ot, lt, gt) = res[ember], res[torch]
    _packed_same(pe, pt)
    assert_same(oe, ot)
    assert oe.stride() == ot.stride()
    assert_same(le, lt)
    assert_same(ge, gt)


def test_packed_grad_fn_and_double_backward():
    x = ember.randn(4, 3, 2, dtype=ember.float64, requires_grad=True)
    p = ember.nn.utils.rnn.pack_padded_sequence(x, [4, 2, 1])
    assert p.data.grad_fn.name() == 'PackPaddedSequenceBackward0'

    def f(x):
        p = ember.nn.utils.rnn.pack_padded_sequence(x, [4, 2, 1], batch_first=True)
        return ember.nn.utils.rnn.pad_packed_sequence(p, total_length=5)[0]
    xb = ember.randn(3, 4, 2, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradcheck(f, (xb,))
    assert ember.autograd.gradgradcheck(f, (xb,))


@pytest.mark.parametrize('fn', [
    lambda m: m.nn.utils.rnn.pack_padded_sequence(m.ones(4, 3, 2), [3, 4, 2]),
    lambda m: m.nn.utils.rnn.pack_padded_sequence(m.ones(4, 3, 2), [4, 3, 0]),
    lambda m: m.nn.utils.rnn.pack_padded_sequence(m.ones(4, 3, 2), [0, 3, 4]),
    lambda m: m.nn.utils.rnn.pack_padded_sequence(m.ones(4, 3, 2), [4, 3]),
    lambda m: m.nn.utils.rnn.pack_padded_sequence(m.ones(4, 3, 2), [[4, 3, 2]]),
    lambda m: m.nn.utils.rnn.pack_padded_sequence(m.ones(4, 3, 2), [2, 3], batch_first=True,
                                                  enforce_sorted=True),
    lambda m: m.nn.utils.rnn.pad_packed_sequence(
        m.nn.utils.rnn.pack_padded_sequence(m.ones(4, 3), [4, 3, 2]), total_length=3),
    lambda m: m.nn.utils.rnn.pad_sequence([]),
    lambda m: m.nn.utils.rnn.pad_sequence(3),
    lambda m: m.nn.utils.rnn.pad_sequence([m.ones(2)], padding_side='middle'),
    lambda m: m.nn.utils.rnn.PackedSequence(m.ones(3)),
])
def test_errors_like_torch(fn):
    _err(fn)


@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('side', ['right', 'left'])
def test_pad_sequence(batch_first, side):
    rng = np.random.default_rng(2)
    seqs = [rng.standard_normal((n, 3)) for n in (2, 5, 3)]
    res = {}
    for m in (ember, torch):
        ts = [m.from_numpy(s.copy()).requires_grad_() for s in seqs]
        out = m.nn.utils.rnn.pad_sequence(ts, batch_first=batch_first, padding_value=7.0,
                                          padding_side=side)
        g = np.random.default_rng(3).standard_normal(tuple(out.shape))
        (out * m.from_numpy(g)).sum().backward()
        res[m] = [out] + [t.grad for t in ts]
    assert_same(res[ember], res[torch])
    assert res[ember][0].grad_fn.name() == res[torch][0].grad_fn.name()


def test_pad_sequence_dtypes_and_tensor_input():
    e, t = _both(lambda m: m.nn.utils.rnn.pad_sequence(
        [m.tensor([1, 2, 3]), m.tensor([4.5, 5.5])]))
    assert_same(e, t)
    e, t = _both(lambda m: m.nn.utils.rnn.pad_sequence(m.arange(6.).view(2, 3)))
    assert_same(e, t)
    e, t = _both(lambda m: m.nn.utils.rnn.pad_sequence(
        (m.ones(2, 2, dtype=m.float64), m.ones(1, 2)), batch_first=True, padding_value=-1))
    assert_same(e, t)


@pytest.mark.parametrize('enforce_sorted', [True, False])
def test_pack_unpack_sequence(enforce_sorted):
    lens = (4, 3, 1) if enforce_sorted else (1, 4, 3)

    def f(m):
        seqs = [m.arange(float(n * 2)).view(n, 2) + 10 * i for i, n in enumerate(lens)]
        p = m.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=enforce_sorted)
        return p, m.nn.utils.rnn.unpack_sequence(p)
    (pe, ue), (pt, ut) = _both(f)
    _packed_same(pe, pt)
    assert_same(ue, ut)


@pytest.mark.parametrize('batch_first', [False, True])
def test_unpad_sequence(batch_first):
    def f(m):
        x = m.arange(24.).view(4, 3, 2)
        if batch_first:
            x = x.transpose(0, 1).contiguous()
        x.requires_grad_()
        y = x * 1
        parts = m.nn.utils.rnn.unpad_sequence(y, m.tensor([4, 2, 3]), batch_first=batch_first)
        sum(((p * (i + 1)).sum() for i, p in enumerate(parts))).backward()
        return parts, tuple(y.shape), x.grad
    (pe, se, ge), (pt, st, gt) = _both(f)
    assert_same(pe, pt)
    assert se == st   # torch transposes the padded batch in place when not batch_first
    assert_same(ge, gt)


def test_invert_permutation_and_none():
    e, t = _both(lambda m: m.nn.utils.rnn.invert_permutation(m.tensor([3, 0, 2, 1])))
    assert_same(e, t)
    assert ember.nn.utils.rnn.invert_permutation(None) is None


def test_packed_sequence_api():
    def f(m):
        p = m.nn.utils.rnn.pack_sequence([m.ones(3, 2), m.zeros(2, 2)])
        return [p.double(), p.float(), p.long(), p.int(), p.short(), p.char(), p.byte(),
                p.half(), p.to(m.float64), p.to('cpu'), p.cpu()], p
    (le, pe), (lt, pt) = _both(f)
    for a, b in zip(le, lt):
        _packed_same(a, b)
    assert pe.float() is pe and pe.to(ember.float32) is pe and pe.cpu() is pe
    assert pe.is_cuda is False
    assert repr(pe).replace('ember', 'torch') == repr(pt)
    # constructed from (data, batch_sizes) with sorted indices: unsorted ones derived
    e, t = _both(lambda m: m.nn.utils.rnn.PackedSequence((m.ones(3), m.tensor([2, 1])),
                                                         sorted_indices=m.tensor([1, 0])))
    _packed_same(e, t)
    data, bs, si, ui = e
    assert isinstance(e, tuple) and e.batch_sizes is bs


def test_rnn_consumes_packed_sequence():
    """The packed output of a module pads back to torch's values."""
    torch.manual_seed(0)
    ember.manual_seed(0)
    t = torch.nn.GRU(2, 3)
    e = ember.nn.GRU(2, 3)

    def f(m, mod):
        seqs = [m.ones(n, 2) * (i + 1) for i, n in enumerate((2, 4, 3))]
        p = m.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)
        out, h = mod(p)
        return m.nn.utils.rnn.pad_packed_sequence(out, batch_first=True), h
    (oe, le), he = f(ember, e)
    (ot, lt), ht = f(torch, t)
    assert_same([oe, le, he], [ot, lt, ht], rtol=1e-5, atol=1e-6)
