"""View semantics of ember/_ops/view.py against torch: values, shapes, strides, storage
offsets, contiguity, memory sharing (data_ptr / untyped_storage), writes through views in
both directions, gradients, grad_fn names and errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error, gradcheck_ember, rand

f32, f64 = np.float32, np.float64

A = rand(3, 4, seed=1)
C3 = rand(2, 3, 4, seed=2)
C4 = rand(2, 1, 3, 1, seed=3)
V = rand(6, seed=4)
S = np.array(2.5, dtype=f32)
E = np.zeros((0, 3), f32)

# --------------------------------------------------------------------------- view ops
# (name, fn, arrays): fn(m, *tensors) must return views (or tuples of views) of arrays[0]
VIEWS = [
    ('view', lambda m, a: a.view(4, 3), [A]),
    ('view_infer', lambda m, a: a.view(-1), [A]),
    ('view_infer2', lambda m, a: a.view(2, -1, 2), [A]),
    ('view_tuple', lambda m, a: a.view((6, 2)), [A]),
    ('view_size', lambda m, a: a.view(m.Size([2, 6])), [A]),
    ('view_0d', lambda m, a: a.view(1, 1), [S]),
    ('view_to_0d', lambda m, a: a.view(()), [np.ones(1, f32)]),
    ('view_empty', lambda m, a: a.view(3, 0), [E]),
    ('view_transposed_ok', lambda m, a: a.t().view(4, 3, 1), [A]),
    ('view_permuted_ok', lambda m, a: a.permute(1, 0, 2).view(3, 2, 2, 2), [C3]),
    ('view_noncontig_split_last', lambda m, a: a.transpose(0, 1).view(3, 2, 2, 2), [C3]),
    ('reshape', lambda m, a: a.reshape(2, 6), [A]),
    ('reshape_fn', lambda m, a: m.reshape(a, (-1,)), [C3]),
    ('reshape_0d', lambda m, a: m.reshape(a, (1,)), [S]),
    ('view_as', lambda m, a, b: a.view_as(b), [A, rand(12)]),
    ('reshape_as', lambda m, a, b: a.reshape_as(b), [A, rand(2, 6)]),
    ('flatten', lambda m, a: m.flatten(a), [C3]),
    ('flatten_range', lambda m, a: a.flatten(1), [C3]),
    ('flatten_neg', lambda m, a: a.flatten(0, -2), [C3]),
    ('flatten_same', lambda m, a: a.flatten(1, 1), [C3]),
    ('flatten_0d', lambda m, a: a.flatten(), [S]),
    ('unflatten', lambda m, a: a.unflatten(1, (2, 2)), [A]),
    ('unflatten_infer', lambda m, a: m.unflatten(a, -1, (2, -1)), [C3]),
    ('transpose', lambda m, a: a.transpose(0, 1), [A]),
    ('transpose_neg', lambda m, a: m.transpose(a, -1, 0), [C3]),
    ('transpose_same', lambda m, a: a.transpose(1, 1), [C3]),
    ('transpose_0d', lambda m, a: a.transpose(0, -1), [S]),
    ('transpose_1d', lambda m, a: a.transpose(0, 0), [V]),
    ('t', lambda m, a: a.t(), [A]),
    ('t_1d', lambda m, a: m.t(a), [V]),
    ('t_0d', lambda m, a: a.t(), [S]),
    ('T', lambda m, a: a.T, [A]),
    ('mT', lambda m, a: a.mT, [C3]),
    ('swapaxes', lambda m, a: a.swapaxes(0, 2), [C3]),
    ('swapdims', lambda m, a: m.swapdims(a, 2, 1), [C3]),
    ('permute', lambda m, a: a.permute(2, 0, 1), [C3]),
    ('permute_list', lambda m, a: m.permute(a, [1, -1, 0]), [C3]),
    ('permute_0d', lambda m, a: a.permute(()), [S]),
    ('movedim', lambda m, a: m.movedim(a, 0, 2), [C3]),
    ('movedim_multi', lambda m, a: a.movedim((0, 1), (2, 0)), [C3]),
    ('moveaxis', lambda m, a: m.moveaxis(a, -1, 0), [C3]),
    ('squeeze', lambda m, a: a.squeeze(), [C4]),
    ('squeeze_dim', lambda m, a: m.squeeze(a, 1), [C4]),
    ('squeeze_dim_noop', lambda m, a: a.squeeze(0), [C4]),
    ('squeeze_dims', lambda m, a: a.squeeze((1, 3)), [C4]),
    ('squeeze_0d', lambda m, a: a.squeeze(), [S]),
    ('squeeze_0d_dim', lambda m, a: a.squeeze(0), [S]),
    ('unsqueeze', lambda m, a: a.unsqueeze(1), [A]),
    ('unsqueeze_neg', lambda m, a: m.unsqueeze(a, -1), [A]),
    ('unsqueeze_0d', lambda m, a: a.unsqueeze(0), [S]),
    ('expand', lambda m, a: a.expand(3, 2, 4, 3, 5), [C4]),
    ('expand_minus1', lambda m, a: a.expand(-1, 4, -1, 2), [C4]),
    ('expand_list', lambda m, a: a.expand([3, 6]), [V]),
    ('expand_0d', lambda m, a: a.expand(2, 3), [S]),
    ('expand_as', lambda m, a, b: a.expand_as(b), [rand(3, 1), A]),
    ('broadcast_to', lambda m, a: m.broadcast_to(a, (2, 3, 6)), [V]),
    ('narrow', lambda m, a: a.narrow(1, 1, 2), [A]),
    ('narrow_neg_start', lambda m, a: m.narrow(a, 0, -2, 2), [A]),
    ('narrow_tensor_start', lambda m, a: m.narrow(a, -1, m.tensor(1), 3), [A]),
    ('narrow_empty', lambda m, a: a.narrow(0, 3, 0), [A]),
    ('select', lambda m, a: a.select(1, 2), [A]),
    ('select_neg', lambda m, a: m.select(a, -1, -1), [C3]),
    ('select_1d', lambda m, a: a.select(0, 3), [V]),
    ('unbind', lambda m, a: a.unbind(), [A]),
    ('unbind_dim', lambda m, a: m.unbind(a, 2), [C3]),
    ('split_int', lambda m, a: a.split(2), [V]),
    ('split_int_dim', lambda m, a: m.split(a, 3, dim=1), [A]),
    ('split_sizes', lambda m, a: a.split([1, 3], 1), [A]),
    ('split_with_sizes', lambda m, a: a.split_with_sizes([2, 1, 3]), [V]),
    ('split_big', lambda m, a: a.split(10), [V]),
    ('split_empty', lambda m, a: a.split(2), [E]),
    ('chunk', lambda m, a: a.chunk(2), [V]),
    ('chunk_uneven', lambda m, a: m.chunk(a, 3, 1), [A]),
    ('chunk_more', lambda m, a: a.chunk(4), [V]),
    ('chunk_5of6', lambda m, a: a.chunk(5), [V]),
    ('chunk_empty', lambda m, a: a.chunk(2), [E]),
    ('tensor_split_n', lambda m, a: a.tensor_split(4), [V]),
    ('tensor_split_n_dim', lambda m, a: m.tensor_split(a, 3, dim=1), [A]),
    ('tensor_split_idx', lambda m, a: a.tensor_split([1, 4]), [V]),
    ('tensor_split_idx_neg', lambda m, a: m.tensor_split(a, (-2, 10), 0), [V]),
    ('tensor_split_idx_rev', lambda m, a: a.tensor_split([4, 2]), [V]),
    ('unfold', lambda m, a: a.unfold(0, 2, 1), [V]),
    ('unfold_step', lambda m, a: a.unfold(1, 2, 2), [A]),
    ('unfold_dim0', lambda m, a: a.unfold(0, 2, 1), [A]),
    ('unfold_0d', lambda m, a: a.unfold(0, 1, 1), [S]),
    ('diagonal', lambda m, a: a.diagonal(), [A]),
    ('diagonal_off', lambda m, a: m.diagonal(a, 1), [A]),
    ('diagonal_offneg', lambda m, a: m.diagonal(a, -1), [A]),
    ('diagonal_offbig', lambda m, a: m.diagonal(a, 7), [A]),
    ('diagonal_dims', lambda m, a: a.diagonal(0, 2, 0), [C3]),
    ('diagonal_dims_off', lambda m, a: a.diagonal(-1, -1, 1), [C3]),
    ('as_strided', lambda m, a: a.as_strided((2, 2), (1, 2)), [A]),
    ('as_strided_offset', lambda m, a: m.as_strided(a, (3,), (4,), 1), [A]),
    ('as_strided_overlap', lambda m, a: a.as_strided((3, 3), (1, 1)), [V]),
    ('as_strided_of_view', lambda m, a: a.t().as_strided((2, 3), (1, 2), 2), [A]),
]

IDS = [c[0] for c in VIEWS]


def _outs(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


@pytest.mark.parametrize('name,fn,arrays', VIEWS, ids=IDS)
def test_values_and_grads(name, fn, arrays):
    check(fn, arrays, grad=True)


@pytest.mark.parametrize('name,fn,arrays', VIEWS, ids=IDS)
def test_view_metadata(name, fn, arrays):
    """Strides, storage offsets, contiguity and memory sharing match torch's."""
    res = {}
    for m in (ember, torch):
        ins = [m.from_numpy(a.copy()) for a in arrays]
        base = ins[0]
        info = []
        for o in _outs(fn(m, *ins)):
            # NOTE: ember does not track the storage offset of empty views (numpy drops it)
            off = o.storage_offset() if o.numel() else None
            info.append((tuple(o.shape), o.stride(), off, o.is_contiguous(),
                         o.untyped_storage().data_ptr() == base.untyped_storage().data_ptr(),
                         o.data_ptr() - base.data_ptr() if o.numel() else None,
                         o._is_view()))
        res[m] = info
    e, t = res[ember], res[torch]
    assert len(e) == len(t)
    for i, (a, b) in enumerate(zip(e, t)):
        # shape, stride, storage_offset, is_contiguous, shares storage, pointer offset, _is_view
        assert a == b, f"output {i}: ember {a} != torch {b}"


@pytest.mark.parametrize('name,fn,arrays', [v for v in VIEWS if v[0] in (
    'view', 'reshape', 'flatten_range', 'unflatten', 'transpose', 'permute', 'movedim_multi',
    'squeeze_dims', 'unsqueeze', 'expand', 'narrow', 'select_neg', 'split_sizes', 'chunk_uneven',
    'unbind_dim', 'tensor_split_idx', 'unfold_step', 'diagonal_dims_off', 'as_strided_overlap',
    'as_strided_offset', 'mT', 't')], ids=lambda x: x if isinstance(x, str) else '')
def test_gradcheck(name, fn, arrays):
    gradcheck_ember(fn, arrays)


# ------------------------------------------------------------------- writes through views
WRITES = ['view', 'reshape', 'flatten_range', 'transpose', 't', 'permute', 'movedim', 'squeeze',
          'unsqueeze', 'narrow', 'select', 'unbind_dim', 'split_sizes', 'chunk_uneven',
          'tensor_split_idx', 'diagonal_dims_off', 'as_strided_offset', 'unflatten', 'mT',
          'squeeze_dims', 'diagonal', 'swapaxes']


@pytest.mark.parametrize('name', WRITES)
def test_write_through_view(name):
    """In-place writes on a view are seen by the base, and writes on the base by the view."""
    fn, arrays = dict((c[0], (c[1], c[2])) for c in VIEWS)[name]
    snaps = {}
    for m in (ember, torch):
        ins = [m.from_numpy(a.copy()) for a in arrays]
        base = ins[0]
        outs = _outs(fn(m, *ins))
        for k, o in enumerate(outs):
            o.mul_(10 + k)                      # view -> base
        after_view_write = base.clone().numpy()
        base.add_(1)                            # base -> view
        seen = [o.clone().numpy() for o in outs]
        snaps[m] = (after_view_write, seen)
    (ba, sa), (bb, sb) = snaps[ember], snaps[torch]
    np.testing.assert_allclose(ba, bb, rtol=1e-6)
    assert not np.allclose(ba, arrays[0]) or arrays[0].size == 0
    for x, y in zip(sa, sb):
        np.testing.assert_allclose(x, y, rtol=1e-6)


def test_copy_into_view():
    for m in (ember, torch):
        a = m.from_numpy(A.copy())
        a.narrow(1, 1, 2).copy_(m.zeros(3, 2))
        assert a.numpy()[:, 1:3].sum() == 0 and np.array_equal(a.numpy()[:, 0], A[:, 0])
        d = a.diagonal()
        d.copy_(m.full((3,), 7.0))
        assert np.array_equal(np.diag(a.numpy()), [7.0, 7.0, 7.0])


def test_expand_stride0_and_shared():
    for m in (ember, torch):
        v = m.from_numpy(V.copy())
        e = v.expand(3, 6)
        assert e.stride() == (0, 1)
        assert e.data_ptr() == v.data_ptr()
        v.add_(1)
        np.testing.assert_allclose(e.numpy()[2], V + 1)
        s = m.from_numpy(S.copy()).expand(2, 2)
        assert s.stride() == (0, 0)


# --------------------------------------------------------------------- reshape copy vs view
def test_reshape_shares_when_contiguous():
    for m in (ember, torch):
        a = m.from_numpy(A.copy())
        r = a.reshape(12)
        assert r.data_ptr() == a.data_ptr()
        assert r._base is a
        r.mul_(0)
        assert a.numpy().sum() == 0


def test_reshape_copies_when_not_viewable():
    for m in (ember, torch):
        a = m.from_numpy(A.copy())
        r = a.t().reshape(12)
        assert r.data_ptr() != a.data_ptr()
        assert r.untyped_storage().data_ptr() != a.untyped_storage().data_ptr()
        assert r.is_contiguous()
        r.mul_(0)
        np.testing.assert_array_equal(a.numpy(), A)
        np.testing.assert_array_equal(m.reshape(a.t(), (12,)).numpy(), A.T.reshape(12))


def test_reshape_grad_fn_names():
    for m in (ember, torch):
        a = m.from_numpy(A.copy()).requires_grad_()
        assert type(a.reshape(12).grad_fn).__name__ == 'ViewBackward0'
        assert type(a.t().reshape(12).grad_fn).__name__ == 'UnsafeViewBackward0'
        assert type(a.flatten().grad_fn).__name__ == 'ViewBackward0'


def test_seed_example():
    """x = rand(3,3,3).permute(1,2,0): view(3, 9) raises, reshape works, contiguous().view
    works; unsqueeze_/squeeze_ change the shape in place."""
    x0 = rand(3, 3, 3, seed=7)
    for m in (ember, torch):
        x = m.from_numpy(x0.copy()).permute(1, 2, 0)
        with pytest.raises(RuntimeError, match='view size is not compatible'):
            x.view(3, 9)
        assert tuple(x.reshape(3, 9).shape) == (3, 9)
        y = x.contiguous().view(3, 9)
        assert tuple(y.shape) == (3, 9)
        np.testing.assert_array_equal(y.numpy(), x0.transpose(1, 2, 0).reshape(3, 9))
        a = m.from_numpy(rand(2, 3, seed=8))
        r = a.unsqueeze_(1)
        assert r is a and tuple(a.shape) == (2, 1, 3)
        assert a.stride() == (3, 3, 1)
        r = a.squeeze_()
        assert r is a and tuple(a.shape) == (2, 3)


def test_view_error_check():
    check_error(lambda m, a: a.permute(1, 2, 0).view(3, 8), [rand(2, 3, 4)],
                match='view size is not compatible')
    check_error(lambda m, a: a.t().view(-1), [A], match='view size is not compatible')


# ------------------------------------------------------------------------- in-place views
INPLACE = [
    ('unsqueeze_', lambda m, a: a.unsqueeze_(0)),
    ('unsqueeze_neg', lambda m, a: a.unsqueeze_(-1)),
    ('squeeze_', lambda m, a: a.unsqueeze_(1).squeeze_()),
    ('squeeze_dim', lambda m, a: a.unsqueeze_(0).squeeze_(0)),
    ('squeeze_dims', lambda m, a: a.unsqueeze_(0).unsqueeze_(2).squeeze_((0, 2))),
    ('transpose_', lambda m, a: a.transpose_(0, 1)),
    ('t_', lambda m, a: a.t_()),
    ('as_strided_', lambda m, a: a.as_strided_((2, 2), (2, 1), 1)),
]


@pytest.mark.parametrize('name,fn', INPLACE, ids=[c[0] for c in INPLACE])
def test_inplace_view_ops(name, fn):
    res = {}
    for m in (ember, torch):
        a = m.from_numpy(A.copy())
        ptr = a.data_ptr()
        r = fn(m, a)
        assert r is a
        res[m] = (tuple(a.shape), a.stride(), a.storage_offset(), a.data_ptr() - ptr,
                  a.is_contiguous(), a.numpy().copy())
    e, t = res[ember], res[torch]
    assert e[:5] == t[:5]
    np.testing.assert_array_equal(e[5], t[5])


@pytest.mark.parametrize('name,fn', INPLACE[:-1], ids=[c[0] for c in INPLACE[:-1]])
def test_inplace_view_ops_grad(name, fn):
    check(lambda m, a: fn(m, a * 1), [A], grad=True)


# ----------------------------------------------------------------- storage and contiguity
def test_contiguous():
    for m in (ember, torch):
        a = m.from_numpy(A.copy())
        assert a.contiguous() is a
        t = a.t()
        assert not t.is_contiguous()
        c = t.contiguous()
        assert c.is_contiguous() and c.data_ptr() != a.data_ptr()
        assert c.stride() == (3, 1)
        np.testing.assert_array_equal(c.numpy(), A.T)


def test_contiguity_flags_match_torch():
    fns = [lambda x: x, lambda x: x.t(), lambda x: x.narrow(1, 0, 2), lambda x: x.narrow(0, 1, 2),
           lambda x: x.unsqueeze(1), lambda x: x.select(1, 0), lambda x: x.select(0, 1),
           lambda x: x.expand(2, 3, 4), lambda x: x.narrow(0, 0, 1).t(), lambda x: x.diagonal()]
    for f in fns:
        e = f(ember.from_numpy(A.copy()))
        t = f(torch.from_numpy(A.copy()))
        assert e.is_contiguous() == t.is_contiguous(), (e.shape, e.stride())
        assert e.stride() == t.stride()
        assert e.storage_offset() == t.storage_offset()


def test_untyped_storage_shared():
    for m in (ember, torch):
        a = m.from_numpy(A.copy())
        views = [a.view(12), a.t(), a.select(0, 2), a.narrow(1, 2, 2), a.unsqueeze(0),
                 a.expand(2, 3, 4), a.diagonal(), a.as_strided((2,), (5,), 3), a.unfold(1, 2, 1)]
        for v in views:
            assert v.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()
            assert v.untyped_storage().nbytes() == a.untyped_storage().nbytes() == 48
        assert a.select(0, 2).storage_offset() == 8
        assert a.narrow(1, 2, 2).data_ptr() == a.data_ptr() + 2 * 4


def test_views_of_views_share_root_base():
    for m in (ember, torch):
        a = m.from_numpy(C3.copy())
        v = a.permute(2, 0, 1).select(0, 1).narrow(1, 1, 2)
        assert v._base is a
        assert v.storage_offset() == 1 + 4
        v.mul_(0)
        assert np.count_nonzero(a.numpy()[:, 1:3, 1]) == 0
        assert np.count_nonzero(a.numpy()) == 24 - 4


def test_version_counter_shared():
    for m in (ember, torch):
        a = m.from_numpy(A.copy())
        v = a.t()
        v0 = a._version
        v.mul_(2)
        assert a._version == v._version == v0 + 1


def test_view_of_grad_through_inplace():
    """PyTorch's CopySlices: writing a view in place rebases the base's history."""
    def f(m, x, z):
        y = x * 1
        y.narrow(0, 1, 1).mul_(z)
        return y
    check(f, [A, rand(1, 4, seed=9)], grad=True)

    def g(m, x, z):
        y = x.clone()
        y.t().select(0, 2).copy_(z)
        return y * 2
    check(g, [A, rand(3, seed=10)], grad=True)


# ----------------------------------------------------------------------------- grad_fn names
NAMES = [
    ('ViewBackward0', lambda a: a.view(12)),
    ('TransposeBackward0', lambda a: a.transpose(0, 1)),
    ('TBackward0', lambda a: a.t()),
    ('PermuteBackward0', lambda a: a.permute(1, 0)),
    ('PermuteBackward0', lambda a: a.T),
    ('TransposeBackward0', lambda a: a.mT),
    ('PermuteBackward0', lambda a: a.movedim(0, 1)),
    ('ExpandBackward0', lambda a: a.expand(2, 3, 4)),
    ('SqueezeBackward0', lambda a: a.unsqueeze(0).squeeze()),
    ('SqueezeBackward1', lambda a: a.unsqueeze(0).squeeze(0)),
    ('SqueezeBackward2', lambda a: a.unsqueeze(0).squeeze((0,))),
    ('UnsqueezeBackward0', lambda a: a.unsqueeze(0)),
    ('SliceBackward0', lambda a: a.narrow(0, 1, 1)),
    ('SelectBackward0', lambda a: a.select(0, 1)),
    ('UnbindBackward0', lambda a: a.unbind()[0]),
    ('SplitBackward0', lambda a: a.split(2)[0]),
    ('SplitWithSizesBackward0', lambda a: a.split([1, 2])[0]),
    ('SplitBackward0', lambda a: a.chunk(2)[0]),
    ('DiagonalBackward0', lambda a: a.diagonal()),
    ('UnfoldBackward0', lambda a: a.unfold(0, 2, 1)),
    ('AsStridedBackward0', lambda a: a.as_strided((2,), (1,))),
    ('ViewBackward0', lambda a: a.unflatten(1, (2, 2))),
]


@pytest.mark.parametrize('name,fn', NAMES, ids=[f"{i}-{n[0]}" for i, n in enumerate(NAMES)])
def test_grad_fn_names(name, fn):
    for m in (ember, torch):
        a = m.from_numpy(A.copy()).requires_grad_()
        out = fn(a)
        assert type(out.grad_fn).__name__ == name, (m.__name__, out.grad_fn)


def test_double_backward_through_views():
    def run(m):
        x = m.from_numpy(C3.astype(f64)).requires_grad_()
        y = x.permute(2, 0, 1).narrow(0, 1, 2).unsqueeze(1).expand(2, 3, 2, 3).diagonal(0, 2, 3)
        y = y * y
        g, = m.autograd.grad(y.sum(), x, create_graph=True)
        gg, = m.autograd.grad((g * g).sum(), x)
        return gg.detach().numpy()
    np.testing.assert_allclose(run(ember), run(torch), rtol=1e-10)


# ------------------------------------------------------------------------------- errors
ERRORS = [
    ('view_numel', lambda m, a: a.view(5, 3), [A], "shape '[5, 3]' is invalid for input of size 12"),
    ('view_two_infer', lambda m, a: a.view(-1, -1), [A], 'only one dimension can be inferred'),
    ('view_infer_bad', lambda m, a: a.view(5, -1), [A], 'is invalid for input of size 12'),
    ('view_negative', lambda m, a: a.view(-2, 6), [A], 'invalid shape dimension -2'),
    ('reshape_numel', lambda m, a: a.reshape(7), [A], 'is invalid for input of size 12'),
    ('flatten_order', lambda m, a: a.flatten(2, 1), [C3], 'start_dim cannot come after end_dim'),
    ('unflatten_sizes', lambda m, a: a.unflatten(1, (3, 3)), [A], "don't multiply up to the size"),
    ('transpose_range', lambda m, a: a.transpose(0, 2), [A], 'Dimension out of range'),
    ('t_3d', lambda m, a: a.t(), [C3], 't() expects a tensor with <= 2 dimensions, but self is 3D'),
    ('mT_1d', lambda m, a: a.mT, [V], 'tensor.mT is only supported on matrices or batches of matrices'),
    ('permute_len', lambda m, a: a.permute(0, 1), [C3],
     'number of dimensions in the tensor input does not match the length of the desired ordering'),
    ('permute_dup', lambda m, a: a.permute(0, 0, 1), [C3], 'duplicate dims are not allowed'),
    ('permute_range', lambda m, a: a.permute(0, 3, 1), [C3], 'Dimension out of range'),
    ('movedim_len', lambda m, a: m.movedim(a, (0, 1), (1,)), [C3], 'movedim: Invalid source or destination dims'),
    ('squeeze_range', lambda m, a: a.squeeze(4), [C4], 'Dimension out of range'),
    ('unsqueeze_range', lambda m, a: a.unsqueeze(3), [A], 'Dimension out of range'),
    ('expand_fewer', lambda m, a: a.expand(4), [A], 'the number of sizes provided (1) must be greater or equal'),
    ('expand_mismatch', lambda m, a: a.expand(3, 5), [A],
     'The expanded size of the tensor (5) must match the existing size (4) at non-singleton dimension 1'),
    ('expand_lead_minus1', lambda m, a: a.expand(-1, 3, 4), [A],
     "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0"),
    ('narrow_overflow', lambda m, a: a.narrow(1, 2, 3), [A], 'start (2) + length (3) exceeds dimension size (4).'),
    ('narrow_start', lambda m, a: a.narrow(0, 5, 0), [A], 'start out of range'),
    ('select_range', lambda m, a: a.select(0, 3), [A], 'select(): index 3 out of range for tensor of size [3, 4] at dimension 0'),
    ('select_0d', lambda m, a: a.select(0, 0), [S], 'select() cannot be applied to a 0-dim tensor.'),
    ('split_zero', lambda m, a: a.split(0), [V], 'split_size can only be 0 if dimension size is 0'),
    ('split_sizes_sum', lambda m, a: a.split([2, 2]), [V], 'split_with_sizes expects split_sizes to sum exactly to 6'),
    ('chunk_zero', lambda m, a: a.chunk(0), [V], 'chunk expects `chunks` to be greater than 0, got: 0'),
    ('tensor_split_zero', lambda m, a: a.tensor_split(0), [V], 'number of sections must be larger than 0, got 0'),
    ('unfold_size', lambda m, a: a.unfold(0, 7, 1), [V], 'maximum size for tensor at dimension 0 is 6 but size is 7'),
    ('unfold_step', lambda m, a: a.unfold(0, 2, 0), [V], 'step is 0 but must be > 0'),
    ('diagonal_same', lambda m, a: a.diagonal(0, 1, 1), [A], 'diagonal dimensions cannot be identical 1, 1'),
    ('as_strided_oob', lambda m, a: a.as_strided((4, 4), (4, 1)), [A], 'out of bounds for storage of size 48'),
    ('as_strided_len', lambda m, a: a.as_strided((4, 4), (4,)), [A], 'mismatch in length of strides and shape'),
]


@pytest.mark.parametrize('name,fn,arrays,match', ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(name, fn, arrays, match):
    check_error(fn, arrays, match=match or None)


def test_view_dtype():
    check(lambda m, a: a.view(m.int32), [A])
    check(lambda m, a: a.view(m.uint8).shape, [A])
    check(lambda m, a: a.view(m.float16), [A])
    for m in (ember, torch):
        a = m.from_numpy(A.copy())
        b = a.view(m.int32)
        assert b.data_ptr() == a.data_ptr()
        b2 = a.requires_grad_().view(m.int32)   # allowed; the result needs no grad
        assert not b2.requires_grad and b2.grad_fn is None


def test_movedim_repeated_and_narrow_zero_dim_errors():
    # torch's errors (issue 21)
    check_error(lambda m: m.movedim(m.ones(2, 3, 4, 5, 6), (1, 0, 2), (0, 4, -5)),
                match='movedim: repeated dim in `destination` ([0, 4, -5])')
    check_error(lambda m: m.movedim(m.ones(2, 3, 4), (0, 0), (1, 2)),
                match='movedim: repeated dim in `source` ([0, 0])')
    check_error(lambda m: m.narrow(m.tensor(1.), 0, 0, 1),
                match='narrow() cannot be applied to a 0-dim tensor.')
    check_error(lambda m: m.narrow_copy(m.tensor(1.), 0, 0, 1),
                match='narrow() cannot be applied to a 0-dim tensor.')
