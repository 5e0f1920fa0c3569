"""Output strides: results of ops on permuted / channels_last / broadcast / expanded /
sliced inputs get PyTorch's strides (its elementwise and preserve_format rules), and
empty tensors report PyTorch's strides and storage offsets."""
import random

import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as EF
import torch.nn.functional as TF
from ember._layout import elementwise_strides, preserve_strides


def _pair(shape, perm=None, fmt=None, sl=None, expand=None, dtype=torch.float32):
    """The same values in torch and ember, laid out in memory order ``perm`` (or
    memory format ``fmt``), then sliced by ``sl`` or expanded to ``expand``."""
    nd = len(shape)
    perm = list(range(nd)) if perm is None else list(perm)
    inv = [perm.index(i) for i in range(nd)]
    base = torch.randn([shape[p] for p in perm]).to(dtype)
    t = base.permute(inv)
    e = ember.from_numpy(base.numpy().copy()).permute(*inv)
    if fmt is not None:
        t = t.contiguous(memory_format=fmt)
        e = e.contiguous(memory_format=getattr(ember, str(fmt).split('.')[-1]))
    if sl is not None:
        t, e = t[sl], e[sl]
    if expand is not None:
        t, e = t.expand(*expand), e.expand(*expand)
    return e, t


def _same_layout(e, t):
    assert e.shape == t.shape
    assert e.stride() == t.stride(), (e.stride(), t.stride())
    assert e.is_contiguous() == t.is_contiguous()
    if t.dim() == 4:
        assert e.is_contiguous(memory_format=ember.channels_last) == \
            t.is_contiguous(memory_format=torch.channels_last)
    if t.dim() == 5:
        assert e.is_contiguous(memory_format=ember.channels_last_3d) == \
            t.is_contiguous(memory_format=torch.channels_last_3d)


def _same(e, t, atol=1e-5):
    _same_layout(e, t)
    np.testing.assert_allclose(e.detach().numpy().astype(np.float64),
                               t.detach().numpy().astype(np.float64), atol=atol, rtol=1e-5)


CL, CL3 = torch.channels_last, torch.channels_last_3d
INPUTS = {
    'channels_last': dict(shape=(2, 3, 4, 5), fmt=CL),
    'channels_last_3d': dict(shape=(2, 3, 2, 3, 4), fmt=CL3),
    'permuted3': dict(shape=(3, 4, 5), perm=(2, 0, 1)),
    'transposed': dict(shape=(4, 6), perm=(1, 0)),
    'sliced_cl': dict(shape=(2, 3, 4, 6), fmt=CL, sl=(slice(None), slice(None), slice(None, None, 2))),
    'sliced_perm': dict(shape=(4, 6, 5), perm=(1, 2, 0), sl=(slice(None, None, 2),)),
    'expanded': dict(shape=(1, 5), expand=(4, 5)),
    'nc11_cl': dict(shape=(2, 3, 1, 1), perm=(0, 2, 3, 1)),
}

UNARY = {
    'neg': lambda m, a: -a, 'exp': lambda m, a: a.exp(), 'abs': lambda m, a: m.abs(a),
    'sigmoid': lambda m, a: a.sigmoid(), 'relu': lambda m, a: m.relu(a),
    'add_scalar': lambda m, a: a + 1.5, 'mul_scalar': lambda m, a: 2 * a,
    'div_scalar': lambda m, a: a / 3, 'pow': lambda m, a: a ** 2, 'gt': lambda m, a: a > 0,
    'eq': lambda m, a: a == a, 'clamp': lambda m, a: a.clamp(-0.5, 0.5),
    'clamp_min': lambda m, a: m.clamp_min(a, 0.), 'where': lambda m, a: m.where(a > 0, a, 0.),
    'atan2': lambda m, a: m.atan2(a, a), 'maximum': lambda m, a: m.maximum(a, a * 0.5),
    'logical_not': lambda m, a: m.logical_not(a > 0), 'remainder': lambda m, a: a % 0.7,
    'sub_self': lambda m, a: a - a, 'floor': lambda m, a: a.floor(),
}


# N C 1 1 laid out channels_last: NumPy calls it C-contiguous (it ignores dims of size 1);
# PyTorch keeps C order for one-shape operands and for its Scalar kernels (pow, clamp) but
# orders the dims by those strides when a scalar or broadcast operand joins (add, gt, where).


@pytest.mark.parametrize('kind', list(INPUTS))
@pytest.mark.parametrize('op', list(UNARY))
def test_pointwise_keeps_layout(kind, op):
    e, t = _pair(**INPUTS[kind])
    f = UNARY[op]
    _same(f(ember, e), f(torch, t))


BINARY_CASES = [
    # (lhs spec, rhs spec): first operand wins, broadcast dims do not count
    (dict(shape=(2, 3, 4, 5), fmt=CL), dict(shape=(2, 3, 4, 5))),
    (dict(shape=(2, 3, 4, 5)), dict(shape=(2, 3, 4, 5), fmt=CL)),
    (dict(shape=(2, 3, 4, 5), fmt=CL), dict(shape=(5,))),
    (dict(shape=(3, 1, 1)), dict(shape=(2, 3, 4, 5), fmt=CL)),
    (dict(shape=(4, 5), perm=(1, 0)), dict(shape=(3, 1, 5))),
    (dict(shape=(3, 4, 5), perm=(2, 0, 1)), dict(shape=(3, 4, 5), perm=(1, 2, 0))),
    (dict(shape=(1, 5), expand=(4, 5)), dict(shape=(4, 5), perm=(1, 0))),
    (dict(shape=(2, 3, 4, 6), fmt=CL, sl=(Ellipsis, slice(None, None, 2))),
     dict(shape=(2, 3, 4, 3), fmt=CL)),
]


@pytest.mark.parametrize('i', range(len(BINARY_CASES)))
@pytest.mark.parametrize('op', ['add', 'mul', 'lt', 'where'])
def test_binary_layout(i, op):
    (ea, ta), (eb, tb) = (_pair(**s) for s in BINARY_CASES[i])
    if op == 'where':
        _same(ember.where(ea > 0, ea, eb), torch.where(ta > 0, ta, tb))
    else:
        _same(getattr(ember, op)(ea, eb), getattr(torch, op)(ta, tb))


def test_elementwise_rule_random_against_torch():
    rng = random.Random(0)

    def mk(shape, perm):
        inv = [perm.index(i) for i in range(len(perm))]
        return torch.randn([shape[p] for p in perm]).permute(inv)

    def rnd(shape):
        nd = len(shape)
        perm = list(range(nd))
        rng.shuffle(perm)
        k = rng.random()
        if k < 0.2:
            return mk([s * 2 for s in shape], perm)[tuple(slice(0, None, 2) for _ in shape)]
        if k < 0.3 and nd:
            return torch.randn([1] * nd).expand(*shape)
        return mk(shape, perm)

    for _ in range(400):
        nd = rng.randint(1, 5)
        shape = [rng.choice([1, 1, 2, 3]) for _ in range(nd)]
        ts = []
        for _ in range(rng.randint(1, 3)):
            k = rng.random()
            if k < 0.15:
                ts.append(torch.tensor(1.5))
            elif k < 0.45:
                bs = [s if rng.random() < 0.5 else 1 for s in shape]
                ts.append(rnd(bs[rng.randint(0, nd):] if rng.random() < 0.3 else bs))
            else:
                ts.append(rnd(shape))
        r = ts[0].neg() if len(ts) == 1 else ts[0] + ts[1] if len(ts) == 2 else \
            torch.addcmul(*ts)
        if not r.numel():
            continue
        st = elementwise_strides(tuple(r.shape), [(tuple(t.shape), t.stride()) for t in ts])
        assert (st or torch.empty(r.shape).stride()) == r.stride()


def test_preserve_rule_random_against_torch():
    rng = random.Random(1)
    for _ in range(300):
        nd = rng.randint(1, 5)
        shape = [rng.choice([1, 2, 3]) for _ in range(nd)]
        perm = list(range(nd))
        rng.shuffle(perm)
        t = _pair([s * 2 for s in shape], perm, sl=tuple(slice(0, None, 2) for _ in shape))[1] \
            if rng.random() < 0.3 else _pair(shape, perm)[1]
        assert preserve_strides(tuple(t.shape), t.stride()) == t.clone().stride()


LIKE = {
    'clone': lambda m, a: a.clone(),
    'clone_preserve': lambda m, a: a.clone(memory_format=m.preserve_format),
    'double': lambda m, a: a.double(), 'half': lambda m, a: a.half(),
    'to_int': lambda m, a: a.to(m.int64), 'to_copy': lambda m, a: a.to(m.float32, copy=True),
    'empty_like': lambda m, a: m.empty_like(a), 'zeros_like': lambda m, a: m.zeros_like(a),
    'ones_like': lambda m, a: m.ones_like(a), 'full_like': lambda m, a: m.full_like(a, 2.),
    'rand_like': lambda m, a: m.rand_like(a), 'randn_like': lambda m, a: m.randn_like(a),
    'randint_like': lambda m, a: m.randint_like(a, 5),
}


@pytest.mark.parametrize('kind', list(INPUTS))
@pytest.mark.parametrize('op', list(LIKE))
def test_preserve_format(kind, op):
    e, t = _pair(**INPUTS[kind])
    re, rt = LIKE[op](ember, e), LIKE[op](torch, t)
    if op in ('empty_like', 'rand_like', 'randn_like', 'randint_like'):
        _same_layout(re, rt)
    else:
        _same(re, rt, atol=1e-2)


def test_rand_like_draws_in_memory_order():
    e, t = _pair((2, 3, 4, 5), fmt=CL)
    ember.manual_seed(3)
    torch.manual_seed(3)
    re, rt = ember.rand_like(e), torch.rand_like(t)
    _same_layout(re, rt)
    assert (re.numpy() == rt.numpy()).all()


def test_contiguous_results_stay_contiguous():
    e, t = _pair((2, 3, 4, 5))
    for f in (lambda m, a: a + a, lambda m, a: a.exp(), lambda m, a: a.clone(),
              lambda m, a: m.zeros_like(a), lambda m, a: a.double()):
        _same(f(ember, e), f(torch, t))
        assert f(ember, e).is_contiguous()


# ------------------------------------------------------------------ conv / batch_norm
@pytest.mark.parametrize('which', ['input', 'weight', 'both', 'none'])
def test_conv2d_channels_last(which):
    ex, tx = _pair((2, 3, 6, 6), fmt=CL if which in ('input', 'both') else None)
    ew, tw = _pair((4, 3, 3, 3), fmt=CL if which in ('weight', 'both') else None)
    eb, tb = _pair((4,))
    _same(EF.conv2d(ex, ew, eb, padding=1), TF.conv2d(tx, tw, tb, padding=1), atol=1e-4)


def test_conv3d_and_transposed_channels_last():
    ex, tx = _pair((2, 3, 4, 4, 4), fmt=CL3)
    ew, tw = _pair((4, 3, 3, 3, 3))
    _same(EF.conv3d(ex, ew), TF.conv3d(tx, tw), atol=1e-4)
    ex, tx = _pair((2, 3, 5, 5), fmt=CL)
    ew, tw = _pair((3, 4, 3, 3))
    _same(EF.conv_transpose2d(ex, ew, stride=2), TF.conv_transpose2d(tx, tw, stride=2),
          atol=1e-4)


def test_conv_ambiguous_and_permuted_inputs_are_contiguous():
    ex, tx = _pair((2, 3, 1, 1), perm=(0, 2, 3, 1))
    ew, tw = _pair((4, 3, 1, 1))
    _same(EF.conv2d(ex, ew), TF.conv2d(tx, tw), atol=1e-4)
    ex, tx = _pair((2, 3, 6, 5), perm=(0, 1, 3, 2))
    ew, tw = _pair((4, 3, 3, 3))
    _same(EF.conv2d(ex, ew), TF.conv2d(tx, tw), atol=1e-4)


@pytest.mark.parametrize('training', [True, False])
@pytest.mark.parametrize('kind', ['channels_last', 'channels_last_3d', 'permuted3'])
def test_batch_norm_layout(kind, training):
    e, t = _pair(**INPUTS[kind])
    C = t.shape[1]
    _same(EF.batch_norm(e, ember.zeros(C), ember.ones(C), ember.ones(C), ember.zeros(C),
                        training=training),
          TF.batch_norm(t, torch.zeros(C), torch.ones(C), torch.ones(C), torch.zeros(C),
                        training=training), atol=1e-4)


# ------------------------------------------------------------------ empty tensors
EMPTY = [
    'm.empty(0, 3)', 'm.empty(2, 0, 4)', 'm.empty(0)', 'm.empty(3, 0)', 'm.zeros(0, 3).t()',
    'm.ones(2, 0, 4).permute(2, 0, 1)', 'm.empty(2, 0, 4)[1]', 'm.empty(2, 0, 4)[:, :, 1:3]',
    'm.empty(2, 3, 4)[:, :0]', 'm.empty(0, 3).unsqueeze(0)', 'm.empty(0, 3).unsqueeze(1)',
    'm.empty(0, 3).unsqueeze(2)', 'm.empty(0, 3)[None]', 'm.empty(0, 3).view(3, 0)',
    'm.empty(0, 3).reshape(-1)', 'm.empty(0, 3).expand(2, 0, 3)',
    'm.empty(2, 0, 4).transpose(0, 1)', 'm.empty(2, 0, 4).narrow(2, 1, 2)',
    'm.empty(2, 0, 4).select(2, 1)', 'm.empty(0, 3) + 1', 'm.empty(0, 3).clone()',
    'm.empty(0, 3).t().clone()', 'm.empty(0, 3).t().contiguous()', 'm.empty(0, 3).float()',
    'm.empty_like(m.empty(0, 3).t())', 'm.zeros_like(m.empty(2, 0, 4).permute(2, 0, 1))',
    'm.zeros(2, 0, 4).sum(1)', 'm.zeros(2, 0, 4).sum(0)',
    'm.cat([m.empty(0, 3), m.empty(0, 3)])', 'm.empty(0, 3).flatten()',
    'm.empty(2, 0, 4).squeeze(1)', 'm.empty(2, 1, 0).squeeze(1)',
    'm.empty(2, 0, 4).unbind(0)[1]', 'm.empty(2, 0, 4).chunk(2, 0)[1]',
    'm.empty(0, 3).as_strided((0, 3), (1, 7))', 'm.empty(2, 0).mm(m.empty(0, 3))',
    'm.empty(0, 3).mm(m.empty(3, 4))', 'm.empty(2, 0, 4).diagonal(0, 0, 2)',
    'm.empty(0, 3, 4).unfold(1, 2, 1)', 'm.empty(0, 2, 3).movedim(0, 2)',
    'm.empty(0, 3, 4).split(2, 2)[1]', 'm.tensor([])', 'm.tensor([[]])',
    'm.empty(0, 3).detach()', 'm.empty(0, 3).to(m.float64)', 'm.empty(0, 4).view(-1, 2)',
    'm.empty(0, 4).view(2, 0, 2)', 'm.zeros(0, 2, 3, 4).contiguous(memory_format=m.channels_last)',
]


@pytest.mark.parametrize('expr', EMPTY)
def test_empty_strides_and_offsets(expr):
    e, t = eval(expr, {'m': ember}), eval(expr, {'m': torch})
    assert e.shape == t.shape
    assert (e.stride(), e.storage_offset()) == (t.stride(), t.storage_offset())
    assert e.is_contiguous() == t.is_contiguous()


# ops whose PyTorch kernels write a contiguous result whatever the input's layout, and
# layer ops that keep it (checked on channels_last and permuted inputs)
LAYER_OPS = {
    'softmax': lambda m, F, a: F.softmax(a, 1), 'log_softmax': lambda m, F, a: F.log_softmax(a, -1),
    'masked_fill': lambda m, F, a: a.masked_fill(a > 0, 0.), 'relu': lambda m, F, a: F.relu(a),
    'gelu': lambda m, F, a: F.gelu(a), 'silu': lambda m, F, a: F.silu(a),
    'elu': lambda m, F, a: F.elu(a), 'leaky_relu': lambda m, F, a: F.leaky_relu(a),
    'hardtanh': lambda m, F, a: F.hardtanh(a), 'softplus': lambda m, F, a: F.softplus(a),
    'mish': lambda m, F, a: F.mish(a), 'hardswish': lambda m, F, a: F.hardswish(a),
    'batch_norm_eval': lambda m, F, a: F.batch_norm(a, m.zeros(3), m.ones(3)),
    'max_pool2d': lambda m, F, a: F.max_pool2d(a, 2), 'avg_pool2d': lambda m, F, a: F.avg_pool2d(a, 2),
    'interpolate': lambda m, F, a: F.interpolate(a, scale_factor=2),
    'layer_norm': lambda m, F, a: F.layer_norm(a, (a.shape[-1],)),
    'group_norm': lambda m, F, a: F.group_norm(a, 3),
    'dropout_eval': lambda m, F, a: F.dropout(a, 0.5, False),
}


@pytest.mark.parametrize('kind', ['channels_last', 'permuted4'])
@pytest.mark.parametrize('op', list(LAYER_OPS))
def test_layer_op_layout(kind, op):
    spec = dict(shape=(2, 3, 4, 6), fmt=CL) if kind == 'channels_last' else \
        dict(shape=(2, 3, 4, 6), perm=(0, 2, 1, 3))
    e, t = _pair(**spec)
    f = LAYER_OPS[op]
    _same(f(ember, EF, e), f(torch, TF, t), atol=1e-4)


@pytest.mark.parametrize('spec', [dict(shape=(2, 3, 4, 5), fmt=CL), dict(shape=(2, 3, 4, 5), perm=(0, 2, 3, 1)),
                                  dict(shape=(4, 6), perm=(1, 0)),
                                  dict(shape=(2, 3, 8), sl=(slice(None), slice(None), slice(None, None, 2)))])
def test_leaf_grad_obeys_layout_contract(spec):
    """A leaf's .grad has the leaf's strides when the leaf is dense (channels_last,
    permuted), else contiguous strides (PyTorch's gradient layout contract)."""
    e, t = _pair(**spec)
    e, t = e.detach().requires_grad_(), t.detach().requires_grad_()
    (e.exp() * 2).sum().backward()
    (t.exp() * 2).sum().backward()
    _same(e.grad, t.grad)


@pytest.mark.parametrize('op', ['add_scalar', 'exp', 'mul_self', 'gt', 'where', 'mul_scalar',
                                'maximum', 'clamp'])
@pytest.mark.parametrize('make', [lambda m: m.zeros(0, 3).t(),
                                  lambda m: m.zeros(2, 0, 3).permute(2, 0, 1),
                                  lambda m: m.zeros(0, 2, 3, 4).contiguous(
                                      memory_format=m.channels_last)])
def test_pointwise_on_permuted_empties(op, make):
    f = {'add_scalar': lambda m, a: a + 1, 'exp': lambda m, a: a.exp(),
         'mul_self': lambda m, a: a * a, 'gt': lambda m, a: a > 0,
         'where': lambda m, a: m.where(a > 0, a, 0.), 'mul_scalar': lambda m, a: 2 * a,
         'maximum': lambda m, a: m.maximum(a, a), 'clamp': lambda m, a: a.clamp(0, 1)}[op]
    e, t = f(ember, make(ember)), f(torch, make(torch))
    assert e.shape == t.shape and e.stride() == t.stride(), (e.stride(), t.stride())
