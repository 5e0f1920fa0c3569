"""Shape and combining ops (ember/_ops/shape.py) against torch: values, dtypes, shapes,
gradients, grad_fn names, errors, and float64 gradcheck."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error, gradcheck_ember, rand

f32, f64, i64, i32 = np.float32, np.float64, np.int64, np.int32

A = rand(3, 4, seed=1)
B = rand(2, 4, seed=2)
V = rand(4, seed=3)
C3 = rand(2, 3, 4, seed=4)
S = np.array(1.5, dtype=f32)
E0 = np.zeros((0,), f32)

# ---------------------------------------------------------------------------- forward + grads
CASES = [
    # cat / concat / concatenate
    ('cat0', lambda m, a, b: m.cat([a, b]), [A, B]),
    ('cat1', lambda m, a: m.cat((a, a * 2), 1), [A]),
    ('cat_neg', lambda m, a, b: m.cat([a, b], -2), [A, B]),
    ('cat_three', lambda m, a, b, c: m.cat([a, b, c], 0), [A, B, rand(1, 4, seed=5)]),
    ('cat_3d', lambda m, a, b: m.cat([a, b], 2), [C3, rand(2, 3, 2, seed=6)]),
    ('cat_single', lambda m, a: m.cat([a]), [A]),
    ('concat', lambda m, a, b: m.concat([a, b], dim=0), [A, B]),
    ('concatenate', lambda m, a, b: m.concatenate([a, b], dim=0), [A, B]),
    ('cat_promote_int_float', lambda m, a, b: m.cat([a, b]), [np.array([1, 2], i64), V]),
    ('cat_promote_f32_f64', lambda m, a, b: m.cat([a, b]), [V, rand(3, dtype=f64)]),
    ('cat_promote_bool_u8', lambda m, a, b: m.cat([a, b]),
     [np.array([True, False]), np.array([3], np.uint8)]),
    ('cat_promote_i8_u8', lambda m, a, b: m.cat([a, b]),
     [np.array([-1], np.int8), np.array([3], np.uint8)]),
    ('cat_skip_empty1d', lambda m, e, a: m.cat([e, a, e]), [E0, A]),
    ('cat_skip_empty1d_dim1', lambda m, e, a: m.cat([a, e, a], 1), [E0, A]),
    ('cat_all_empty', lambda m, e: m.cat([e, e]), [E0]),
    ('cat_empty_dtype', lambda m, e, a: m.cat([e, a]), [np.zeros((0,), f64), np.array([1, 2], i32)]),
    ('cat_empty_2d', lambda m, a, b: m.cat([a, b]), [np.zeros((2, 0), f32), np.zeros((3, 0), f32)]),
    ('cat_zero_rows', lambda m, a, b: m.cat([a, b]), [np.zeros((0, 4), f32), A]),
    ('cat_complex', lambda m, a, b: m.cat([a, b]), [rand(2, dtype=np.complex64), V]),
    ('cat_noncontig', lambda m, a, b: m.cat([a.t(), b.t()], 1), [A, B]),
    # stack
    ('stack0', lambda m, a: m.stack([a, a * 2]), [A]),
    ('stack1', lambda m, a: m.stack([a, a], 1), [A]),
    ('stack_last', lambda m, a: m.stack([a, a, a], -1), [A]),
    ('stack_scalars', lambda m, a, b: m.stack([a, b]), [S, np.array(2, i64)]),
    ('stack_promote', lambda m, a, b: m.stack([a, b]), [V, np.arange(4)]),
    ('stack_empty', lambda m, a: m.stack([a, a], 1), [np.zeros((0, 2), f32)]),
    # hstack / vstack / row_stack / dstack / column_stack
    ('hstack_1d', lambda m, a, b: m.hstack([a, b]), [V, rand(2, seed=7)]),
    ('hstack_2d', lambda m, a, b: m.hstack([a, b]), [A, rand(3, 2, seed=8)]),
    ('hstack_0d', lambda m, a: m.hstack([a, a]), [S]),
    ('vstack_1d', lambda m, a: m.vstack([a, a]), [V]),
    ('vstack_2d', lambda m, a, b: m.vstack([a, b]), [A, B]),
    ('vstack_0d', lambda m, a: m.vstack([a, a]), [S]),
    ('row_stack', lambda m, a, b: m.row_stack([a, b]), [A, B]),
    ('dstack_1d', lambda m, a: m.dstack([a, a]), [V]),
    ('dstack_2d', lambda m, a: m.dstack((a, a)), [A]),
    ('dstack_3d', lambda m, a: m.dstack([a, a]), [C3]),
    ('column_stack_1d', lambda m, a: m.column_stack([a, a]), [V]),
    ('column_stack_mixed', lambda m, a, b: m.column_stack([a, b]), [V, rand(4, 3, seed=9)]),
    ('column_stack_0d', lambda m, a: m.column_stack([a, a]), [S]),
    # flip family
    ('flip0', lambda m, a: m.flip(a, [0]), [A]),
    ('flip01', lambda m, a: m.flip(a, (0, 1)), [A]),
    ('flip_neg', lambda m, a: m.flip(a, [-1, 0]), [C3]),
    ('flip_none', lambda m, a: m.flip(a, []), [A]),
    ('flip_0d', lambda m, a: m.flip(a, [0]), [S]),
    ('flip_method', lambda m, a: a.flip(1), [A]),
    ('flip_int', lambda m, a: m.flip(a, [0]), [np.arange(6).reshape(2, 3)]),
    ('flip_empty', lambda m, a: m.flip(a, [0]), [np.zeros((0, 3), f32)]),
    ('fliplr', lambda m, a: m.fliplr(a), [C3]),
    ('flipud', lambda m, a: m.flipud(a), [A]),
    ('flipud_method', lambda m, a: a.flipud(), [V]),
    # roll
    ('roll_flat', lambda m, a: m.roll(a, 5), [A]),
    ('roll_flat_neg', lambda m, a: m.roll(a, -2), [A]),
    ('roll_dim', lambda m, a: m.roll(a, 1, 0), [A]),
    ('roll_dims', lambda m, a: m.roll(a, (1, -3), (0, 2)), [C3]),
    ('roll_big', lambda m, a: m.roll(a, 13, -1), [A]),
    ('roll_method', lambda m, a: a.roll([2], [1]), [A]),
    ('roll_empty', lambda m, a: m.roll(a, 1, 0), [np.zeros((0, 3), f32)]),
    ('roll_0d', lambda m, a: m.roll(a, 1), [S]),
    # rot90
    ('rot90', lambda m, a: m.rot90(a), [A]),
    ('rot90_k2', lambda m, a: m.rot90(a, 2), [A]),
    ('rot90_k3', lambda m, a: m.rot90(a, 3), [A]),
    ('rot90_kneg', lambda m, a: m.rot90(a, -1), [A]),
    ('rot90_k0', lambda m, a: m.rot90(a, 0), [A]),
    ('rot90_k5', lambda m, a: m.rot90(a, 5, [1, 0]), [A]),
    ('rot90_dims', lambda m, a: m.rot90(a, 1, [0, 2]), [C3]),
    ('rot90_negdims', lambda m, a: a.rot90(1, [-1, 0]), [C3]),
    # repeat / tile
    ('repeat', lambda m, a: a.repeat(2, 3), [A]),
    ('repeat_lead', lambda m, a: a.repeat(2, 1, 2), [A]),
    ('repeat_list', lambda m, a: a.repeat([2, 2]), [A]),
    ('repeat_ones', lambda m, a: a.repeat(1, 1), [A]),
    ('repeat_zero', lambda m, a: a.repeat(0, 2), [A]),
    ('repeat_0d', lambda m, a: a.repeat(3), [S]),
    ('repeat_0d_none', lambda m, a: a.repeat(()), [S]),
    ('repeat_1d', lambda m, a: a.repeat(2, 2), [V]),
    ('repeat_int', lambda m, a: a.repeat(2, 1), [np.arange(6).reshape(2, 3)]),
    ('tile', lambda m, a: m.tile(a, (2,)), [A]),
    ('tile_more', lambda m, a: m.tile(a, (2, 1, 2)), [A]),
    ('tile_empty_dims', lambda m, a: m.tile(a, ()), [A]),
    ('tile_0d', lambda m, a: m.tile(a, (2, 3)), [S]),
    ('tile_method', lambda m, a: a.tile((1, 2)), [V]),
    # repeat_interleave
    ('ri_int_flat', lambda m, a: a.repeat_interleave(2), [A]),
    ('ri_int_dim0', lambda m, a: m.repeat_interleave(a, 2, dim=0), [A]),
    ('ri_int_dim1', lambda m, a: m.repeat_interleave(a, 3, 1), [A]),
    ('ri_int_dimneg', lambda m, a: m.repeat_interleave(a, 2, -1), [C3]),
    ('ri_int_zero', lambda m, a: m.repeat_interleave(a, 0, 0), [A]),
    ('ri_int_0d', lambda m, a: m.repeat_interleave(a, 3), [S]),
    ('ri_tensor_dim0', lambda m, a, r: m.repeat_interleave(a, r, dim=0), [A, np.array([1, 2, 0])]),
    ('ri_tensor_dim1', lambda m, a, r: a.repeat_interleave(r, dim=1), [A, np.array([0, 1, 2, 3])]),
    ('ri_tensor_flat', lambda m, a, r: m.repeat_interleave(a, r), [V, np.array([2, 0, 1, 3])]),
    ('ri_tensor_one', lambda m, a, r: m.repeat_interleave(a, r, dim=0), [A, np.array([2])]),
    ('ri_tensor_0d', lambda m, a, r: m.repeat_interleave(a, r), [A, np.array(2)]),
    ('ri_tensor_output_size', lambda m, a, r: m.repeat_interleave(a, r, dim=0, output_size=3),
     [A, np.array([1, 2, 0])]),
    ('ri_repeats_only', lambda m, r: m.repeat_interleave(r), [np.array([1, 2, 3])]),
    ('ri_repeats_only_i32', lambda m, r: m.repeat_interleave(r), [np.array([0, 2], i32)]),
    ('ri_int_input', lambda m, a: m.repeat_interleave(a, 2, 0), [np.arange(6).reshape(3, 2)]),
    # meshgrid / cartesian_prod
    ('meshgrid_ij', lambda m, a, b: m.meshgrid(a, b, indexing='ij'), [V, rand(3, seed=10)]),
    ('meshgrid_xy', lambda m, a, b: m.meshgrid(a, b, indexing='xy'), [V, rand(3, seed=10)]),
    ('meshgrid_list', lambda m, a, b: m.meshgrid([a, b, a], indexing='ij'), [V, rand(3, seed=10)]),
    ('meshgrid_xy3', lambda m, a, b: m.meshgrid(a, b, a.narrow(0, 0, 2), indexing='xy'), [V, rand(3, seed=10)]),
    ('meshgrid_0d', lambda m, a, b: m.meshgrid(a, b, indexing='xy'), [S, V]),
    ('meshgrid_one', lambda m, a: m.meshgrid(a, indexing='ij'), [V]),
    ('cartesian_prod', lambda m, a, b: m.cartesian_prod(a, b), [V, rand(3, seed=11)]),
    ('cartesian_prod3', lambda m, a, b: m.cartesian_prod(a, b, a.narrow(0, 0, 2)), [V, rand(3, seed=11)]),
    ('cartesian_prod1', lambda m, a: m.cartesian_prod(a), [V]),
    ('cartesian_prod_int', lambda m, a: m.cartesian_prod(a, a), [np.arange(3)]),
    # atleast_nd
    ('atleast_1d_0d', lambda m, a: m.atleast_1d(a), [S]),
    ('atleast_1d_2d', lambda m, a: m.atleast_1d(a), [A]),
    ('atleast_1d_many', lambda m, a, b: m.atleast_1d(a, b), [S, A]),
    ('atleast_1d_list', lambda m, a, b: m.atleast_1d([a, b]), [S, A]),
    ('atleast_2d_0d', lambda m, a: m.atleast_2d(a), [S]),
    ('atleast_2d_1d', lambda m, a: m.atleast_2d(a), [V]),
    ('atleast_2d_3d', lambda m, a: m.atleast_2d(a), [C3]),
    ('atleast_2d_many', lambda m, a, b: m.atleast_2d((a, b)), [S, V]),
    ('atleast_3d_0d', lambda m, a: m.atleast_3d(a), [S]),
    ('atleast_3d_1d', lambda m, a: m.atleast_3d(a), [V]),
    ('atleast_3d_2d', lambda m, a: m.atleast_3d(a), [A]),
    ('atleast_3d_3d', lambda m, a: m.atleast_3d(a), [C3]),
    ('atleast_3d_many', lambda m, a, b, c: m.atleast_3d(a, b, c), [S, V, A]),
    # block_diag
    ('block_diag', lambda m, a, b: m.block_diag(a, b), [A, B]),
    ('block_diag_mixed', lambda m, a, b, c: m.block_diag(a, b, c), [S, V, A]),
    ('block_diag_one', lambda m, a: m.block_diag(a), [A]),
    ('block_diag_promote', lambda m, a, b: m.block_diag(a, b), [np.array([1, 2]), S]),
    ('block_diag_empty', lambda m, a, b: m.block_diag(a, b), [np.zeros((0, 2), f32), A]),
    ('block_diag_none', lambda m: m.block_diag(), []),
    # broadcasting
    ('broadcast_tensors', lambda m, a, b: m.broadcast_tensors(a, b), [A, V]),
    ('broadcast_tensors3', lambda m, a, b, c: m.broadcast_tensors(a, b, c),
     [rand(3, 1, seed=12), V, S]),
    ('broadcast_tensors_mixed_dtype', lambda m, a, b: m.broadcast_tensors(a, b),
     [S, np.array([1, 2], i32)]),
    ('broadcast_tensors_same', lambda m, a, b: m.broadcast_tensors(a, b), [A, A]),
    ('broadcast_tensors_empty', lambda m, a, b: m.broadcast_tensors(a, b),
     [np.zeros((0, 1), f32), V]),
    # tril / triu
    ('tril', lambda m, a: m.tril(a), [A]),
    ('tril_k1', lambda m, a: m.tril(a, 1), [A]),
    ('tril_kneg', lambda m, a: m.tril(a, -1), [A]),
    ('tril_kbig', lambda m, a: m.tril(a, -5), [A]),
    ('tril_batched', lambda m, a: a.tril(diagonal=1), [C3]),
    ('triu', lambda m, a: m.triu(a), [A]),
    ('triu_k2', lambda m, a: m.triu(a, 2), [A]),
    ('triu_kneg', lambda m, a: a.triu(-1), [C3]),
    ('triu_bool', lambda m, a: m.triu(a), [rand(3, 3, dtype=bool)]),
    ('tril_int', lambda m, a: m.tril(a), [np.arange(9).reshape(3, 3)]),
    ('tril_empty', lambda m, a: m.tril(a), [np.zeros((2, 0, 3), f32)]),
    ('tril_inplace', lambda m, a: (a * 1).tril_(-1), [A]),
    ('triu_inplace', lambda m, a: (a + 0).triu_(1), [C3]),
    # diag family
    ('diag_1d', lambda m, a: m.diag(a), [V]),
    ('diag_1d_pos', lambda m, a: m.diag(a, 2), [V]),
    ('diag_1d_neg', lambda m, a: a.diag(-1), [V]),
    ('diag_2d', lambda m, a: m.diag(a), [A]),
    ('diag_2d_pos', lambda m, a: m.diag(a, 1), [A]),
    ('diag_2d_neg', lambda m, a: m.diag(a, -2), [A]),
    ('diag_2d_out_of_range', lambda m, a: m.diag(a, 5), [A]),
    ('diag_int', lambda m, a: m.diag(a), [np.arange(3)]),
    ('diag_embed', lambda m, a: m.diag_embed(a), [A]),
    ('diag_embed_off', lambda m, a: m.diag_embed(a, 1), [A]),
    ('diag_embed_offneg', lambda m, a: m.diag_embed(a, -2, 0, 2), [A]),
    ('diag_embed_dims', lambda m, a: a.diag_embed(0, 2, 0), [C3]),
    ('diag_embed_1d', lambda m, a: m.diag_embed(a), [V]),
    ('diag_embed_mid', lambda m, a: m.diag_embed(a, 1, 1, 3), [C3]),
    ('diagflat', lambda m, a: m.diagflat(a), [V]),
    ('diagflat_2d', lambda m, a: m.diagflat(a, -1), [rand(2, 2, seed=13)]),
    ('diagflat_0d', lambda m, a: m.diagflat(a), [S]),
    ('diagflat_method', lambda m, a: a.diagflat(1), [V]),
    ('trace', lambda m, a: m.trace(a), [A]),
    ('trace_wide', lambda m, a: m.trace(a), [rand(2, 5, seed=14)]),
    ('trace_square', lambda m, a: a.trace(), [rand(3, 3, seed=15)]),
    ('trace_int', lambda m, a: m.trace(a), [np.arange(9, dtype=i32).reshape(3, 3)]),
    ('trace_u8', lambda m, a: m.trace(a), [np.arange(4, dtype=np.uint8).reshape(2, 2)]),
    ('trace_f64', lambda m, a: m.trace(a), [rand(3, 3, dtype=f64)]),
    ('trace_complex', lambda m, a: m.trace(a), [rand(2, 2, dtype=np.complex64)]),
    ('trace_empty', lambda m, a: m.trace(a), [np.zeros((0, 3), f32)]),
]


@pytest.mark.parametrize('name,fn,arrays', CASES, ids=[c[0] for c in CASES])
def test_shape_ops(name, fn, arrays):
    check(fn, arrays, grad=True)


@pytest.mark.parametrize('name,fn,arrays', [c for c in CASES if c[0] in (
    'cat0', 'cat_promote_f32_f64', 'stack1', 'flip01', 'roll_dims', 'rot90', 'repeat_lead',
    'tile_more', 'ri_int_dim1', 'ri_tensor_dim0', 'meshgrid_xy', 'cartesian_prod',
    'block_diag_mixed', 'tril_k1', 'triu_kneg', 'diag_1d_pos', 'diag_2d_neg', 'diag_embed_mid',
    'diagflat_2d', 'trace_wide', 'hstack_2d', 'dstack_1d', 'column_stack_mixed',
    'broadcast_tensors3')], ids=lambda x: x if isinstance(x, str) else '')
def test_shape_ops_double_backward(name, fn, arrays):
    """create_graph=True: backward formulas are themselves differentiable."""
    arrs = [a.astype(f64) if a.dtype.kind == 'f' else a for a in arrays]

    def run(m):
        ins = [m.from_numpy(a.copy()) for a in arrs]
        for t in ins:
            if t.is_floating_point():
                t.requires_grad_(True)
        out = fn(m, *ins)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        outs = [o for o in outs if o.requires_grad]
        leaves = [t for t in ins if t.requires_grad]
        rng = np.random.default_rng(0)
        gs = [m.from_numpy(rng.standard_normal(tuple(o.shape))).requires_grad_(True) for o in outs]
        grads = m.autograd.grad(outs, leaves, gs, create_graph=True, allow_unused=True)
        tot = sum(((g * g).sum() for g in grads if g is not None and g.requires_grad),
                  m.zeros(()))
        if not tot.requires_grad:
            return [np.zeros(1)]
        gg = m.autograd.grad(tot, gs, allow_unused=True)
        return [np.zeros(1) if g is None else g.detach().numpy() for g in gg]

    for a, b in zip(run(ember), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)


GRADCHECK = [
    ('cat', lambda m, a, b: m.cat([a, b], 0), [A, B]),
    ('cat_dim1', lambda m, a, b: m.cat([a, b.t().narrow(0, 0, 3)], 1), [A, B]),
    ('stack', lambda m, a: m.stack([a, a * 2], -1), [A]),
    ('flip', lambda m, a: m.flip(a, [0, 1]), [A]),
    ('roll', lambda m, a: m.roll(a, (1, 2), (0, 1)), [A]),
    ('roll_flat', lambda m, a: m.roll(a, 3), [A]),
    ('rot90', lambda m, a: m.rot90(a, 3), [A]),
    ('repeat', lambda m, a: a.repeat(2, 1, 3), [A]),
    ('tile', lambda m, a: m.tile(a, (2,)), [V]),
    ('repeat_interleave_int', lambda m, a: m.repeat_interleave(a, 2, 1), [A]),
    ('repeat_interleave_tensor', lambda m, a: m.repeat_interleave(a, m.tensor([2, 0, 1]), 0), [A]),
    ('meshgrid', lambda m, a, b: m.meshgrid(a, b, indexing='xy'), [V, rand(3, seed=10)]),
    ('cartesian_prod', lambda m, a, b: m.cartesian_prod(a, b), [V, rand(3, seed=10)]),
    ('block_diag', lambda m, a, b: m.block_diag(a, b), [A, V]),
    ('broadcast_tensors', lambda m, a, b: m.broadcast_tensors(a, b), [A, V]),
    ('tril', lambda m, a: m.tril(a, -1), [A]),
    ('triu', lambda m, a: m.triu(a, 1), [C3]),
    ('diag_1d', lambda m, a: m.diag(a, 1), [V]),
    ('diag_2d', lambda m, a: m.diag(a, -1), [A]),
    ('diag_embed', lambda m, a: m.diag_embed(a, 1, 0, 2), [A]),
    ('diagflat', lambda m, a: m.diagflat(a), [B]),
    ('trace', lambda m, a: m.trace(a), [A]),
    ('hstack', lambda m, a, b: m.hstack([a, b]), [V, V]),
    ('vstack', lambda m, a, b: m.vstack([a, b]), [A, V]),
    ('dstack', lambda m, a, b: m.dstack([a, b]), [A, A]),
    ('column_stack', lambda m, a, b: m.column_stack([a, b]), [V, rand(4, 2, seed=1)]),
]


@pytest.mark.parametrize('name,fn,arrays', GRADCHECK, ids=[c[0] for c in GRADCHECK])
def test_gradcheck(name, fn, arrays):
    gradcheck_ember(fn, arrays)


# ---------------------------------------------------------------------------- grad_fn names
NAMES = [
    ('CatBackward0', lambda m, a: m.cat([a, a])),
    ('CatBackward0', lambda m, a: m.hstack([a, a])),
    ('CatBackward0', lambda m, a: m.column_stack([a, a])),
    ('StackBackward0', lambda m, a: m.stack([a, a])),
    ('StackBackward0', lambda m, a: m.cartesian_prod(a.select(0, 0), a.select(0, 1))),
    ('FlipBackward0', lambda m, a: m.fliplr(a)),
    ('FlipBackward0', lambda m, a: m.flipud(a)),
    ('RollBackward0', lambda m, a: m.roll(a, 1)),
    ('Rot90Backward0', lambda m, a: m.rot90(a)),
    ('RepeatBackward0', lambda m, a: a.repeat(2, 2)),
    ('RepeatBackward0', lambda m, a: m.tile(a, (2,))),
    ('ViewBackward0', lambda m, a: a.repeat_interleave(2)),
    ('ViewBackward0', lambda m, a: a.repeat_interleave(2, 0)),
    ('IndexSelectBackward0', lambda m, a: a.repeat_interleave(m.tensor([1, 2, 0]), 0)),
    ('ExpandBackward0', lambda m, a: m.meshgrid(a.select(0, 0), a.select(0, 1), indexing='ij')[0]),
    ('ExpandBackward0', lambda m, a: m.broadcast_tensors(a, a.select(0, 0))[1]),
    ('UnsqueezeBackward0', lambda m, a: m.atleast_3d(a)),
    ('UnsqueezeBackward0', lambda m, a: m.atleast_2d(a.select(0, 0))),
    ('ViewBackward0', lambda m, a: m.atleast_2d(a.select(0, 0).select(0, 0))),
    ('BlockDiagBackward0', lambda m, a: m.block_diag(a, a)),
    ('TrilBackward0', lambda m, a: m.tril(a)),
    ('TriuBackward0', lambda m, a: m.triu(a)),
    ('DiagEmbedBackward0', lambda m, a: m.diag(a.select(0, 0))),
    ('DiagEmbedBackward0', lambda m, a: m.diag_embed(a)),
    ('DiagEmbedBackward0', lambda m, a: m.diagflat(a)),
    ('DiagonalBackward0_copy', lambda m, a: m.diag(a)),
    ('TraceBackward0', lambda m, a: m.trace(a)),
]


@pytest.mark.parametrize('name,fn', NAMES, ids=[f"{i}-{n[0]}" for i, n in enumerate(NAMES)])
def test_grad_fn_names(name, fn):
    for m in (ember, torch):
        a = m.from_numpy(A.copy()).requires_grad_(True)
        out = fn(m, a)
        assert type(out.grad_fn).__name__ == name, (m.__name__, out.grad_fn)


def test_identity_returns():
    for m in (ember, torch):
        v = m.from_numpy(V.copy())
        a = m.from_numpy(A.copy())
        assert m.atleast_1d(v) is v
        assert m.atleast_2d(a) is a
        assert m.cartesian_prod(v) is v
        r = m.broadcast_tensors(a, v)
        assert r[0] is a
        assert r[1].stride() == (0, 1)
        assert m.cat([a]) is not a
        assert m.cat([a]).data_ptr() != a.data_ptr()


def test_meshgrid_views_and_strides():
    for m in (ember, torch):
        a, b = m.from_numpy(V.copy()), m.from_numpy(np.arange(3, dtype=f32))
        x, y = m.meshgrid(a, b, indexing='xy')
        assert tuple(x.shape) == (3, 4) and x.stride() == (0, 1) and y.stride() == (1, 0)
        assert x.data_ptr() == a.data_ptr()


def test_meshgrid_warns_without_indexing():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        ember.meshgrid(ember.zeros(2), ember.zeros(3))
    assert any('indexing' in str(x.message) for x in w)


def test_results_own_memory():
    a = ember.from_numpy(A.copy())
    for out in (ember.flip(a, []), ember.roll(a, 0), ember.rot90(a, 0), a.repeat(1, 1),
                ember.tile(a, ()), ember.tril(a, 10), ember.cat([a])):
        assert out.data_ptr() != a.data_ptr()
        out.zero_() if hasattr(out, 'zero_') else out._data.fill(0)
        assert np.array_equal(a.numpy(), A)


def test_broadcast_shapes():
    for args in [((3, 1), (4,)), ((2, 1), [3]), (3, (2, 1)), (), ((2, 0), (1,)), ((1,), ()),
                 ((5, 1, 3), (4, 1), (1,))]:
        e, t = ember.broadcast_shapes(*args), torch.broadcast_shapes(*args)
        assert isinstance(e, ember.Size) and tuple(e) == tuple(t), args
    ember.broadcast_shapes(ember.Size([2, 1]), (3,))


@pytest.mark.parametrize('fn', ['tril_indices', 'triu_indices'])
@pytest.mark.parametrize('args', [(3, 3), (3, 4), (4, 3), (3, 4, 1), (4, 3, -1), (3, 3, 5),
                                  (3, 3, -5), (0, 4), (1, 1), (5, 2, -2)])
def test_tri_indices(fn, args):
    check(lambda m: getattr(m, fn)(*args), [])
    check(lambda m: getattr(m, fn)(*args, dtype=m.int32), [])


def test_out_argument():
    for m in (ember, torch):
        a = m.from_numpy(A.copy())
        o = m.empty(0)
        r = m.cat([a, a], out=o)
        assert r is o and tuple(o.shape) == (6, 4)
        o2 = m.empty(0)
        m.stack([a, a], 1, out=o2)
        assert tuple(o2.shape) == (3, 2, 4)
        o3 = m.empty(0)
        m.tril(a, out=o3)
        assert np.array_equal(o3.numpy(), np.tril(A))


def test_inplace_tril_leaf_error():
    check_error(lambda m, a: a.requires_grad_().tril_(), [A], match='leaf Variable')


def test_repeat_no_args_typeerror():
    check_error(lambda m, a: a.repeat(), [A])


# ---------------------------------------------------------------------------- errors
ERRORS = [
    ('cat_empty', lambda m: m.cat([]), [], 'expected a non-empty list of Tensors'),
    ('cat_tensor', lambda m, a: m.cat(a), [A], 'must be tuple of Tensors'),
    ('cat_sizes', lambda m, a: m.cat([a, m.zeros(3, 5)]), [A],
     'Sizes of tensors must match except in dimension 0. Expected size 4 but got size 5 for '
     'tensor number 1 in the list.'),
    ('cat_sizes_dim1', lambda m, a: m.cat([a, m.zeros(2, 5)], 1), [A],
     'Sizes of tensors must match except in dimension 1. Expected size 3 but got size 2'),
    ('cat_ndim', lambda m, a, v: m.cat([a, v]), [A, rand(3)],
     'Tensors must have same number of dimensions: got 2 and 1'),
    ('cat_0d', lambda m, a, s: m.cat([s, a]), [A, S],
     'zero-dimensional tensor (at position 0) cannot be concatenated'),
    ('cat_dim', lambda m, a: m.cat([a, a], 2), [A], 'Dimension out of range'),
    ('cat_dim_none', lambda m, a: m.cat([a, a], None), [A], "argument 'dim' must be int"),
    ('cat_empty2d_mismatch', lambda m: m.cat([m.zeros(0, 3), m.zeros(0, 4)]), [],
     'Sizes of tensors must match'),
    ('stack_empty', lambda m: m.stack([]), [], 'stack expects a non-empty TensorList'),
    ('stack_sizes', lambda m, a, v: m.stack([a, v]), [A, V],
     'stack expects each tensor to be equal size, but got [3, 4] at entry 0 and [4] at entry 1'),
    ('stack_dim', lambda m, a: m.stack([a, a], 3), [A], 'Dimension out of range'),
    ('stack_tensor', lambda m, a: m.stack(a), [A], 'must be tuple of Tensors'),
    ('hstack_empty', lambda m: m.hstack([]), [], 'hstack expects a non-empty TensorList'),
    ('vstack_empty', lambda m: m.vstack([]), [], 'vstack expects a non-empty TensorList'),
    ('dstack_empty', lambda m: m.dstack([]), [], 'dstack expects a non-empty TensorList'),
    ('column_stack_empty', lambda m: m.column_stack([]), [],
     'column_stack expects a non-empty TensorList'),
    ('column_stack_sizes', lambda m: m.column_stack([m.tensor(1.), m.tensor([2., 3])]), [],
     'Sizes of tensors must match except in dimension 1'),
    ('vstack_sizes', lambda m, a: m.vstack([a, m.zeros(3)]), [A], 'Sizes of tensors must match'),
    ('flip_dup', lambda m, a: m.flip(a, [0, 0]), [A], 'dim 0 appears multiple times'),
    ('flip_dup_neg', lambda m, a: m.flip(a, [1, -1]), [A], 'dim 1 appears multiple times'),
    ('flip_range', lambda m, a: m.flip(a, [2]), [A], 'Dimension out of range'),
    ('flip_int_dims', lambda m, a: m.flip(a, 0), [A], 'must be tuple of ints'),
    ('fliplr_1d', lambda m, v: m.fliplr(v), [V], 'Input must be >= 2-d.'),
    ('flipud_0d', lambda m, s: m.flipud(s), [S], 'Input must be >= 1-d.'),
    ('roll_align', lambda m, a: m.roll(a, [1, 2], [0]), [A],
     'shifts and dimensions must align. shifts: 2, dims:1'),
    ('roll_align_nodims', lambda m, a: m.roll(a, [1, 2]), [A], 'shifts and dimensions must align'),
    ('roll_required', lambda m, a: m.roll(a, [], []), [A], '`shifts` required'),
    ('roll_range', lambda m, a: m.roll(a, 1, 5), [A], 'Dimension out of range'),
    ('rot90_same', lambda m, a: m.rot90(a, 1, [0, 0]), [A],
     'expected rotation dims to be different, but got dim0 = 0 and dim1 = 0'),
    ('rot90_same_wrapped', lambda m, a: m.rot90(a, 1, [0, -2]), [A],
     'expected rotation dims to be different'),
    ('rot90_ndims', lambda m, a: m.rot90(a, 1, [0]), [A],
     'expected total rotation dims == 2, but got dims = 1'),
    ('rot90_1d', lambda m, v: m.rot90(v), [V], 'expected total dims >= 2, but got total dims = 1'),
    ('rot90_range', lambda m, a: m.rot90(a, 1, [0, 2]), [A], 'Dimension out of range'),
    ('repeat_few', lambda m, a: a.repeat(2), [A],
     'Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor'),
    ('repeat_neg', lambda m, a: a.repeat(-1, 1), [A],
     'Trying to create tensor with negative dimension -3: [-3, 4]'),
    ('tile_neg', lambda m, a: m.tile(a, (-1,)), [A],
     'Trying to create tensor with negative dimension -4: [3, -4]'),
    ('ri_size', lambda m, a: m.repeat_interleave(a, m.tensor([1, 2]), dim=0), [A],
     'repeats must have the same size as input along dim, but got repeats.size(0) = 2 and '
     'input.size(0) = 3'),
    ('ri_negative_tensor', lambda m, a: m.repeat_interleave(a, m.tensor([-1, 2, 1]), dim=0), [A],
     'repeats can not be negative'),
    ('ri_negative_int', lambda m, a: m.repeat_interleave(a, -1), [A], 'Repeats must be non-negative'),
    ('ri_float_repeats', lambda m, a: m.repeat_interleave(a, m.tensor([1., 2, 0]), dim=0), [A],
     'not implemented for'),
    ('ri_2d_repeats', lambda m, a: m.repeat_interleave(a, m.tensor([[1, 2, 0]]), dim=0), [A],
     'repeats must be 0-dim or 1-dim tensor'),
    ('ri_float_only', lambda m, v: m.repeat_interleave(v), [V], 'not implemented for'),
    ('ri_dim', lambda m, a: m.repeat_interleave(a, 2, dim=5), [A], 'Dimension out of range'),
    ('ri_output_size', lambda m, a: m.repeat_interleave(a, 2, output_size=5), [A],
     'repeat_interleave: Invalid output_size, expected 24 but got 5'),
    ('meshgrid_2d', lambda m, a: m.meshgrid(a, indexing='ij'), [A],
     'torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got'),
    ('meshgrid_indexing', lambda m, v: m.meshgrid(v, v, indexing='foo'), [V],
     'torch.meshgrid: indexing must be one of "xy" or "ij", but received: foo'),
    ('meshgrid_empty', lambda m: m.meshgrid([], indexing='ij'), [],
     'meshgrid expects a non-empty TensorList'),
    ('meshgrid_dtype', lambda m, v: m.meshgrid([v, v.double()], indexing='ij'), [V],
     'meshgrid expects all tensors to have the same dtype'),
    ('cartesian_2d', lambda m, a: m.cartesian_prod(a), [A], 'Expect a 1D vector, but got shape [3, 4]'),
    ('cartesian_dtype', lambda m, v: m.cartesian_prod(v, m.tensor([1, 2])), [V],
     'meshgrid expects all tensors to have the same dtype'),
    ('block_diag_3d', lambda m, c: m.block_diag(c), [C3],
     'torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 0 has 3 dimensions'),
    ('broadcast_tensors', lambda m, a: m.broadcast_tensors(a, m.zeros(5)), [A],
     'The size of tensor a (4) must match the size of tensor b (5) at non-singleton dimension 1'),
    ('broadcast_shapes', lambda m: m.broadcast_shapes((3, 2), (4,)), [],
     'Attempting to broadcast a dimension of length 4 at -1! Mismatching argument at index 1 '
     'had (4,); but expected shape should be broadcastable to [3, 2]'),
    ('broadcast_shapes_neg', lambda m: m.broadcast_shapes((-1,), (2,)), [],
     'Attempting to broadcast a dimension with negative length!'),
    ('tril_1d', lambda m, v: m.tril(v), [V], 'tril: input tensor must have at least 2 dimensions'),
    ('triu_0d', lambda m, s: m.triu(s), [S], 'triu: input tensor must have at least 2 dimensions'),
    ('diag_3d', lambda m, c: m.diag(c), [C3], 'diag(): Supports 1D or 2D tensors. Got 3D'),
    ('diag_0d', lambda m, s: m.diag(s), [S], 'diag(): Supports 1D or 2D tensors. Got 0D'),
    ('diag_embed_same', lambda m, a: m.diag_embed(a, 0, 1, 1), [A],
     'diagonal dimensions cannot be identical 1, 1'),
    ('diag_embed_same_wrapped', lambda m, a: m.diag_embed(a, 0, 1, -2), [A],
     'diagonal dimensions cannot be identical 1, -2'),
    ('diag_embed_range', lambda m, a: m.diag_embed(a, 0, 3, 0), [A], 'Dimension out of range'),
    ('diag_embed_0d', lambda m, s: m.diag_embed(s), [S], 'Dimension out of range'),
    ('trace_1d', lambda m, v: m.trace(v), [V], 'trace: expected a matrix, but got tensor with dim 1'),
    ('trace_bool', lambda m, a: m.trace(a), [rand(2, 2, dtype=bool)], '"trace" not implemented for'),
    ('tril_indices_neg_row', lambda m: m.tril_indices(-1, 4), [], 'row must be non-negative, got-1'),
    ('triu_indices_neg_col', lambda m: m.triu_indices(3, -2), [], 'col must be non-negative, got-2'),
    ('tril_indices_float', lambda m: m.tril_indices(3, 3, dtype=m.float32), [],
     '"tril_indices" not implemented for \'Float\''),
]


@pytest.mark.parametrize('name,fn,arrays,match', ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(name, fn, arrays, match):
    check_error(fn, arrays, match=match)


def test_flip_method_dims_keyword():
    # x.flip(dims=...) as torch's method takes it (issue 21)
    check(lambda m, x: (x.flip(dims=[1]), x.flip(dims=(0, 2)), x.flip(0, 1)), [rand(2, 3, 4)],
          grad=True)
    check_error(lambda m, x: x.flip(dims=1), [rand(2, 3)], match="must be tuple of ints")


# ------------------------------------------------------------------ _chunk_cat
@pytest.mark.parametrize('shapes,dim,n', [
    ([(1, 2, 3), (1, 2, 3)], -1, 5), ([(1, 2, 129), (1, 2, 297)], -1, 5),
    ([(3, 3, 2, 1), (1, 4, 2, 2), (2, 1, 3, 3)], 0, 2),
    ([(2, 3, 3), (2, 3, 1, 2), (2, 3), (2, 3, 271)], 1, 3), ([(4, 6)], 1, 3),
])
def test_chunk_cat(shapes, dim, n):
    arrs = [rand(*s, dtype=f64, seed=i) for i, s in enumerate(shapes)]
    check(lambda m, *ts: m._chunk_cat(list(ts), dim, n), arrs)
    # non-contiguous inputs, an int dtype, out= of a wider float dtype
    check(lambda m, *ts: m._chunk_cat([t.mT.contiguous().mT if t.dim() > 1 else t
                                       for t in ts], dim, n), arrs)
    check(lambda m, *ts: m._chunk_cat([(t * 10).long() for t in ts], dim, n), arrs)
    check(lambda m, *ts: m._chunk_cat([t.float() for t in ts], dim, n,
                                      out=m.empty(0, dtype=m.float64)), arrs)


@pytest.mark.parametrize('shapes,dim,n,match', [
    ([(2, 3), (4,)], -1, 3, 'expects non-negative dim when input tensors have different'),
    ([(2, 3), (4,)], 1, 3, '_chunk_cat expects dim < ndim for all input tensors'),
    ([(2, 3, 4), (4, 3)], 1, 3, 'expects same sizes of 0,...,dim-1 dimensions'),
    ([(2,), (3,)], 0, 0, '_chunk_cat expects positive num_chunks'),
    ([], 0, 1, '_chunk_cat expects a non-empty input tensor list'),
    ([(0,), (3,)], 0, 1, '_chunk_cat expects non-empty tensor'),
    ([(2, 3), (2, 3)], 2, 1, 'Dimension out of range'),
])
def test_chunk_cat_errors(shapes, dim, n, match):
    check_error(lambda m, *ts: m._chunk_cat(list(ts), dim, n),
                [rand(*s, seed=1) for s in shapes], match)
    check_error(lambda m: m._chunk_cat([m.zeros(2, 3), m.zeros(2, 3, dtype=m.int32)], 0, 1),
                [], 'expects all input tensors with the same dtype')
    check_error(lambda m: m._chunk_cat([m.zeros(2, 3)], 0, 1, out=m.zeros(1, dtype=m.int32)),
                [], "input types can't be cast to the desired output type Int")


def test_chunk_cat_gradcheck():
    # NOTE: torch has no derivative for _chunk_cat; ember's is checked by finite differences
    gradcheck_ember(lambda m, a, b: m._chunk_cat([a, b], 1, 2),
                    [rand(2, 3, seed=1, dtype=f64), rand(2, 5, 2, seed=2, dtype=f64)])
