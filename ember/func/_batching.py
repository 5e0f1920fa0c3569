"""vmap's fast path: run the function once on whole batches.

While the function runs, a :class:`ember.overrides.TorchFunctionMode` sees every op. A
"batched" tensor is an ordinary tensor whose dim 0 is the vmapped dimension (the function
sees one sample, the tensor holds all of them); each op with a batched argument is
rewritten by a batching rule into one op on the whole batch (dims shifted past the batch
dim, operands aligned for broadcasting, matmuls made batched). Ops without a rule, random
ops, in-place ops and nested vmaps abort the attempt (:class:`Fallback`) and vmap falls back
to its per-sample loop; vmap also checks the batched result against a per-sample run of
the first sample.
"""
import threading
import weakref

from .._tensor import Tensor as _Tensor

__all__ = []


class Fallback(Exception):
    """The batched attempt cannot run this function: use the per-sample loop."""


class _TL(threading.local):
    mode = None
    suspend = 0


_tl = _TL()

_RANDOM = {'rand', 'randn', 'randint', 'rand_like', 'randn_like', 'randint_like', 'randperm',
           'bernoulli', 'multinomial', 'normal', 'poisson', 'dropout', 'dropout1d',
           'dropout2d', 'dropout3d', 'alpha_dropout', 'feature_alpha_dropout', 'rrelu',
           'uniform_', 'normal_', 'bernoulli_', 'random_', 'exponential_', 'geometric_',
           'cauchy_', 'log_normal_', 'gumbel_softmax'}

_INPLACE_DUNDERS = {'__setitem__', '__iadd__', '__isub__', '__imul__', '__itruediv__',
                    '__ifloordiv__', '__imod__', '__ipow__', '__iand__', '__ior__', '__ixor__',
                    '__ilshift__', '__irshift__', '__imatmul__'}

_ELEMENTWISE = {
    'add', 'sub', 'mul', 'div', 'true_divide', 'rsub', 'pow', 'maximum', 'minimum', 'where',
    'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'fmod', 'remainder', 'atan2', 'hypot',
    '__add__', '__radd__', '__sub__', '__rsub__', '__mul__', '__rmul__', '__truediv__',
    '__rtruediv__', '__pow__', '__rpow__', '__neg__', '__matmul__',
    'relu', 'relu6', 'tanh', 'sigmoid', 'exp', 'exp2', 'expm1', 'log', 'log1p', 'log2',
    'log10', 'sin', 'cos', 'tan', 'sinh', 'cosh', 'asin', 'acos', 'atan', 'asinh', 'acosh',
    'atanh', 'neg', 'negative', 'abs', 'sqrt', 'rsqrt', 'square', 'reciprocal', 'sign', 'erf',
    'erfc', 'floor', 'ceil', 'round', 'trunc', 'frac', 'clamp', 'clip', 'clamp_min',
    'clamp_max', 'gelu', 'silu', 'mish', 'elu', 'selu', 'celu', 'softplus', 'softsign',
    'leaky_relu', 'hardtanh', 'hardsigmoid', 'hardswish', 'logsigmoid', 'tanhshrink',
    'softshrink', 'hardshrink', 'threshold', 'sigmoid', 'lerp', 'addcmul', 'addcdiv',
    'detach', 'clone', 'contiguous', 'float', 'double', 'half', 'to', 'type_as', 'logical_not',
    'logical_and', 'logical_or', 'bitwise_not', 'isnan', 'isinf', 'isfinite', 'nan_to_num',
    'zeros_like', 'ones_like', 'full_like', 'empty_like', 'xlogy', 'sgn', 'positive',
}
_REDUCE = {'sum', 'mean', 'amax', 'amin', 'prod', 'logsumexp', 'nansum', 'nanmean', 'std',
           'var', 'all', 'any', 'count_nonzero'}
_DIM_OPS = {'softmax', 'log_softmax', 'cumsum', 'cumprod', 'argmax', 'argmin', 'softmin'}


def active():
    return _tl.mode is not None


class _Suspend:
    def __enter__(self):
        _tl.suspend += 1

    def __exit__(self, *exc):
        _tl.suspend -= 1


suspend = _Suspend


def _tensor_cls():
    return _Tensor


def is_batched(t):
    m = _tl.mode
    if m is None:
        return False
    r = m.reg.get(id(t))
    return r is not None and r() is t


def mark(t):
    m = _tl.mode
    m.reg[id(t)] = weakref.ref(t)
    return t


def batch_size():
    return _tl.mode.B


def _ldim(t):
    return t.dim() - 1 if is_batched(t) else t.dim()


def _flat_args(args, kwargs):
    out = []
    T = _tensor_cls()

    def go(x):
        if isinstance(x, T):
            out.append(x)
        elif isinstance(x, (tuple, list)):
            for y in x:
                go(y)
        elif isinstance(x, dict):
            for y in x.values():
                go(y)
    go(args)
    go(kwargs)
    return out


def _mark_out(r):
    T = _tensor_cls()
    if isinstance(r, T):
        return mark(r)
    if isinstance(r, tuple):
        return type(r)(*[_mark_out(x) for x in r]) if hasattr(r, '_fields') else \
            tuple(_mark_out(x) for x in r)
    raise Fallback()


def _mode_cls():
    from ..overrides import TorchFunctionMode

    class _BatchMode(TorchFunctionMode):
        def __init__(self, B):
            super().__init__()
            self.B = B
            self.reg = {}

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if _tl.suspend:
                return func(*args, **kwargs)
            name = getattr(func, '__name__', '')
            if name in _RANDOM or 'out' in kwargs:
                raise Fallback()
            tensors = _flat_args(args, kwargs)
            if not any(is_batched(t) for t in tensors):
                if ((name.endswith('_') and not name.endswith('__') and name != 'requires_grad_')
                        or name in _INPLACE_DUNDERS):
                    raise Fallback()   # a mutation would be repeated by the fallback loop
                return func(*args, **kwargs)
            rule = _RULES.get(name)
            if rule is None:
                if name in _ELEMENTWISE:
                    rule = _elementwise
                elif name in _REDUCE:
                    rule = _reduce
                elif name in _DIM_OPS:
                    rule = _dim_op
                else:
                    raise Fallback()
            _tl.suspend += 1
            try:
                return rule(func, args, kwargs)
            except Fallback:
                raise
            except Exception as e:   # a rule that cannot handle these arguments
                raise Fallback() from e
            finally:
                _tl.suspend -= 1

        observed = False   # set when func looked at a batched tensor's shape or data

        # pushed on the calling thread's mode stack like any TorchFunctionMode, but the
        # bindings are held as 'vmap' and linger after it (see _dispatch._deactivate)
        def __enter__(self):
            from .._ops import _dispatch
            from .._ops._dispatch import _tls as mode_tls
            _watch(True)
            _tl.mode = self
            mode_tls.modes = mode_tls.modes + (self,)
            _dispatch._activate('vmap')
            return self

        def __exit__(self, *exc):
            from .._ops import _dispatch
            from .._ops._dispatch import _tls as mode_tls
            _tl.mode = None
            try:
                modes = mode_tls.modes
                if modes and modes[-1] is self:
                    mode_tls.modes = modes[:-1]
                _dispatch._deactivate('vmap', linger=True)
            finally:
                _watch(False)

    return _BatchMode


# Tensor members through which a function can see that a batched tensor holds the whole
# batch (its shape, its values, an unrouted alias): while a batched attempt runs they are
# wrapped so that a use on a batched tensor, outside the batching rules, marks the attempt
# as "observed"; only an observed attempt is checked against a per-sample run of the
# first sample (vmap's guard), the others are exact by their rules.
_WATCHED_PROPS = ('shape', 'ndim', 'T', 'mT', 'H', 'mH', 'data')
_WATCHED_FUNCS = ('size', 'dim', 'numel', 'stride', '__len__', '__iter__', 'item', 'tolist',
                  'numpy', '__bool__', '__float__', '__int__', '__index__', '__complex__',
                  'data_ptr', 'is_contiguous', '__array__', '__format__', '__repr__',
                  'storage_offset', 'untyped_storage', 'storage', '__reduce_ex__',
                  '__deepcopy__')
_watch_lock = threading.Lock()
_watch_users = 0
_watch_pairs = None   # [(name, original, watching wrapper)]


def _observe(t):
    m = _tl.mode
    if m is not None and not _tl.suspend and is_batched(t):
        m.observed = True


def _watcher(orig):
    if isinstance(orig, property):
        get = orig.fget

        def fget(self):
            _observe(self)
            return get(self)
        return property(fget, orig.fset, orig.fdel, orig.__doc__)

    def member(self, *args, **kwargs):
        _observe(self)
        return orig(self, *args, **kwargs)
    member.__name__, member.__qualname__, member.__doc__ = \
        orig.__name__, orig.__qualname__, orig.__doc__
    member.__wrapped__ = orig
    return member


def _watch(on):
    """Wrap (``on``) or unwrap the watched Tensor members; counted, so concurrent and
    nested batched attempts share one wrapping."""
    global _watch_users, _watch_pairs
    T = _tensor_cls()
    with _watch_lock:
        if on:
            _watch_users += 1
            if _watch_users > 1:
                return
            if _watch_pairs is None:
                _watch_pairs = [(n, T.__dict__[n], _watcher(T.__dict__[n]))
                                for n in _WATCHED_PROPS + _WATCHED_FUNCS if n in T.__dict__]
            for n, orig, w in _watch_pairs:
                setattr(T, n, w)
        else:
            _watch_users -= 1
            if _watch_users == 0:
                for n, orig, w in _watch_pairs:
                    setattr(T, n, orig)


_MODE = None


def batch_mode(B):
    global _MODE
    if _MODE is None:
        _MODE = _mode_cls()
    return _MODE(B)


# ------------------------------------------------------------------------------- the rules

def _align(x, L):
    """``x`` as an operand of an op of logical rank ``L``: a batched tensor gets singleton
    dims after the batch dim so that NumPy broadcasting aligns the logical dims."""
    if not is_batched(x):
        return x
    ld = x.dim() - 1
    if ld < L:
        x = x.reshape((x.shape[0],) + (1,) * (L - ld) + tuple(x.shape[1:]))
    return x


def _logical_promotion(ts, args, kwargs):
    """Two tensor operands, one of them a batched sample of rank 0: type promotion must
    see it as 0-dim (as the per-sample function does), not as the dimensioned batch that
    holds it. Returns ``(args, kwargs)`` with both operands cast to the per-sample result
    type when that differs from the batch's."""
    from .. import result_type, zeros
    a, b = ts
    logical = result_type(*(zeros((1,) * min(_ldim(t), 1), dtype=t.dtype) for t in ts))
    if logical == result_type(a, b):
        return args, kwargs

    def cast(x):
        return x.to(logical) if any(x is t for t in ts) and x.dtype != logical else x
    return [cast(x) for x in args], {k: cast(v) for k, v in kwargs.items()}


def _elementwise(func, args, kwargs):
    T = _tensor_cls()
    ts = [a for a in list(args) + list(kwargs.values()) if isinstance(a, T)]
    if len(ts) == 2 and ts[0].dtype != ts[1].dtype and any(
            is_batched(t) and t.dim() == 1 for t in ts):
        args, kwargs = _logical_promotion(ts, args, kwargs)
        ts = [a for a in list(args) + list(kwargs.values()) if isinstance(a, T)]
    L = max(_ldim(t) for t in ts)
    B = batch_size()
    new_args = [_align(a, L) if isinstance(a, T) else a for a in args]
    new_kw = {k: _align(v, L) if isinstance(v, T) else v for k, v in kwargs.items()}
    if getattr(func, '__name__', '') in ('__matmul__',):
        raise Fallback()
    r = func(*new_args, **new_kw)
    if not isinstance(r, T) or r.dim() == 0 or r.shape[0] != B or r.dim() != L + 1:
        raise Fallback()
    return mark(r)


def _shift(d, L):
    if not isinstance(d, int) or isinstance(d, bool):
        raise Fallback()
    if L == 0:
        if d not in (0, -1):
            raise Fallback()
        return None
    if not -L <= d < L:
        raise Fallback()
    return d % L + 1


def _get_dim(args, kwargs, pos=1, key='dim'):
    if key in kwargs:
        return kwargs[key], 'kw'
    if len(args) > pos:
        return args[pos], 'pos'
    return None, None


def _first_batched(args):
    if not args or not is_batched(args[0]):
        raise Fallback()
    return args[0]


def _reduce(func, args, kwargs):
    x = _first_batched(args)
    L = x.dim() - 1
    d, where = _get_dim(args, kwargs)
    if where == 'pos' and not isinstance(d, (int, tuple, list)):
        raise Fallback()
    name = func.__name__
    if d is None:
        if name in ('logsumexp',):
            raise Fallback()
        if L == 0:
            raise Fallback()
        nd = tuple(range(1, L + 1))
    elif isinstance(d, (tuple, list)):
        nd = tuple(_shift(i, L) for i in d)
        if None in nd:
            raise Fallback()
    else:
        nd = _shift(d, L)
        if nd is None:
            raise Fallback()
    rest = list(args[2:]) if where == 'pos' else list(args[1:])
    kw = dict(kwargs)
    kw['dim'] = nd
    if name in ('all', 'any', 'count_nonzero') and isinstance(nd, tuple) and len(nd) > 1:
        raise Fallback()
    if where is None and rest:
        raise Fallback()   # e.g. sum(dtype) positional forms
    r = func(x, *rest, **kw)
    if isinstance(r, tuple):
        raise Fallback()
    return mark(r)


def _dim_op(func, args, kwargs):
    x = _first_batched(args)
    L = x.dim() - 1
    d, where = _get_dim(args, kwargs)
    if d is None:
        raise Fallback()
    nd = _shift(d, L)
    if nd is None:
        raise Fallback()
    kw = dict(kwargs)
    rest = list(args[2:]) if where == 'pos' else list(args[1:])
    kw['dim'] = nd
    return mark(func(x, *rest, **kw))


def _unsqueeze(func, args, kwargs):
    x = _first_batched(args)
    L = x.dim() - 1
    d, _ = _get_dim(args, kwargs)
    if not isinstance(d, int) or not -L - 1 <= d <= L:
        raise Fallback()
    return mark(x.unsqueeze(d % (L + 1) + 1))


def _squeeze(func, args, kwargs):
    x = _first_batched(args)
    L = x.dim() - 1
    d, _ = _get_dim(args, kwargs)
    if d is None:
        if x.shape[0] == 1:
            raise Fallback()
        dims = tuple(i for i in range(1, L + 1) if x.shape[i] == 1)
        return mark(x.squeeze(dims) if dims else x.view_as(x))
    nd = _shift(d, L)
    if nd is None:
        raise Fallback()
    return mark(x.squeeze(nd))


def _shape_arg(args, kwargs, key):
    if key in kwargs:
        s = kwargs[key]
    elif len(args) == 2 and isinstance(args[1], (tuple, list)):
        s = args[1]
    else:
        s = args[1:]
    s = tuple(s)
    if not all(isinstance(i, int) for i in s):
        raise Fallback()
    return s


def _reshape(func, args, kwargs):
    x = _first_batched(args)
    s = _shape_arg(args, kwargs, 'shape' if func.__name__ == 'reshape' else 'size')
    r = x.reshape((x.shape[0],) + s) if func.__name__ == 'reshape' else \
        x.view((x.shape[0],) + s)
    return mark(r)


def _flatten(func, args, kwargs):
    x = _first_batched(args)
    L = x.dim() - 1
    start = kwargs.get('start_dim', args[1] if len(args) > 1 else 0)
    end = kwargs.get('end_dim', args[2] if len(args) > 2 else -1)
    if L == 0:
        return mark(x.reshape(x.shape[0], 1))
    return mark(x.flatten(_shift(start, L), _shift(end, L)))


def _expand(func, args, kwargs):
    x = _first_batched(args)
    s = _shape_arg(args, kwargs, 'size')
    L = x.dim() - 1
    if len(s) < L:
        raise Fallback()
    x = _align(x, len(s))
    return mark(x.expand((x.shape[0],) + s))


def _transpose(func, args, kwargs):
    x = _first_batched(args)
    L = x.dim() - 1
    if func.__name__ == 't':
        if L < 2:
            return mark(x.view_as(x))
        return mark(x.transpose(1, 2))
    a = kwargs.get('dim0', args[1] if len(args) > 1 else None)
    b = kwargs.get('dim1', args[2] if len(args) > 2 else None)
    return mark(x.transpose(_shift(a, L), _shift(b, L)))


def _permute(func, args, kwargs):
    x = _first_batched(args)
    L = x.dim() - 1
    dims = _shape_arg(args, kwargs, 'dims')
    if len(dims) != L:
        raise Fallback()
    return mark(x.permute((0,) + tuple(_shift(d, L) for d in dims)))


def _expand_batch(t):
    """An unbatched operand made batched (a broadcast view)."""
    if is_batched(t):
        return t
    B = batch_size()
    return t.unsqueeze(0).expand((B,) + tuple(t.shape))


def _bmatmul(a, b):
    """Batched logical ``a @ b`` for logical ranks (1|2, 1|2) on physical tensors."""
    from .._ops.products import matmul
    la, lb = _ldim(a), _ldim(b)
    if la not in (1, 2) or lb not in (1, 2):
        raise Fallback()
    if not is_batched(a) and la == 2 and lb == 1:
        # (n, k) @ (B, k): rows dotted with each sample's vector
        return matmul(b, a.transpose(0, 1))
    if is_batched(a) and not is_batched(b):
        if la == 2 or lb == 1:
            return matmul(a, b)           # (B, n, k) @ (k[, m]) or (B, k) @ (k,)
        return matmul(a, b)               # (B, k) @ (k, m) -> (B, m)
    a2 = _expand_batch(a)
    b2 = _expand_batch(b)
    a3 = a2.unsqueeze(1) if la == 1 else a2
    b3 = b2.unsqueeze(2) if lb == 1 else b2
    r = matmul(a3, b3)
    if lb == 1:
        r = r.squeeze(-1)
    if la == 1:
        r = r.squeeze(1)
    return r


def _matmul(func, args, kwargs):
    T = _tensor_cls()
    if kwargs or len(args) != 2 or not all(isinstance(a, T) for a in args):
        raise Fallback()
    return mark(_bmatmul(args[0], args[1]))


def _dot(func, args, kwargs):
    a, b = args[0], args[1]
    if _ldim(a) != 1 or _ldim(b) != 1 or kwargs:
        raise Fallback()
    L = 1
    return mark((_align(a, L) * _align(b, L)).sum(-1))


def _linear(func, args, kwargs):
    x = args[0]
    w = kwargs.get('weight', args[1] if len(args) > 1 else None)
    b = kwargs.get('bias', args[2] if len(args) > 2 else None)
    if _ldim(w) != 2 or (b is not None and _ldim(b) > 1):
        raise Fallback()
    if not is_batched(w) and (b is None or not is_batched(b)):
        return mark(func(x, w, b))
    B = batch_size()
    lx = _ldim(x)
    if lx == 0:
        raise Fallback()
    xb = _expand_batch(x)
    feat = xb.shape[1:]
    x3 = xb.reshape(B, -1, feat[-1])
    r = _batched_linear_fn().apply(x3, w)      # (B, N, out)
    r = r.reshape((B,) + tuple(feat[:-1]) + (r.shape[-1],))
    if b is not None:
        r = r + _align(b, lx)
    return mark(r)


_BLF = None


def _batched_linear_fn():
    """``x @ w^T`` for ``x`` of shape ``(B, N, in)`` and per-sample weights ``w`` of shape
    ``(B, out, in)`` (or shared ``(out, in)``). Its backward forms the weight gradient of a
    single row (``N == 1``, the per-sample-gradient case) as a broadcast outer product,
    which NumPy does much faster than a batched matmul with an inner size of 1. The
    backward is written in ember ops, so it can be differentiated again."""
    global _BLF
    if _BLF is not None:
        return _BLF
    from ..autograd.function import Function

    class _BatchedLinear(Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x.matmul(w.transpose(-1, -2))

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            gx = gw = None
            if ctx.needs_input_grad[0]:
                gx = g.matmul(w)
            if ctx.needs_input_grad[1]:
                if x.shape[1] == 1:
                    gw = g.transpose(-1, -2) * x          # (B, out, 1) * (B, 1, in)
                else:
                    gw = g.transpose(-1, -2).matmul(x)
                if w.dim() == 2:
                    gw = gw.sum(0)
            return gx, gw

    _BLF = _BatchedLinear
    return _BLF


_CLASS_LOSSES = {
    'cross_entropy': ('input', 'target', 'weight', 'size_average', 'ignore_index', 'reduce',
                      'reduction', 'label_smoothing'),
    'nll_loss': ('input', 'target', 'weight', 'size_average', 'ignore_index', 'reduce',
                 'reduction'),
}


def _class_loss(func, args, kwargs):
    """cross_entropy / nll_loss with class-index targets: one call on all samples' rows
    with ``reduction='none'``, then each sample's own reduction."""
    a = dict(zip(_CLASS_LOSSES[func.__name__], args))
    a.update(kwargs)
    x, t = a['input'], a['target']
    if a.get('weight') is not None or a.get('size_average') is not None or \
            a.get('reduce') is not None or a.get('label_smoothing', 0.0) != 0.0:
        raise Fallback()
    if t.dtype.is_floating_point:
        raise Fallback()
    red = a.get('reduction', 'mean')
    ig = a.get('ignore_index', -100)
    B = batch_size()
    lx, lt = _ldim(x), _ldim(t)
    if not ((lx == 2 and lt == 1) or (lx == 1 and lt == 0)):
        raise Fallback()
    xb, tb = _expand_batch(x), _expand_batch(t)
    C = xb.shape[-1]
    per = func(xb.reshape(-1, C), tb.reshape(-1), reduction='none', ignore_index=ig)
    per = per.reshape(B, -1)
    if red == 'none':
        return mark(per.reshape(B) if lx == 1 else per)
    if red == 'sum':
        return mark(per.sum(1))
    if red != 'mean':
        raise Fallback()
    valid = (tb.reshape(B, -1) != ig).to(per.dtype).sum(1)
    return mark(per.sum(1) / valid)


# ------------------------------------------------------------ indexing, joining, layers

def _getitem(func, args, kwargs):
    """``x[index]`` for a batched ``x``: the index applied behind the batch dim. Integer
    and boolean index tensors must be unbatched, and several of them adjacent (so that
    the advanced dims stay in place)."""
    T = _tensor_cls()
    x, idx = args[0], args[1]
    if not is_batched(x) or kwargs:
        raise Fallback()
    items = idx if isinstance(idx, tuple) else (idx,)
    adv = []
    for i, it in enumerate(items):
        if isinstance(it, T):
            if is_batched(it) or it.dtype.is_floating_point:
                raise Fallback()
            if it.dtype == _bool_dtype() :
                raise Fallback()   # a mask: data-dependent shape per sample
            adv.append(i)
        elif isinstance(it, (list, bool)) or (it is not None and it is not Ellipsis and
                                              not isinstance(it, (int, slice))):
            raise Fallback()
    if adv and adv != list(range(adv[0], adv[-1] + 1)):
        raise Fallback()
    return mark(x[(slice(None),) + items])


def _bool_dtype():
    from .. import _dtype
    return _dtype.bool


def _index_select(func, args, kwargs):
    names = ('input', 'dim', 'index')
    a = dict(zip(names, args))
    a.update(kwargs)
    x, d, i = a['input'], a['dim'], a['index']
    if not is_batched(x) or is_batched(i) or set(a) - set(names):
        raise Fallback()
    nd = _shift(d, x.dim() - 1)
    if nd is None:
        raise Fallback()
    return mark(func(x, nd, i))


def _gather(func, args, kwargs):
    names = ('input', 'dim', 'index')
    a = dict(zip(names, args))
    a.update(kwargs)
    x, d, i = a['input'], a['dim'], a['index']
    if set(a) - set(names) or _ldim(x) != _ldim(i):
        raise Fallback()
    nd = _shift(d, _ldim(x))
    if nd is None:
        raise Fallback()
    return mark(func(_expand_batch(x), nd, _expand_batch(i)))


def _cat(func, args, kwargs):
    T = _tensor_cls()
    seq = kwargs.get('tensors', args[0] if args else None)
    d = kwargs.get('dim', args[1] if len(args) > 1 else 0)
    if not isinstance(seq, (list, tuple)) or not seq or set(kwargs) - {'tensors', 'dim'} or \
            not all(isinstance(t, T) for t in seq):
        raise Fallback()
    L = max(_ldim(t) for t in seq)
    if any(_ldim(t) != L for t in seq):
        raise Fallback()
    stack = func.__name__ == 'stack'
    nd = _shift(d, L + 1 if stack else L)
    if nd is None:
        raise Fallback()
    return mark(func([_expand_batch(t) for t in seq], nd))


def _split(func, args, kwargs):
    x = _first_batched(args)
    names = ('input', 'split_size_or_sections' if func.__name__ == 'split' else 'chunks', 'dim')
    a = dict(zip(names, args))
    a.update(kwargs)
    if set(a) - set(names):
        raise Fallback()
    nd = _shift(a.get('dim', 0), x.dim() - 1)
    if nd is None:
        raise Fallback()
    return _mark_out(tuple(func(x, a[names[1]], nd)))


def _unbind(func, args, kwargs):
    x = _first_batched(args)
    nd = _shift(kwargs.get('dim', args[1] if len(args) > 1 else 0), x.dim() - 1)
    if nd is None:
        raise Fallback()
    return _mark_out(tuple(func(x, nd)))


_SPATIAL = {'conv1d': 1, 'conv2d': 2, 'conv3d': 3, 'max_pool1d': 1, 'max_pool2d': 2,
            'max_pool3d': 3, 'avg_pool1d': 1, 'avg_pool2d': 2, 'avg_pool3d': 3,
            'adaptive_avg_pool1d': 1, 'adaptive_avg_pool2d': 2, 'adaptive_avg_pool3d': 3,
            'adaptive_max_pool1d': 1, 'adaptive_max_pool2d': 2, 'adaptive_max_pool3d': 3,
            'lp_pool1d': 1, 'lp_pool2d': 2, 'lp_pool3d': 3}


def _fold_batch(func, args, kwargs):
    """Convolutions and pooling with a batched input and shared weights: the vmapped
    batch is folded into the layer's own batch dim (``(B, N, C, *S) -> (B*N, C, *S)``)."""
    T = _tensor_cls()
    x = _first_batched(args)
    rest = list(args[1:])
    if any(isinstance(a, T) and is_batched(a) for a in rest + list(kwargs.values())):
        raise Fallback()   # per-sample weights
    if kwargs.get('return_indices') or (func.__name__.startswith(('max_pool', 'adaptive_max'))
                                        and any(a is True for a in rest)):
        raise Fallback()
    k = _SPATIAL[func.__name__]
    L = x.dim() - 1
    if L == k + 1:       # unbatched sample (C, *S): the vmapped dim is the layer's batch
        return mark(func(x, *rest, **kwargs))
    if L != k + 2:
        raise Fallback()
    B, N = x.shape[0], x.shape[1]
    r = func(x.reshape((B * N,) + tuple(x.shape[2:])), *rest, **kwargs)
    if not isinstance(r, T):
        raise Fallback()
    return mark(r.reshape((B, N) + tuple(r.shape[1:])))


def _per_sample_shared(func, args, kwargs):
    """Ops that act on trailing dims with shared (unbatched) parameters, so that a batched
    input is just a longer leading shape: layer_norm, embedding (batched indices)."""
    T = _tensor_cls()
    x = _first_batched(args)
    if any(isinstance(a, T) and is_batched(a) for a in list(args[1:]) + list(kwargs.values())):
        raise Fallback()
    if func.__name__ == 'layer_norm':
        ns = kwargs.get('normalized_shape', args[1] if len(args) > 1 else None)
        ns = (ns,) if isinstance(ns, int) else tuple(ns)
        if len(ns) > x.dim() - 1:
            raise Fallback()
    return mark(func(*args, **kwargs))


_POINTWISE_LOSSES = {'l1_loss': ('input', 'target', 'size_average', 'reduce', 'reduction'),
                     'smooth_l1_loss': ('input', 'target', 'size_average', 'reduce',
                                        'reduction', 'beta'),
                     'huber_loss': ('input', 'target', 'reduction', 'delta'),
                     'binary_cross_entropy': ('input', 'target', 'weight', 'size_average',
                                              'reduce', 'reduction'),
                     'binary_cross_entropy_with_logits': ('input', 'target', 'weight',
                                                          'size_average', 'reduce',
                                                          'reduction', 'pos_weight'),
                     'soft_margin_loss': ('input', 'target', 'size_average', 'reduce',
                                          'reduction'),
                     'mse_loss': ('input', 'target', 'size_average', 'reduce', 'reduction')}


def _pointwise_loss(func, args, kwargs):
    """Element-wise losses: computed with ``reduction='none'`` on the aligned operands,
    then reduced over each sample's own elements."""
    T = _tensor_cls()
    names = _POINTWISE_LOSSES[func.__name__]
    a = dict(zip(names, args))
    a.update(kwargs)
    if a.get('size_average') is not None or a.get('reduce') is not None:
        raise Fallback()
    ts = {k: v for k, v in a.items() if isinstance(v, T)}
    L = max(_ldim(v) for v in ts.values())
    if _ldim(a['input']) != L or _ldim(a['target']) != L:
        raise Fallback()
    kw = {k: (_align(_expand_batch(v), L) if k in ('input', 'target') else _align(v, L))
          if isinstance(v, T) else v for k, v in a.items()}
    red = kw.pop('reduction', 'mean')
    d = func(**kw, reduction='none')
    if d.dim() != L + 1 or d.shape[0] != batch_size():
        raise Fallback()
    if red == 'none':
        return mark(d)
    dims = tuple(range(1, d.dim()))
    if not dims:
        return mark(d)
    if red not in ('sum', 'mean'):
        raise Fallback()
    return mark(d.sum(dims) if red == 'sum' else d.mean(dims))


_RULES = {
    'unsqueeze': _unsqueeze, 'squeeze': _squeeze, 'reshape': _reshape, 'view': _reshape,
    'flatten': _flatten, 'expand': _expand, 't': _transpose, 'transpose': _transpose,
    'permute': _permute, 'matmul': _matmul, '__matmul__': _matmul, 'mm': _matmul,
    'mv': _matmul, 'dot': _dot, 'inner': _dot, 'linear': _linear,
    'cross_entropy': _class_loss, 'nll_loss': _class_loss,
    '__getitem__': _getitem, 'getitem': _getitem, 'index_select': _index_select, 'gather': _gather,
    'cat': _cat, 'concat': _cat, 'concatenate': _cat, 'stack': _cat,
    'split': _split, 'chunk': _split, 'unbind': _unbind,
    'layer_norm': _per_sample_shared, 'embedding': _per_sample_shared,
}
_RULES.update({n: _fold_batch for n in _SPATIAL})
_RULES.update({n: _pointwise_loss for n in _POINTWISE_LOSSES})
