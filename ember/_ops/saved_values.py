"""What PyTorch shows of a backward node's saved values: ``grad_fn._saved_<name>``.

PyTorch's nodes expose every value they saved for backward under its argument name
(``MulBackward0._saved_other``, ``SumBackward1._saved_dim``, ``PowBackward0._saved_exponent``),
and list them in ``dir(grad_fn)``. Ember's nodes keep what their backward needs under their
own names; this table maps PyTorch's names onto them, per node class name:

* ``NAMES``: the PyTorch names of a node's saved tensors, by position in ``saved_tensors``
  (for nodes whose family did not name them; see ``Node._saved_names``);
* ``ATTRS``: PyTorch's name of every other saved value -> a function of the node giving it
  (``Node._saved_attrs``).

The pointwise families name their saved tensors in ``pointwise.py``.
"""
import numpy as np

from ..autograd.graph import Node
from .._tensor import _new_tensor as _wrap
from . import (arithmetic, unary, reduction, products, view, shape, activation, indexing,  # noqa
               loss, normalization, norms, conv, pooling, creation)

__all__ = []

_REDUCTION = {'none': 0, 'mean': 1, 'sum': 2}


def _wrapped(v):
    """A Python number as PyTorch saves it: a 0-dim tensor (int64, float64, complex128, bool)."""
    return _wrap(np.array(v))


def _sizes(n):
    return tuple(n.shape)


def _numel(n):
    return int(np.prod(n.shape, dtype=np.int64))


def _tensor_sizes(i):
    return lambda n: tuple(n.saved_tensors[i].shape)


def _tensor_strides(i):
    return lambda n: n.saved_tensors[i].stride()


def _indices(n):
    """The indices a max/min(dim) node saved, in the shape the op returned them."""
    idx = n.idx
    if not n.keepdim and idx.ndim:
        idx = idx.reshape(tuple(s for i, s in enumerate(idx.shape) if i != n.dim))
    return _wrap(idx)


def _as_written(d):
    """A dim argument as torch saves it: as given, a negative one wrapped to uint64."""
    d = int(d)
    return d + (1 << 64) if d < 0 else d


def _slice_end(n, i):
    """A slice node's start (i=0) or end (i=1) as torch saves it: as written in ``x[a:b]``
    (an omitted start is 0, an omitted end INT64_MAX, a negative one wraps to uint64)."""
    given = n.__dict__.get('given')
    if given is None:
        return n.start if i == 0 else n.end
    v = given[i]
    if v is None:
        return 0 if i == 0 else (1 << 63) - 1
    v = int(v)
    return v + (1 << 64) if v < 0 else v


_dim = lambda n: n.dim            # noqa: E731
_dims = lambda n: tuple(n.dims)   # noqa: E731
_keepdim = lambda n: n.keepdim    # noqa: E731
_attr = lambda a: (lambda n: getattr(n, a))   # noqa: E731

NAMES = {
    'WhereBackward0': ('condition',),
    'Atan2Backward0': ('self', 'other'),
    'MseLossBackward0': ('self', 'target'),
    'BinaryCrossEntropyWithLogitsBackward0': ('self', 'target'),
    'ConvolutionBackward0': ('input', 'weight'),
    'LinalgVectorNormBackward0': ('self', 'result'),
    'ProdBackward0': ('self', 'result'),
    'StdBackward0': ('self', 'result'),
    'VarBackward0': ('self',),
}

# (class name, saved value name): function(node) -> value
ATTRS = {
    'MulBackward0': {'other': lambda n: _wrapped(n.scalar), 'self': lambda n: None},
    'DivBackward0': {'other': lambda n: _wrapped(n.scalar), 'self': lambda n: None},
    'AddBackward0': {'alpha': _attr('alpha')},
    'SubBackward0': {'alpha': _attr('alpha')},
    'PowBackward0': {'exponent': _attr('exponent')},
    'PowBackward2': {'self': _attr('base'), 'exponent': _attr('exp_t')},
    'SumBackward0': {'self_sym_sizes': _sizes},
    'SumBackward1': {'dim': _dims, 'keepdim': _keepdim, 'self_sym_sizes': _sizes},
    'MeanBackward0': {'self_sym_numel': _numel, 'self_sym_sizes': _sizes},
    'MeanBackward1': {'dim': _dims, 'keepdim': _keepdim, 'self_sym_numel': _numel,
                      'self_sym_sizes': _sizes},
    'MaxBackward0': {'dim': _dim, 'keepdim': _keepdim, 'self_sym_sizes': _sizes,
                     'indices': lambda n: _indices(n)},
    'MinBackward0': {'dim': _dim, 'keepdim': _keepdim, 'self_sym_sizes': _sizes,
                     'indices': lambda n: _indices(n)},
    'AmaxBackward0': {'dim': _dims, 'keepdim': _keepdim},
    'AminBackward0': {'dim': _dims, 'keepdim': _keepdim},
    'MmBackward0': {'self_sym_sizes': _tensor_sizes(0), 'self_sym_strides': _tensor_strides(0),
                    'mat2_sym_sizes': _tensor_sizes(1), 'mat2_sym_strides': _tensor_strides(1)},
    'AddmmBackward0': {'alpha': _attr('alpha'), 'beta': _attr('beta'),
                       'mat1_sym_sizes': _tensor_sizes(0), 'mat1_sym_strides': _tensor_strides(0),
                       'mat2_sym_sizes': _tensor_sizes(1), 'mat2_sym_strides': _tensor_strides(1)},
    'ViewBackward0': {'self_sym_sizes': _sizes},
    'ExpandBackward0': {'self_sym_sizes': lambda n: tuple(n._in_meta[0][0])},
    'SqueezeBackward0': {'self_sym_sizes': _sizes},
    'SqueezeBackward1': {'dim': lambda n: _as_written(n.given), 'self_sym_sizes': _sizes},
    'SqueezeBackward2': {'dim': lambda n: tuple(_as_written(d) for d in n.given),
                         'self_sym_sizes': _sizes},
    'SplitBackward0': {'dim': lambda n: _as_written(n.given_dim), 'split_size': _attr('split_size'),
                       'self_sym_sizes': lambda n: tuple(n._in_meta[0][0])},
    'SplitWithSizesBackward0': {'dim': lambda n: _as_written(n.given_dim),
                                'split_sizes': _attr('split_sizes'),
                                'self_sym_sizes': lambda n: tuple(n._in_meta[0][0])},
    'UnbindBackward0': {'dim': _dim},
    'SliceBackward0': {'dim': _dim, 'start': lambda n: _slice_end(n, 0),
                       'end': lambda n: _slice_end(n, 1), 'step': _attr('step'),
                       'self_sym_sizes': _sizes},
    'TransposeBackward0': {'dim0': _attr('d0'), 'dim1': _attr('d1')},
    'PermuteBackward0': {'dims': lambda n: tuple(int(i) for i in np.argsort(n.inv))},
    'UnsqueezeBackward0': {'dim': _dim},
    'SelectBackward0': {'dim': _dim, 'index': _attr('index'), 'self_sym_sizes': _sizes},
    'CatBackward0': {'dim': _dim},
    'StackBackward0': {'dim': _dim},
    'SoftmaxBackward0': {'dim': _dim},
    'LogSoftmaxBackward0': {'dim': _dim},
    'GeluBackward0': {'approximate': _attr('approximate')},
    'LeakyReluBackward0': {'negative_slope': _attr('slope')},
    'ClampBackward1': {'min': _attr('min'), 'max': _attr('max')},
    'CumsumBackward0': {'dim': _dim},
    'RepeatBackward0': {'repeats': lambda n: tuple(n.reps), 'self_sym_sizes': _sizes},
    'FlipBackward0': {'dims': _dims},
    'RollBackward0': {'dims': _dims, 'shifts': lambda n: tuple(n.shifts)},
    'AddcmulBackward0': {'value': _attr('value')},
    'AddcdivBackward0': {'value': _attr('value')},
    'LerpBackward0': {'weight': _attr('weight')},
    'MseLossBackward0': {'reduction': lambda n: _REDUCTION[n.reduction]},
    'BinaryCrossEntropyWithLogitsBackward0': {
        'reduction': lambda n: _REDUCTION[n.reduction], 'weight': _attr('weight'),
        'pos_weight': _attr('pos_weight')},
    'NativeLayerNormBackward0': {'normalized_shape': lambda n: tuple(n.normalized_shape)},
    'MaskedFillBackward0': {'mask': _attr('mask')},
    'ConvolutionBackward0': {
        'stride': lambda n: tuple(n.params[0]), 'padding': lambda n: tuple(n.params[1]),
        'dilation': lambda n: tuple(n.params[2]), 'transposed': lambda n: n.params[3],
        'output_padding': lambda n: tuple(n.params[4]), 'groups': lambda n: n.params[5]},
    'MaxPool2DWithIndicesBackward0': {k: _attr(k) for k in (
        'kernel_size', 'stride', 'padding', 'dilation', 'ceil_mode')},
    'AvgPool2DBackward0': {k: _attr(k) for k in (
        'kernel_size', 'stride', 'padding', 'ceil_mode', 'count_include_pad',
        'divisor_override')},
}
_TENSOR_ATTRS = {('MulBackward0', 'other'), ('DivBackward0', 'other'), ('MaxBackward0', 'indices'),
                 ('MinBackward0', 'indices'),
                 ('PowBackward2', 'exponent'), ('MaskedFillBackward0', 'mask')}


def _node_classes():
    seen, todo = [], [Node]
    while todo:
        c = todo.pop()
        for s in c.__subclasses__():
            if s not in seen:
                seen.append(s)
                todo.append(s)
    return seen


def _annotate():
    for cls in _node_classes():
        name = cls.__name__
        if name in NAMES and not cls.__dict__.get('_saved_names'):
            cls._saved_names = NAMES[name]
        attrs = ATTRS.get(name)
        cls._saved_attrs = {}          # not inherited: a subclass saves what its op saves
        if attrs:
            own = {k: f for k, f in attrs.items() if k not in cls._saved_names}
            if name in ('MulBackward0', 'DivBackward0') and not hasattr(cls, 'scalar') and \
                    'scalar' not in getattr(cls, '__slots__', ()):
                # the tensor-tensor node saves both operands as tensors
                own = {k: f for k, f in own.items() if k not in ('other', 'self')} \
                    if cls._saved_names else own
            cls._saved_attrs = own
            cls._saved_tensor_attrs = frozenset(k for (c, k) in _TENSOR_ATTRS if c == name)


_annotate()
