"""Conversion tables of the ONNX exporter (``ember.fx`` graph -> ONNX nodes).

``MODULES`` maps a layer's class name to a converter of its ``call_module`` node (these
layers stay single nodes while capturing); ``FUNCTIONS`` maps an op's name (see
``_capture.op_key``: ``'add'``, ``'view'``, ``'getitem'``, ...) to a converter of its
``call_function`` / ``call_method`` node. A converter takes ``(cx, node)`` and returns the
ONNX value name(s) of the node's result (a tuple for a node that returns several values).
"""
import inspect
import math
import operator

import numpy as np

from .errors import UnsupportedOperatorError

__all__ = []

_I64_MAX = 2 ** 63 - 1


def _unsupported(cx, what, min_opset=None):
    return UnsupportedOperatorError(what, cx.b.opset, min_opset)


def _need(cx, what, min_opset):
    if cx.b.opset < min_opset:
        raise _unsupported(cx, what, min_opset)


def _tup(v, k):
    return list(v) if isinstance(v, (tuple, list)) else [v] * k


# ----------------------------------------------------------------------------- context
class Context:
    """Maps graph nodes to ONNX value names while converting."""

    def __init__(self, builder):
        self.b = builder
        self.env = {}
        self._sigs = {}

    # values and names
    def val(self, obj):
        from ..fx.node import Node
        return obj.meta['val'] if isinstance(obj, Node) else obj

    def rank(self, obj):
        return self.val(obj).dim()

    def shape(self, obj):
        return tuple(self.val(obj).shape)

    def npdt(self, obj):
        v = self.val(obj)
        if hasattr(v, 'numpy'):
            from ._builder import to_numpy
            return to_numpy(v[..., :0] if v.dim() else v).dtype
        return None

    def np_dtype(self, n):
        return self.npdt(n)

    def name(self, obj, dtype=None):
        from ..fx.node import Node
        if isinstance(obj, Node):
            nm = self.env[obj]
            if dtype is not None and self.npdt(obj) is not None and self.npdt(obj) != dtype:
                nm = self.cast(nm, dtype)
            return nm
        if isinstance(obj, (bool, int, float)) and not isinstance(obj, np.ndarray):
            if dtype is None:
                dtype = np.float32 if isinstance(obj, float) else \
                    (np.bool_ if isinstance(obj, bool) else np.int64)
            return self.b.const(np.asarray(obj, dtype=dtype))
        raise _unsupported(cx=self, what=f'prim::Constant[{type(obj).__name__}]')

    def cast(self, nm, dtype):
        return self.b.op('Cast', [nm], to=self.b.h.np_dtype_to_tensor_dtype(np.dtype(dtype)))

    def param(self, n, attr, tensor):
        """The initializer of parameter/buffer ``attr`` of the module of ``n``."""
        q = n.meta.get('qualname') or ''
        return self.b.param(f'{q}.{attr}' if q else attr, tensor)

    def shape_of(self, nm):
        return self.b.op('Shape', [nm])

    # arguments
    def bind(self, n, fn=None):
        """The node's arguments by parameter name (defaults filled in)."""
        from .._tensor import Tensor
        if fn is None:
            if n.op == 'call_module':
                fn = n.meta['module'].forward
            elif n.op == 'call_method':
                fn = getattr(Tensor, n.target)
            else:
                fn = n.target
        sig = self._sigs.get(fn)
        if sig is None:
            sig = self._sigs[fn] = inspect.signature(fn)
        ba = sig.bind(*n.args, **n.kwargs)
        ba.apply_defaults()
        return {k: (None if type(v).__name__ == '_Omitted' else v)
                for k, v in ba.arguments.items()}

    def convert(self, n):
        if n.op == 'get_attr':
            if n.meta.get('param'):
                return self.b.param(n.meta['qualname'], n.meta['val'])
            return self.b.const(n.meta['val'])
        if n.op == 'call_module':
            m = n.meta.get('module')
            fn = MODULES.get(type(m).__name__)
            if fn is None:
                raise _unsupported(self, f'aten::{type(m).__name__}')
            return fn(self, n)
        from ._capture import op_key
        name = op_key(n)
        fn = FUNCTIONS.get(name)
        if fn is None and name.endswith('_') and not name.startswith('_'):
            fn = FUNCTIONS.get(name[:-1])            # in-place forms: add_, relu_, ...
        if fn is None:
            where = ''
            stack = n.meta.get('nn_module_stack') or []
            if stack and stack[-1][0]:
                where = f" (in module '{stack[-1][0]}' of type {stack[-1][1].__name__})"
            err = _unsupported(self, f'aten::{name}')
            err.args = (err.args[0] + where,)
            raise err
        return fn(self, n)


def _x(n):
    return n.args[0]


def _arg(n, i, key, default=None):
    if len(n.args) > i:
        return n.args[i]
    return n.kwargs.get(key, default)


def _dims(n, start=1):
    """Varargs ints (``x.permute(0, 2, 1)``) or one sequence (``x.permute((0, 2, 1))``)."""
    rest = list(n.args[start:])
    if len(rest) == 1 and isinstance(rest[0], (tuple, list)):
        rest = list(rest[0])
    return rest


def _ax(d, rank):
    return d % rank if rank else 0


# -------------------------------------------------------------------- elementwise ops
def _common_dtype(cx, *objs):
    """numpy dtype to compute a pointwise op in (the result type of tensor operands;
    Python numbers follow the tensors, floats promote integer tensors)."""
    dts = [cx.npdt(o) for o in objs if cx.npdt(o) is not None]
    if not dts:
        return np.dtype(np.float32)
    dt = dts[0]
    for d in dts[1:]:
        if d != dt:
            dt = np.promote_types(dt, d)
    if any(isinstance(o, float) for o in objs) and not np.issubdtype(dt, np.floating):
        dt = np.dtype(np.float32)
    return np.dtype(dt)


def _unary(op_type, **attrs):
    def conv(cx, n):
        return cx.b.op(op_type, [cx.name(_x(n))], **attrs)
    return conv


def _binary(op_type, swap=False):
    def conv(cx, n):
        a, c = n.args[0], _arg(n, 1, 'other')
        dt = _common_dtype(cx, a, c)
        x, y = cx.name(a, dt), cx.name(c, dt)
        out = cx.b.op(op_type, [y, x] if swap else [x, y])
        rdt = cx.npdt(n)
        if rdt is not None and rdt != dt and rdt != np.bool_:
            out = cx.cast(out, rdt)
        return out
    return conv


def _compare(op_type, negate=False):
    def conv(cx, n):
        a, c = n.args[0], _arg(n, 1, 'other')
        dt = _common_dtype(cx, a, c)
        out = cx.b.op(op_type, [cx.name(a, dt), cx.name(c, dt)])
        return cx.b.op('Not', [out]) if negate else out
    return conv


def _add(op_type):
    def conv(cx, n):
        a, c = n.args[0], _arg(n, 1, 'other')
        alpha = n.kwargs.get('alpha', n.args[2] if len(n.args) > 2 else 1)
        dt = cx.npdt(n) or _common_dtype(cx, a, c)
        x, y = cx.name(a, dt), cx.name(c, dt)
        if alpha != 1:
            y = cx.b.op('Mul', [y, cx.b.const(np.asarray(alpha, dt))])
        return cx.b.op(op_type, [x, y])
    return conv


def _div(cx, n, mode=None):
    a, c = n.args[0], _arg(n, 1, 'other')
    mode = n.kwargs.get('rounding_mode', mode)
    dt = cx.npdt(n)
    if mode is None:
        return cx.b.op('Div', [cx.name(a, dt), cx.name(c, dt)])
    cdt = _common_dtype(cx, a, c)
    q = cx.b.op('Div', [cx.name(a, cdt), cx.name(c, cdt)])
    if np.issubdtype(cdt, np.floating):
        return cx.b.op('Floor', [q]) if mode == 'floor' else _trunc(cx, q)
    if mode == 'trunc':
        return q                                    # integer Div truncates
    fa, fc = cx.name(a, np.float64), cx.name(c, np.float64)
    return cx.cast(cx.b.op('Floor', [cx.b.op('Div', [fa, fc])]), cdt)


def _remainder(fmod):
    def conv(cx, n):
        a, c = n.args[0], _arg(n, 1, 'other')
        dt = cx.npdt(n)
        x, y = cx.name(a, dt), cx.name(c, dt)
        if fmod or not np.issubdtype(dt, np.floating):
            _need(cx, 'aten::fmod' if fmod else 'aten::remainder', 10)
            return cx.b.op('Mod', [x, y], fmod=int(bool(fmod) or np.issubdtype(dt, np.floating)))
        q = cx.b.op('Floor', [cx.b.op('Div', [x, y])])
        return cx.b.op('Sub', [x, cx.b.op('Mul', [q, y])])
    return conv


def _trunc(cx, q):
    s = cx.b.op('Sign', [q])
    return cx.b.op('Mul', [cx.b.op('Floor', [cx.b.op('Abs', [q])]), s])


def _rpow(cx, n):
    dt = cx.npdt(n)
    return cx.b.op('Pow', [cx.name(_arg(n, 1, 'other'), dt), cx.name(_x(n), dt)])


def _pow(cx, n):
    dt = cx.npdt(n)
    e = _arg(n, 1, 'exponent')
    x = cx.name(_x(n), dt)
    if isinstance(e, (int, float)) and e == 2:
        return cx.b.op('Mul', [x, x])
    if isinstance(e, (int, float)) and e == 0.5:
        return cx.b.op('Sqrt', [x])
    return cx.b.op('Pow', [x, cx.name(e, dt)])


def _square(cx, n):
    x = cx.name(_x(n))
    return cx.b.op('Mul', [x, x])


def _rsqrt(cx, n):
    return cx.b.op('Reciprocal', [cx.b.op('Sqrt', [cx.name(_x(n))])])


def _clamp(cx, n):
    a = cx.bind(n)
    lo = a.get('min', a.get('min_val'))
    hi = a.get('max', a.get('max_val'))
    return _clip(cx, n, cx.name(_x(n)), lo, hi)


def _clip(cx, n, x, lo, hi):
    from ..fx.node import Node
    dt = cx.npdt(n)
    if isinstance(lo, Node) or isinstance(hi, Node) or cx.b.opset >= 12 or \
            np.issubdtype(dt, np.floating) and cx.b.opset >= 11:
        if isinstance(lo, Node) or isinstance(hi, Node):
            y = x
            if lo is not None:
                y = cx.b.op('Max', [y, cx.name(lo, dt)])
            if hi is not None:
                y = cx.b.op('Min', [y, cx.name(hi, dt)])
            return y
        ins = [x, cx.b.const(np.asarray(lo, dt)) if lo is not None else '',
               cx.b.const(np.asarray(hi, dt)) if hi is not None else '']
        while ins[-1] == '':
            ins.pop()
        return cx.b.op('Clip', ins)
    return cx.b.op('Clip', [x], min=float(lo) if lo is not None else None,
                   max=float(hi) if hi is not None else None)


def _where(cx, n):
    if n.op == 'call_method':                     # x.where(condition, other)
        x, cond, other = n.args[0], _arg(n, 1, 'condition'), _arg(n, 2, 'other')
    else:
        cond, x, other = n.args[0], _arg(n, 1, 'input'), _arg(n, 2, 'other')
    dt = cx.npdt(n)
    return cx.b.op('Where', [cx.name(cond, np.bool_), cx.name(x, dt), cx.name(other, dt)])


def _masked_fill(cx, n):
    x, mask, value = n.args[0], _arg(n, 1, 'mask'), _arg(n, 2, 'value')
    dt = cx.npdt(n)
    v = cx.name(value, dt) if not hasattr(cx.val(value), 'dim') else \
        cx.name(value, dt)
    return cx.b.op('Where', [cx.name(mask, np.bool_), v, cx.name(x, dt)])


def _cast(cx, n):
    src, dst = cx.npdt(_x(n)), cx.npdt(n)
    if src == dst:
        return cx.b.op('Identity', [cx.name(_x(n))])
    return cx.cast(cx.name(_x(n)), dst)


def _ge_le(op_type, inverse):
    def conv(cx, n):
        if cx.b.opset >= 12:
            return _compare(op_type)(cx, n)
        return _compare(inverse, negate=True)(cx, n)
    return conv


def _logical(op_type):
    def conv(cx, n):
        return cx.b.op(op_type, [cx.name(n.args[0], np.bool_), cx.name(n.args[1], np.bool_)])
    return conv


# -------------------------------------------------------------------- activations
def _relu6(cx, n, x):
    return _clip(cx, n, x, 0.0, 6.0)


def _leaky(cx, n):
    a = cx.bind(n)
    return cx.b.op('LeakyRelu', [cx.name(_x(n))], alpha=float(a['negative_slope']))


def _elu(cx, n):
    return cx.b.op('Elu', [cx.name(_x(n))], alpha=float(cx.bind(n)['alpha']))


def _celu(cx, n):
    alpha = float(cx.bind(n)['alpha'])
    if cx.b.opset >= 12:
        return cx.b.op('Celu', [cx.name(_x(n))], alpha=alpha)
    x = cx.name(_x(n))
    dt = cx.npdt(n)
    y = cx.b.op('Elu', [cx.b.op('Div', [x, cx.b.const(np.asarray(alpha, dt))])], alpha=1.0)
    return cx.b.op('Mul', [y, cx.b.const(np.asarray(alpha, dt))])


def _gelu(cx, n):
    return _gelu_core(cx, cx.name(_x(n)), cx.npdt(n), cx.bind(n).get('approximate', 'none'))


def _gelu_core(cx, x, dt, approx):
    c = lambda v: cx.b.const(np.asarray(v, dt))  # noqa: E731
    if cx.b.opset >= 20:
        return cx.b.op('Gelu', [x], approximate=approx)
    if approx == 'tanh':
        x3 = cx.b.op('Mul', [cx.b.op('Mul', [x, x]), x])
        inner = cx.b.op('Mul', [cx.b.op('Add', [x, cx.b.op('Mul', [x3, c(0.044715)])]),
                               c(math.sqrt(2 / math.pi))])
        t = cx.b.op('Add', [cx.b.op('Tanh', [inner]), c(1.0)])
        return cx.b.op('Mul', [cx.b.op('Mul', [x, t]), c(0.5)])
    e = cx.b.op('Erf', [cx.b.op('Div', [x, c(math.sqrt(2.0))])])
    return cx.b.op('Mul', [cx.b.op('Mul', [x, cx.b.op('Add', [e, c(1.0)])]), c(0.5)])


def _silu(cx, n):
    x = cx.name(_x(n))
    return cx.b.op('Mul', [x, cx.b.op('Sigmoid', [x])])


def _mish(cx, n):
    x = cx.name(_x(n))
    if cx.b.opset >= 18:
        return cx.b.op('Mish', [x])
    return cx.b.op('Mul', [x, cx.b.op('Tanh', [cx.b.op('Softplus', [x])])])


def _softplus(cx, n):
    a = cx.bind(n)
    x = cx.name(_x(n))
    beta = float(a.get('beta', 1.0))
    if beta == 1.0:
        return cx.b.op('Softplus', [x])
    dt = cx.npdt(n)
    b = cx.b.const(np.asarray(beta, dt))
    return cx.b.op('Div', [cx.b.op('Softplus', [cx.b.op('Mul', [x, b])]), b])


def _hardtanh(cx, n):
    a = cx.bind(n)
    return _clip(cx, n, cx.name(_x(n)), float(a['min_val']), float(a['max_val']))


def _hardsigmoid(cx, n):
    return cx.b.op('HardSigmoid', [cx.name(_x(n))], alpha=1.0 / 6, beta=0.5)


def _hardswish(cx, n):
    x = cx.name(_x(n))
    if cx.b.opset >= 14:
        return cx.b.op('HardSwish', [x])
    return cx.b.op('Mul', [x, cx.b.op('HardSigmoid', [x], alpha=1.0 / 6, beta=0.5)])


def _softsign(cx, n):
    return cx.b.op('Softsign', [cx.name(_x(n))])


def _tanhshrink(cx, n):
    x = cx.name(_x(n))
    return cx.b.op('Sub', [x, cx.b.op('Tanh', [x])])


def _logsigmoid(cx, n):
    return cx.b.op('Log', [cx.b.op('Sigmoid', [cx.name(_x(n))])])


def _prelu(cx, n):
    x, w = _x(n), _arg(n, 1, 'weight')
    r = cx.rank(x)
    wn = cx.name(w)
    if r >= 3 and cx.val(w).numel() > 1:
        wn = cx.b.reshape(wn, [-1] + [1] * (r - 2))
    return cx.b.op('PRelu', [cx.name(x), wn])


def _threshold(cx, n):
    a = cx.bind(n)
    x = cx.name(_x(n))
    dt = cx.npdt(n)
    keep = cx.b.op('Greater', [x, cx.b.const(np.asarray(a['threshold'], dt))])
    return cx.b.op('Where', [keep, x, cx.b.const(np.asarray(a['value'], dt))])


def _glu(cx, n):
    dim = cx.bind(n).get('dim', -1)
    x = _x(n)
    r = cx.rank(x)
    h = cx.shape(x)[_ax(dim, r)] // 2
    a, b = cx.b.split(cx.name(x), [h, h], _ax(dim, r))
    return cx.b.op('Mul', [a, cx.b.op('Sigmoid', [b])])


def _softmax_f(log):
    def conv(cx, n):
        dim = _arg(n, 1, 'dim', None)
        if dim is None:
            dim = -1 if cx.rank(_x(n)) not in (0, 1, 3) else 0
        x = cx.name(_x(n))
        if cx.npdt(n) != cx.npdt(_x(n)):          # dtype=
            x = cx.cast(x, cx.npdt(n))
        return cx.b.softmax(x, dim, cx.rank(_x(n)), log)
    return conv


def _softmin(cx, n):
    dim = _arg(n, 1, 'dim', -1)
    return cx.b.softmax(cx.b.op('Neg', [cx.name(_x(n))]), dim, cx.rank(_x(n)))


def _dropout(cx, n):
    a = cx.bind(n)
    if a.get('training') and a.get('p', 0) > 0:
        from ._capture import op_key
        raise _unsupported(cx, f'aten::{op_key(n)}(training=True)')
    return cx.b.op('Identity', [cx.name(_x(n))])


def _identity(cx, n):
    return cx.b.op('Identity', [cx.name(_x(n))])


# -------------------------------------------------------------------- linear algebra
def _linear_core(cx, x, rank, w, bias):
    b = cx.b
    if rank == 2 and bias is not None:
        return b.op('Gemm', [x, w, bias], transB=1)
    y = b.op('MatMul', [x, b.transpose(w, [1, 0])])
    return b.op('Add', [y, bias]) if bias is not None else y


def _f_linear(cx, n):
    bias = _arg(n, 2, 'bias')
    return _linear_core(cx, cx.name(_x(n)), cx.rank(_x(n)), cx.name(_arg(n, 1, 'weight')),
                        cx.name(bias) if bias is not None else None)


def _matmul(cx, n):
    return cx.b.op('MatMul', [cx.name(_x(n)), cx.name(n.args[1])])


def _addmm(cx, n):
    a = cx.bind(n)
    dt = cx.npdt(n)
    y = cx.b.op('MatMul', [cx.name(list(a.values())[1]), cx.name(list(a.values())[2])])
    alpha, beta = a.get('alpha', 1), a.get('beta', 1)
    if alpha != 1:
        y = cx.b.op('Mul', [y, cx.b.const(np.asarray(alpha, dt))])
    if beta == 0:
        return y
    inp = cx.name(_x(n))
    if beta != 1:
        inp = cx.b.op('Mul', [inp, cx.b.const(np.asarray(beta, dt))])
    return cx.b.op('Add', [inp, y])


def _sdpa(cx, n):
    a = cx.bind(n)
    q, k, v = a['query'], a['key'], a['value']
    dt = cx.npdt(n)
    if a.get('enable_gqa'):
        raise _unsupported(cx, 'aten::scaled_dot_product_attention(enable_gqa=True)')
    d = cx.shape(q)[-1]
    L, S = cx.shape(q)[-2], cx.shape(k)[-2]
    scale = a.get('scale') or 1.0 / math.sqrt(d)
    rk = cx.rank(k)
    perm = list(range(rk))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    s = cx.b.op('MatMul', [cx.name(q), cx.b.transpose(cx.name(k), perm)])
    s = cx.b.op('Mul', [s, cx.b.const(np.asarray(scale, dt))])
    mask = a.get('attn_mask')
    if a.get('is_causal'):
        s = cx.b.op('Add', [s, cx.b.const(_causal(L, S, dt))])
    if mask is not None:
        s = _add_mask(cx, s, cx.name(mask), cx.npdt(mask), dt)
    p = cx.b.softmax(s, -1, cx.rank(q))
    return cx.b.op('MatMul', [p, cx.name(v)])


def _causal(L, S, dt):
    m = np.zeros((L, S), dt)
    m[np.triu_indices(L, 1, S)] = -np.inf
    return m


def _add_mask(cx, s, mask, mask_dt, dt):
    """Add an attention mask to scores ``s``: a bool mask (True = attend) becomes 0/-inf."""
    if mask_dt == np.bool_:
        mask = cx.b.op('Where', [mask, cx.b.const(np.asarray(0, dt)),
                                 cx.b.const(np.asarray(-np.inf, dt))])
    elif mask_dt != dt:
        mask = cx.cast(mask, dt)
    return cx.b.op('Add', [s, mask])


# -------------------------------------------------------------------- shapes
def _reshape_like(cx, n):
    """Reshape to the traced result's shape, keeping leading dims equal to the input's
    (ONNX 0) and inferring the first other dim (-1), so a dynamic batch axis stays free."""
    x, out = cx.val(_x(n)), n.meta['val']
    shape = list(out.shape)
    i = 0
    while i < len(shape) and i < x.dim() and shape[i] == x.shape[i]:
        shape[i] = 0
        i += 1
    if i < len(shape) and 0 not in out.shape:
        shape[i] = -1
    if not shape:
        return cx.b.reshape(cx.name(_x(n)), [])
    return cx.b.reshape(cx.name(_x(n)), shape)


def _flatten(cx, n):
    a = cx.bind(n)
    r = cx.rank(_x(n))
    s, e = _ax(a.get('start_dim', 0), r), _ax(a.get('end_dim', -1), r)
    if r and s == 1 and e == r - 1:
        return cx.b.op('Flatten', [cx.name(_x(n))], axis=1)
    if r and s == 0 and e == r - 1:
        return cx.b.reshape(cx.name(_x(n)), [-1])
    return _reshape_like(cx, n)


def _permute(cx, n):
    dims = _dims(n)
    r = cx.rank(_x(n))
    return cx.b.transpose(cx.name(_x(n)), [_ax(d, r) for d in dims])


def _transpose(cx, n):
    r = cx.rank(_x(n))
    if r < 2:
        return cx.b.op('Identity', [cx.name(_x(n))])
    a = cx.bind(n)
    d0, d1 = _ax(a['dim0'], r), _ax(a['dim1'], r)
    perm = list(range(r))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return cx.b.transpose(cx.name(_x(n)), perm)


def _t(cx, n):
    r = cx.rank(_x(n))
    if r < 2:
        return cx.b.op('Identity', [cx.name(_x(n))])
    return cx.b.transpose(cx.name(_x(n)), [1, 0])


def _cat(cx, n):
    ts = [t for t in _arg(n, 0, 'tensors') if cx.val(t).numel() or cx.val(t).dim() > 1]
    dim = _arg(n, 1, 'dim', 0)
    dt = cx.npdt(n)
    r = cx.rank(n)
    return cx.b.op('Concat', [cx.name(t, dt) for t in ts], axis=_ax(dim, r))


def _stack(cx, n):
    ts = _arg(n, 0, 'tensors')
    dim = _arg(n, 1, 'dim', 0)
    r = cx.rank(n)
    dt = cx.npdt(n)
    d = _ax(dim, r)
    return cx.b.op('Concat', [cx.b.unsqueeze(cx.name(t, dt), [d]) for t in ts], axis=d)


def _split(cx, n):
    a = cx.bind(n)
    x = _x(n)
    r = cx.rank(x)
    d = _ax(a.get('dim', 0), r)
    sizes = [v.shape[d] for v in n.meta['val']]
    if len(sizes) == 1:
        return (cx.b.op('Identity', [cx.name(x)]),)
    return tuple(cx.b.split(cx.name(x), sizes, d))


def _unbind(cx, n):
    a = cx.bind(n)
    x = _x(n)
    r = cx.rank(x)
    d = _ax(a.get('dim', 0), r)
    k = cx.shape(x)[d]
    parts = cx.b.split(cx.name(x), [1] * k, d) if k > 1 else [cx.name(x)]
    return tuple(cx.b.squeeze(p, [d]) for p in parts)


def _squeeze(cx, n):
    x = _x(n)
    r = cx.rank(x)
    dim = _arg(n, 1, 'dim')
    shape = cx.shape(x)
    if dim is None:
        axes = [i for i, s in enumerate(shape) if s == 1]
    else:
        dims = list(dim) if isinstance(dim, (tuple, list)) else [dim]
        axes = [_ax(d, r) for d in dims if r and shape[_ax(d, r)] == 1]
    if not axes:
        return cx.b.op('Identity', [cx.name(x)])
    return cx.b.squeeze(cx.name(x), axes)


def _unsqueeze(cx, n):
    dim = _arg(n, 1, 'dim')
    return cx.b.unsqueeze(cx.name(_x(n)), [_ax(dim, cx.rank(n))])


def _expand(cx, n):
    x = _x(n)
    out = list(n.meta['val'].shape)
    xs = cx.shape(x)
    off = len(out) - len(xs)
    shape = [1 if i >= off and xs[i - off] == s else s for i, s in enumerate(out)]
    return cx.b.op('Expand', [cx.name(x), cx.b.ints(shape)])


def _repeat(cx, n):
    reps = _dims(n)
    x = cx.name(_x(n))
    r = cx.rank(_x(n))
    if len(reps) > r:
        x = cx.b.reshape(x, [1] * (len(reps) - r) + list(cx.shape(_x(n))))
    return cx.b.op('Tile', [x, cx.b.ints(reps)])


def _tile(cx, n):
    reps = list(_arg(n, 1, 'dims'))
    r = cx.rank(_x(n))
    reps = [1] * (r - len(reps)) + reps
    x = cx.name(_x(n))
    if len(reps) > r:
        x = cx.b.reshape(x, [1] * (len(reps) - r) + list(cx.shape(_x(n))))
    return cx.b.op('Tile', [x, cx.b.ints(reps)])


def _narrow(cx, n):
    a = cx.bind(n)
    r = cx.rank(_x(n))
    s = int(a['start'])
    return cx.b.slice(cx.name(_x(n)), [s], [s + int(a['length'])], [_ax(a['dim'], r)])


def _select(cx, n):
    a = cx.bind(n)
    r = cx.rank(_x(n))
    return cx.b.op('Gather', [cx.name(_x(n)), cx.b.const(np.asarray(int(a['index']), np.int64))],
                   axis=_ax(a['dim'], r))


def _getitem(cx, n):
    from ..fx.node import Node
    src, idx = n.args[0], n.args[1]
    if isinstance(src, Node) and not hasattr(cx.val(src), 'dim'):
        return cx.env[src][idx]
    if not isinstance(idx, tuple):
        idx = (idx,)
    x = cx.name(src)
    r = cx.rank(src)
    shape = list(cx.shape(src))
    consume = sum(1 for i in idx if i is not None and i is not Ellipsis and not (
        isinstance(i, Node) and cx.npdt(i) == np.bool_))
    adv = [i for i in idx if isinstance(i, (Node, list)) or hasattr(i, 'dim')]
    if len(adv) > 1:
        raise _unsupported(cx, 'aten::index(several tensor indices)')
    full = []
    for i in idx:
        if i is Ellipsis:
            full.extend([slice(None)] * (r - consume))
        else:
            full.append(i)
    cur = 0
    for i in full:
        if i is None:
            x = cx.b.unsqueeze(x, [cur])
            shape.insert(cur, 1)
            cur += 1
        elif isinstance(i, slice):
            if not (i.start in (None, 0) and i.stop is None and i.step in (None, 1)):
                start = 0 if i.start is None else int(i.start)
                stop = _I64_MAX if i.stop is None else int(i.stop)
                step = 1 if i.step is None else int(i.step)
                x = cx.b.slice(x, [start], [stop], [cur], [step] if step != 1 else None)
            cur += 1
        elif isinstance(i, bool):
            raise _unsupported(cx, 'aten::index(bool)')
        elif isinstance(i, int):
            k = i
            if k < 0 and cx.b.opset < 11:
                k += shape[cur]
            x = cx.b.op('Gather', [x, cx.b.const(np.asarray(k, np.int64))], axis=cur)
            shape.pop(cur)
        else:
            if isinstance(i, list):
                ind = cx.b.const(np.asarray(i, np.int64))
                nd = np.asarray(i).ndim
            else:
                if cx.npdt(i) == np.bool_:
                    raise _unsupported(cx, 'aten::index(bool mask)')
                ind = cx.name(i, np.int64)
                nd = cx.rank(i)
            x = cx.b.op('Gather', [x, ind], axis=cur)
            cur += nd
    return x


def _getattr(cx, n):
    x, attr = n.args[0], n.args[1]
    r = cx.rank(x)
    if attr in ('T', 'H') and r >= 2:
        return cx.b.transpose(cx.name(x), list(range(r))[::-1])
    if attr in ('mT', 'mH') and r >= 2:
        perm = list(range(r))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        return cx.b.transpose(cx.name(x), perm)
    if attr in ('T', 'H'):
        return cx.b.op('Identity', [cx.name(x)])
    raise _unsupported(cx, f'prim::GetAttr[{attr}]')


def _shrink(soft):
    def conv(cx, n):
        lambd = float(cx.bind(n).get('lambd', 0.5))
        return cx.b.op('Shrink', [cx.name(_x(n))], lambd=lambd, bias=lambd if soft else 0.0)
    return conv


def _rrelu(cx, n):
    a = cx.bind(n)
    if a.get('training'):
        raise _unsupported(cx, 'aten::rrelu(training=True)')
    return cx.b.op('LeakyRelu', [cx.name(_x(n))],
                   alpha=(float(a['lower']) + float(a['upper'])) / 2)


def _rms_norm(cx, n):
    a = cx.bind(n)
    x = cx.name(_x(n))
    dt = cx.npdt(n)
    k = len(tuple(a['normalized_shape']))
    r = cx.rank(_x(n))
    eps = a.get('eps')
    if eps is None:
        eps = float(np.finfo(dt).eps)
    ms = cx.b.reduce('ReduceMean', cx.b.op('Mul', [x, x]), list(range(r - k, r)), True)
    y = cx.b.op('Div', [x, cx.b.op('Sqrt', [cx.b.op('Add', [ms, cx.b.const(
        np.asarray(eps, dt))])])])
    if a.get('weight') is not None:
        y = cx.b.op('Mul', [y, cx.name(a['weight'])])
    return y


def _pixel_unshuffle(cx, n):
    rf = int(_arg(n, 1, 'downscale_factor'))
    N, C, H, W = cx.shape(_x(n))
    x = cx.b.reshape(cx.name(_x(n)), [-1, C, H // rf, rf, W // rf, rf])
    x = cx.b.transpose(x, [0, 1, 3, 5, 2, 4])
    return cx.b.reshape(x, [-1, C * rf * rf, H // rf, W // rf])


def _channel_shuffle(cx, n):
    g = int(_arg(n, 1, 'groups'))
    shape = cx.shape(_x(n))
    C = shape[1]
    x = cx.b.reshape(cx.name(_x(n)), [0, g, C // g] + list(shape[2:]))
    x = cx.b.transpose(x, [0, 2, 1] + list(range(3, len(shape) + 1)))
    return cx.b.reshape(x, [0, C] + list(shape[2:]))


def _lrn(cx, n):
    a = cx.bind(n)
    size = int(a['size'])
    if size % 2 == 0 or cx.rank(_x(n)) < 3:
        raise _unsupported(cx, f'aten::local_response_norm(size={size}, '
                               f'dim={cx.rank(_x(n))})')
    return cx.b.op('LRN', [cx.name(_x(n))], size=size, alpha=float(a['alpha']),
                   beta=float(a['beta']), bias=float(a['k']))


def _bilinear(cx, n):
    a = cx.bind(n)
    _need(cx, 'aten::bilinear', 12)
    x1, x2 = cx.name(a['input1']), cx.name(a['input2'])
    y = cx.b.op('Einsum', [x1, cx.name(a['weight']), x2], equation='...i,oij,...j->...o')
    if a.get('bias') is not None:
        y = cx.b.op('Add', [y, cx.name(a['bias'])])
    return y


def _cosine_similarity(cx, n):
    a = cx.bind(n)
    dt = cx.npdt(n)
    r = max(cx.rank(a['x1']), cx.rank(a['x2']))
    d = [_ax(a.get('dim', 1), r)]
    x1, x2 = cx.name(a['x1'], dt), cx.name(a['x2'], dt)
    w12 = cx.b.reduce('ReduceSum', cx.b.op('Mul', [x1, x2]), d, False)
    w1 = cx.b.reduce('ReduceSum', cx.b.op('Mul', [x1, x1]), d, False)
    w2 = cx.b.reduce('ReduceSum', cx.b.op('Mul', [x2, x2]), d, False)
    eps = float(a.get('eps', 1e-8))
    n12 = cx.b.op('Sqrt', [cx.b.op('Max', [cx.b.op('Mul', [w1, w2]),
                                            cx.b.const(np.asarray(eps * eps, dt))])])
    return cx.b.op('Div', [w12, n12])


def _pairwise_distance(cx, n):
    a = cx.bind(n)
    dt = cx.npdt(n)
    p = float(a.get('p', 2.0))
    r = max(cx.rank(a['x1']), cx.rank(a['x2']))
    diff = cx.b.op('Add', [cx.b.op('Sub', [cx.name(a['x1'], dt), cx.name(a['x2'], dt)]),
                           cx.b.const(np.asarray(a.get('eps', 1e-6), dt))])
    axes, keep = [max(r - 1, 0)], bool(a.get('keepdim', False))
    if p == 2:
        return cx.b.reduce('ReduceL2', diff, axes, keep)
    if p == 1:
        return cx.b.reduce('ReduceL1', diff, axes, keep)
    pw = cx.b.const(np.asarray(p, dt))
    sm = cx.b.reduce('ReduceSum', cx.b.op('Pow', [cx.b.op('Abs', [diff]), pw]), axes, keep)
    return cx.b.op('Pow', [sm, cx.b.const(np.asarray(1.0 / p, dt))])


def _lp_pool(k):
    def conv(cx, n):
        a = cx.bind(n)
        p = float(a['norm_type'])
        dt = cx.npdt(n)
        ks = _tup(a['kernel_size'], k)
        st = _tup(a.get('stride') or a['kernel_size'], k)
        x = cx.name(_x(n))
        unbatched = cx.rank(_x(n)) == k + 1
        if unbatched:
            x = cx.b.unsqueeze(x, [0])
        y = cx.b.op('AveragePool', [cx.b.op('Pow', [x, cx.b.const(np.asarray(p, dt))])],
                    **_pool_attrs(cx, dict(kernel_shape=ks, strides=st, pads=[0] * (2 * k),
                                           ceil_mode=int(bool(a.get('ceil_mode'))))))
        y = cx.b.op('Mul', [y, cx.b.const(np.asarray(float(np.prod(ks)), dt))])
        y = cx.b.op('Pow', [y, cx.b.const(np.asarray(1.0 / p, dt))])
        return cx.b.squeeze(y, [0]) if unbatched else y
    return conv


def _patch_kernel(c, ks, dt):
    """Identity kernels ``(c * kh * kw, 1, kh, kw)`` that pick each window position."""
    kk = int(np.prod(ks))
    w = np.zeros((c, kk) + tuple(ks), dt)
    for i in range(kk):
        w[(slice(None), i) + np.unravel_index(i, ks)] = 1
    return w.reshape((c * kk, 1) + tuple(ks))


def _unfold(cx, n):
    a = cx.bind(n)
    if 'kernel_size' not in a:                     # Tensor.unfold(dimension, size, step)
        raise _unsupported(cx, 'aten::unfold')
    shape = cx.shape(_x(n))
    if len(shape) != 4:
        raise _unsupported(cx, f'aten::im2col(input of dim {len(shape)})')
    c = shape[1]
    ks, dil = _tup(a['kernel_size'], 2), _tup(a.get('dilation', 1), 2)
    pad, st = _tup(a.get('padding', 0), 2), _tup(a.get('stride', 1), 2)
    dt = cx.npdt(n)
    y = cx.b.op('Conv', [cx.name(_x(n)), cx.b.const(_patch_kernel(c, ks, dt))],
                kernel_shape=ks, strides=st, pads=pad + pad, dilations=dil, group=c)
    return cx.b.reshape(y, [0, 0, -1])


def _fold(cx, n):
    a = cx.bind(n)
    shape = cx.shape(_x(n))
    if len(shape) != 3:
        raise _unsupported(cx, f'aten::col2im(input of dim {len(shape)})')
    ks, dil = _tup(a['kernel_size'], 2), _tup(a.get('dilation', 1), 2)
    pad, st = _tup(a.get('padding', 0), 2), _tup(a.get('stride', 1), 2)
    out = _tup(a['output_size'], 2)
    kk = int(np.prod(ks))
    c = shape[1] // kk
    blocks = [(o + 2 * p - d * (k - 1) - 1) // s + 1
              for o, p, d, k, s in zip(out, pad, dil, ks, st)]
    dt = cx.npdt(n)
    x = cx.b.reshape(cx.name(_x(n)), [0, 0] + blocks)
    base = [(b - 1) * s - 2 * p + d * (k - 1) + 1
            for b, s, p, d, k in zip(blocks, st, pad, dil, ks)]
    opad = [o - b for o, b in zip(out, base)]
    return cx.b.op('ConvTranspose', [x, cx.b.const(_patch_kernel(c, ks, dt))], kernel_shape=ks,
                   strides=st, pads=pad + pad, dilations=dil, group=c,
                   output_padding=opad if any(opad) else None)


def _embedding_bag(cx, n):
    a = cx.bind(n)
    if cx.rank(_x(n)) != 2 or a.get('offsets') is not None or \
            a.get('per_sample_weights') is not None or a.get('max_norm') is not None or \
            a.get('padding_idx') is not None:
        raise _unsupported(cx, 'aten::embedding_bag(offsets/per_sample_weights/max_norm/'
                               'padding_idx)')
    e = cx.b.op('Gather', [cx.name(a['weight']), cx.name(_x(n), np.int64)])
    op_type = {'sum': 'ReduceSum', 'mean': 'ReduceMean', 'max': 'ReduceMax'}[a['mode']]
    return cx.b.reduce(op_type, e, [1], False)


def _one_hot(cx, n):
    depth = cx.shape(n)[-1]
    return cx.b.op('OneHot', [cx.name(_x(n), np.int64), cx.b.const(np.asarray(depth, np.int64)),
                              cx.b.const(np.asarray([0, 1], np.int64))], axis=-1)


def _topk_core(cx, x, k, axis, largest, sort_):
    _need(cx, 'aten::topk', 11)
    return tuple(cx.b.op('TopK', [x, cx.b.const(np.asarray([k], np.int64))], outputs=2,
                         axis=axis, largest=int(largest), sorted=int(sort_)))


def _topk(cx, n):
    a = cx.bind(n)
    r = cx.rank(_x(n))
    return _topk_core(cx, cx.name(_x(n)), int(a['k']), _ax(a.get('dim', -1), r),
                      a.get('largest', True), a.get('sorted', True))


def _sort(indices_only):
    def conv(cx, n):
        a = cx.bind(n)
        r = cx.rank(_x(n))
        d = _ax(a.get('dim', -1), r)
        res = _topk_core(cx, cx.name(_x(n)), cx.shape(_x(n))[d], d,
                         bool(a.get('descending', False)), True)
        return res[1] if indices_only else res
    return conv


def _gather(cx, n):
    a = cx.bind(n)
    return cx.b.op('GatherElements', [cx.name(_x(n)), cx.name(a['index'], np.int64)],
                   axis=_ax(a['dim'], cx.rank(_x(n))))


def _trilu(upper):
    def conv(cx, n):
        _need(cx, 'aten::triu' if upper else 'aten::tril', 14)
        k = int(cx.bind(n).get('diagonal', 0))
        return cx.b.op('Trilu', [cx.name(_x(n)), cx.b.const(np.asarray(k, np.int64))],
                       upper=int(upper))
    return conv


def _einsum(cx, n):
    _need(cx, 'aten::einsum', 12)
    eq = n.args[0]
    ops = list(n.args[1:])
    if len(ops) == 1 and isinstance(ops[0], (list, tuple)):
        ops = list(ops[0])
    dt = cx.npdt(n)
    return cx.b.op('Einsum', [cx.name(o, dt) for o in ops], equation=eq.replace(' ', ''))


def _outer(cx, n):
    return cx.b.op('Mul', [cx.b.unsqueeze(cx.name(_x(n)), [1]), cx.name(n.args[1])])


def _setitem(cx, n):
    """``x[idx] = value`` as ``Where(mask, value placed in x's shape, x)``: basic indices
    (ints, slices, Ellipsis) or one boolean mask; a tensor value needs unit-step slices."""
    from ..fx.node import Node
    x, idx, value = n.args[0], n.args[1], n.args[2]
    shape = list(cx.shape(x))
    r = len(shape)
    dt = cx.npdt(x)
    xn = cx.name(x)
    vn = cx.name(value, dt) if isinstance(value, (Node, bool, int, float)) else \
        cx.b.const(np.asarray(value, dt))
    if not isinstance(idx, tuple):
        idx = (idx,)
    if len(idx) == 1 and isinstance(idx[0], Node) and cx.npdt(idx[0]) == np.bool_:
        mask = cx.name(idx[0])
        if cx.rank(idx[0]) < r:
            mask = cx.b.unsqueeze(mask, list(range(cx.rank(idx[0]), r)))
        if isinstance(value, Node) and cx.val(value).numel() != 1:
            raise _unsupported(cx, 'aten::index_put(bool mask, tensor value)')
        return cx.b.op('Where', [mask, vn, xn])
    if any(i is None or isinstance(i, (Node, list)) or isinstance(i, bool) for i in idx):
        raise _unsupported(cx, 'aten::index_put(advanced index)')
    consume = sum(1 for i in idx if i is not Ellipsis)
    full = []
    for i in idx:
        full.extend([slice(None)] * (r - consume) if i is Ellipsis else [i])
    full += [slice(None)] * (r - len(full))
    masks, target, begins, ends, int_dims, steps = [], [], [0] * r, [0] * r, [], False
    for d, i in enumerate(full):
        if isinstance(i, slice) and i == slice(None):
            target.append(1)
            continue
        sel = np.zeros(shape[d], bool)
        if isinstance(i, slice):
            start, stop, step = i.indices(shape[d])
            sel[start:stop:step] = True
            steps |= step != 1
            target.append(int(sel.sum()))
            begins[d], ends[d] = start, shape[d] - max(stop, start)
        else:
            k = int(i) % shape[d]
            sel[k] = True
            int_dims.append(d)
            target.append(1)
            begins[d], ends[d] = k, shape[d] - k - 1
        masks.append(sel.reshape([1] * d + [shape[d]] + [1] * (r - d - 1)))
    mask = np.ones([1] * r, bool)
    for m in masks:
        mask = mask & m
    if isinstance(value, Node) and cx.val(value).numel() != 1:
        if steps:
            raise _unsupported(cx, 'aten::index_put(strided slice, tensor value)')
        v = vn
        vr = cx.rank(value)
        region_rank = r - len(int_dims)
        if vr < region_rank:
            v = cx.b.reshape(v, [1] * (region_rank - vr) + list(cx.shape(value)))
        for d in int_dims:
            v = cx.b.unsqueeze(v, [d])
        v = cx.b.op('Expand', [v, cx.b.ints(target)])
        if any(begins) or any(ends):
            if cx.b.opset >= 11:
                v = cx.b.op('Pad', [v, cx.b.ints(begins + ends)], mode='constant')
            else:
                v = cx.b.op('Pad', [v], mode='constant', pads=begins + ends)
        vn = v
    return cx.b.op('Where', [cx.b.const(mask), vn, xn])


def _index_select(cx, n):
    a = cx.bind(n)
    return cx.b.op('Gather', [cx.name(_x(n)), cx.name(a['index'], np.int64)],
                   axis=_ax(a['dim'], cx.rank(_x(n))))


def _flip(cx, n):
    dims = _dims(n)
    r = cx.rank(_x(n))
    axes = [_ax(d, r) for d in dims]
    return cx.b.slice(cx.name(_x(n)), [-1] * len(axes), [-_I64_MAX] * len(axes), axes,
                      [-1] * len(axes))


def _like(fill):
    def conv(cx, n):
        a = cx.bind(n)
        v = fill if fill is not None else a['fill_value']
        dt = cx.npdt(n)
        shp = cx.shape_of(cx.name(_x(n)))
        return cx.b.op('ConstantOfShape', [shp], value=cx.b.onnx.numpy_helper.from_array(
            np.asarray([v], dt)))
    return conv


def _new_const(cx, n):
    """``x.new_zeros(...)`` & co.: the value depends only on the (fixed) sizes passed."""
    return cx.b.const(n.meta['val'])


def _pad(cx, n):
    a = cx.bind(n)
    pad = list(a['pad'])
    mode = a.get('mode', 'constant')
    value = a.get('value') or 0.0
    r = cx.rank(_x(n))
    begins, ends = [0] * r, [0] * r
    for i in range(len(pad) // 2):
        begins[r - 1 - i], ends[r - 1 - i] = pad[2 * i], pad[2 * i + 1]
    onnx_mode = {'constant': 'constant', 'reflect': 'reflect', 'replicate': 'edge',
                 'circular': 'wrap'}.get(mode)
    if onnx_mode is None or (onnx_mode == 'wrap' and cx.b.opset < 19):
        raise _unsupported(cx, f'aten::pad(mode={mode!r})')
    dt = cx.npdt(n)
    x = cx.name(_x(n))
    if any(p < 0 for p in pad):
        raise _unsupported(cx, 'aten::pad(negative padding)')
    if cx.b.opset >= 11:
        ins = [x, cx.b.ints(begins + ends)]
        if onnx_mode == 'constant':
            ins.append(cx.b.const(np.asarray(value, dt)))
        return cx.b.op('Pad', ins, mode=onnx_mode)
    return cx.b.op('Pad', [x], mode=onnx_mode, pads=begins + ends, value=float(value))


def _pixel_shuffle(cx, n):
    rf = int(_arg(n, 1, 'upscale_factor'))
    N, C, H, W = cx.shape(_x(n))
    x = cx.b.reshape(cx.name(_x(n)), [-1, C // (rf * rf), rf, rf, H, W])
    x = cx.b.transpose(x, [0, 1, 4, 2, 5, 3])
    return cx.b.reshape(x, [-1, C // (rf * rf), H * rf, W * rf])


# -------------------------------------------------------------------- reductions
def _reduce_args(cx, n):
    a = cx.bind(n)
    dim = a.get('dim')
    keep = bool(a.get('keepdim', False))
    r = cx.rank(_x(n))
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        axes = None
    else:
        axes = [_ax(d, r) for d in (dim if isinstance(dim, (tuple, list)) else [dim])]
    return a, axes, keep


def _reduce(op_type):
    def conv(cx, n):
        a, axes, keep = _reduce_args(cx, n)
        x = cx.name(_x(n))
        if a.get('dtype') is not None or (op_type in ('ReduceSum', 'ReduceProd') and
                                          cx.npdt(n) != cx.npdt(_x(n))):
            x = cx.cast(x, cx.npdt(n))
        if axes is None and cx.rank(_x(n)) == 0:
            return cx.b.op('Identity', [x])
        return cx.b.reduce(op_type, x, axes, keep)
    return conv


def _minmax(op_type, elem):
    def conv(cx, n):
        from ..fx.node import Node
        other = _arg(n, 1, 'dim', n.kwargs.get('other'))
        if isinstance(other, Node) or hasattr(other, 'dim'):
            dt = cx.npdt(n)
            return cx.b.op(elem, [cx.name(_x(n), dt), cx.name(other, dt)])
        a, axes, keep = _reduce_args(cx, n)
        x = cx.name(_x(n))
        if axes is None:
            return cx.b.reduce(op_type, x, None, False)
        vals = cx.b.reduce(op_type, x, axes, keep)
        arg = 'ArgMax' if op_type == 'ReduceMax' else 'ArgMin'
        idx = cx.b.op(arg, [x], axis=axes[0], keepdims=int(keep),
                      select_last_index=None)
        return (vals, idx)
    return conv


def _binary_elem(op_type):
    def conv(cx, n):
        dt = cx.npdt(n)
        return cx.b.op(op_type, [cx.name(_x(n), dt), cx.name(n.args[1], dt)])
    return conv


def _argminmax(op_type):
    def conv(cx, n):
        a, axes, keep = _reduce_args(cx, n)
        x = cx.name(_x(n))
        if axes is None:
            x = cx.b.reshape(x, [-1])
            y = cx.b.op(op_type, [x], axis=0, keepdims=0)
            if keep:
                y = cx.b.reshape(y, [1] * cx.rank(_x(n)))
            return y
        return cx.b.op(op_type, [x], axis=axes[0], keepdims=int(keep))
    return conv


def _var_std(std):
    def conv(cx, n):
        a, axes, keep = _reduce_args(cx, n)
        corr = a.get('correction')
        if corr is None:
            corr = 0 if a.get('unbiased') is False else 1
        x = cx.name(_x(n))
        shape = cx.shape(_x(n))
        cnt = int(np.prod([shape[i] for i in axes])) if axes is not None else int(np.prod(shape))
        dt = cx.npdt(n)
        m = cx.b.reduce('ReduceMean', x, axes, True)
        d = cx.b.op('Sub', [x, m])
        v = cx.b.reduce('ReduceMean', cx.b.op('Mul', [d, d]), axes, keep)
        if corr:
            v = cx.b.op('Mul', [v, cx.b.const(np.asarray(cnt / max(cnt - corr, 0), dt))])
        return cx.b.op('Sqrt', [v]) if std else v
    return conv


def _logsumexp(cx, n):
    a, axes, keep = _reduce_args(cx, n)
    return cx.b.reduce('ReduceLogSumExp', cx.name(_x(n)), axes, keep)


def _cumsum(cx, n):
    _need(cx, 'aten::cumsum', 11)
    a = cx.bind(n)
    x = cx.name(_x(n))
    if cx.npdt(n) != cx.npdt(_x(n)):
        x = cx.cast(x, cx.npdt(n))
    return cx.b.op('CumSum', [x, cx.b.const(np.asarray(_ax(a['dim'], max(cx.rank(_x(n)), 1)),
                                                       np.int64))])


# -------------------------------------------------------------------- normalization
def _layer_norm_core(cx, x, dt, k, w, bias, eps, rank):
    if cx.b.opset >= 17:
        ins = [x, w if w is not None else None, bias]
        if ins[1] is None:
            ins[1] = cx.b.const(np.ones(k[1], dt))
        if ins[2] is None:
            ins.pop()
        return cx.b.op('LayerNormalization', ins, axis=-len(k[1]), epsilon=float(eps))
    axes = list(range(rank - len(k[1]), rank))
    m = cx.b.reduce('ReduceMean', x, axes, True)
    d = cx.b.op('Sub', [x, m])
    v = cx.b.reduce('ReduceMean', cx.b.op('Mul', [d, d]), axes, True)
    y = cx.b.op('Div', [d, cx.b.op('Sqrt', [cx.b.op('Add', [v, cx.b.const(
        np.asarray(eps, dt))])])])
    if w is not None:
        y = cx.b.op('Mul', [y, w])
    if bias is not None:
        y = cx.b.op('Add', [y, bias])
    return y


def _f_layer_norm(cx, n):
    a = cx.bind(n)
    shape = tuple(a['normalized_shape'])
    w, bias = a.get('weight'), a.get('bias')
    dt = cx.npdt(n)
    return _layer_norm_core(cx, cx.name(_x(n)), dt, (None, shape),
                            cx.name(w) if w is not None else None,
                            cx.name(bias) if bias is not None else None, a['eps'],
                            cx.rank(_x(n)))


def _bcast_c(cx, nm, rank):
    """A per-channel vector reshaped to broadcast against (N, C, *) of ``rank``."""
    return cx.b.reshape(nm, [-1] + [1] * (rank - 2)) if rank > 2 else nm


def _f_group_norm(cx, n):
    a = cx.bind(n)
    g = int(a['num_groups'])
    x = cx.name(_x(n))
    r = cx.rank(_x(n))
    dt = cx.npdt(n)
    y = cx.b.reshape(x, [0, g, -1])
    m = cx.b.reduce('ReduceMean', y, [2], True)
    d = cx.b.op('Sub', [y, m])
    v = cx.b.reduce('ReduceMean', cx.b.op('Mul', [d, d]), [2], True)
    y = cx.b.op('Div', [d, cx.b.op('Sqrt', [cx.b.op('Add', [v, cx.b.const(
        np.asarray(a['eps'], dt))])])])
    y = cx.b.op('Reshape', [y, cx.shape_of(x)])
    if a.get('weight') is not None:
        y = cx.b.op('Mul', [y, _bcast_c(cx, cx.name(a['weight']), r)])
    if a.get('bias') is not None:
        y = cx.b.op('Add', [y, _bcast_c(cx, cx.name(a['bias']), r)])
    return y


def _batch_norm_core(cx, x, rank, dt, mean, var, w, bias, eps, c):
    w = w if w is not None else cx.b.const(np.ones(c, dt))
    bias = bias if bias is not None else cx.b.const(np.zeros(c, dt))
    if rank == 2:           # (N, C): BatchNormalization wants spatial dims
        x = cx.b.unsqueeze(x, [2])
    y = cx.b.op('BatchNormalization', [x, w, bias, mean, var], epsilon=float(eps))
    return cx.b.squeeze(y, [2]) if rank == 2 else y


def _batch_stats_norm(cx, x, rank, dt, axes, w, bias, eps):
    m = cx.b.reduce('ReduceMean', x, axes, True)
    d = cx.b.op('Sub', [x, m])
    v = cx.b.reduce('ReduceMean', cx.b.op('Mul', [d, d]), axes, True)
    y = cx.b.op('Div', [d, cx.b.op('Sqrt', [cx.b.op('Add', [v, cx.b.const(
        np.asarray(eps, dt))])])])
    if w is not None:
        y = cx.b.op('Mul', [y, _bcast_c(cx, w, rank)])
    if bias is not None:
        y = cx.b.op('Add', [y, _bcast_c(cx, bias, rank)])
    return y


def _f_batch_norm(cx, n):
    a = cx.bind(n)
    x = _x(n)
    r = cx.rank(x)
    dt = cx.npdt(n)
    c = cx.shape(x)[1]
    w = cx.name(a['weight']) if a.get('weight') is not None else None
    bias = cx.name(a['bias']) if a.get('bias') is not None else None
    if a.get('training') or a.get('running_mean') is None:
        return _batch_stats_norm(cx, cx.name(x), r, dt, [0] + list(range(2, r)), w, bias,
                                 a['eps'])
    return _batch_norm_core(cx, cx.name(x), r, dt, cx.name(a['running_mean']),
                            cx.name(a['running_var']), w, bias, a['eps'], c)


def _f_instance_norm(cx, n):
    a = cx.bind(n)
    x = _x(n)
    r = cx.rank(x)
    dt = cx.npdt(n)
    c = cx.shape(x)[1]
    w = cx.name(a['weight']) if a.get('weight') is not None else None
    bias = cx.name(a['bias']) if a.get('bias') is not None else None
    if not a.get('use_input_stats', True):
        return _batch_norm_core(cx, cx.name(x), r, dt, cx.name(a['running_mean']),
                                cx.name(a['running_var']), w, bias, a['eps'], c)
    if r >= 3:
        return cx.b.op('InstanceNormalization', [
            cx.name(x), w if w is not None else cx.b.const(np.ones(c, dt)),
            bias if bias is not None else cx.b.const(np.zeros(c, dt))], epsilon=float(a['eps']))
    return _batch_stats_norm(cx, cx.name(x), r, dt, list(range(2, r)), w, bias, a['eps'])


def _f_embedding(cx, n):
    a = cx.bind(n)
    if a.get('max_norm') is not None:
        raise _unsupported(cx, 'aten::embedding_renorm')
    return cx.b.op('Gather', [cx.name(a['weight']), cx.name(_x(n), np.int64)])


def _normalize(cx, n):
    a = cx.bind(n)
    p = a.get('p', 2.0)
    if p not in (1, 2, 1.0, 2.0):
        raise _unsupported(cx, f'aten::normalize(p={p})')
    r = cx.rank(_x(n))
    dt = cx.npdt(n)
    x = cx.name(_x(n))
    nrm = cx.b.reduce('ReduceL2' if p == 2 else 'ReduceL1', x, [_ax(a.get('dim', 1), r)], True)
    nrm = cx.b.op('Max', [nrm, cx.b.const(np.asarray(a.get('eps', 1e-12), dt))])
    return cx.b.op('Div', [x, nrm])


# -------------------------------------------------------------------- vision (functional)
def _interpolate_core(cx, x, in_shape, out_shape, mode, align_corners):
    _need(cx, f'aten::upsample_{mode}', 11)
    if mode in ('nearest', 'nearest-exact'):
        attrs = dict(mode='nearest',
                     coordinate_transformation_mode='asymmetric' if mode == 'nearest'
                     else 'half_pixel',
                     nearest_mode='floor' if mode == 'nearest' else 'round_prefer_ceil')
    elif mode in ('linear', 'bilinear', 'trilinear', 'bicubic'):
        attrs = dict(mode='cubic' if mode == 'bicubic' else 'linear',
                     coordinate_transformation_mode='align_corners' if align_corners
                     else ('pytorch_half_pixel' if mode != 'bicubic' else 'half_pixel'))
        if mode == 'bicubic':
            attrs['cubic_coeff_a'] = -0.75
    else:
        raise _unsupported(cx, f'aten::upsample_{mode}')
    lead = cx.b.slice(cx.shape_of(x), [0], [2], [0])
    sizes = cx.b.op('Concat', [lead, cx.b.ints(out_shape[2:])], axis=0)
    if cx.b.opset < 13:         # roi and scales are not optional before opset 13
        empty = cx.b.const(np.zeros(0, np.float32))
        return cx.b.op('Resize', [x, empty, empty, sizes], **attrs)
    return cx.b.op('Resize', [x, '', '', sizes], **attrs)


def _f_interpolate(cx, n):
    a = cx.bind(n)
    if a.get('antialias'):
        raise _unsupported(cx, 'aten::_upsample_bilinear2d_aa')
    return _interpolate_core(cx, cx.name(_x(n)), cx.shape(_x(n)), tuple(n.meta['val'].shape),
                             a.get('mode', 'nearest'), a.get('align_corners'))


def _pool_attrs(cx, attrs):
    """Before opset 10 pooling has no ``ceil_mode`` / ``dilations`` attributes."""
    if cx.b.opset >= 10:
        return attrs
    if attrs.pop('ceil_mode', 0) or any(d != 1 for d in attrs.pop('dilations', [])):
        raise _unsupported(cx, 'aten::pool(ceil_mode/dilation)', 10)
    return attrs


def _f_pool(op_type, k):
    def conv(cx, n):
        a = cx.bind(n)
        x = _x(n)
        r = cx.rank(x)
        unbatched = r == k + 1
        xn = cx.b.unsqueeze(cx.name(x), [0]) if unbatched else cx.name(x)
        ks = _tup(a['kernel_size'], k)
        st = _tup(a.get('stride') or a['kernel_size'], k)
        pads = _tup(a.get('padding', 0), k)
        attrs = dict(kernel_shape=ks, strides=st, pads=pads + pads,
                     ceil_mode=int(bool(a.get('ceil_mode', False))))
        if op_type == 'MaxPool':
            if a.get('return_indices'):
                raise _unsupported(cx, 'aten::max_pool_with_indices')
            attrs['dilations'] = _tup(a.get('dilation', 1), k)
        else:
            if a.get('divisor_override') is not None:
                raise _unsupported(cx, 'aten::avg_pool(divisor_override)')
            attrs['count_include_pad'] = int(bool(a.get('count_include_pad', True)))
        y = cx.b.op(op_type, [xn], **_pool_attrs(cx, attrs))
        return cx.b.squeeze(y, [0]) if unbatched else y
    return conv


def _f_adaptive(op_type):
    def conv(cx, n):
        x, out = cx.val(_x(n)), n.meta['val']
        if isinstance(out, tuple):
            raise _unsupported(cx, 'aten::adaptive_max_pool(return_indices=True)')
        k = len(out.shape) - 2
        ins, outs = x.shape[-k:], out.shape[-k:]
        if all(s == 1 for s in outs):
            return cx.b.op('Global' + op_type, [cx.name(_x(n))])
        if any(i % o for i, o in zip(ins, outs)):
            raise _unsupported(cx, f'aten::adaptive_{op_type.lower()}(non-divisible)')
        ks = [i // o for i, o in zip(ins, outs)]
        return cx.b.op(op_type, [cx.name(_x(n))], kernel_shape=ks, strides=ks)
    return conv


def _f_conv(cx, n):
    a = cx.bind(n)
    x, w = _x(n), a['weight']
    k = cx.rank(w) - 2
    pad = a.get('padding', 0)
    if isinstance(pad, str):
        if pad == 'valid':
            pad = 0
        else:
            raise _unsupported(cx, f"aten::_convolution_mode(padding='{pad}')")
    ins = [cx.name(x), cx.name(w)]
    if a.get('bias') is not None:
        ins.append(cx.name(a['bias']))
    pads = _tup(pad, k)
    return cx.b.op('Conv', ins, kernel_shape=list(cx.shape(w)[2:]), strides=_tup(a['stride'], k),
                   pads=pads + pads, dilations=_tup(a['dilation'], k), group=int(a['groups']))


FUNCTIONS = {
    'add': _add('Add'), 'sub': _add('Sub'), 'subtract': _add('Sub'), 'mul': _binary('Mul'),
    'multiply': _binary('Mul'), 'div': _div, 'divide': _div, 'true_divide': _div,
    'floor_divide': lambda cx, n: _div(cx, n, 'floor'), 'remainder': _remainder(False),
    'fmod': _remainder(True),
    '_rsub': _binary('Sub', swap=True), '_rdiv': _binary('Div', swap=True),
    '_rpow': _rpow, 'pow': _pow, 'square': _square, 'matmul': _matmul, 'bmm': _matmul,
    'mm': _matmul, 'addmm': _addmm, 'baddbmm': _addmm, 'neg': _unary('Neg'),
    'negative': _unary('Neg'), 'relu': _unary('Relu'), 'sigmoid': _unary('Sigmoid'),
    'tanh': _unary('Tanh'), 'exp': _unary('Exp'), 'log': _unary('Log'), 'sqrt': _unary('Sqrt'),
    'rsqrt': _rsqrt, 'abs': _unary('Abs'), 'sin': _unary('Sin'), 'cos': _unary('Cos'),
    'erf': _unary('Erf'), 'floor': _unary('Floor'), 'ceil': _unary('Ceil'),
    'sign': _unary('Sign'), 'reciprocal': _unary('Reciprocal'), 'logical_not': _unary('Not'),
    'bitwise_not': _unary('Not'),
    'clamp': _clamp, 'clip': _clamp, 'where': _where, 'masked_fill': _masked_fill,
    'maximum': _binary_elem('Max'), 'minimum': _binary_elem('Min'),
    'gt': _compare('Greater'), 'lt': _compare('Less'), 'ge': _ge_le('GreaterOrEqual', 'Less'),
    'le': _ge_le('LessOrEqual', 'Greater'), 'eq': _compare('Equal'),
    'ne': _compare('Equal', negate=True), 'greater': _compare('Greater'),
    'less': _compare('Less'),
    'logical_and': _logical('And'), 'logical_or': _logical('Or'),
    'logical_xor': _logical('Xor'), 'bitwise_and': _logical('And'),
    'bitwise_or': _logical('Or'),
    'float32': _cast, 'float64': _cast, 'float16': _cast, 'bfloat16': _cast, 'int64': _cast,
    'int32': _cast, 'int16': _cast, 'int8': _cast, 'uint8': _cast, 'bool': _cast,
    'to': _cast, 'type': _cast, 'type_as': _cast,
    'linear': _f_linear, 'softmax': _softmax_f(False), 'log_softmax': _softmax_f(True),
    'softmin': _softmin,
    'leaky_relu': _leaky, 'elu': _elu, 'selu': _unary('Selu'), 'celu': _celu, 'gelu': _gelu,
    'silu': _silu, 'mish': _mish, 'softplus': _softplus, 'hardtanh': _hardtanh,
    'relu6': lambda cx, n: _relu6(cx, n, cx.name(_x(n))), 'hardsigmoid': _hardsigmoid,
    'hardswish': _hardswish, 'softsign': _softsign, 'tanhshrink': _tanhshrink,
    'logsigmoid': _logsigmoid, 'prelu': _prelu, 'threshold': _threshold, 'glu': _glu,
    'dropout': _dropout, 'dropout1d': _dropout, 'dropout2d': _dropout, 'dropout3d': _dropout,
    'alpha_dropout': _dropout, 'feature_alpha_dropout': _dropout,
    'contiguous': _identity, 'clone': _identity, 'detach': _identity,
    'view': _reshape_like, 'reshape': _reshape_like, 'view_as': _reshape_like,
    'reshape_as': _reshape_like, 'flatten': _flatten, 'unflatten': _reshape_like,
    'permute': _permute, 'transpose': _transpose, 'swapaxes': _transpose, 't': _t,
    'cat': _cat, 'concat': _cat, 'concatenate': _cat, 'stack': _stack,
    'split': _split, 'chunk': _split, 'tensor_split': _split, 'unbind': _unbind,
    'squeeze': _squeeze, 'unsqueeze': _unsqueeze, 'expand': _expand, 'expand_as': _expand,
    'broadcast_to': _expand, 'repeat': _repeat, 'tile': _tile, 'narrow': _narrow,
    'select': _select, 'getitem': _getitem, 'getattr': _getattr, 'setitem': _setitem,
    'index_select': _index_select, 'flip': _flip,
    'zeros_like': _like(0), 'ones_like': _like(1), 'full_like': _like(None),
    'new_zeros': _new_const, 'new_ones': _new_const, 'new_full': _new_const,
    'new_tensor': _new_const,
    'pad': _pad, 'pixel_shuffle': _pixel_shuffle, 'pixel_unshuffle': _pixel_unshuffle,
    'channel_shuffle': _channel_shuffle, 'hardshrink': _shrink(False),
    'softshrink': _shrink(True), 'rrelu': _rrelu, 'rms_norm': _rms_norm,
    'local_response_norm': _lrn, 'bilinear': _bilinear,
    'cosine_similarity': _cosine_similarity, 'pairwise_distance': _pairwise_distance,
    'lp_pool1d': _lp_pool(1), 'lp_pool2d': _lp_pool(2), 'lp_pool3d': _lp_pool(3),
    'unfold': _unfold, 'fold': _fold, 'embedding_bag': _embedding_bag, 'one_hot': _one_hot,
    'topk': _topk, 'sort': _sort(False), 'argsort': _sort(True), 'gather': _gather,
    'triu': _trilu(True), 'tril': _trilu(False), 'einsum': _einsum, 'outer': _outer,
    'ger': _outer, 'mv': _matmul, 'dot': _matmul,
    'mean': _reduce('ReduceMean'), 'sum': _reduce('ReduceSum'), 'prod': _reduce('ReduceProd'),
    'amax': _reduce('ReduceMax'), 'amin': _reduce('ReduceMin'),
    'max': _minmax('ReduceMax', 'Max'), 'min': _minmax('ReduceMin', 'Min'),
    'argmax': _argminmax('ArgMax'), 'argmin': _argminmax('ArgMin'),
    'var': _var_std(False), 'std': _var_std(True), 'logsumexp': _logsumexp,
    'cumsum': _cumsum,
    'layer_norm': _f_layer_norm, 'group_norm': _f_group_norm, 'batch_norm': _f_batch_norm,
    'instance_norm': _f_instance_norm, 'embedding': _f_embedding, 'normalize': _normalize,
    'scaled_dot_product_attention': _sdpa, 'interpolate': _f_interpolate,
    'upsample': _f_interpolate,
    'max_pool1d': _f_pool('MaxPool', 1), 'max_pool2d': _f_pool('MaxPool', 2),
    'max_pool3d': _f_pool('MaxPool', 3), 'avg_pool1d': _f_pool('AveragePool', 1),
    'avg_pool2d': _f_pool('AveragePool', 2), 'avg_pool3d': _f_pool('AveragePool', 3),
    'adaptive_avg_pool1d': _f_adaptive('AveragePool'),
    'adaptive_avg_pool2d': _f_adaptive('AveragePool'),
    'adaptive_avg_pool3d': _f_adaptive('AveragePool'),
    'adaptive_max_pool1d': _f_adaptive('MaxPool'), 'adaptive_max_pool2d': _f_adaptive('MaxPool'),
    'adaptive_max_pool3d': _f_adaptive('MaxPool'),
    'conv1d': _f_conv, 'conv2d': _f_conv, 'conv3d': _f_conv,
}
FUNCTIONS['iadd'] = FUNCTIONS['add']


# ============================================================================ modules
def _m_linear(cx, n):
    m = n.meta['module']
    w = cx.param(n, 'weight', m.weight)
    bias = cx.param(n, 'bias', m.bias) if m.bias is not None else None
    return _linear_core(cx, cx.name(_x(n)), cx.rank(_x(n)), w, bias)


def _act_module(op_type, **fixed):
    def conv(cx, n):
        return cx.b.op(op_type, [cx.name(_x(n))], **fixed)
    return conv


def _m_leaky(cx, n):
    return cx.b.op('LeakyRelu', [cx.name(_x(n))], alpha=float(n.meta['module'].negative_slope))


def _m_softmax(log):
    def conv(cx, n):
        dim = n.meta['module'].dim
        r = cx.rank(_x(n))
        if dim is None:
            dim = 0 if r in (0, 1, 3) else 1
        return cx.b.softmax(cx.name(_x(n)), dim, r, log)
    return conv


def _m_flatten(cx, n):
    m = n.meta['module']
    r = cx.rank(_x(n))
    if _ax(m.start_dim, r) == 1 and _ax(m.end_dim, r) == r - 1:
        return cx.b.op('Flatten', [cx.name(_x(n))], axis=1)
    return _reshape_like(cx, n)


def _m_dropout(cx, n):
    if n.meta['module'].training and n.meta['module'].p > 0:
        raise _unsupported(cx, f'aten::{type(n.meta["module"]).__name__}(training=True)')
    return cx.b.op('Identity', [cx.name(_x(n))])


def _m_conv(cx, n):
    m = n.meta['module']
    k = len(m.kernel_size)
    pad = m.padding
    if pad == 'same':
        total = [d * (ks - 1) for d, ks in zip(m.dilation, m.kernel_size)]
        begins, ends = [t // 2 for t in total], [t - t // 2 for t in total]
    else:
        begins = ends = _tup(0 if pad == 'valid' else pad, k)
    x = cx.name(_x(n))
    unbatched = cx.rank(_x(n)) == k + 1
    if unbatched:
        x = cx.b.unsqueeze(x, [0])
    if m.padding_mode != 'zeros':          # pad explicitly, then convolve without padding
        mode = {'reflect': 'reflect', 'replicate': 'edge', 'circular': 'wrap'}[m.padding_mode]
        if mode == 'wrap':
            _need(cx, f"aten::{type(m).__name__}(padding_mode='circular')", 19)
        _need(cx, f'aten::{type(m).__name__}(padding_mode={m.padding_mode!r})', 11)
        x = cx.b.op('Pad', [x, cx.b.ints([0, 0] + list(begins) + [0, 0] + list(ends))],
                    mode=mode)
        begins = ends = [0] * k
    ins = [x, cx.param(n, 'weight', m.weight)]
    if m.bias is not None:
        ins.append(cx.param(n, 'bias', m.bias))
    y = cx.b.op('Conv', ins, kernel_shape=list(m.kernel_size), strides=_tup(m.stride, k),
                pads=list(begins) + list(ends), dilations=_tup(m.dilation, k), group=m.groups)
    return cx.b.squeeze(y, [0]) if unbatched else y


def _m_conv_transpose(cx, n):
    m = n.meta['module']
    k = len(m.kernel_size)
    if m.padding_mode != 'zeros':
        raise _unsupported(cx, f'aten::{type(m).__name__}(padding_mode={m.padding_mode!r})')
    x = cx.name(_x(n))
    in_shape = cx.shape(_x(n))
    unbatched = len(in_shape) == k + 1
    if unbatched:
        x = cx.b.unsqueeze(x, [0])
    out_shape = tuple(n.meta['val'].shape)[-k:]
    st, pad, dil = _tup(m.stride, k), _tup(m.padding, k), _tup(m.dilation, k)
    ks = list(m.kernel_size)
    base = [(i - 1) * s - 2 * p + d * (kk - 1) + 1
            for i, s, p, d, kk in zip(in_shape[-k:], st, pad, dil, ks)]
    opad = [o - b for o, b in zip(out_shape, base)]
    ins = [x, cx.param(n, 'weight', m.weight)]
    if m.bias is not None:
        ins.append(cx.param(n, 'bias', m.bias))
    y = cx.b.op('ConvTranspose', ins, kernel_shape=ks, strides=st, pads=pad + pad,
                dilations=dil, group=m.groups,
                output_padding=opad if any(opad) else None)
    return cx.b.squeeze(y, [0]) if unbatched else y


def _m_pool(op_type):
    def conv(cx, n):
        m = n.meta['module']
        k = cx.rank(_x(n)) - 2
        name = type(m).__name__
        if name[-2:] in ('1d', '2d', '3d'):
            k = int(name[-2])
        x = cx.name(_x(n))
        unbatched = cx.rank(_x(n)) == k + 1
        if unbatched:
            x = cx.b.unsqueeze(x, [0])
        ks = _tup(m.kernel_size, k)
        st = _tup(m.stride if m.stride is not None else m.kernel_size, k)
        pads = _tup(m.padding, k)
        attrs = dict(kernel_shape=ks, strides=st, pads=pads + pads, ceil_mode=int(m.ceil_mode))
        if op_type == 'MaxPool':
            if m.return_indices:
                raise _unsupported(cx, 'aten::max_pool_with_indices')
            attrs['dilations'] = _tup(m.dilation, k)
        else:
            if getattr(m, 'divisor_override', None) is not None:
                raise _unsupported(cx, 'aten::avg_pool(divisor_override)')
            attrs['count_include_pad'] = int(m.count_include_pad)
        y = cx.b.op(op_type, [x], **_pool_attrs(cx, attrs))
        return cx.b.squeeze(y, [0]) if unbatched else y
    return conv


def _m_batchnorm(cx, n):
    m = n.meta['module']
    x = _x(n)
    r = cx.rank(x)
    dt = cx.npdt(n)
    w = cx.param(n, 'weight', m.weight) if m.weight is not None else None
    bias = cx.param(n, 'bias', m.bias) if m.bias is not None else None
    if m.training or m.running_mean is None:
        return _batch_stats_norm(cx, cx.name(x), r, dt, [0] + list(range(2, r)), w, bias, m.eps)
    return _batch_norm_core(cx, cx.name(x), r, dt, cx.param(n, 'running_mean', m.running_mean),
                            cx.param(n, 'running_var', m.running_var), w, bias, m.eps,
                            m.num_features)


def _m_layernorm(cx, n):
    m = n.meta['module']
    shape = tuple(m.normalized_shape)
    w = cx.param(n, 'weight', m.weight) if m.weight is not None else None
    bias = cx.param(n, 'bias', m.bias) if getattr(m, 'bias', None) is not None else None
    return _layer_norm_core(cx, cx.name(_x(n)), cx.npdt(n), (None, shape), w, bias, m.eps,
                            cx.rank(_x(n)))


def _m_embedding(cx, n):
    m = n.meta['module']
    if m.max_norm is not None:
        raise _unsupported(cx, 'aten::embedding_renorm')
    return cx.b.op('Gather', [cx.param(n, 'weight', m.weight), cx.name(_x(n), np.int64)])


# ---------------------------------------------------------------------- recurrent layers
_GATE_ORDER = {'LSTM': [0, 3, 1, 2],     # torch: i f g o -> onnx: i o f c
               'GRU': [1, 0, 2]}         # torch: r z n -> onnx: z r h


def _gates(cx, w, mode, H):
    """Reorder the gate blocks of a PyTorch weight/bias (an ONNX value, rows = gates * H)
    to ONNX's order, in the graph: the initializer stays the parameter, named as in the
    state dict (an input with ``export_params=False``)."""
    order = _GATE_ORDER.get(mode)
    if order is None:
        return w
    rows = np.concatenate([np.arange(g * H, (g + 1) * H) for g in order]).astype(np.int64)
    return cx.b.op('Gather', [w, cx.b.const(rows)], axis=0)


def _m_rnn(cx, n):
    from ._builder import to_numpy
    m = n.meta['module']
    mode = m.mode
    if getattr(m, 'proj_size', 0):
        raise _unsupported(cx, 'aten::lstm(proj_size>0)')
    a = cx.bind(n)
    x_node = a['input']
    hx = a.get('hx')
    if hasattr(cx.val(x_node), 'batch_sizes'):
        raise _unsupported(cx, f'aten::{mode.lower()}(PackedSequence)')
    r = cx.rank(x_node)
    unbatched = r == 2
    x = cx.name(x_node)
    if unbatched:
        x = cx.b.unsqueeze(x, [1])
    elif m.batch_first:
        x = cx.b.transpose(x, [1, 0, 2])
    nd = 2 if m.bidirectional else 1
    H = m.hidden_size
    h0 = c0 = None
    if hx is not None:
        if mode == 'LSTM':
            h0, c0 = cx.name(hx[0]), cx.name(hx[1])
        else:
            h0 = cx.name(hx)
        if unbatched:
            h0 = cx.b.unsqueeze(h0, [1])
            c0 = cx.b.unsqueeze(c0, [1]) if c0 is not None else None
    op_type = {'LSTM': 'LSTM', 'GRU': 'GRU'}.get(mode, 'RNN')
    G = {'LSTM': 4, 'GRU': 3}.get(mode, 1)
    hs, cs = [], []
    for layer in range(m.num_layers):
        Ws, Rs, Bs = [], [], []
        for d in range(nd):
            sfx = f'_l{layer}' + ('_reverse' if d else '')
            p = {k: cx.param(n, k + sfx, getattr(m, k + sfx))
                 for k in ('weight_ih', 'weight_hh') + (('bias_ih', 'bias_hh') if m.bias else ())}
            Ws.append(cx.b.unsqueeze(_gates(cx, p['weight_ih'], mode, H), [0]))
            Rs.append(cx.b.unsqueeze(_gates(cx, p['weight_hh'], mode, H), [0]))
            if m.bias:
                Bs.append(cx.b.unsqueeze(cx.b.op('Concat', [
                    _gates(cx, p['bias_ih'], mode, H), _gates(cx, p['bias_hh'], mode, H)],
                    axis=0), [0]))
            else:
                dt = to_numpy(getattr(m, 'weight_ih' + sfx)[:0]).dtype
                Bs.append(cx.b.const(np.zeros((1, 2 * G * H), dt)))
        cat = lambda vs: vs[0] if len(vs) == 1 else cx.b.op('Concat', vs, axis=0)  # noqa: E731
        W, R, B = cat(Ws), cat(Rs), cat(Bs)
        ins = [x, W, R, B, '']
        if h0 is not None:
            ins.append(cx.b.slice(h0, [layer * nd], [(layer + 1) * nd], [0]))
            if c0 is not None:
                ins.append(cx.b.slice(c0, [layer * nd], [(layer + 1) * nd], [0]))
        while ins[-1] == '':
            ins.pop()
        attrs = dict(hidden_size=H, direction='bidirectional' if nd == 2 else 'forward')
        if mode == 'GRU':
            attrs['linear_before_reset'] = 1
        if op_type == 'RNN':
            act = 'Relu' if mode == 'RNN_RELU' else 'Tanh'
            attrs['activations'] = [act] * nd
        outs = cx.b.op(op_type, ins, outputs=3 if mode == 'LSTM' else 2, **attrs)
        y = outs[0]                                     # (seq, nd, batch, H)
        hs.append(outs[1])
        if mode == 'LSTM':
            cs.append(outs[2])
        y = cx.b.transpose(y, [0, 2, 1, 3])
        x = cx.b.reshape(y, [0, 0, -1])
    out = x
    hn = hs[0] if len(hs) == 1 else cx.b.op('Concat', hs, axis=0)
    cn = None
    if mode == 'LSTM':
        cn = cs[0] if len(cs) == 1 else cx.b.op('Concat', cs, axis=0)
    if unbatched:
        out = cx.b.squeeze(out, [1])
        hn = cx.b.squeeze(hn, [1])
        cn = cx.b.squeeze(cn, [1]) if cn is not None else None
    elif m.batch_first:
        out = cx.b.transpose(out, [1, 0, 2])
    return (out, (hn, cn)) if mode == 'LSTM' else (out, hn)


def _m_rnn_cell(cx, n):
    raise _unsupported(cx, f'aten::{type(n.meta["module"]).__name__}')


# ------------------------------------------------------------------------- attention
def _m_mha(cx, n):
    m = n.meta['module']
    a = cx.bind(n)
    if m.bias_k is not None or m.add_zero_attn:
        raise _unsupported(cx, 'aten::MultiheadAttention(add_bias_kv/add_zero_attn)')
    q_node, k_node, v_node = a['query'], a['key'], a['value']
    E, Hh = m.embed_dim, m.num_heads
    D = E // Hh
    dt = cx.npdt(q_node)
    b = cx.b
    unbatched = cx.rank(q_node) == 2
    bf = m.batch_first and not unbatched
    if m._qkv_same_embed_dim:
        W = cx.param(n, 'in_proj_weight', m.in_proj_weight)
        wq, wk, wv = (b.slice(W, [i * E], [(i + 1) * E], [0]) for i in range(3))
    else:
        wq, wk, wv = (cx.param(n, f'{t}_proj_weight', getattr(m, f'{t}_proj_weight'))
                      for t in 'qkv')
    if m.in_proj_bias is not None:
        B = cx.param(n, 'in_proj_bias', m.in_proj_bias)
        bq, bk, bv = (b.slice(B, [i * E], [(i + 1) * E], [0]) for i in range(3))
    else:
        bq = bk = bv = None

    def proj(node, w, bias, perm):
        x = cx.name(node)
        if unbatched:
            x = b.unsqueeze(x, [1])
        y = b.op('MatMul', [x, b.transpose(w, [1, 0])])
        if bias is not None:
            y = b.op('Add', [y, bias])
        y = b.reshape(y, [0, 0, Hh, D])                  # (L, N, H, D) or (N, L, H, D)
        return b.transpose(y, perm)

    # to (N, H, L, D) for q and v, (N, H, D, S) for k
    if bf:
        pq, pk = [0, 2, 1, 3], [0, 2, 3, 1]
    else:
        pq, pk = [1, 2, 0, 3], [1, 2, 3, 0]
    q = proj(q_node, wq, bq, pq)
    k = proj(k_node, wk, bk, pk)
    v = proj(v_node, wv, bv, pq)
    q = b.op('Mul', [q, b.const(np.asarray(1.0 / math.sqrt(D), dt))])
    s = b.op('MatMul', [q, k])                         # (N, H, L, S)
    L = cx.shape(q_node)[1 if bf else 0]
    S = cx.shape(k_node)[1 if bf else 0]
    mask = a.get('attn_mask')
    if mask is not None:
        mn = cx.name(mask)
        if cx.rank(mask) == 3:
            mn = b.reshape(mn, [-1, Hh, L, S])
        s = _add_mask_inv(cx, s, mn, cx.npdt(mask), dt)
    elif a.get('is_causal'):
        s = b.op('Add', [s, b.const(_causal(L, S, dt))])
    kpm = a.get('key_padding_mask')
    if kpm is not None:
        kn = cx.name(kpm)
        if unbatched:
            kn = b.unsqueeze(kn, [0])
        kn = b.unsqueeze(kn, [1, 2])                   # (N, 1, 1, S)
        s = _add_mask_inv(cx, s, kn, cx.npdt(kpm), dt)
    p = b.softmax(s, -1, 4)
    o = b.op('MatMul', [p, v])                         # (N, H, L, D)
    o = b.transpose(o, [0, 2, 1, 3] if bf else [2, 0, 1, 3])
    o = b.reshape(o, [0, 0, E])
    o = b.op('MatMul', [o, b.transpose(cx.param(n, 'out_proj.weight', m.out_proj.weight),
                                       [1, 0])])
    if m.out_proj.bias is not None:
        o = b.op('Add', [o, cx.param(n, 'out_proj.bias', m.out_proj.bias)])
    if unbatched:
        o = b.squeeze(o, [1])
    weights = None
    if a.get('need_weights', True):
        weights = p
        if a.get('average_attn_weights', True):
            weights = b.reduce('ReduceMean', p, [1], False)
        if unbatched:
            weights = b.squeeze(weights, [0])
    return (o, weights)


def _add_mask_inv(cx, s, mask, mask_dt, dt):
    """Add an attention mask where True (bool) means *masked out* (MultiheadAttention)."""
    if mask_dt == np.bool_:
        mask = cx.b.op('Where', [mask, cx.b.const(np.asarray(-np.inf, dt)),
                                 cx.b.const(np.asarray(0, dt))])
    elif mask_dt != dt:
        mask = cx.cast(mask, dt)
    return cx.b.op('Add', [s, mask])


MODULES = {
    'Linear': _m_linear, 'ReLU': _act_module('Relu'), 'Sigmoid': _act_module('Sigmoid'),
    'Tanh': _act_module('Tanh'), 'LeakyReLU': _m_leaky,
    'Identity': lambda cx, n: cx.b.op('Identity', [cx.name(_x(n))]),
    'Dropout': _m_dropout, 'Softmax': _m_softmax(False), 'LogSoftmax': _m_softmax(True),
    'Flatten': _m_flatten,
    'Conv1d': _m_conv, 'Conv2d': _m_conv, 'Conv3d': _m_conv,
    'ConvTranspose1d': _m_conv_transpose, 'ConvTranspose2d': _m_conv_transpose,
    'ConvTranspose3d': _m_conv_transpose,
    'MaxPool1d': _m_pool('MaxPool'), 'MaxPool2d': _m_pool('MaxPool'),
    'MaxPool3d': _m_pool('MaxPool'), 'AvgPool1d': _m_pool('AveragePool'),
    'AvgPool2d': _m_pool('AveragePool'), 'AvgPool3d': _m_pool('AveragePool'),
    'BatchNorm1d': _m_batchnorm, 'BatchNorm2d': _m_batchnorm, 'BatchNorm3d': _m_batchnorm,
    'LayerNorm': _m_layernorm, 'Embedding': _m_embedding,
    'GELU': _act_module('Gelu'), 'ELU': lambda cx, n: cx.b.op(
        'Elu', [cx.name(_x(n))], alpha=float(n.meta['module'].alpha)),
    'LSTM': _m_rnn, 'GRU': _m_rnn, 'RNN': _m_rnn,
    'LSTMCell': _m_rnn_cell, 'GRUCell': _m_rnn_cell, 'RNNCell': _m_rnn_cell,
    'MultiheadAttention': _m_mha,
    'Softmin': lambda cx, n: cx.b.softmax(
        cx.b.op('Neg', [cx.name(_x(n))]),
        n.meta['module'].dim if n.meta['module'].dim is not None else
        (0 if cx.rank(_x(n)) in (0, 1, 3) else 1), cx.rank(_x(n))),
}

MODULES['GELU'] = lambda cx, n: _gelu_core(cx, cx.name(_x(n)), cx.npdt(n),
                                           n.meta['module'].approximate)
