"""Conversion tables of the ONNX exporter (captured graph -> ONNX nodes).

``MODULES`` maps a layer's class name to a converter of its ``call_module`` node;
``FUNCTIONS`` maps an op's name to a converter of its ``call_function`` node. A converter
takes ``(cx, node)`` and returns the ONNX value name(s) of the node's result."""
import operator

from .errors import UnsupportedOperatorError

__all__ = []


def _unary(op_type):
    def conv(cx, n):
        return cx.b.op(op_type, [cx.name(n.args[0])])
    return conv


def _binary(op_type, swap=False):
    def conv(cx, n):
        a, c = n.args[0], n.args[1]
        dt = cx.np_dtype(n)
        x, y = cx.name(a, dt), cx.name(c, dt)
        return cx.b.op(op_type, [y, x] if swap else [x, y])
    return conv


def _add(op_type):
    def conv(cx, n):
        alpha = n.kwargs.get('alpha', n.args[2] if len(n.args) > 2 else 1)
        dt = cx.np_dtype(n)
        x, y = cx.name(n.args[0], dt), cx.name(n.args[1], dt)
        if alpha != 1:
            y = cx.b.op('Mul', [y, cx.b.const(alpha, dt)])
        return cx.b.op(op_type, [x, y])
    return conv


def _linear_core(cx, x, rank, w, bias):
    b = cx.b
    if rank == 2 and bias is not None:
        return b.op('Gemm', [x, w, bias], transB=1)
    y = b.op('MatMul', [x, b.transpose(w, [1, 0])])
    return b.op('Add', [y, bias]) if bias is not None else y


def _m_linear(cx, n):
    m = n.meta['module']
    w = cx.b.param(f'{n.target}.weight', m.weight)
    bias = cx.b.param(f'{n.target}.bias', m.bias) if m.bias is not None else None
    return _linear_core(cx, cx.name(n.args[0]), cx.val(n.args[0]).dim(), w, bias)


def _f_linear(cx, n):
    bias = n.args[2] if len(n.args) > 2 else n.kwargs.get('bias')
    return _linear_core(cx, cx.name(n.args[0]), cx.val(n.args[0]).dim(), cx.name(n.args[1]),
                        cx.name(bias) if bias is not None else None)


def _act_module(op_type, **fixed):
    def conv(cx, n):
        return cx.b.op(op_type, [cx.name(n.args[0])], **fixed)
    return conv


def _m_leaky(cx, n):
    return cx.b.op('LeakyRelu', [cx.name(n.args[0])], alpha=float(n.meta['module'].negative_slope))


def _m_softmax(log):
    def conv(cx, n):
        x = cx.val(n.args[0])
        dim = n.meta['module'].dim
        return cx.b.softmax(cx.name(n.args[0]), dim if dim is not None else -1, x.dim(), log)
    return conv


def _f_softmax(log):
    def conv(cx, n):
        dim = n.args[1] if len(n.args) > 1 else n.kwargs.get('dim', -1)
        return cx.b.softmax(cx.name(n.args[0]), dim, cx.val(n.args[0]).dim(), log)
    return conv


def _identity(cx, n):
    return cx.b.op('Identity', [cx.name(n.args[0])])


def _reshape_like(cx, n):
    """Reshape to the traced result's shape, keeping leading dims equal to the input's
    (ONNX 0) and inferring the first other dim (-1), so a dynamic batch axis stays free."""
    x, out = cx.val(n.args[0]), n.meta['val']
    shape = list(out.shape)
    i = 0
    while i < len(shape) and i < x.dim() and shape[i] == x.shape[i]:
        shape[i] = 0
        i += 1
    if i < len(shape):
        shape[i] = -1
    return cx.b.reshape(cx.name(n.args[0]), shape)


def _m_flatten(cx, n):
    m = n.meta['module']
    if m.start_dim == 1 and m.end_dim == -1:
        return cx.b.op('Flatten', [cx.name(n.args[0])], axis=1)
    return _reshape_like(cx, n)


def _getitem(cx, n):
    src = n.args[0]
    from ._capture import Node
    if isinstance(src, Node) and not hasattr(cx.val(src), 'dim'):
        return cx.env[src][n.args[1]]
    raise UnsupportedOperatorError('aten::index', cx.b.opset, None)


def _f_mean_sum(op_type):
    def conv(cx, n):
        dim = n.args[1] if len(n.args) > 1 else n.kwargs.get('dim')
        keep = n.args[2] if len(n.args) > 2 else n.kwargs.get('keepdim', False)
        if isinstance(dim, int):
            dim = [dim]
        return cx.b.reduce(op_type, cx.name(n.args[0]), dim, keep)
    return conv


MODULES = {
    'Linear': _m_linear, 'ReLU': _act_module('Relu'), 'Sigmoid': _act_module('Sigmoid'),
    'Tanh': _act_module('Tanh'), 'LeakyReLU': _m_leaky, 'Identity': _identity,
    'Dropout': _identity, 'Softmax': _m_softmax(False), 'LogSoftmax': _m_softmax(True),
    'Flatten': _m_flatten,
}

FUNCTIONS = {
    'add': _add('Add'), 'sub': _add('Sub'), 'mul': _binary('Mul'), 'div': _binary('Div'),
    '_rsub': _binary('Sub', swap=True), '_rdiv': _binary('Div', swap=True),
    'pow': _binary('Pow'), 'matmul': _binary('MatMul'), 'neg': _unary('Neg'),
    'relu': _unary('Relu'), 'sigmoid': _unary('Sigmoid'), 'tanh': _unary('Tanh'),
    'exp': _unary('Exp'), 'log': _unary('Log'), 'sqrt': _unary('Sqrt'), 'abs': _unary('Abs'),
    'linear': _f_linear, 'softmax': _f_softmax(False), 'log_softmax': _f_softmax(True),
    'view': _reshape_like, 'reshape': _reshape_like, 'flatten': _reshape_like,
    'contiguous': _identity, 'clone': _identity, 'detach': _identity, 'dropout': _identity,
    'mean': _f_mean_sum('ReduceMean'), 'sum': _f_mean_sum('ReduceSum'),
    'getitem': _getitem,
}


class Context:
    """Maps captured nodes to ONNX value names while converting."""

    def __init__(self, builder):
        self.b = builder
        self.env = {}

    def val(self, obj):
        from ._capture import Node
        return obj.meta['val'] if isinstance(obj, Node) else obj

    def np_dtype(self, n):
        v = n.meta['val']
        return v.detach().cpu().numpy().dtype if hasattr(v, 'numpy') else None

    def name(self, obj, dtype=None):
        from ._capture import Node
        if isinstance(obj, Node):
            nm = self.env[obj]
            if dtype is not None and hasattr(obj.meta['val'], 'numpy') and \
                    obj.meta['val'].detach().cpu().numpy().dtype != dtype:
                nm = self.b.op('Cast', [nm], to=self.b.h.np_dtype_to_tensor_dtype(dtype))
            return nm
        if isinstance(obj, (int, float, bool)):
            return self.b.const(obj, dtype)
        raise UnsupportedOperatorError(f'prim::Constant[{type(obj).__name__}]', self.b.opset, None)

    def convert(self, n):
        if n.op == 'get_attr':
            if n.meta.get('param'):
                return self.b.param(n.target, n.meta['val'])
            return self.b.const(n.meta['val'])
        if n.op == 'call_module':
            fn = MODULES.get(type(n.meta['module']).__name__)
            if fn is None:
                raise UnsupportedOperatorError(
                    f'aten::{type(n.meta["module"]).__name__}', self.b.opset, None)
            return fn(self, n)
        name = 'getitem' if n.target is operator.getitem else getattr(n.target, '__name__', str(n.target))
        fn = FUNCTIONS.get(name)
        if fn is None:
            where = ''
            stack = n.meta.get('nn_module_stack') or []
            if stack and stack[-1][0]:
                where = f" (in module '{stack[-1][0]}' of type {stack[-1][1].__name__})"
            err = UnsupportedOperatorError(f'aten::{name}', self.b.opset, None)
            err.args = (err.args[0] + where,)
            raise err
        return fn(self, n)
