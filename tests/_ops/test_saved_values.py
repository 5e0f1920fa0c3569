"""``grad_fn._saved_<name>`` / ``_raw_saved_<name>`` and ``dir(grad_fn)`` of common backward
nodes, compared with torch (ember/_ops/saved_values.py and the families' tables)."""
import pytest
import torch

import ember
from oracle import assert_same

F_CASES = {
    'mul': lambda m, a, b, s: a * b,
    'mul_scalar': lambda m, a, b, s: a * 3,
    'mul_float_scalar': lambda m, a, b, s: 2.5 * a,
    'div': lambda m, a, b, s: a / b,
    'div_scalar': lambda m, a, b, s: a / 2,
    'add_alpha': lambda m, a, b, s: m.add(a, b, alpha=2),
    'sub': lambda m, a, b, s: a - b,
    'exp': lambda m, a, b, s: a.exp(),
    'log': lambda m, a, b, s: a.log(),
    'pow': lambda m, a, b, s: a ** 2,
    'pow_tensor': lambda m, a, b, s: a ** b,
    'rpow': lambda m, a, b, s: 2 ** a,
    'square': lambda m, a, b, s: a.square(),
    'sqrt': lambda m, a, b, s: a.sqrt(),
    'tanh': lambda m, a, b, s: a.tanh(),
    'sigmoid': lambda m, a, b, s: a.sigmoid(),
    'relu': lambda m, a, b, s: a.relu(),
    'sin': lambda m, a, b, s: a.sin(),
    'neg': lambda m, a, b, s: -a,
    'sum': lambda m, a, b, s: a.sum(),
    'sum_dim': lambda m, a, b, s: a.sum(1),
    'sum_dims_keepdim': lambda m, a, b, s: a.sum((0, 1), keepdim=True),
    'mean': lambda m, a, b, s: a.mean(),
    'mean_dim': lambda m, a, b, s: a.mean(0),
    'mm': lambda m, a, b, s: s @ s,
    'addmm': lambda m, a, b, s: m.addmm(s, s, s, beta=2, alpha=3),
    'bmm': lambda m, a, b, s: m.bmm(s[None], s[None]),
    'mv': lambda m, a, b, s: s.mv(s[0]),
    'view': lambda m, a, b, s: a.view(6),
    'transpose': lambda m, a, b, s: a.transpose(0, 1),
    'permute': lambda m, a, b, s: a[None].permute(2, 0, 1),
    'unsqueeze': lambda m, a, b, s: a.unsqueeze(1),
    'select': lambda m, a, b, s: a[1],
    'cat': lambda m, a, b, s: m.cat([a, b], 1),
    'stack': lambda m, a, b, s: m.stack([a, b]),
    'softmax': lambda m, a, b, s: a.softmax(1),
    'log_softmax': lambda m, a, b, s: a.log_softmax(0),
    'gelu': lambda m, a, b, s: m.nn.functional.gelu(a, approximate='tanh'),
    'leaky_relu': lambda m, a, b, s: m.nn.functional.leaky_relu(a, 0.2),
    'clamp': lambda m, a, b, s: a.clamp(0, 1),
    'clamp_min': lambda m, a, b, s: a.clamp(min=0.5),
    'where': lambda m, a, b, s: m.where(a > 0.5, a, b),
    'mse': lambda m, a, b, s: m.nn.functional.mse_loss(a, b, reduction='sum'),
    'bce_logits': lambda m, a, b, s: m.nn.functional.binary_cross_entropy_with_logits(
        a, b.detach()),
    'cumsum': lambda m, a, b, s: a.cumsum(1),
    'repeat': lambda m, a, b, s: a.repeat(2, 1),
    'flip': lambda m, a, b, s: a.flip(0),
    'roll': lambda m, a, b, s: a.roll(1, 0),
    'addcmul': lambda m, a, b, s: m.addcmul(a, a, b, value=2),
    'lerp': lambda m, a, b, s: m.lerp(a, b, 0.3),
    'atan2': lambda m, a, b, s: m.atan2(a, b),
    'maximum': lambda m, a, b, s: m.maximum(a, b),
    'layer_norm': lambda m, a, b, s: m.nn.functional.layer_norm(a, (3,)),
    'masked_fill': lambda m, a, b, s: a.masked_fill(a > 0.5, 0.),
    'avg_pool2d': lambda m, a, b, s: m.nn.functional.avg_pool2d(s[None, None], 2, 1),
    'max_pool2d': lambda m, a, b, s: m.nn.functional.max_pool2d(s[None, None], 2, 1),
    'max_dim': lambda m, a, b, s: a.max(1)[0],
    'expand': lambda m, a, b, s: a[:, None].expand(2, 4, 3),
    'slice_open': lambda m, a, b, s: a[:, 1:],
    'slice_negative': lambda m, a, b, s: a[:, -3:-1],
    'slice_step': lambda m, a, b, s: s[::2],
    'slice_past_end': lambda m, a, b, s: s[1:100],
    'narrow': lambda m, a, b, s: a.narrow(1, 1, 2),
    'squeeze_all': lambda m, a, b, s: a[None].squeeze(),
    'squeeze_dim': lambda m, a, b, s: a[:, None].squeeze(1),
    'squeeze_negative': lambda m, a, b, s: a[:, :, None].squeeze(-1),
    'squeeze_dims': lambda m, a, b, s: a[None, :, None].squeeze((0, -2)),
    'split': lambda m, a, b, s: s.split(2)[1],
    'split_sizes': lambda m, a, b, s: s.split([1, 2], -1)[0],
    'chunk': lambda m, a, b, s: a.chunk(2, 1)[0],
    'unbind': lambda m, a, b, s: s.unbind(1)[2],
    'min_dim_keepdim': lambda m, a, b, s: a.min(0, keepdim=True)[0],
}


def _node(m, name):
    g = m.Generator().manual_seed(0)
    mk = lambda *sh: m.rand(*sh, generator=g).add(0.1).requires_grad_()   # noqa: E731
    return F_CASES[name](m, mk(2, 3), mk(2, 3), mk(3, 3)).grad_fn


def _saved(node):
    return sorted(n for n in dir(node) if n.startswith(('_saved_', '_raw_saved_')))


@pytest.mark.parametrize('name', sorted(F_CASES))
def test_saved_names_and_values(name):
    e, t = _node(ember, name), _node(torch, name)
    assert type(e).__name__ == type(t).__name__
    en, tn = _saved(e), _saved(t)
    # ember has no _raw_saved_ for a tensor it keeps outside its saved tensors
    assert [n for n in en if n.startswith('_saved_')] == \
        [n for n in tn if n.startswith('_saved_')]
    assert set(en) <= set(tn), set(en) - set(tn)
    for n in en:
        if n.startswith('_raw_saved_'):
            assert type(getattr(e, n)).__name__ == 'SavedTensor'
            continue
        ev, tv = getattr(e, n), getattr(t, n)
        if isinstance(tv, torch.Tensor):
            assert_same(ev, tv)
        else:
            assert ev == tv and type(ev) is type(tv), (n, ev, tv)


def test_internal_names_hidden_from_dir():
    names = dir(_node(ember, 'mul'))
    for hidden in ('_saved_names', '_saved_outs', '_saved_ver', '_saved_attrs'):
        assert hidden not in names


@pytest.mark.parametrize('name', ['exp', 'mul', 'pow_tensor'])
def test_saved_tensor_freed_after_backward(name):
    for m in (ember, torch):
        g = m.Generator().manual_seed(0)
        a = m.rand(2, 3, generator=g).add(0.1).requires_grad_()
        b = m.rand(2, 3, generator=g).add(0.1).requires_grad_()
        y = F_CASES[name](m, a, b, None)
        key = [n for n in _saved(y.grad_fn) if n.startswith('_saved_')][0]
        y.sum().backward()
        with pytest.raises(RuntimeError, match='backward through the graph a second time'):
            getattr(y.grad_fn, key)
