"""Wrong-typed arguments: ember raises what torch raises.

A seeded generator builds wrong calls (strings, floats, bools, None, ndarrays, lists of
strings, nested junk, tensors where ints belong, ...) over many public functions,
methods, constructors and module forwards, runs each on ember and on torch with the same
arguments, and compares the outcome: the same exception class where torch raises, and
an equal result where torch succeeds.

Run ``python tests/test_argument_errors.py`` for a per-function report of mismatches.
"""
import operator
import zlib
import random
import sys
import warnings
from collections import Counter, defaultdict

import numpy as np
import pytest
import torch

import ember

torch.set_num_threads(1)


# ----------------------------------------------------------------- placeholders

class T:
    """A tensor, built alike in both libraries from a seeded array."""
    __slots__ = ('shape', 'kind', 'arr')

    def __init__(self, shape, kind='f'):
        self.shape, self.kind = tuple(shape), kind
        g = np.random.default_rng(zlib.crc32(repr((self.shape, kind)).encode()))
        if kind == 'f':
            a = g.standard_normal(self.shape).astype(np.float32)
        elif kind == 'd':
            a = g.standard_normal(self.shape)
        elif kind == 'i':
            a = g.integers(0, 2, self.shape).astype(np.int64)
        elif kind == 'b':
            a = g.integers(0, 2, self.shape).astype(bool)
        else:
            raise ValueError(kind)
        self.arr = a

    def __repr__(self):
        return f"T{self.shape}{self.kind}"


class D:
    """A dtype by name."""
    __slots__ = ('name',)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"D.{self.name}"


class M:
    """A module instance: ``path(*args)`` in the library."""
    __slots__ = ('path', 'args')

    def __init__(self, path, *args):
        self.path, self.args = path, args

    def __repr__(self):
        return f"M({self.path})"


class _Obj:
    def __repr__(self):
        return 'object()'


_OBJ = _Obj()


def _resolve(lib, path):
    o = lib
    for p in path.split('.'):
        o = getattr(o, p)
    return o


def translate(lib, v):
    if isinstance(v, T):
        return lib.tensor(v.arr)
    if isinstance(v, D):
        return getattr(lib, v.name)
    if isinstance(v, M):
        return _resolve(lib, v.path)(*[translate(lib, a) for a in v.args])
    if isinstance(v, list):
        return [translate(lib, a) for a in v]
    if isinstance(v, tuple):
        return tuple(translate(lib, a) for a in v)
    if isinstance(v, dict):
        return {k: translate(lib, a) for k, a in v.items()}
    if isinstance(v, np.ndarray):
        return v.copy()
    return v


# ----------------------------------------------------------------- junk

JUNK = [
    'abc', 1.5, 2.0, True, False, None, ['a', 'b'], ('a',), np.ones(2, np.float32),
    np.ones((), np.float32), (1, 'a'), [1, [2, 3]], [[1], [2, 3]], -1, 2**70, 1j,
    D('float32'), T((2,)), T((), 'i'), T((2,), 'i'), T((), 'f'), _OBJ, {}, b'x',
    float('nan'), slice(1, 2), 'cpu', [1.5, 2.5], (True, 2), np.int64(1), np.float64(1.5),
    (2, 2.5), [T((2,))], 0, 3,
]


# ----------------------------------------------------------------- call specs
# (target, args, kwargs); targets: 'name' -> ember.name/torch.name; '.name' -> method on
# args[0]; 'F.name' -> nn.functional; 'nn.X' -> constructor; 'fwd' -> args[0](*args[1:]);
# 'op.name' -> operator.name.

X = T((2, 3))
X4 = T((2, 3, 4, 4))
XI = T((2, 3), 'i')
MASK = T((2, 3), 'b')
V = T((3,))

SPECS = [
    ('zeros', (2, 3), {}), ('zeros', ((2, 3),), {'dtype': D('float64')}),
    ('ones', (2, 3), {}), ('ones', ((2,),), {'dtype': D('int64'), 'device': 'cpu'}),
    ('empty', (2, 3), {}), ('full', ((2, 3), 1.5), {}), ('full', ((2,), 2), {'dtype': D('int32')}),
    ('arange', (5,), {}), ('arange', (0, 5, 2), {'dtype': D('float32')}),
    ('linspace', (0.0, 1.0, 5), {}), ('logspace', (0.0, 1.0, 4), {}),
    ('eye', (3,), {}), ('eye', (2, 3), {'dtype': D('int64')}),
    ('tensor', ([1.0, 2.0],), {}), ('tensor', ([[1, 2], [3, 4]],), {'dtype': D('float64')}),
    ('zeros_like', (X,), {}), ('ones_like', (X,), {'dtype': D('int64')}),
    ('full_like', (X, 2.0), {}), ('empty_like', (X,), {}),
    ('rand', (2, 3), {}), ('randn', (2, 3), {}), ('randint', (0, 5, (2, 3)), {}),
    ('randperm', (4,), {}),
    ('add', (X, X), {}), ('add', (X, 2.0), {'alpha': 2}), ('sub', (X, X), {}),
    ('mul', (X, X), {}), ('div', (X, X), {'rounding_mode': 'floor'}), ('pow', (X, 2), {}),
    ('maximum', (X, X), {}), ('clamp', (X, -0.5, 0.5), {}), ('where', (MASK, X, X), {}),
    ('exp', (X,), {}), ('abs', (X,), {}), ('sqrt', (X,), {}), ('neg', (X,), {}),
    ('lerp', (X, X, 0.5), {}), ('eq', (X, X), {}), ('lt', (X, 0.0), {}),
    ('sum', (X,), {'dim': 1, 'keepdim': True}), ('mean', (X,), {'dim': 0}),
    ('prod', (X, 1), {}), ('amax', (X,), {'dim': 1}), ('max', (X, 1), {}),
    ('argmax', (X,), {'dim': 1}), ('std', (X,), {'dim': 1}), ('var', (X, 0), {}),
    ('cumsum', (X, 1), {}), ('logsumexp', (X, 1), {}), ('all', (MASK,), {'dim': 1}),
    ('norm', (X,), {'dim': 1}), ('cumprod', (X, 1), {}), ('argmin', (X,), {'dim': 0, 'keepdim': True}),
    ('flatten', (X4, 1), {}), ('flatten', (X4,), {'start_dim': 1, 'end_dim': 2}),
    ('reshape', (X, (3, 2)), {}), ('.reshape', (X, 3, 2), {}), ('.view', (X, 6), {}),
    ('.view', (X, (3, 2)), {}), ('permute', (X, (1, 0)), {}), ('.permute', (X, 1, 0), {}),
    ('transpose', (X, 0, 1), {}), ('squeeze', (T((2, 1)), 1), {}), ('unsqueeze', (X, 0), {}),
    ('.repeat', (X, 2, 1), {}), ('.expand', (T((1, 3)), 2, 3), {}), ('cat', ([X, X], 0), {}),
    ('stack', ([X, X],), {'dim': 1}), ('split', (X, 1, 1), {}), ('chunk', (X, 2, 0), {}),
    ('narrow', (X, 1, 0, 2), {}), ('select', (X, 0, 1), {}),
    ('index_select', (X, 1, T((2,), 'i')), {}), ('gather', (X, 1, XI), {}),
    ('scatter', (X, 1, XI, X), {}), ('movedim', (X, 0, 1), {}), ('flip', (X, (0,)), {}),
    ('roll', (X, 1, 0), {}), ('tile', (X, (2,)), {}), ('diagonal', (X,), {'offset': 0}),
    ('tril', (X, 0), {}), ('topk', (X, 2), {'dim': 1}), ('sort', (X,), {'dim': 1}),
    ('masked_fill', (X, MASK, 0.0), {}), ('unbind', (X, 0), {}),
    ('matmul', (X, T((3, 2))), {}), ('mm', (X, T((3, 2))), {}),
    ('bmm', (T((2, 2, 3)), T((2, 3, 2))), {}), ('dot', (V, V), {}), ('outer', (V, V), {}),
    ('.sum', (X,), {'dim': 0}), ('.mean', (X, 1), {'keepdim': True}), ('.to', (X, D('float64')), {}),
    ('.type', (X, D('float64')), {}), ('.size', (X, 1), {}), ('.new_zeros', (X, (2,)), {}),
    ('.new_full', (X, (2,), 1.0), {}), ('.fill_', (X, 1.0), {}), ('.masked_fill_', (X, MASK, 1.0), {}),
    ('.index_fill', (X, 1, T((1,), 'i'), 0.0), {}), ('.contiguous', (X,), {}),
    ('.requires_grad_', (X, True), {}), ('.clamp_', (X, 0.0), {}),
    ('getitem', (X, 0), {}), ('getitem', (X, MASK), {}), ('getitem', (X, (slice(0, 1), 1)), {}),
    ('setitem', (X, 0, 1.0), {}), ('setitem', (X, MASK, 2.0), {}), ('setitem', (X, (0, 1), X.arr[0, 0].item()), {}),
    ('op.add', (X, X), {}), ('op.mul', (X, 2.0), {}), ('op.truediv', (X, X), {}),
    ('op.matmul', (X, T((3, 2))), {}), ('op.lt', (X, X), {}),
    ('nn.Linear', (3, 2), {}), ('nn.Linear', (3, 2), {'bias': False}),
    ('nn.Conv2d', (3, 4, 3), {'padding': 1}), ('nn.BatchNorm2d', (3,), {'eps': 1e-5}),
    ('nn.BatchNorm1d', (3,), {}), ('nn.ReLU', (), {'inplace': False}),
    ('fwd', (M('nn.Linear', 3, 2), X), {}), ('fwd', (M('nn.Conv2d', 3, 4, 3), X4), {}),
    ('fwd', (M('nn.BatchNorm1d', 3), X), {}), ('fwd', (M('nn.ReLU'), X), {}),
    ('F.linear', (X, T((2, 3))), {}), ('F.relu', (X,), {}), ('F.leaky_relu', (X, 0.1), {}),
    ('F.conv2d', (X4, T((4, 3, 3, 3))), {'padding': 1}), ('F.mse_loss', (X, X), {}),
    ('F.l1_loss', (X, X), {'reduction': 'sum'}), ('F.pad', (X, (1, 1)), {}),
    ('F.batch_norm', (X, T((3,)), T((3,)).arr.__abs__()), {}),
]

RANDOM = {'rand', 'randn', 'randint', 'randperm', 'empty', 'empty_like'}


def _call(lib, target, args, kwargs):
    a = [translate(lib, v) for v in args]
    k = {n: translate(lib, v) for n, v in kwargs.items()}
    if target.startswith('.'):
        return getattr(a[0], target[1:])(*a[1:], **k)
    if target == 'getitem':
        return a[0][a[1]]
    if target == 'setitem':
        a[0][a[1]] = a[2]
        return a[0]
    if target == 'fwd':
        return a[0](*a[1:], **k)
    if target.startswith('op.'):
        return getattr(operator, target[3:])(*a, **k)
    if target.startswith('F.'):
        return getattr(lib.nn.functional, target[2:])(*a, **k)
    return _resolve(lib, target)(*a, **k)


def _outcome(lib, call):
    target, args, kwargs = call
    if target in RANDOM:
        lib.manual_seed(0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            return 'ok', _call(lib, target, args, kwargs)
    except Exception as e:  # noqa: BLE001 - we compare classes
        return 'raise', e


def _exc_class(e):
    for c in type(e).__mro__:
        if c.__module__ == 'builtins':
            return c.__name__
    return type(e).__name__


def _to_np(x):
    if isinstance(x, (torch.Tensor, ember.Tensor)):
        x = x.detach()
        if str(x.dtype).endswith('bfloat16'):
            x = x.float()
        return x.numpy()
    return x


def _same_result(e, t, values=True):
    """None if ember's result ``e`` matches torch's ``t``, else a short reason."""
    if isinstance(t, torch.Tensor):
        if not isinstance(e, ember.Tensor):
            return f"ember gave {type(e).__name__}"
        if tuple(e.shape) != tuple(t.shape):
            return f"shape {tuple(e.shape)} != {tuple(t.shape)}"
        if str(e.dtype).split('.')[-1] != str(t.dtype).split('.')[-1]:
            return f"dtype {e.dtype} != {t.dtype}"
        if values:
            a, b = _to_np(e), _to_np(t)
            if a.dtype.kind in 'fc':
                ok = np.allclose(a, b, rtol=1e-5, atol=1e-5, equal_nan=True)
            else:
                ok = np.array_equal(a, b)
            if not ok:
                return "values differ"
        return None
    if isinstance(t, (tuple, list)):
        if not isinstance(e, (tuple, list)) or len(e) != len(t):
            return f"ember gave {type(e).__name__}"
        for a, b in zip(e, t):
            r = _same_result(a, b, values)
            if r:
                return r
        return None
    if isinstance(t, torch.nn.Module):
        return None if isinstance(e, ember.nn.Module) else f"ember gave {type(e).__name__}"
    if isinstance(t, torch.dtype):
        return None if str(e).split('.')[-1] == str(t).split('.')[-1] else f"{e} != {t}"
    if isinstance(t, (int, float, bool, complex)):
        return None if (t == e or (t != t and e != e)) else f"{e!r} != {t!r}"
    return None


# ----------------------------------------------------------------- generator

EXTRA_KW = ['dtype', 'device', 'out', 'dim', 'keepdim', 'requires_grad', 'bogus']


def generate(n, seed=0):
    """``n`` seeded wrong calls ``(target, args, kwargs)``."""
    rng = random.Random(seed)
    calls = []
    while len(calls) < n:
        target, args, kwargs = rng.choice(SPECS)
        args, kwargs = list(args), dict(kwargs)
        junk = rng.choice(JUNK)
        r = rng.random()
        first = 1 if target.startswith('.') or target in ('fwd',) else 0
        if r < 0.5 and len(args) > first:
            args[rng.randrange(first, len(args))] = junk
        elif r < 0.7 and kwargs:
            kwargs[rng.choice(sorted(kwargs))] = junk
        elif r < 0.9:
            kwargs[rng.choice(EXTRA_KW)] = junk
        elif r < 0.95 and len(args) > first:
            del args[rng.randrange(first, len(args))]
        else:
            args.append(junk)
        calls.append((target, tuple(args), kwargs))
    return calls


def run_fuzz(n=6000, seed=0):
    """Run ``n`` calls; returns (stats dict, list of mismatches)."""
    stats = Counter()
    bad = []
    for call in generate(n, seed):
        tk, tv = _outcome(torch, call)
        ek, ev = _outcome(ember, call)
        stats['calls'] += 1
        if tk == 'raise':
            stats['torch_raises'] += 1
            if ek == 'ok':
                stats['ember_ok_torch_raises'] += 1
                bad.append((call, f"torch {_exc_class(tv)}: {tv}", 'ember succeeded'))
            elif _exc_class(ev) == _exc_class(tv):
                stats['same'] += 1
            else:
                bad.append((call, f"torch {_exc_class(tv)}: {str(tv)[:100]}",
                            f"ember {type(ev).__name__}: {str(ev)[:100]}"))
        else:
            if ek == 'raise':
                bad.append((call, 'torch ok', f"ember {type(ev).__name__}: {str(ev)[:100]}"))
                continue
            why = _same_result(ev, tv, values=call[0] not in RANDOM)
            if why:
                bad.append((call, 'torch ok', f"ember result: {why}"))
            else:
                stats['same'] += 1
    stats['functions'] = len({c[0] for c in SPECS})
    return stats, bad


def _report(stats, bad, limit=400):
    lines = [f"{stats['calls']} calls over {stats['functions']} functions; "
             f"same outcome {stats['same'] / stats['calls']:.2%}; torch raised "
             f"{stats['torch_raises']}; ember succeeded where torch raised "
             f"{stats['ember_ok_torch_raises']}"]
    by = defaultdict(list)
    for b in bad:
        by[b[0][0]].append(b)
    for tgt in sorted(by, key=lambda k: -len(by[k])):
        lines.append(f"== {tgt}: {len(by[tgt])}")
        for call, t, e in by[tgt][:6]:
            lines.append(f"   {call[1]!r} {call[2]!r}\n      {t}\n      {e}")
    return '\n'.join(lines[:limit])


# The issue's goal: at least 98 % of the wrong calls end as torch's do (the same exception
# class, or equal results), and none succeeds where torch raises.
GOAL_SAME, GOAL_OK = 0.99, 0

_FUZZ = []


def _fuzz():
    if not _FUZZ:
        _FUZZ.append(run_fuzz())
    return _FUZZ[0]


def test_fuzz_wrong_calls():
    stats, bad = _fuzz()
    assert stats['calls'] >= 5000 and stats['functions'] >= 60
    rep = _report(stats, bad)
    assert stats['ember_ok_torch_raises'] <= GOAL_OK, rep
    assert stats['same'] / stats['calls'] >= GOAL_SAME, rep


# ----------------------------------------------------------------- the issue's examples

def _both(fn):
    """Run ``fn(lib)`` on both; return the two exceptions (torch's, ember's)."""
    out = []
    for lib in (torch, ember):
        with pytest.raises(Exception) as ei:
            fn(lib)
        out.append(ei.value)
    return out


@pytest.mark.parametrize('fn,phrase', [
    (lambda m: m.ones(2, 3).flatten('abc'), "flatten(): argument 'start_dim' (position 1) must be int, not str"),
    (lambda m: m.ones(2, dtype='float32'), "ones(): argument 'dtype' must be torch.dtype, not str"),
    (lambda m: m.nn.Linear(2, 3)(np.ones((1, 2), np.float32)),
     "linear(): argument 'input' (position 1) must be Tensor, not numpy.ndarray"),
    (lambda m: m.linspace((2, -3), 1.0, 2), "linspace() received an invalid combination of arguments"),
    (lambda m: m.ones(2, 3).repeat(m.ones(2)), "repeat(): argument 'repeats' (position 1) must be tuple of ints, not Tensor"),
    (lambda m: m.zeros(True), "zeros(): argument 'size' (position 1) must be tuple of ints, not bool"),
    (lambda m: m.ones(3).flatten(True), "flatten(): argument 'start_dim' (position 1) must be int, not bool"),
])
def test_issue_examples_type_error(fn, phrase):
    t, e = _both(fn)
    assert type(t) is TypeError and phrase in str(t).replace('torch.', 'torch.')
    assert type(e) is TypeError, repr(e)
    assert phrase.replace('torch.dtype', 'ember.dtype') in str(e) or phrase in str(e), str(e)


def test_setitem_none_refused():
    t, e = _both(lambda m: m.ones(3).__setitem__(m.tensor([True, False, True]), None))
    assert type(t) is type(e) is TypeError
    assert "can't assign a NoneType to a" in str(e)


def test_tensor_plus_ndarray():
    # NOTE: a 0-dim float64 ndarray still promotes like a Python float in ember (left to do)
    for a in (np.ones(2), np.ones(2, np.float32), np.ones((), np.float32), np.float64(2.0)):
        r_t = torch.ones(2) + a
        r_e = ember.ones(2) + a
        assert isinstance(r_e, ember.Tensor)
        assert str(r_e.dtype)[-7:] == str(r_t.dtype)[-7:]
        np.testing.assert_allclose(r_e.numpy(), r_t.numpy())
        np.testing.assert_allclose((ember.ones(2) * a).numpy(), (torch.ones(2) * a).numpy())


def test_mul_of_python_numbers():
    for f in ('mul', 'add', 'sub'):
        t = getattr(torch, f)(3, 3)
        e = getattr(ember, f)(3, 3)
        assert isinstance(e, ember.Tensor) and e.dtype is ember.int64 and e.item() == t.item()
    assert ember.mul(2.5, 2).dtype is ember.float32


if __name__ == '__main__':
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 6000
    s, b = run_fuzz(n)
    print(_report(s, b, limit=100000))


# the third hardening pass's examples: once internal errors or calls accepted where torch raises
@pytest.mark.parametrize('fn', [
    lambda m: m.block_diag(m.ones(2, 2), {'a': 1}),
    lambda m: m.linalg.solve(m.eye(3), 3.5),
    lambda m: m.linalg.solve(3.5, m.eye(3)),
    lambda m: m.nn.functional.group_norm(m.ones(2, 4, 3), 2, eps=None),
    lambda m: m.nn.functional.group_norm(m.ones(2, 4, 3), 2.0),
    lambda m: m.nn.functional.conv_transpose2d(m.ones(1, 2, 4, 4), m.ones(2, 3, 3, 3), padding=-1),
    lambda m: m.nn.functional.conv_transpose1d(m.ones(1, 2, 4), m.ones(2, 3, 3), output_padding=-1),
    lambda m: m.nn.functional.conv1d(m.ones(1, 2, 4), m.ones(2, 2, 3), padding=-1),
    lambda m: m.nn.functional.conv3d(m.ones(1, 2, 4, 4, 4), m.ones(2, 2, 3, 3, 3),
                                     padding=(0, -1, 0)),
    lambda m: m.nn.functional.one_hot(m.tensor([1]), 2 ** 63),
    lambda m: m.nn.functional.avg_pool1d(m.ones(1, 2, 8), 3, stride=2 ** 40),
    lambda m: m.nn.functional.avg_pool2d(m.ones(1, 2, 8, 8), 2 ** 31),
    lambda m: m.nn.functional.avg_pool3d(m.ones(1, 2, 8, 8, 8), 3, padding=2 ** 31),
])
def test_hardening_examples_raise_as_torch(fn):
    t, e = _both(fn)
    assert type(e) is type(t), (repr(t), repr(e))
    assert str(t).split('\n')[0][-40:] in str(e), (str(t), str(e))


def test_tri_indices_follow_the_number_of_indices():
    # tril_indices(4, 2**40) has 10 indices: it must not build a 4 x 2**40 mask
    assert ember.tril_indices(4, 2 ** 40).tolist() == torch.tril_indices(4, 2 ** 40).tolist()
    with pytest.raises(RuntimeError, match="can't allocate memory"):
        ember.triu_indices(4, 2 ** 40)
    for r, c, o in [(0, 3, 0), (3, 0, 1), (5, 4, -2), (4, 6, 3), (6, 2, -7), (3, 3, 9)]:
        for f in ('tril_indices', 'triu_indices'):
            assert getattr(ember, f)(r, c, o).tolist() == getattr(torch, f)(r, c, o).tolist()


@pytest.mark.parametrize('fn', [
    lambda m: m.isclose(m.ones(2), m.ones(2), rtol=-1),
    lambda m: m.isclose(m.ones(2), m.ones(2), atol=-1e-3),
    lambda m: m.isclose(m.ones(2), m.ones(2), rtol=float('nan')),
    lambda m: m.allclose(m.ones(2), m.ones(2), rtol=-1),
    lambda m: m.nn.functional.conv1d(m.ones(1, 2, 4), m.ones(2, 2, 3), dilation=0),
    lambda m: m.nn.functional.conv2d(m.ones(1, 2, 4, 4), m.ones(2, 2, 3, 3), dilation=(1, 0)),
    lambda m: m.nn.functional.conv2d(m.ones(1, 2, 4, 4), m.ones(2, 2, 3, 3), dilation=-1),
    lambda m: m.nn.functional.conv_transpose2d(m.ones(1, 2, 4, 4), m.ones(2, 2, 3, 3),
                                               dilation=0),
    lambda m: m.nn.functional.conv3d(m.ones(1, 2, 4, 4, 4), m.ones(2, 2, 3, 3, 3), dilation=0),
])
def test_tolerance_and_dilation_checked_as_torch(fn):
    t, e = _both(fn)
    assert type(e) is type(t) and str(e) == str(t), (repr(t), repr(e))


@pytest.mark.parametrize('fn', [
    lambda m: m.ones(2, device=0),
    lambda m: m.zeros(2, device=-1),
    lambda m: m.ones(2).to(0),
    lambda m: m.device(0),
    lambda m: m.device(2 ** 64),
    lambda m: m.zeros(m.tensor([2, 3])),
    lambda m: m.zeros(m.tensor(2.5)),
    lambda m: m.roll(m.ones(2, 3), 'cpu', 0),
    lambda m: m.roll(m.ones(2, 3), 1, (1, 'a')),
    lambda m: m.roll(m.ones(2, 3), m.tensor([1, 2]), (0, 1)),
    lambda m: m.movedim(m.ones(2, 3), (1, 'a'), 1),
    lambda m: m.movedim(m.ones(2, 3), {}, 1),
])
def test_device_index_size_and_dims_parsed_as_torch(fn):
    t, e = _both(fn)
    assert type(e) is type(t), (repr(t), repr(e))


def test_int_tensors_accepted_where_torch_takes_them():
    for fn in (lambda m: m.zeros(m.tensor(3)).shape, lambda m: m.zeros((m.tensor([2]), 3)).shape,
               lambda m: m.roll(m.arange(6.).view(2, 3), 1, m.tensor([0])).tolist(),
               lambda m: m.movedim(m.ones(2, 3), 0, m.tensor(1)).shape):
        assert fn(ember) == fn(torch)
