"""``ember.utils.flop_counter``: count the floating-point operations of the ops run in a
context (PyTorch's ``torch.utils.flop_counter``).

PyTorch counts at the level of its ``aten`` operators, as the dispatcher sees them after
decomposition (``F.linear`` becomes ``aten.addmm``, a batched ``matmul`` ``aten.bmm``,
``scaled_dot_product_attention`` on the CPU two ``aten.bmm``), and sees the ``aten`` ops of
the backward pass too. Ember has no dispatcher below its public ops, so the counter works
in two places:

* forward: an interceptor of the seam (``ember/_ops/_dispatch.py``) sees each public op
  call; for the ops whose PyTorch decomposition contains counted operators it lists those
  operators as PyTorch would run them (same names, same shapes) and evaluates their
  formulas; the ops called inside a counted op are not counted again;
* backward: the same planning lists the ``aten`` ops PyTorch's backward of that call runs
  (``aten.mm`` twice for a ``Linear``, ``aten.convolution_backward`` for a convolution,
  ``aten.bmm`` for attention); they are counted when the engine runs the grad_fn of the
  op's output (through ``engine._profile_hook``, which is ``None`` while nothing records,
  so backward costs nothing while no counter is active).

Module attribution follows PyTorch's ``ModuleTracker``: names (``'Global'``, the
outermost module by its class name, children as ``'Net.fc1'``) and rules (a module is
entered when its forward starts or when the gradients of its outputs arrive in backward,
and left when its forward ends or the gradients of its inputs are computed).
"""
import threading
import warnings
import weakref
from collections import defaultdict
from functools import wraps
from math import prod

__all__ = ['FlopCounterMode', 'register_flop_formula']


# --------------------------------------------------------------------- op keys
class _OpKey(str):
    """The key of an operator in the counts: a ``str`` such as ``'aten.mm'`` (so
    ``counts['aten.mm']`` works), printed as PyTorch prints an ``OpOverloadPacket``."""
    __slots__ = ()

    def __repr__(self):
        return f"<OpOverloadPacket(op='{str.__str__(self)}')>"

    def __str__(self):
        return str.__str__(self)


_KEYS = {}


def _key(target):
    """Normalise an operator target (``'aten.mm'``, ``'aten::mm'``, an
    ``ember.ops.aten.mm`` packet or overload, an :class:`_OpKey`) to its key."""
    if isinstance(target, _OpKey):
        return target
    if isinstance(target, str):
        name = target.replace('::', '.')
    else:
        qual = getattr(target, '_qualname', None)
        if qual is None:
            raise ValueError(
                "register_flop_formula(targets): expected each target to be "
                "OpOverloadPacket (i.e. torch.ops.mylib.foo), JitFunction, "
                f"or HigherOrderOperator, got {target} which is of type {type(target)}")
        name = qual.replace('::', '.')
    if name.count('.') > 1:          # an overload (aten.add.Tensor) counts as its packet
        name = '.'.join(name.split('.')[:2])
    k = _KEYS.get(name)
    if k is None:
        k = _KEYS[name] = _OpKey(name)
    return k


def _size(x):
    return tuple(x.shape) if hasattr(x, 'shape') and hasattr(x, 'dim') else x


def get_shape(i):
    """The shape of a tensor (anything else unchanged): what a flop formula receives.

    Args:
        i: a tensor or any other value.

    Example::

        >>> get_shape(ember.ones(2, 3))
        (2, 3)
    """
    return _size(i)


def _map_shapes(x):
    if isinstance(x, (list, tuple)) and not hasattr(x, 'dim'):
        return type(x)(_map_shapes(v) for v in x) if type(x) in (list, tuple) else \
            tuple(_map_shapes(v) for v in x)
    if isinstance(x, dict):
        return {k: _map_shapes(v) for k, v in x.items()}
    return get_shape(x)


def shape_wrapper(f):
    """Wrap a formula written on shapes so that it can be called with tensors: every
    tensor argument (and ``out_val``, passed on as ``out_shape``) becomes its shape.

    Args:
        f (callable): ``f(*shapes, out_shape=None, **kwargs) -> int``.

    Example::

        >>> def numel_out(*shapes, out_shape=None):
        ...     return out_shape[0] * out_shape[1]
        >>> shape_wrapper(numel_out)(ember.ones(2, 3), out_val=ember.ones(2, 4))
        8
    """
    @wraps(f)
    def nf(*args, out_val=None, **kwargs):
        args, kwargs, out_shape = _map_shapes((args, kwargs, out_val))
        return f(*args, out_shape=out_shape, **kwargs)
    return nf


flop_registry = {}


def register_flop_formula(targets, get_raw=False):
    """Decorator registering a flop formula for one operator (or a list of them).

    Args:
        targets: the operator(s): ``ember.ops.aten.<name>`` or a name such as
            ``'aten.mm'``. A list or tuple registers the formula for each.
        get_raw (bool): pass the formula the raw arguments instead of shapes.
            NOTE: unlike PyTorch, ember evaluates formulas on the shapes of the ``aten``
            calls it plans, so a raw formula receives shapes as well. Default: ``False``.

    Returns:
        the decorator; it returns the formula (wrapped by :func:`shape_wrapper` unless
        ``get_raw``).

    Raises:
        RuntimeError: a formula is already registered for a target.

    Example::

        >>> @register_flop_formula(ember.ops.aten.mv)
        ... def mv_flop(a_shape, b_shape, *args, out_shape=None, **kwargs):
        ...     return 2 * a_shape[0] * a_shape[1]

    NOTE: unlike PyTorch, only ops that reach ember's seam can be counted, and a formula
    registered for an op ember does not decompose (``aten.mv`` above) receives the shapes
    of the public op's arguments.
    """
    def register_fun(flop_formula):
        if not get_raw:
            flop_formula = shape_wrapper(flop_formula)
        tl = targets if isinstance(targets, (list, tuple)) else [targets]
        for t in tl:
            k = _key(t)
            if k in flop_registry:
                raise RuntimeError(f"duplicate registrations for {k}")
            flop_registry[k] = flop_formula
        return flop_formula
    return register_fun


# --------------------------------------------------------------------- formulas
def mm_flop(a_shape, b_shape, *args, out_shape=None, **kwargs) -> int:
    """Flops of ``mm``: ``2 * m * n * k`` for ``(m, k) @ (k, n)``.

    Args:
        a_shape (tuple): shape of the first matrix ``(m, k)``.
        b_shape (tuple): shape of the second matrix ``(k, n)``.

    Example::

        >>> mm_flop((2, 3), (3, 4))
        48
    """
    m, k = a_shape
    k2, n = b_shape
    if k != k2:
        raise AssertionError(f"matmul: inner dimensions must match (k == k2), got {k} and {k2}")
    return m * n * 2 * k


def addmm_flop(self_shape, a_shape, b_shape, out_shape=None, **kwargs) -> int:
    """Flops of ``addmm``: those of the product (the addition is not counted).

    Args:
        self_shape (tuple): shape of the added tensor.
        a_shape (tuple): ``(m, k)``.
        b_shape (tuple): ``(k, n)``.

    Example::

        >>> addmm_flop((4,), (2, 3), (3, 4))
        48
    """
    return mm_flop(a_shape, b_shape)


def bmm_flop(a_shape, b_shape, out_shape=None, **kwargs) -> int:
    """Flops of ``bmm``: ``2 * b * m * n * k`` for ``(b, m, k) @ (b, k, n)``.

    Args:
        a_shape (tuple): ``(b, m, k)``.
        b_shape (tuple): ``(b, k, n)``.

    Example::

        >>> bmm_flop((5, 2, 3), (5, 3, 4))
        240
    """
    b, m, k = a_shape
    b2, k2, n = b_shape
    if b != b2:
        raise AssertionError(f"bmm: batch dimensions must match (b == b2), got {b} and {b2}")
    if k != k2:
        raise AssertionError(f"bmm: inner dimensions must match (k == k2), got {k} and {k2}")
    return b * m * n * 2 * k


def baddbmm_flop(self_shape, a_shape, b_shape, out_shape=None, **kwargs) -> int:
    """Flops of ``baddbmm``: those of the batched product.

    Args:
        self_shape (tuple): shape of the added tensor.
        a_shape (tuple): ``(b, m, k)``.
        b_shape (tuple): ``(b, k, n)``.

    Example::

        >>> baddbmm_flop((5, 2, 4), (5, 2, 3), (5, 3, 4))
        240
    """
    return bmm_flop(a_shape, b_shape)


def _scaled_mm_flop(a_shape, b_shape, scale_a_shape=None, scale_b_shape=None, bias_shape=None,
                    scale_result_shape=None, out_dtype=None, use_fast_accum=False,
                    out_shape=None, **kwargs) -> int:
    """Flops of ``_scaled_mm``: those of ``mm``."""
    return mm_flop(a_shape, b_shape)


def conv_flop_count(x_shape, w_shape, out_shape, transposed=False) -> int:
    """Flops of a convolution: only the multiplications by the weight are counted
    (twice, multiply and add), not the bias.

    For a plain convolution every output position sees the whole filter; for a
    transposed one every *input* position does.

    Args:
        x_shape (tuple): input shape ``(N, C_in, *spatial)``.
        w_shape (tuple): weight shape ``(C_out, C_in / groups, *kernel)`` (transposed:
            ``(C_in, C_out / groups, *kernel)``).
        out_shape (tuple): output shape.
        transposed (bool): a transposed convolution. Default: ``False``.

    Returns:
        int: the flop count.

    Example::

        >>> conv_flop_count((1, 2, 5, 5), (4, 2, 3, 3), (1, 4, 3, 3))
        1296
    """
    batch_size = x_shape[0]
    conv_shape = (x_shape if transposed else out_shape)[2:]
    c_out, c_in, *filter_size = w_shape
    return prod(conv_shape) * prod(filter_size) * batch_size * c_out * c_in * 2


def conv_flop(x_shape, w_shape, _bias, _stride, _padding, _dilation, transposed, *args,
              out_shape=None, **kwargs) -> int:
    """Flops of ``aten.convolution`` (see :func:`conv_flop_count`).

    Args:
        x_shape, w_shape: input and weight shapes.
        _bias, _stride, _padding, _dilation: unused.
        transposed (bool): a transposed convolution.
        out_shape (tuple): the output shape (``out_val=`` of the registered, module-level
            formula).

    Example::

        >>> conv_flop((1, 2, 5, 5), (4, 2, 3, 3), None, 1, 0, 1, False, out_val=(1, 4, 3, 3))
        1296
    """
    return conv_flop_count(x_shape, w_shape, out_shape, transposed=transposed)


def transpose_shape(shape):
    """Swap the first two dimensions of a shape (batch and channels).

    Args:
        shape (sequence of int): the shape.

    Example::

        >>> transpose_shape((2, 3, 5))
        [3, 2, 5]
    """
    return [shape[1], shape[0]] + list(shape[2:])


def conv_backward_flop(grad_out_shape, x_shape, w_shape, _bias, _stride, _padding, _dilation,
                       transposed, _output_padding, _groups, output_mask, out_shape,
                       **kwargs) -> int:
    """Flops of ``aten.convolution_backward``: the input gradient is a transposed
    convolution of the output gradient with the weight, the weight gradient a
    convolution of the input with the output gradient (batch and channels swapped).

    Args:
        grad_out_shape, x_shape, w_shape: shapes of the output gradient, input, weight.
        transposed (bool): the forward was a transposed convolution.
        output_mask (sequence of bool): which of (input, weight, bias) gradients are
            computed.
        out_shape (tuple): the shapes of the gradients ``(grad_input, grad_weight,
            grad_bias)`` (``None`` where not computed); given as ``out_val=`` (tensors or
            shapes) to the registered (module-level) formula.

    Example::

        >>> conv_backward_flop((1, 4, 3, 3), (1, 2, 5, 5), (4, 2, 3, 3), None, 1, 0, 1, False,
        ...                    0, 1, [True, True, False],
        ...                    out_val=((1, 2, 5, 5), (4, 2, 3, 3), None))
        2592
    """
    t = transpose_shape
    flop_count = 0
    if output_mask[0]:
        grad_input_shape = get_shape(out_shape[0])
        flop_count += conv_flop_count(grad_out_shape, w_shape, grad_input_shape, not transposed)
    if output_mask[1]:
        grad_weight_shape = get_shape(out_shape[1])
        if transposed:
            flop_count += conv_flop_count(t(grad_out_shape), t(x_shape), t(grad_weight_shape),
                                          transposed=False)
        else:
            flop_count += conv_flop_count(t(x_shape), t(grad_out_shape), t(grad_weight_shape),
                                          transposed=False)
    return flop_count


def sdpa_flop_count(query_shape, key_shape, value_shape):
    """Flops of attention ``softmax(q @ k^T) @ v`` (grouped-query attention allowed: the
    key/value heads are repeated to the query's).

    Args:
        query_shape (tuple): ``(b, h_q, s_q, d_q)``.
        key_shape (tuple): ``(b, h_kv, s_k, d_q)``.
        value_shape (tuple): ``(b, h_kv, s_k, d_v)``.

    Example::

        >>> sdpa_flop_count((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 4))
        5040
    """
    b, h_q, s_q, d_q = query_shape
    _b2, h_kv, s_k, _d2 = key_shape
    _b3, _h3, _s3, d_v = value_shape
    if not (b == _b2 == _b3 and h_kv == _h3 and d_q == _d2 and s_k == _s3):
        raise AssertionError(f"sdpa_flop_count: query/key/value shapes are incompatible: "
                             f"q={query_shape}, k={key_shape}, v={value_shape}")
    if h_q < h_kv or h_q % h_kv != 0:
        raise AssertionError(f"sdpa_flop_count: query heads ({h_q}) must be a multiple of "
                             f"key/value heads ({h_kv})")
    return (bmm_flop((b * h_q, s_q, d_q), (b * h_q, d_q, s_k))
            + bmm_flop((b * h_q, s_q, s_k), (b * h_q, s_k, d_v)))


def sdpa_flop(query_shape, key_shape, value_shape, *args, out_shape=None, **kwargs) -> int:
    """Flops of a fused attention kernel (see :func:`sdpa_flop_count`).

    Example::

        >>> sdpa_flop((2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 4))
        5040
    """
    return sdpa_flop_count(query_shape, key_shape, value_shape)


def sdpa_backward_flop_count(grad_out_shape, query_shape, key_shape, value_shape):
    """Flops of the backward of attention: the scores are recomputed, then the
    gradients flow through ``scores @ v`` and ``q @ k^T`` (five batched products).

    Args:
        grad_out_shape (tuple): ``(b, h_q, s_q, d_v)``.
        query_shape, key_shape, value_shape (tuple): as in :func:`sdpa_flop_count`.

    Example::

        >>> sdpa_backward_flop_count((2, 3, 5, 4), (2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 4))
        13440
    """
    b, h_q, s_q, d_q = query_shape
    _b2, h_kv, s_k, _d2 = key_shape
    _b3, _h3, _s3, d_v = value_shape
    _b4, _h4, _s4, _d4 = grad_out_shape
    if not (b == _b2 == _b3 == _b4 and h_kv == _h3 and h_q == _h4):
        raise AssertionError("sdpa_backward_flop_count: batch/heads mismatch among tensors")
    if h_q < h_kv or h_q % h_kv != 0:
        raise AssertionError(f"sdpa_backward_flop_count: query heads ({h_q}) must be a "
                             f"multiple of key/value heads ({h_kv})")
    if not (d_q == _d2 and d_v == _d4 and s_k == _s3 and s_q == _s4):
        raise AssertionError(
            "sdpa_backward_flop_count: grad_out/value/key/query shapes are incompatible")
    B = b * h_q
    return (bmm_flop((B, s_q, d_q), (B, d_q, s_k)) + bmm_flop((B, s_q, d_v), (B, d_v, s_k))
            + bmm_flop((B, s_k, s_q), (B, s_q, d_v)) + bmm_flop((B, s_q, s_k), (B, s_k, d_q))
            + bmm_flop((B, d_q, s_q), (B, s_q, s_k)))


def sdpa_backward_flop(grad_out_shape, query_shape, key_shape, value_shape, *args,
                       out_shape=None, **kwargs) -> int:
    """Flops of a fused attention kernel's backward (see
    :func:`sdpa_backward_flop_count`).

    Example::

        >>> sdpa_backward_flop((2, 3, 5, 4), (2, 3, 5, 8), (2, 3, 7, 8), (2, 3, 7, 4))
        13440
    """
    return sdpa_backward_flop_count(grad_out_shape, query_shape, key_shape, value_shape)


# registered as PyTorch registers them: the module-level names are the shape-wrapped
# formulas (so they also take tensors, and ``out_val=``)
mm_flop = register_flop_formula('aten.mm')(mm_flop)
addmm_flop = register_flop_formula('aten.addmm')(addmm_flop)
bmm_flop = register_flop_formula('aten.bmm')(bmm_flop)
baddbmm_flop = register_flop_formula('aten.baddbmm')(baddbmm_flop)
_scaled_mm_flop = register_flop_formula('aten._scaled_mm')(_scaled_mm_flop)
conv_flop = register_flop_formula(
    ['aten.convolution', 'aten._convolution', 'aten.cudnn_convolution',
     'aten._slow_conv2d_forward', 'aten.convolution_overrideable'])(conv_flop)
conv_backward_flop = register_flop_formula('aten.convolution_backward')(conv_backward_flop)
sdpa_flop = register_flop_formula(['aten._scaled_dot_product_efficient_attention',
                                   'aten._scaled_dot_product_flash_attention',
                                   'aten._scaled_dot_product_cudnn_attention'])(sdpa_flop)
sdpa_backward_flop = register_flop_formula(
    ['aten._scaled_dot_product_efficient_attention_backward',
     'aten._scaled_dot_product_flash_attention_backward',
     'aten._scaled_dot_product_cudnn_attention_backward'])(sdpa_backward_flop)


# --------------------------------------------------------------------- formatting
def normalize_tuple(x):
    """``x`` as a tuple (a non-tuple becomes a 1-tuple).

    Example::

        >>> normalize_tuple(3)
        (3,)
    """
    if not isinstance(x, tuple):
        return (x,)
    return x


suffixes = ["", "K", "M", "B", "T"]


def get_suffix_str(number):
    """The unit suffix a count is printed with (``''``, ``'K'``, ``'M'``, ``'B'``,
    ``'T'``), chosen from its number of digits so that e.g. 1001M is not shown as 1.001B.

    Example::

        >>> get_suffix_str(123456)
        'K'
    """
    index = max(0, min(len(suffixes) - 1, (len(str(number)) - 2) // 3))
    return suffixes[index]


def convert_num_with_suffix(number, suffix):
    """``number`` in the unit of ``suffix``, with three decimals.

    Example::

        >>> convert_num_with_suffix(123456, 'K')
        '123.456K'
    """
    index = suffixes.index(suffix)
    return f"{number / 1000 ** index:.3f}" + suffixes[index]


def convert_to_percent_str(num, denom) -> str:
    """``num / denom`` as a percentage with two decimals (``'0%'`` when ``denom`` is 0).

    Example::

        >>> convert_to_percent_str(1, 4)
        '25.00%'
    """
    if denom == 0:
        return "0%"
    return f"{num / denom:.2%}"


def _numeric(s):
    try:
        float(s)
        return True
    except (TypeError, ValueError):
        return False


def _is_int(s):
    try:
        int(s)
        return True
    except (TypeError, ValueError):
        return False


def _simple_table(rows, headers, colalign):
    """A table in the layout of ``tabulate``'s ``simple`` format (the layout PyTorch's
    ``get_table`` prints): columns at least two wider than their header, separated by two
    spaces, numeric columns printed with the ``g`` format."""
    cols = list(zip(*rows))
    fmt_cols = []
    for col in cols:
        if all(_is_int(v) for v in col):
            col = [str(int(v)) for v in col]
        elif all(_numeric(v) for v in col):
            col = [format(float(v), 'g') for v in col]
        fmt_cols.append([str(v) for v in col])
    widths = [max([len(h) + 2] + [len(v) for v in c]) for h, c in zip(headers, fmt_cols)]

    def line(cells):
        out = []
        for v, w, a in zip(cells, widths, colalign):
            out.append(v.ljust(w) if a == 'left' else v.rjust(w))
        return '  '.join(out)
    lines = [line(headers), '  '.join('-' * w for w in widths)]
    lines += [line(r) for r in zip(*fmt_cols)]
    return '\n'.join(lines)


# --------------------------------------------------------------------- planning
# A plan lists the aten calls PyTorch runs for one public op: (key, args, kwargs, out)
# with every tensor given by its shape.
def _t2(s):
    return (s[1], s[0])


def _mm_bwd(a, b, ga, gb, out, key='aten.mm'):
    """The backward products of ``out = a @ b`` (2-D or batched 3-D shapes)."""
    calls = []
    if _on(ga):   # grad_a = g @ b^T
        calls.append((key, (out, b[:-2] + (b[-1], b[-2])), {}, a, ga))
    if _on(gb):   # grad_b = a^T @ g
        calls.append((key, (a[:-2] + (a[-1], a[-2]), out), {}, b, gb))
    return calls


def _mm_out(a, b):
    return a[:-1] + (b[-1],)


def _rg(t):
    return bool(getattr(t, 'requires_grad', False))


# The gradient a backward call computes is needed when the input it is for requires grad
# and, under ``autograd.grad(inputs=...)``, leads to a requested input. A *source* says
# which: ``False`` (never), ``True`` (always), an :class:`_Edge` (the input's autograd
# node: needed when the pass runs it), or a tuple of sources (needed when any is).
class _Edge:
    __slots__ = ('node',)

    def __init__(self, node):
        self.node = node


def _src(t):
    if not _rg(t):
        return False
    if isinstance(t, _Meta):
        return True
    e = getattr(t, 'grad_fn', None) or getattr(t, '_grad_acc', None)
    return _Edge(e) if e is not None else True


def _on(s):
    if isinstance(s, tuple):
        return any(_on(x) for x in s)
    return s is True or isinstance(s, _Edge)


def _any(*sources):
    return tuple(x for x in sources if _on(x)) or False


def _need(s, needed):
    if isinstance(s, tuple):
        return any(_need(x, needed) for x in s)
    if isinstance(s, _Edge):
        return needed is None or s.node in needed
    return s is True


def _strides(t):
    try:
        return tuple(t.stride())
    except Exception:
        return None


def _matmul_plan(s1, s2, rg1, rg2, st1=None, st2=None, has_out=False):
    """PyTorch's ``matmul`` decomposition on shapes: ``(forward calls, backward calls)``."""
    d1, d2 = len(s1), len(s2)
    if d1 == 0 or d2 == 0:
        return [], []
    if d1 == 1 and d2 == 1:
        return [], []                      # dot
    if d1 == 2 and d2 == 1:
        return [], []                      # mv
    if d1 == 1 and d2 == 2:
        a, b = (1,) + s1, s2
        o = _mm_out(a, b)
        return [('aten.mm', (a, b), {}, o)], _mm_bwd(a, b, rg1, rg2, o)
    if d1 == 2 and d2 == 2:
        o = _mm_out(s1, s2)
        return [('aten.mm', (s1, s2), {}, o)], _mm_bwd(s1, s2, rg1, rg2, o)
    # fold the larger operand into a matrix when PyTorch does
    larger1 = d1 >= d2
    if larger1:
        t1, dt2, t1st = s1, d2, st1
        t2rg = rg2
    else:
        t1 = s2[:-2] + (s2[-1], s2[-2])
        t1st = None if st2 is None else st2[:-2] + (st2[-1], st2[-2])
        dt2 = d1
        t2rg = rg1
    fold = False
    if len(t1) >= 3 and dt2 <= 2:
        if _on(t2rg) and not has_out:
            fold = True
        elif d1 == 2:
            fold = False
        elif prod(t1) == 0:
            fold = True
        else:
            fold = t1st is not None and all(t1st[i] == t1st[i + 1] * t1[i + 1]
                                            for i in range(len(t1) - 2))
    if fold:
        transpose = d2 > d1
        if transpose:
            t2 = _t2(s1) if d1 == 2 else s1
            g1, g2 = rg2, rg1
        else:
            t2 = s2
            g1, g2 = rg1, rg2
        if len(t2) == 1:
            return [], []                  # mv
        a = (prod(t1[:-1]), t1[-1])
        o = _mm_out(a, t2)
        return [('aten.mm', (a, t2), {}, o)], _mm_bwd(a, t2, g1, g2, o)
    # batched: expand both to a common batch, then bmm
    n = s1[-2] if d1 > 1 else 1
    m1 = s1[-1]
    b1 = s1[:-2] if d1 > 2 else ()
    p = s2[-1] if d2 > 1 else 1
    m2 = s2[-2] if d2 > 1 else s2[0]
    b2 = s2[:-2] if d2 > 2 else ()
    nb = max(len(b1), len(b2))
    pb1, pb2 = (1,) * (nb - len(b1)) + b1, (1,) * (nb - len(b2)) + b2
    B = prod(max(x, y) if 1 in (x, y) else x for x, y in zip(pb1, pb2))
    a, b = (B, n, m1), (B, m2, p)
    o = (B, n, p)
    return [('aten.bmm', (a, b), {}, o)], _mm_bwd(a, b, rg1, rg2, o, 'aten.bmm')


def _arg(args, kwargs, i, name, default=None):
    if len(args) > i:
        return args[i]
    return kwargs.get(name, default)


def _plan_mm(args, kwargs, out):
    a, b = _arg(args, kwargs, 0, 'input'), _arg(args, kwargs, 1, 'mat2')
    sa, sb = _size(a), _size(b)
    o = _mm_out(sa, sb)
    return [('aten.mm', (sa, sb), {}, o)], _mm_bwd(sa, sb, _src(a), _src(b), o)


def _plan_bmm(args, kwargs, out):
    a, b = _arg(args, kwargs, 0, 'input'), _arg(args, kwargs, 1, 'mat2')
    sa, sb = _size(a), _size(b)
    o = _mm_out(sa, sb)
    return [('aten.bmm', (sa, sb), {}, o)], _mm_bwd(sa, sb, _src(a), _src(b), o, 'aten.bmm')


def _plan_addmm(key, bkey):
    def plan(args, kwargs, out):
        c = _arg(args, kwargs, 0, 'input')
        a, b = _arg(args, kwargs, 1, 'mat1' if key == 'aten.addmm' else 'batch1'), \
            _arg(args, kwargs, 2, 'mat2' if key == 'aten.addmm' else 'batch2')
        sa, sb = _size(a), _size(b)
        o = _mm_out(sa, sb)
        return ([(key, (_size(c), sa, sb), {}, o)],
                _mm_bwd(sa, sb, _src(a), _src(b), o, bkey))
    return plan


def _plan_matmul(swap=False):
    def plan(args, kwargs, out):
        a, b = _arg(args, kwargs, 0, 'input'), _arg(args, kwargs, 1, 'other')
        if swap:
            a, b = b, a
        return _matmul_plan(_size(a), _size(b), _src(a), _src(b), _strides(a), _strides(b),
                            kwargs.get('out') is not None)
    return plan


def _plan_linear(args, kwargs, out):
    x, w = _arg(args, kwargs, 0, 'input'), _arg(args, kwargs, 1, 'weight')
    bias = _arg(args, kwargs, 2, 'bias')
    sx, sw = _size(x), _size(w)
    if bias is not None and len(sx) >= 1 and (len(sx) == 2 or x.is_contiguous()):
        a = (prod(sx[:-1]) if len(sx) > 1 else 1, sx[-1])
        wt = _t2(sw)
        o = _mm_out(a, wt)
        return ([('aten.addmm', (_size(bias), a, wt), {}, o)],
                _mm_bwd(a, wt, _src(x), _src(w), o))
    st = _strides(w)
    return _matmul_plan(sx, _t2(sw), _src(x), _src(w), _strides(x),
                        None if st is None else _t2(st))


class _ConvSrc:
    """Sources of ``convolution_backward``'s three gradients (its ``output_mask``)."""
    __slots__ = ('srcs',)

    def __init__(self, srcs):
        self.srcs = srcs


def _conv_plan(transposed, nd):
    def plan(args, kwargs, out):
        x, w = _arg(args, kwargs, 0, 'input'), _arg(args, kwargs, 1, 'weight')
        bias = _arg(args, kwargs, 2, 'bias')
        sx, sw, so = _size(x), _size(w), _size(out)
        if nd is not None and len(sx) == nd + 1:     # unbatched input
            sx, so = (1,) + sx, (1,) + so
        sb = None if bias is None else _size(bias)
        groups = _arg(args, kwargs, 8 if nd is None else 6, 'groups', 1)
        fwd = [('aten.convolution', (sx, sw, sb, None, None, None, transposed), {}, so)]
        srcs = (_src(x), _src(w), _src(bias) if bias is not None else False)
        mask = [_on(m) for m in srcs]
        bwd = []
        if any(mask):
            bwd.append(('aten.convolution_backward',
                        (so, sx, sw, None if sb is None else sb, None, None, None,
                         transposed, None, groups, mask),
                        {}, (sx if mask[0] else None, sw if mask[1] else None,
                             sb if mask[2] else None), _ConvSrc(srcs)))
        return fwd, bwd
    return plan


def _plan_convolution(args, kwargs, out):
    transposed = bool(_arg(args, kwargs, 6, 'transposed', False))
    return _conv_plan(transposed, None)(args, kwargs, out)


def _flash_cpu(q, k, v, sq, sk, sv, dropout_p, gqa):
    """Whether PyTorch's CPU ``scaled_dot_product_attention`` runs its fused kernel
    (``_scaled_dot_product_flash_attention_for_cpu``, which has no flop formula) rather
    than the composite path of ``bmm``s."""
    if not (len(sq) == len(sk) == len(sv) == 4) or dropout_p:
        return False
    if not (sq[-1] == sk[-1] == sv[-1] and sq[0] == sk[0] == sv[0] and sk[1] == sv[1]):
        return False
    if sq[1] != sk[1] and not (gqa and sk[1] and sq[1] % sk[1] == 0):
        return False
    for t in (q, k, v):
        st = _strides(t)
        if st is not None and t.shape[-1] > 1 and st[-1] != 1:
            return False
    return True


def _plan_sdpa(args, kwargs, out):
    q, k, v = (_arg(args, kwargs, i, n) for i, n in enumerate(('query', 'key', 'value')))
    sq, sk, sv = _size(q), _size(k), _size(v)
    if _flash_cpu(q, k, v, sq, sk, sv, _arg(args, kwargs, 3, 'dropout_p', 0.0),
                  kwargs.get('enable_gqa', False)):
        return [], []      # PyTorch's fused CPU kernel: not counted by PyTorch either
    if kwargs.get('enable_gqa') and len(sq) >= 3 and len(sk) >= 3 and sk[-3] != sq[-3]:
        sk = sk[:-3] + (sq[-3],) + sk[-2:]
        sv = sv[:-3] + (sq[-3],) + sv[-2:]
    kt = sk[:-2] + (sk[-1], sk[-2])
    f1, _ = _matmul_plan(sq, kt, False, False, None, None)
    scores = sq[:-1] + (sk[-2],)
    f2, _ = _matmul_plan(scores, sv, False, False, None, None)
    fwd = f1 + f2
    rq, rk, rv = _src(q), _src(k), _src(v)
    bwd = []
    if len(fwd) == 2 and fwd[0][0] == 'aten.bmm' and fwd[1][0] == 'aten.bmm':
        (A, Bt), (S, V) = fwd[0][1], fwd[1][1]     # (B,L,E)@(B,E,Sk), (B,L,Sk)@(B,Sk,Ev)
        Bn, L, E = A
        Sk, Ev = V[1], V[2]
        G = (Bn, L, Ev)
        rqk = _any(rq, rk)
        if _on(rqk):
            bwd.append(('aten.bmm', (G, (Bn, Ev, Sk)), {}, (Bn, L, Sk), rqk))
        if _on(rv):
            bwd.append(('aten.bmm', ((Bn, Sk, L), G), {}, (Bn, Sk, Ev), rv))
        if _on(rq):
            bwd.append(('aten.bmm', ((Bn, L, Sk), (Bn, Sk, E)), {}, (Bn, L, E), rq))
        if _on(rk):
            bwd.append(('aten.bmm', ((Bn, Sk, L), (Bn, L, E)), {}, (Bn, Sk, E), rk))
    return fwd, bwd


def _plan_addbmm(args, kwargs, out):
    a, b = _arg(args, kwargs, 1, 'batch1'), _arg(args, kwargs, 2, 'batch2')
    sa, sb = _size(a), _size(b)
    # PyTorch's forward kernel is not counted; its backward runs one bmm per operand
    return [], _mm_bwd(sa, sb, _src(a), _src(b), _mm_out(sa, sb), 'aten.bmm')


def _plan_tensordot(args, kwargs, out):
    a, b = _arg(args, kwargs, 0, 'a'), _arg(args, kwargs, 1, 'b')
    dims = _arg(args, kwargs, 2, 'dims', 2)
    sa, sb = _size(a), _size(b)
    if isinstance(dims, int) or (hasattr(dims, 'dim') and dims.dim() == 0):
        d = int(dims)
        da, db = list(range(len(sa) - d, len(sa))), list(range(d))
    else:
        da, db = ([int(i) for i in (x if isinstance(x, (list, tuple)) else [x])]
                  for x in (dims[0], dims[1]))
    da = [i % len(sa) for i in da] if sa else da
    db = [i % len(sb) for i in db] if sb else db
    K = prod(sa[i] for i in da)
    M = prod(sa[i] for i in range(len(sa)) if i not in da)
    N = prod(sb[i] for i in range(len(sb)) if i not in db)
    A, Bm = (M, K), (K, N)
    o = (M, N)
    return [('aten.mm', (A, Bm), {}, o)], _mm_bwd(A, Bm, _src(a), _src(b), o)


def _einsum_parse(eq, shapes):
    """Labels of each operand and of the output, with sizes; ``None`` when the
    equation is not understood."""
    eq = eq.replace(' ', '')
    lhs, arrow, rhs = eq.partition('->')
    terms = lhs.split(',')
    if len(terms) != len(shapes):
        return None
    ell_nd = 0
    for t, s in zip(terms, shapes):
        if '...' in t:
            ell_nd = max(ell_nd, len(s) - (len(t) - 3))
    ell = [chr(0x100 + i) for i in range(ell_nd)]      # stand-ins for '...' dims
    ops, sizes = [], {}
    for t, s in zip(terms, shapes):
        if '...' in t:
            pre, post = t.split('...')
            n = len(s) - len(pre) - len(post)
            labels = list(pre) + ell[ell_nd - n:] + list(post)
        else:
            labels = list(t)
        if len(labels) != len(s):
            return None
        d = {}
        for lab, n in zip(labels, s):
            d[lab] = n
            if n != 1:
                sizes[lab] = n
            else:
                sizes.setdefault(lab, 1)
        ops.append(d)
    if arrow:
        out = list(rhs.replace('...', ''.join(ell)))
    else:
        counts = {}
        for t in terms:
            for ch in t.replace('...', ''):
                counts[ch] = counts.get(ch, 0) + 1
        out = ell + sorted(ch for ch, c in counts.items() if c == 1)
    return ops, out, sizes


def _plan_einsum(args, kwargs, out):
    eq = _arg(args, kwargs, 0, 'equation')
    operands = list(args[1:])
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = list(operands[0])
    if not isinstance(eq, str) or len(operands) < 2:
        return [], []
    parsed = _einsum_parse(eq, [_size(o) for o in operands])
    if parsed is None:
        return [], []
    ops, out_labels, sizes = parsed
    rgs = [_src(o) for o in operands]
    fwd, bwd = [], []
    cur, cur_rg = ops[0], rgs[0]
    for i in range(1, len(ops)):
        nxt, nxt_rg = ops[i], rgs[i]
        later = set(out_labels)
        for o in ops[i + 1:]:
            later |= set(o)
        la = {lab for lab, n in cur.items() if n != 1}
        lb = {lab for lab, n in nxt.items() if n != 1}
        both = la & lb
        batch = [lab for lab in both if lab in later]
        summed = [lab for lab in both if lab not in later]
        a_only = [lab for lab in la - lb if lab in later]
        b_only = [lab for lab in lb - la if lab in later]
        res = {lab: sizes[lab] for lab in batch + a_only + b_only}
        if summed:
            B = prod(sizes[lab] for lab in batch)
            m = prod(sizes[lab] for lab in a_only)
            n = prod(sizes[lab] for lab in b_only)
            k = prod(sizes[lab] for lab in summed)
            A, Bm, o = (B, m, k), (B, k, n), (B, m, n)
            fwd.append(('aten.bmm', (A, Bm), {}, o))
            bwd += _mm_bwd(A, Bm, cur_rg, nxt_rg, o, 'aten.bmm')
        cur, cur_rg = res, _any(cur_rg, nxt_rg)
    return fwd, bwd


class _Meta:
    """Shape, strides and ``requires_grad`` of a tensor PyTorch's decomposition makes
    (a weight slice, a projected input), for planning."""

    def __init__(self, shape, requires_grad, stride=None):
        self.shape = tuple(shape)
        self.requires_grad = requires_grad
        if stride is None:
            stride, acc = [], 1
            for n in reversed(self.shape):
                stride.insert(0, acc)
                acc *= max(n, 1)
        self._stride = tuple(stride)

    def dim(self):
        return len(self.shape)

    def stride(self):
        return self._stride

    def is_contiguous(self):
        acc = 1
        for n, st in zip(reversed(self.shape), reversed(self._stride)):
            if n != 1 and st != acc:
                return False
            acc *= n
        return True


_MHA_ARGS = ('query', 'key', 'value', 'embed_dim_to_check', 'num_heads', 'in_proj_weight',
             'in_proj_bias', 'bias_k', 'bias_v', 'add_zero_attn', 'dropout_p',
             'out_proj_weight', 'out_proj_bias', 'training', 'key_padding_mask',
             'need_weights', 'attn_mask', 'use_separate_proj_weight', 'q_proj_weight',
             'k_proj_weight', 'v_proj_weight', 'static_k', 'static_v',
             'average_attn_weights', 'is_causal')
_MHA_DEFAULTS = {'training': True, 'key_padding_mask': None, 'need_weights': True,
                 'attn_mask': None, 'use_separate_proj_weight': False, 'q_proj_weight': None,
                 'k_proj_weight': None, 'v_proj_weight': None, 'static_k': None,
                 'static_v': None, 'average_attn_weights': True, 'is_causal': False}


def _plan_mha(args, kwargs, out):
    """``F.multi_head_attention_forward`` as PyTorch's composite runs it: the input
    projections (``linear``), the attention (``bmm``/``baddbmm``, or
    ``scaled_dot_product_attention`` without weights), the output projection."""
    p = dict(_MHA_DEFAULTS)
    p.update(zip(_MHA_ARGS, args))
    p.update(kwargs)
    q, k, v = p['query'], p['key'], p['value']
    H = int(p['num_heads'])
    batched = q.dim() == 3

    def unsq(t):
        return t if batched else _Meta((t.shape[0], 1) + tuple(t.shape[1:]), _rg(t))
    Q, K, V = unsq(q), unsq(k), unsq(v)
    L, N, E = Q.shape
    fwd, bwd = [], []

    def lin(x, w, b):
        f, bw = _plan_linear((x, w, b), {}, None)
        fwd.extend(f)
        bwd.extend(bw)
        return _Meta(tuple(x.shape[:-1]) + (w.shape[0],), _rg(x) or _rg(w) or _rg(b))

    def rows(w, i, n):
        return None if w is None else _Meta((n,) + tuple(w.shape[1:]), _rg(w)) if w.dim() == 2 \
            else _Meta((n,), _rg(w))
    w, b = p['in_proj_weight'], p['in_proj_bias']
    if not p['use_separate_proj_weight']:
        if k is v and q is k:
            qp = lin(Q, w, b)
            kp = vp = _Meta(qp.shape[:-1] + (E,), qp.requires_grad)
            qp = kp
        elif k is v:
            qp = lin(Q, rows(w, 0, E), rows(b, 0, E))
            kp = lin(K, rows(w, 1, 2 * E), rows(b, 1, 2 * E))
            kp = vp = _Meta(kp.shape[:-1] + (E,), kp.requires_grad)
        else:
            qp = lin(Q, rows(w, 0, E), rows(b, 0, E))
            kp = lin(K, rows(w, 1, E), rows(b, 1, E))
            vp = lin(V, rows(w, 2, E), rows(b, 2, E))
    else:
        qp = lin(Q, p['q_proj_weight'], rows(b, 0, E))
        kp = lin(K, p['k_proj_weight'], rows(b, 1, E))
        vp = lin(V, p['v_proj_weight'], rows(b, 2, E))
    S = kp.shape[0]
    if p['bias_k'] is not None:
        S += 1
    if p['add_zero_attn']:
        S += 1
    hd = E // H
    B = N * H
    rq, rk = qp.requires_grad, kp.requires_grad or _rg(p['bias_k'])
    rv = vp.requires_grad or _rg(p['bias_v'])
    masked = p['attn_mask'] is not None or p['key_padding_mask'] is not None
    dropout = p['dropout_p'] if p['training'] else 0.0
    if p['need_weights']:
        A, Kt, O = (B, L, hd), (B, hd, S), (B, L, S)
        if masked:
            fwd.append(('aten.baddbmm', ((B, L, S), A, Kt), {}, O))
        else:
            fwd.append(('aten.bmm', (A, Kt), {}, O))
        bwd.extend(_mm_bwd(A, Kt, rq, rk, O, 'aten.bmm'))
        fwd.append(('aten.bmm', (O, (B, S, hd)), {}, (B, L, hd)))
        bwd.extend(_mm_bwd(O, (B, S, hd), rq or rk, rv, (B, L, hd), 'aten.bmm'))
    else:
        qm, km, vm = (_Meta((N, H, n, hd), r) for n, r in ((L, rq), (S, rk), (S, rv)))
        kw = {'dropout_p': dropout}
        f, bw = _plan_sdpa((qm, km, vm), kw, None)
        fwd.extend(f)
        bwd.extend(bw)
    att = _Meta((L * N, E), rq or rk or rv)
    lin(att, p['out_proj_weight'], p['out_proj_bias'])
    return fwd, bwd


def _plan_multi_dot(args, kwargs, out):
    """``linalg.multi_dot``: ``mm`` products in PyTorch's order (cheapest chain; for three
    matrices the cheaper of ``(AB)C`` and ``A(BC)``)."""
    tensors = _arg(args, kwargs, 0, 'tensors')
    if not isinstance(tensors, (list, tuple)) or len(tensors) < 2:
        return [], []
    shapes = [tuple(_size(t)) for t in tensors]
    if len(shapes[0]) == 1:
        shapes[0] = (1,) + shapes[0]
    if len(shapes[-1]) == 1:
        shapes[-1] = shapes[-1] + (1,)
    if any(len(sh) != 2 for sh in shapes):
        return [], []
    n = len(shapes)
    srcs = [_src(t) for t in tensors]
    dims = [shapes[0][0]] + [sh[1] for sh in shapes]
    split = {}
    if n == 3:
        a, b, c, d = dims
        split[(0, 2)] = 0 if (a * c) * (b + d) > (b * d) * (a + c) else 1
    elif n > 3:
        cost = {(i, i): 0 for i in range(n)}
        for length in range(1, n):
            for i in range(n - length):
                j = i + length
                best = None
                for k in range(i, j):
                    q = cost[(i, k)] + cost[(k + 1, j)] + dims[i] * dims[k + 1] * dims[j + 1]
                    if best is None or q < best:
                        best, split[(i, j)] = q, k
                cost[(i, j)] = best
    fwd, bwd = [], []

    def impl(i, j):
        if i == j:
            return shapes[i], srcs[i]
        k = split.get((i, j), i)
        (sa, ga), (sb, gb) = impl(i, k), impl(k + 1, j)
        o = (sa[0], sb[1])
        fwd.append(('aten.mm', (sa, sb), {}, o))
        bwd.extend(_mm_bwd(sa, sb, ga, gb, o))
        return o, _any(ga, gb)
    impl(0, n - 1)
    return fwd, bwd


def _plan_chain_matmul(args, kwargs, out):
    mats = list(args)
    if len(mats) == 1 and isinstance(mats[0], (list, tuple)):
        mats = list(mats[0])
    if len(mats) == 1:
        return [], []
    return _plan_multi_dot((mats,), {}, out)


_PLANS = {
    'addbmm': _plan_addbmm,
    'mm': _plan_mm,
    'bmm': _plan_bmm,
    'addmm': _plan_addmm('aten.addmm', 'aten.mm'),
    'baddbmm': _plan_addmm('aten.baddbmm', 'aten.bmm'),
    'matmul': _plan_matmul(),
    '__matmul__': _plan_matmul(),
    '_rmatmul': _plan_matmul(swap=True),
    '__rmatmul__': _plan_matmul(swap=True),
    'linear': _plan_linear,
    'conv1d': _conv_plan(False, 1),
    'conv2d': _conv_plan(False, 2),
    'conv3d': _conv_plan(False, 3),
    'conv_transpose1d': _conv_plan(True, 1),
    'conv_transpose2d': _conv_plan(True, 2),
    'conv_transpose3d': _conv_plan(True, 3),
    'convolution': _plan_convolution,
    '_convolution': _plan_convolution,
    'scaled_dot_product_attention': _plan_sdpa,
    'tensordot': _plan_tensordot,
    'einsum': _plan_einsum,
    'multi_head_attention_forward': _plan_mha,
    'multi_dot': _plan_multi_dot,
    'chain_matmul': _plan_chain_matmul,
}


def _module_conv_transpose(mod, input, output):
    """The plan of a ``ConvTranspose*d`` module's forward (its layer calls the op body
    directly, past the seam)."""
    x = input[0] if isinstance(input, tuple) and input else input
    return _conv_plan(True, mod.weight.dim() - 2)(
        (x, mod.weight, mod.bias), {'groups': getattr(mod, 'groups', 1)}, output)


def _module_rnn(mod, input, output):
    """The plan of an ``RNN``/``GRU`` module's forward as PyTorch's CPU implementation runs
    it: per layer and direction, the input projection of the whole sequence
    (``linear``), then one ``linear`` of the hidden state per time step. (PyTorch's
    ``LSTM`` runs a fused oneDNN kernel that is not counted.)"""
    x = input[0] if isinstance(input, tuple) and input else input
    hx = input[1] if isinstance(input, tuple) and len(input) > 1 else None
    if type(mod).__name__ not in ('RNN', 'GRU') or not hasattr(x, 'dim'):
        return [], []
    H, layers = mod.hidden_size, mod.num_layers
    dirs = 2 if mod.bidirectional else 1
    st = _strides(x)
    if x.dim() == 2:                                  # unbatched: (T, in) -> (T, 1, in)
        T, B = x.shape[0], 1
        inp = _Meta((T, 1, x.shape[1]), _rg(x), (st[0], st[1] * x.shape[1], st[1]))
    elif mod.batch_first:                             # (B, T, in) seen as (T, B, in)
        B, T = x.shape[0], x.shape[1]
        inp = _Meta((T, B, x.shape[2]), _rg(x), (st[1], st[0], st[2]))
    else:
        T, B = x.shape[0], x.shape[1]
        inp = x
    fwd, bwd = [], []

    def lin(a, w, b):
        f, bw = _plan_linear((a, w, b), {}, None)
        fwd.extend(f)
        bwd.extend(bw)
    h0_rg = hx is not None and _rg(hx)
    params_rg = any(p.requires_grad for p in mod.parameters())
    for layer in range(layers):
        for d in range(dirs):
            sfx = f'_l{layer}' + ('_reverse' if d else '')
            w_ih, w_hh = getattr(mod, 'weight_ih' + sfx), getattr(mod, 'weight_hh' + sfx)
            b_ih = getattr(mod, 'bias_ih' + sfx, None) if mod.bias else None
            b_hh = getattr(mod, 'bias_hh' + sfx, None) if mod.bias else None
            lin(inp, w_ih, b_ih)
            rg = _rg(inp) or params_rg or h0_rg
            for t in range(T):
                lin(_Meta((B, H), h0_rg if t == 0 else rg), w_hh, b_hh)
        inp = _Meta((T, B, H * dirs), _rg(inp) or params_rg or h0_rg)
    return fwd, bwd


def _module_cell(mod, input, output):
    """The plan of an ``RNNCell``/``GRUCell``/``LSTMCell`` forward: ``linear`` of the
    input and of the hidden state (zeros when not given)."""
    x = input[0] if isinstance(input, tuple) and input else input
    hx = input[1] if isinstance(input, tuple) and len(input) > 1 else None
    if isinstance(hx, (tuple, list)):
        hx = hx[0]
    if not hasattr(x, 'dim'):
        return [], []
    xb = x if x.dim() == 2 else _Meta((1,) + tuple(x.shape), _rg(x))
    B = xb.shape[0]
    h = _Meta((B, mod.hidden_size), hx is not None and _rg(hx)) if hx is None or \
        hx.dim() == 1 else hx
    fwd, bwd = [], []
    for a, w, b in ((xb, mod.weight_ih, mod.bias_ih if mod.bias else None),
                    (h, mod.weight_hh, mod.bias_hh if mod.bias else None)):
        f, bw = _plan_linear((a, w, b), {}, None)
        fwd.extend(f)
        bwd.extend(bw)
    return fwd, bwd


# modules whose forward reaches its counted op past the seam: planned from the module
_MODULE_PLANS = {
    'ConvTranspose1d': _module_conv_transpose,
    'ConvTranspose2d': _module_conv_transpose,
    'ConvTranspose3d': _module_conv_transpose,
    'RNN': _module_rnn,
    'GRU': _module_rnn,
    'RNNCell': _module_cell,
    'GRUCell': _module_cell,
    'LSTMCell': _module_cell,
}


# --------------------------------------------------------------------- module tracking
def _grad_tensors(x, out):
    """The tensors requiring grad in a (nested) structure of arguments or results."""
    if isinstance(x, (list, tuple)) and not hasattr(x, 'dim'):
        for v in x:
            _grad_tensors(v, out)
    elif isinstance(x, dict):
        for v in x.values():
            _grad_tensors(v, out)
    elif hasattr(x, 'dim') and hasattr(x, 'register_hook') and getattr(x, 'requires_grad', False):
        out.append(x)
    return out


class _ModuleTracker:
    """The modules running now, by PyTorch's ``ModuleTracker`` names (the first module
    seen is named by its class, its children ``'<parent>.<child>'``) and rules: a module
    is entered when its forward starts and left when it ends; in backward it is entered
    when the gradients of its outputs arrive and left when those of its inputs have been
    computed (the set is reset to ``'Global'`` when the backward pass ends)."""

    def __init__(self, on_enter=None, on_exit=None):
        self.parents = ['Global']
        self._on_exit = on_exit
        self._on_enter = on_enter
        self._known = weakref.WeakKeyDictionary()
        self._seen = weakref.WeakSet()
        self._handles = []
        self._hooks = []
        self._has_callback = False

    def _name(self, mod):
        if mod not in self._known:
            self._known[mod] = type(mod).__name__
        name = self._known[mod]
        if mod not in self._seen:
            for child_name, sub in mod.named_children():
                self._known[sub] = f"{name}.{child_name}"
                self._name(sub)
            self._seen.add(mod)
        return name

    def _maybe_set_engine_callback(self):
        if self._has_callback:
            return
        from ..autograd import engine

        def callback():
            self.parents = ['Global']
            self._has_callback = False
        try:
            engine.queue_callback(callback)
        except Exception:
            return
        self._has_callback = True

    def _append_fn(self, name, is_bw):
        def fn(*args):
            if is_bw:
                self._maybe_set_engine_callback()
            if name not in self.parents:
                self.parents.append(name)
        return fn

    def _pop_fn(self, name):
        def fn(*args):
            if name in self.parents:
                self.parents.remove(name)
        return fn

    def _when_all_grads(self, tensors, fn, any_grad=False):
        """Call ``fn()`` once the gradients of all ``tensors`` (with ``any_grad``: of the
        first of them) have arrived in a backward pass (a hook on each that passes its
        gradient on unchanged)."""
        from ..autograd import engine
        n = 1 if any_grad else len(tensors)
        seen = {}

        def hook(i):
            def h(grad):
                key = engine._current_pass_id()
                got = seen.setdefault(key, set())
                got.add(i)
                if len(got) == n:
                    fn()
            return h
        for i, t in enumerate(tensors):
            self._hooks.append(t.register_hook(hook(i)))

    def _pre(self, mod, input):
        name = self._name(mod)
        if self._on_enter is not None:
            self._on_enter(mod, input)
        self._append_fn(name, False)()
        tensors = _grad_tensors(input, [])
        if tensors:
            self._when_all_grads(tensors, self._pop_fn(name))

    def _post(self, mod, input, output):
        name = self._name(mod)
        if self._on_exit is not None:
            self._on_exit(mod, input, output)
        self._pop_fn(name)()
        tensors = _grad_tensors(output, [])
        if tensors:
            # NOTE: PyTorch waits for the gradients of all outputs that the pass reaches;
            # ember's engine does not say which it reaches, so the first one enters
            self._when_all_grads(tensors, self._append_fn(name, True), any_grad=True)

    def __enter__(self):
        from ..nn.modules.module import (register_module_forward_hook,
                                         register_module_forward_pre_hook)
        self.parents = ['Global']
        self._handles = [register_module_forward_pre_hook(self._pre),
                         register_module_forward_hook(self._post, always_call=True)]
        return self

    def __exit__(self, *exc):
        for h in self._handles + self._hooks:
            h.remove()
        self._handles = []
        self._hooks = []
        self.parents = ['Global']


# --------------------------------------------------------------------- the engine hook
def _meta_shape(node, i):
    m = node._in_meta[i] if i < len(node._in_meta) else None
    return None if m is None else tuple(m[0])


def _node_needs(node, needed):
    nf = node.next_functions
    return [i < len(nf) and nf[i][0] is not None and (needed is None or nf[i][0] in needed)
            for i in range(len(nf))]


def _node_products(node, grads, needed, key, first):
    """Backward products of a matrix-product node (inputs ``first``, ``first + 1`` are
    the two factors), from the output gradient and the factors' shapes."""
    g = grads[0] if grads else None
    if g is None:
        return []
    go = tuple(g.shape)
    need = _node_needs(node, needed)
    calls = []
    for i in (first, first + 1):
        sh = _meta_shape(node, i)
        if not need[i] or sh is None:
            continue
        if i == first:    # grad_a = g @ b^T: (.., m, n) @ (.., n, k)
            other = sh[:-2] + (go[-1], sh[-1])
            calls.append((key, (go if len(go) == len(sh) else sh[:-2] + go, other), {}, sh))
        else:             # grad_b = a^T @ g: (.., k, m) @ (.., m, n)
            other = sh[:-2] + (sh[-2], go[-2])
            calls.append((key, (other, go if len(go) == len(sh) else sh[:-2] + go), {}, sh))
    return calls


def _node_conv(node, grads, needed):
    g = grads[0] if grads else None
    saved = getattr(node, '_saved', ())
    if g is None or len(saved) < 2 or saved[0] is None or saved[1] is None:
        return []
    x, w = saved[0], saved[1]
    stride, padding, dilation, transposed, output_padding, groups = node.params
    need = _node_needs(node, needed)
    mask = [need[0], need[1], len(need) > 2 and need[2]]
    if not any(mask):
        return []
    sx, sw = tuple(x.shape), tuple(w.shape)
    sb = _meta_shape(node, 2) if len(need) > 2 else None
    return [('aten.convolution_backward',
             (tuple(g.shape), sx, sw, sb, stride, padding, dilation, transposed,
              output_padding, groups, mask), {},
             (sx if mask[0] else None, sw if mask[1] else None, sb if mask[2] else None))]


def _node_matmul(node, grads, needed):
    """Backward products of ember's general ``matmul`` node, as PyTorch's decomposition
    of that call would run them (strides of unsaved operands taken as contiguous)."""
    saved = getattr(node, '_saved', ())
    shapes, strides = [], []
    for i in range(2):
        t = saved[i] if i < len(saved) else None
        sh = _meta_shape(node, i)
        if sh is None and t is not None:
            sh = tuple(t.shape)
        if sh is None:
            return []
        shapes.append(sh)
        strides.append(_strides(t) if t is not None else _Meta(sh, False).stride())
    need = _node_needs(node, needed)
    _, bwd = _matmul_plan(shapes[0], shapes[1], need[0], need[1], strides[0], strides[1])
    return [c[:4] for c in bwd]


# grad_fn classes whose PyTorch backward runs counted products: the calls, from the node
# (for ops that ran forward before the counter started)
_NODE_PLANS = {
    'MmBackward0': lambda n, g, nd: _node_products(n, g, nd, 'aten.mm', 0),
    'BmmBackward0': lambda n, g, nd: _node_products(n, g, nd, 'aten.bmm', 0),
    'AddmmBackward0': lambda n, g, nd: _node_products(n, g, nd, 'aten.mm', 1),
    'BaddbmmBackward0': lambda n, g, nd: _node_products(n, g, nd, 'aten.bmm', 1),
    'ConvolutionBackward0': _node_conv,
}


class _BackwardHook:
    """Sits in ``engine._profile_hook`` while a counter is active: counts the planned
    backward ops of a node when the engine runs it (and hands on to a profiler that was
    recording before)."""

    def __init__(self, counter, prev):
        self.counter, self.prev = counter, prev

    def evaluate(self, node, run, args):
        # the engine's _run_node arguments: the 9th is the set of nodes leading to the
        # requested inputs of autograd.grad (None: every gradient is needed)
        tls = self.counter._tls
        prior = getattr(tls, 'needed', None)
        needed = args[8] if len(args) > 8 else None
        tls.needed = needed if isinstance(needed, (set, frozenset)) else None
        try:
            if self.prev is not None:
                return self.prev.evaluate(node, run, args)
            return run(*args)
        finally:
            tls.needed = prior

    def apply(self, node, fn, args):
        c = self.counter
        tls = c._tls
        mine = threading.get_ident() == c._thread
        early = None
        if mine and node not in c._plans and getattr(node, '_seq', 1 << 62) < c._seq0:
            # an op that ran forward before the counter started: planned from its node
            # (before it runs, while its saved tensors are there)
            planner = _NODE_PLANS.get(type(node).__name__)
            if planner is None:
                from .._ops.products import _MatmulBackward
                if isinstance(node, _MatmulBackward):
                    planner = _node_matmul
            if planner is not None:
                try:
                    early = planner(node, args, getattr(tls, 'needed', None))
                except Exception:
                    early = None
        tls.bw = getattr(tls, 'bw', 0) + 1
        try:
            out = self.prev.apply(node, fn, args) if self.prev is not None else fn(*args)
        finally:
            tls.bw -= 1
        if mine:
            parents = tuple(dict.fromkeys(c.mod_tracker.parents))
            if early:
                c._count(early, parents)
            entry = c._plans.get(node)
            if entry is not None:
                c._count(entry[1], parents, getattr(tls, 'needed', None), backward=True)
        return out


class FlopCounterMode:
    """Context manager that counts the floating-point operations of the ops run inside
    it, forward and backward, in total and per module.

    Counts follow PyTorch's formulas and names: matrix products (``aten.mm``,
    ``aten.addmm``, ``aten.bmm``, ``aten.baddbmm``) count ``2 * m * n * k`` per product,
    convolutions (``aten.convolution``, ``aten.convolution_backward``) the
    multiply-adds by the weight, and attention the products it is made of; other ops
    (pointwise, reductions) count nothing.

    Args:
        mods (Module or list of Module, optional): not needed (a warning says so); the
            modules are tracked automatically.
        depth (int): how deep the module hierarchy the printed table goes. Default: 2.
        display (bool): print the table on exit. Default: ``True``.
        custom_mapping (dict, optional): ``{op: formula}`` overriding or extending the
            registered formulas for this counter (a formula registered with
            ``get_raw=True`` is taken as is, otherwise it receives shapes).

    Example::

        >>> mod = ember.nn.Linear(4, 3)
        >>> with FlopCounterMode(display=False) as fc:
        ...     mod(ember.randn(2, 4)).sum().backward()
        >>> fc.get_total_flops()
        96
        >>> fc.get_flop_counts()['Linear']
        {<OpOverloadPacket(op='aten.addmm')>: 48, <OpOverloadPacket(op='aten.mm')>: 48}

    NOTE: unlike PyTorch, ember has no dispatcher below its public ops: the counter
    plans the ``aten`` calls PyTorch's decomposition and backward would run for each
    public op it knows (``linear``, ``matmul``, ``mm``, ``bmm``, ``addmm``, ``baddbmm``,
    ``addbmm``, ``tensordot``, ``einsum``, ``linalg.multi_dot``, the convolutions,
    ``scaled_dot_product_attention``, ``multi_head_attention_forward``) and for the layers
    whose ember forward runs past the public bindings (``ConvTranspose*d``, ``RNN``,
    ``GRU``, the recurrent cells); other ops are counted through the known ops they call
    through the public bindings, or not at all (packed sequences).
    An op's backward products are counted together when the grad_fn of its output runs
    (a module left between two of them in PyTorch's backward gets all of them here).
    The backward of an op that ran forward before the counter started is counted for
    the grad_fns of ``mm``, ``bmm``, ``addmm``, ``baddbmm``, ``matmul`` and the
    convolutions only (PyTorch counts them all).
    As in PyTorch,
    the gradients of inputs that do not require grad, or that ``autograd.grad(inputs=...)``
    does not lead to, are not counted. In backward, a module is entered at the first of its
    outputs' gradients (PyTorch: once all that the pass reaches have arrived). The count
    keys are strings such as ``'aten.mm'`` (their ``repr`` is PyTorch's). A profiler
    started while the counter is active takes over the backward hook until it stops.
    """

    def __init__(self, mods=None, depth=2, display=True, custom_mapping=None):
        self.flop_counts = defaultdict(lambda: defaultdict(int))
        self.depth = depth
        self.display = display
        self.mode = None
        if custom_mapping is None:
            custom_mapping = {}
        if mods is not None:
            warnings.warn("mods argument is not needed anymore, you can stop passing it",
                          stacklevel=2)
        self.flop_registry = {
            **flop_registry,
            **{_key(k): v if getattr(v, "_get_raw", False) else shape_wrapper(v)
               for k, v in custom_mapping.items()}}
        self.mod_tracker = _ModuleTracker(self._module_enter, self._module_exit)
        self._nseen = 0
        self._mod_stack = []
        self._tls = threading.local()
        self._thread = None
        self._plans = weakref.WeakKeyDictionary()
        self._handle = None
        self._hook = None
        self._seq0 = 0

    def get_total_flops(self) -> int:
        """The total flop count (every op counted once, under ``'Global'``).

        Example::

            >>> with FlopCounterMode(display=False) as fc:
            ...     _ = ember.ones(2, 3) @ ember.ones(3, 4)
            >>> fc.get_total_flops()
            48
        """
        return sum(self.flop_counts['Global'].values())

    def get_flop_counts(self):
        """The counts as ``{module name: {op: flops}}`` (``'Global'`` holds every op).

        Example::

            >>> with FlopCounterMode(display=False) as fc:
            ...     _ = ember.ones(2, 3) @ ember.ones(3, 4)
            >>> fc.get_flop_counts()
            {'Global': {<OpOverloadPacket(op='aten.mm')>: 48}}
            >>> fc.get_flop_counts()['Global']['aten.mm']
            48
        """
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def get_table(self, depth=None):
        """The counts as a table (module, flops in the unit of the total, share of the
        total), modules down to ``depth`` levels, in the layout PyTorch prints.

        Args:
            depth (int, optional): deepest module level shown. Default: the counter's
                ``depth``.

        Example::

            >>> with FlopCounterMode(display=False) as fc:
            ...     _ = ember.ones(2, 3) @ ember.ones(3, 4)
            >>> print(fc.get_table())
            Module        FLOP    % Total
            ----------  ------  ---------
            Global          48    100.00%
             - aten.mm      48    100.00%
        """
        if depth is None:
            depth = self.depth
        if depth is None:
            depth = 999999
        header = ["Module", "FLOP", "% Total"]
        values = []
        global_flops = self.get_total_flops()
        global_suffix = get_suffix_str(global_flops)
        is_global_subsumed = False

        def process_mod(mod_name, depth):
            nonlocal is_global_subsumed
            total_flops = sum(self.flop_counts[mod_name].values())
            is_global_subsumed |= total_flops >= global_flops
            padding = " " * depth
            rows = [[padding + mod_name, convert_num_with_suffix(total_flops, global_suffix),
                     convert_to_percent_str(total_flops, global_flops)]]
            for k, v in self.flop_counts[mod_name].items():
                rows.append([padding + " - " + str(k),
                             convert_num_with_suffix(v, global_suffix),
                             convert_to_percent_str(v, global_flops)])
            return rows

        for mod in sorted(self.flop_counts.keys()):
            if mod == 'Global':
                continue
            mod_depth = mod.count(".") + 1
            if mod_depth > depth:
                continue
            values.extend(process_mod(mod, mod_depth - 1))
        if 'Global' in self.flop_counts and not is_global_subsumed:
            for value in values:
                value[0] = " " + value[0]
            values = process_mod('Global', 0) + values
        if len(values) == 0:
            values = [["Global", "0", "0%"]]
        return _simple_table(values, header, ("left", "right", "right"))

    # ---------------------------------------------------------------- counting
    def _count(self, calls, parents, needed=None, backward=False):
        reg = self.flop_registry
        for call in calls:
            key, args, kwargs, out = call[:4]
            if backward and len(call) > 4:
                src = call[4]
                if isinstance(src, _ConvSrc):
                    mask = [_need(x, needed) for x in src.srcs]
                    if not any(mask):
                        continue
                    args = args[:10] + (mask,) + args[11:]
                    out = tuple(o if m else None for o, m in zip(out, mask))
                elif not _need(src, needed):
                    continue
            k = _key(key)
            f = reg.get(k)
            if f is None:
                continue
            n = f(*args, out_val=out, **kwargs)
            for par in parents:
                self.flop_counts[par][k] += n

    def _module_enter(self, mod, input):
        if threading.get_ident() != self._thread:
            return
        quiet = False
        if type(mod).__name__ == 'MultiheadAttention' and isinstance(input, tuple) \
                and len(input) >= 3:
            try:   # PyTorch's fused inference kernel has no flop formula: nothing counted
                quiet = bool(mod._inference_fast_path(input[0], input[1], input[2], None, None))
            except Exception:
                quiet = False
        if quiet:
            self._tls.inside = getattr(self._tls, 'inside', 0) + 1
        self._mod_stack.append((mod, self._nseen, quiet))

    def _module_exit(self, mod, input, output):
        if threading.get_ident() != self._thread or not self._mod_stack:
            return
        m, seen, quiet = self._mod_stack.pop()
        if quiet:
            self._tls.inside -= 1
        planner = _MODULE_PLANS.get(type(mod).__name__)
        if m is not mod or planner is None or seen != self._nseen:
            return
        try:
            fwd, bwd = planner(mod, input, output)
        except Exception:
            return
        self._record(fwd, bwd, output)

    def _record(self, fwd, bwd, out):
        parents = tuple(dict.fromkeys(self.mod_tracker.parents))
        self._nseen += 1
        self._count(fwd, parents)
        first = out
        if isinstance(out, (tuple, list)):
            first = next((o for o in out if hasattr(o, 'grad_fn')), None)
        node = getattr(first, 'grad_fn', None)
        if bwd and node is not None:
            self._plans[node] = (parents, bwd)

    def _intercept(self, name, call, args, kwargs):
        tls = self._tls
        if (threading.get_ident() != self._thread or getattr(tls, 'inside', 0)
                or getattr(tls, 'bw', 0)):
            return call(*args, **kwargs)
        planner = _PLANS.get(name)
        key = None
        if planner is None:
            key = _KEYS.get('aten.' + name)
            if key is None or key not in self.flop_registry:
                return call(*args, **kwargs)
        tls.inside = getattr(tls, 'inside', 0) + 1
        try:
            out = call(*args, **kwargs)
        finally:
            tls.inside -= 1
        if planner is None:          # a user formula for a public op
            self._record([(key, args, kwargs, out)], (), out)
            return out
        try:
            fwd, bwd = planner(args, kwargs, out)
        except Exception:      # an argument form the planner does not know: not counted
            fwd, bwd = [], []
        self._record(fwd, bwd, out)
        return out

    def __enter__(self):
        from .._ops import _dispatch
        from ..autograd import engine
        self.flop_counts.clear()
        self._thread = threading.get_ident()
        self._plans = weakref.WeakKeyDictionary()
        self._mod_stack = []
        from ..autograd.graph import _seq
        self._seq0 = next(_seq)          # nodes numbered below ran forward before
        self.mod_tracker.__enter__()
        self._hook = _BackwardHook(self, engine._profile_hook)
        engine._profile_hook = self._hook
        self._handle = _dispatch.push_interceptor(self._intercept)
        self.mode = self._handle
        return self

    def __exit__(self, *args):
        from ..autograd import engine
        if self.mode is None:
            raise AssertionError("Internal error: FlopCounter.__exit__ called but mode is None")
        self._handle.remove()
        # take this counter's hook out of the engine's chain (counters may exit in any order)
        h = engine._profile_hook
        if h is self._hook:
            engine._profile_hook = self._hook.prev
        else:
            while isinstance(h, _BackwardHook):
                if h.prev is self._hook:
                    h.prev = self._hook.prev
                    break
                h = h.prev
        self._handle = self._hook = self.mode = None
        self._plans = weakref.WeakKeyDictionary()
        self.mod_tracker.__exit__()
        if self.display:
            print(self.get_table(self.depth))
        return False
