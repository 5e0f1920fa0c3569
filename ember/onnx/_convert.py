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


def _tup(v, k):
    return list(v) if isinstance(v, (tuple, list)) else [v] * k


def _m_conv(cx, n):
    m = n.meta['module']
    k = len(m.kernel_size)
    if m.padding_mode != 'zeros' or isinstance(m.padding, str):
        raise UnsupportedOperatorError(f'aten::{type(m).__name__}(padding={m.padding!r}, '
                                       f'padding_mode={m.padding_mode!r})', cx.b.opset, None)
    ins = [cx.name(n.args[0]), cx.b.param(f'{n.target}.weight', m.weight)]
    if m.bias is not None:
        ins.append(cx.b.param(f'{n.target}.bias', m.bias))
    pads = _tup(m.padding, k)
    return cx.b.op('Conv', ins, kernel_shape=list(m.kernel_size), strides=_tup(m.stride, k),
                   pads=pads + pads, dilations=_tup(m.dilation, k), group=m.groups)


def _m_pool(op_type):
    def conv(cx, n):
        m = n.meta['module']
        k = cx.val(n.args[0]).dim() - 2
        ks = _tup(m.kernel_size, k)
        st = _tup(m.stride if m.stride is not None else m.kernel_size, k)
        pads = _tup(m.padding, k)
        attrs = dict(kernel_shape=ks, strides=st, pads=pads + pads, ceil_mode=int(m.ceil_mode))
        if op_type == 'MaxPool':
            if m.return_indices:
                raise UnsupportedOperatorError('aten::max_pool_with_indices', cx.b.opset, None)
            attrs['dilations'] = _tup(m.dilation, k)
        else:
            if m.divisor_override is not None:
                raise UnsupportedOperatorError('aten::avg_pool(divisor_override)', cx.b.opset, None)
            attrs['count_include_pad'] = int(m.count_include_pad)
        return cx.b.op(op_type, [cx.name(n.args[0])], **attrs)
    return conv


def _m_adaptive_avg(cx, n):
    x, out = cx.val(n.args[0]), n.meta['val']
    if all(s == 1 for s in out.shape[2:]):
        return cx.b.op('GlobalAveragePool', [cx.name(n.args[0])])
    ins, outs = x.shape[2:], out.shape[2:]
    if any(i % o for i, o in zip(ins, outs)):
        raise UnsupportedOperatorError('aten::adaptive_avg_pool(non-divisible)', cx.b.opset, None)
    ks = [i // o for i, o in zip(ins, outs)]
    return cx.b.op('AveragePool', [cx.name(n.args[0])], kernel_shape=ks, strides=ks)


def _m_batchnorm(cx, n):
    m = n.meta['module']
    if m.training or m.running_mean is None:
        raise UnsupportedOperatorError('aten::batch_norm(training)', cx.b.opset, None)
    import numpy as np
    c = m.num_features
    w = cx.b.param(f'{n.target}.weight', m.weight) if m.weight is not None else \
        cx.b.const(np.ones(c, np.float32))
    bias = cx.b.param(f'{n.target}.bias', m.bias) if m.bias is not None else \
        cx.b.const(np.zeros(c, np.float32))
    return cx.b.op('BatchNormalization', [
        cx.name(n.args[0]), w, bias, cx.b.param(f'{n.target}.running_mean', m.running_mean),
        cx.b.param(f'{n.target}.running_var', m.running_var)], epsilon=float(m.eps))


def _m_layernorm(cx, n):
    m = n.meta['module']
    if cx.b.opset < 17:
        raise UnsupportedOperatorError('aten::layer_norm', cx.b.opset, 17)
    import numpy as np
    shape = tuple(m.normalized_shape)
    w = cx.b.param(f'{n.target}.weight', m.weight) if m.weight is not None else \
        cx.b.const(np.ones(shape, np.float32))
    ins = [cx.name(n.args[0]), w]
    if getattr(m, 'bias', None) is not None:
        ins.append(cx.b.param(f'{n.target}.bias', m.bias))
    return cx.b.op('LayerNormalization', ins, axis=-len(shape), epsilon=float(m.eps))


def _m_embedding(cx, n):
    m = n.meta['module']
    if m.max_norm is not None:
        raise UnsupportedOperatorError('aten::embedding_renorm', cx.b.opset, None)
    return cx.b.op('Gather', [cx.b.param(f'{n.target}.weight', m.weight), cx.name(n.args[0])])


MODULES.update({
    'Conv1d': _m_conv, 'Conv2d': _m_conv, 'Conv3d': _m_conv,
    'MaxPool1d': _m_pool('MaxPool'), 'MaxPool2d': _m_pool('MaxPool'),
    'MaxPool3d': _m_pool('MaxPool'), 'AvgPool1d': _m_pool('AveragePool'),
    'AvgPool2d': _m_pool('AveragePool'), 'AvgPool3d': _m_pool('AveragePool'),
    'AdaptiveAvgPool1d': _m_adaptive_avg, 'AdaptiveAvgPool2d': _m_adaptive_avg,
    'AdaptiveAvgPool3d': _m_adaptive_avg, 'BatchNorm1d': _m_batchnorm,
    'BatchNorm2d': _m_batchnorm, 'BatchNorm3d': _m_batchnorm, 'LayerNorm': _m_layernorm,
    'Embedding': _m_embedding, 'GELU': _act_module('Gelu'), 'ELU': _act_module('Elu'),
    'Softplus': _act_module('Softplus'), 'Hardswish': _act_module('HardSwish'),
})
