"""The ONNX emission layer of the exporter: a small graph builder over the ``onnx`` package
(initializers from parameters and constants, fresh value names, node creation, opset-aware
helpers for the ops whose signature changed between opsets)."""
import numpy as _np

__all__ = []


def to_numpy(t):
    """The host array of an ember tensor (or a Python number / array)."""
    from .._tensor import Tensor
    if isinstance(t, Tensor):
        t = t.detach()
        if t.is_conj():
            t = t.resolve_conj()
        return _np.array(t.numpy(force=True), copy=True)
    return _np.asarray(t)


class Builder:
    """Collects ONNX nodes and initializers for one graph."""

    def __init__(self, onnx, opset):
        self.onnx, self.h, self.opset = onnx, onnx.helper, opset
        self.nodes, self.inits, self.used = [], {}, set()
        self.param_names = []
        self._count = {}

    def fresh(self, base):
        n = self._count.get(base, 0)
        self._count[base] = n + 1
        name = base if n == 0 else f'{base}_{n}'
        while name in self.used:
            n += 1
            self._count[base] = n + 1
            name = f'{base}_{n}'
        self.used.add(name)
        return name

    def op(self, op_type, inputs, outputs=1, **attrs):
        """Add a node; return its output name (or a list of names when ``outputs > 1``)."""
        node_name = self.fresh(f'/{op_type}')
        outs = [self.fresh(f'{node_name}_output_{i}') for i in range(outputs)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(self.h.make_node(op_type, list(inputs), outs, name=node_name, **attrs))
        return outs[0] if outputs == 1 else outs

    def const(self, value, dtype=None, name=None):
        """An initializer holding ``value`` (array, number or ember tensor)."""
        arr = to_numpy(value)
        if dtype is not None:
            arr = arr.astype(dtype)
        name = self.fresh(name or 'onnx::Constant')
        self.inits[name] = self.onnx.numpy_helper.from_array(
            _np.array(arr, order='C', copy=True), name)
        return name

    def ints(self, seq):
        return self.const(_np.asarray(list(seq), dtype=_np.int64))

    def param(self, name, tensor):
        """The initializer of a parameter/buffer, named as in the state dict (made once)."""
        if name in self.inits:
            return name
        self.used.add(name)
        self.inits[name] = self.onnx.numpy_helper.from_array(
            _np.array(to_numpy(tensor), order='C', copy=True), name)
        self.param_names.append(name)
        return name

    # -- opset-aware helpers ------------------------------------------------------------
    def reduce(self, op_type, x, axes, keepdims):
        if axes is None:
            return self.op(op_type, [x], keepdims=int(keepdims))
        axes = [int(a) for a in axes]
        if self.opset >= 18 or (op_type == 'ReduceSum' and self.opset >= 13):
            return self.op(op_type, [x, self.ints(axes)], keepdims=int(keepdims))
        return self.op(op_type, [x], axes=axes, keepdims=int(keepdims))

    def unsqueeze(self, x, axes):
        if self.opset >= 13:
            return self.op('Unsqueeze', [x, self.ints(axes)])
        return self.op('Unsqueeze', [x], axes=list(axes))

    def squeeze(self, x, axes):
        if axes is not None and self.opset >= 13:
            return self.op('Squeeze', [x, self.ints(axes)])
        return self.op('Squeeze', [x], axes=list(axes) if axes is not None else None)

    def split(self, x, sizes, axis):
        if self.opset >= 13:
            return self.op('Split', [x, self.ints(sizes)], outputs=len(sizes), axis=axis)
        return self.op('Split', [x], outputs=len(sizes), axis=axis, split=list(sizes))

    def slice(self, x, starts, ends, axes, steps=None):
        if self.opset < 10:
            if steps is not None and any(s != 1 for s in steps):
                from .errors import UnsupportedOperatorError
                raise UnsupportedOperatorError('aten::slice(step != 1)', self.opset, 10)
            return self.op('Slice', [x], starts=[int(v) for v in starts],
                           ends=[int(v) for v in ends], axes=[int(v) for v in axes])
        ins = [x, self.ints(starts), self.ints(ends), self.ints(axes)]
        if steps is not None:
            ins.append(self.ints(steps))
        return self.op('Slice', ins)

    def reshape(self, x, shape):
        return self.op('Reshape', [x, self.ints(shape)])

    def transpose(self, x, perm):
        return self.op('Transpose', [x], perm=list(perm))

    def softmax(self, x, axis, rank, log=False):
        kind = 'LogSoftmax' if log else 'Softmax'
        axis = axis % rank if rank else 0
        if self.opset >= 13 or axis == rank - 1:
            return self.op(kind, [x], axis=axis)
        last = list(range(rank))
        last[axis], last[-1] = last[-1], last[axis]
        y = self.op(kind, [self.transpose(x, last)], axis=rank - 1)
        return self.transpose(y, last)
