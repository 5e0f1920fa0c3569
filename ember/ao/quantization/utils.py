"""``ember.ao.quantization.utils``: helpers shared by the observers, fake-quantize modules,
qconfigs and the eager and FX workflows (as ``torch.ao.quantization.utils``).

The range helpers (:func:`calculate_qmin_qmax`, :func:`validate_qmin_qmax`,
:func:`check_min_max_valid`, :func:`determine_qparams`) give the same numbers, warnings and
errors as PyTorch's; the qconfig predicates (:func:`get_quant_type`,
:func:`activation_is_statically_quantized`, ...) read the dtypes an observer constructor
makes.
"""
import functools
import inspect
import warnings
from collections import OrderedDict
from typing import Any

from ... import _dtype as D
from .quant_type import QuantType

__all__ = [
    "NodePattern",
    "Pattern",
    "MatchAllNode",
    "check_node",
    "get_combined_dict",
    "is_per_tensor",
    "is_per_channel",
    "getattr_from_fqn",
    "get_qparam_dict",
    "get_swapped_custom_module_class",
    "activation_dtype",
    "weight_dtype",
    "activation_is_statically_quantized",
    "activation_is_dynamically_quantized",
    "activation_is_int8_quantized",
    "activation_is_int32_quantized",
    "weight_is_quantized",
    "weight_is_statically_quantized",
    "op_is_int8_dynamically_quantized",
    "get_qconfig_dtypes",
    "get_quant_type",
    "check_min_max_valid",
    "calculate_qmin_qmax",
    "has_no_children_ignoring_parametrizations",
    "get_fqn_to_example_inputs",
    "to_underlying_dtype",
    "determine_qparams",
    "validate_qmin_qmax",
    "DEPRECATION_WARNING",
]


class _Ember:
    """``ember``'s namespace, imported on first use (this package sits below it)."""

    def __getattr__(self, name):
        import ember
        return getattr(ember, name)


_em = _Ember()

FLOAT32_EPS = 1.1920928955078125e-07   # torch.finfo(torch.float32).eps

# Typing aliases of FX patterns (a node, or a tuple nesting nodes / callables).
NodePattern = Any
Pattern = Any
QuantizerCls = Any


class MatchAllNode:
    """A node pattern that matches every node (used in FX fusion patterns).

    Example::

        >>> from ember.ao.quantization.utils import MatchAllNode
        >>> pattern = (ember.nn.ReLU, MatchAllNode)
    """


def _qinfo(dtype):
    """``(min, max, bits)`` of an integer or quantized dtype, as ``torch.iinfo`` gives
    them (the packed 4- and 2-bit dtypes read as their uint8 storage)."""
    table = {D.quint8: (0, 255, 8), D.qint8: (-128, 127, 8),
             D.qint32: (-2 ** 31, 2 ** 31 - 1, 32), D.quint4x2: (0, 255, 8),
             D.quint2x4: (0, 255, 8)}
    if dtype in table:
        return table[dtype]
    i = _em.iinfo(dtype)
    return i.min, i.max, i.bits


def _module_type_list():
    nn = _em.nn
    return {nn.ReLU, nn.ReLU6, nn.AdaptiveAvgPool1d, nn.AdaptiveAvgPool2d,
            nn.AdaptiveAvgPool3d, nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d, nn.MaxPool1d,
            nn.MaxPool2d, nn.MaxPool3d, nn.Identity, nn.Hardsigmoid, nn.Sigmoid, nn.Tanh}


def _func_list():
    F = _em.nn.functional
    return {F.adaptive_avg_pool1d, F.adaptive_avg_pool2d, F.adaptive_avg_pool3d, F.elu,
            F.hardswish, F.instance_norm, F.layer_norm, F.leaky_relu, F.silu, F.mish,
            F.dropout, F.max_pool1d, F.max_pool2d, F.max_pool3d, F.relu, F.hardtanh,
            F.hardtanh_, F.hardsigmoid, F.sigmoid, _em.transpose, _em.repeat_interleave,
            _em.sigmoid, _em.squeeze, _em.stack, _em.sum, _em.tanh, _em.unsqueeze, _em.cat}


module_type_list = _module_type_list()
func_list = _func_list()
method_list = {_em.mean, "relu", "relu_", "contiguous", "detach", "detach_", "hardsigmoid",
                 "hardsigmoid_", "permute", "repeat", "repeat_interleave", "reshape",
                 "resize_", "shape", "sigmoid", "sigmoid_", "size", "squeeze", "squeeze_",
                 "tanh", "tanh_", "transpose", "unsqueeze", "unsqueeze_", "view"}


def check_node(node, modules):
    """Whether an FX ``node`` calls a function, a method or a module whose output shares
    its input's quantization parameters: ``(is_call_function, is_call_method,
    is_call_module)``.

    Args:
        node: an ``ember.fx`` node.
        modules (dict): the graph module's named modules.

    Example::

        >>> gm = ember.fx.symbolic_trace(ember.nn.Sequential(ember.nn.ReLU()))
        >>> node = list(gm.graph.nodes)[1]
        >>> check_node(node, dict(gm.named_modules()))
        (False, False, True)
    """
    is_call_function = node.op == "call_function" and node.target in func_list
    is_call_method = node.op == "call_method" and node.target in method_list
    is_call_module = (node.op == "call_module"
                      and type(modules[str(node.target)]) in module_type_list)
    return is_call_function, is_call_method, is_call_module


def get_combined_dict(default_dict, additional_dict):
    """A new dict with ``default_dict``'s entries updated by ``additional_dict``'s.

    Args:
        default_dict (dict): the base entries.
        additional_dict (dict): entries that override.

    Example::

        >>> get_combined_dict({'a': 1, 'b': 1}, {'b': 2, 'c': 3})
        {'a': 1, 'b': 2, 'c': 3}
    """
    d = dict(default_dict)
    d.update(additional_dict)
    return d


def is_per_tensor(qscheme):
    """Whether ``qscheme`` is a per-tensor scheme (affine or symmetric).

    Example::

        >>> is_per_tensor(ember.per_tensor_symmetric)
        True
    """
    return qscheme == D.per_tensor_affine or qscheme == D.per_tensor_symmetric


def is_per_channel(qscheme):
    """Whether ``qscheme`` is a per-channel scheme (affine, symmetric or float qparams).

    Example::

        >>> is_per_channel(ember.per_channel_affine_float_qparams)
        True
    """
    return qscheme in (D.per_channel_affine, D.per_channel_affine_float_qparams,
                       D.per_channel_symmetric)


def getattr_from_fqn(obj, fqn):
    """The attribute of ``obj`` at the dotted path ``fqn`` (``'foo.bar.baz'``).

    Example::

        >>> m = ember.nn.Sequential(ember.nn.Linear(2, 2))
        >>> getattr_from_fqn(m, '0.weight').shape
        torch.Size([2, 2])
    """
    return functools.reduce(getattr, fqn.split("."), obj)


def to_underlying_dtype(qdtype):
    """The plain integer dtype a quantized dtype stores its values in
    (``quint8 -> uint8``, ``qint8 -> int8``, ``qint32 -> int32``; integer and float8 dtypes
    map to themselves).

    Example::

        >>> to_underlying_dtype(ember.quint8)
        torch.uint8
    """
    mapping = {D.quint8: D.uint8, D.qint8: D.int8, D.qint32: D.int32,
               D.quint4x2: D.uint8, D.quint2x4: D.uint8}
    for d in (D.uint8, D.int8, D.uint16, D.int16, D.int32, D.float8_e5m2, D.float8_e4m3fn):
        mapping[d] = d
    if qdtype not in mapping:
        raise AssertionError("Unsupported dtype: " + str(qdtype))
    return mapping[qdtype]


def get_qparam_dict(observer_or_fake_quant):
    """The quantization parameters an observer or fake-quantize module describes, as a dict
    (``qscheme``, ``dtype``, ``scale``, ``zero_point``, ``axis`` for per-channel,
    ``quant_min``/``quant_max``); symmetric schemes are reported as affine.

    Example::

        >>> obs = ember.ao.quantization.MinMaxObserver()
        >>> _ = obs(ember.tensor([0.0, 2.55]))
        >>> sorted(get_qparam_dict(obs))
        ['dtype', 'qscheme', 'quant_max', 'quant_min', 'scale', 'zero_point']
    """
    from .observer import PlaceholderObserver
    qscheme = getattr(observer_or_fake_quant, "qscheme", None)
    dtype = observer_or_fake_quant.dtype
    qparams = {"qscheme": qscheme, "dtype": dtype}
    if not qscheme or isinstance(observer_or_fake_quant, PlaceholderObserver):
        return {"qscheme": None, "dtype": dtype}
    if is_per_tensor(qscheme):
        qscheme = D.per_tensor_affine
    elif is_per_channel(qscheme):
        if qscheme == D.per_channel_symmetric:
            qscheme = D.per_channel_affine
        qparams["axis"] = observer_or_fake_quant.ch_axis
    else:
        raise RuntimeError(f"Unrecognized qscheme: {qscheme}")
    qparams["qscheme"] = qscheme
    scale, zero_point = observer_or_fake_quant.calculate_qparams()
    qparams["scale"] = scale
    qparams["zero_point"] = zero_point
    for k in ("quant_min", "quant_max"):
        if hasattr(observer_or_fake_quant, k):
            qparams[k] = getattr(observer_or_fake_quant, k)
    return qparams


def get_swapped_custom_module_class(custom_module, custom_module_class_mapping, qconfig):
    """The observed (or quantized) class to swap ``custom_module`` for, looked up in
    ``custom_module_class_mapping`` under the qconfig's :class:`QuantType`.

    Args:
        custom_module (Module): a float or observed custom module.
        custom_module_class_mapping (dict): ``{QuantType: {float class: observed class}}``.
        qconfig (QConfig): the module's qconfig.

    Example::

        >>> class Obs(ember.nn.Linear): pass
        >>> mapping = {QuantType.STATIC: {ember.nn.Linear: Obs}}
        >>> get_swapped_custom_module_class(ember.nn.Linear(1, 1), mapping,
        ...     ember.ao.quantization.default_qconfig) is Obs
        True
    """
    quant_type = get_quant_type(qconfig)
    class_mapping = custom_module_class_mapping.get(quant_type, {})
    if type(custom_module) not in class_mapping:
        raise AssertionError("did not find corresponding observed "
                             f"module class for {type(custom_module)} in mapping: "
                             f"{class_mapping}")
    return class_mapping[type(custom_module)]


def activation_dtype(qconfig):
    """The dtype of the activation observer ``qconfig`` makes.

    Example::

        >>> activation_dtype(ember.ao.quantization.default_qconfig)
        torch.quint8
    """
    if qconfig is None:
        raise AssertionError("qconfig must be provided to determine activation dtype")
    return qconfig.activation().dtype


def weight_dtype(qconfig):
    """The dtype of the weight observer ``qconfig`` makes.

    Example::

        >>> weight_dtype(ember.ao.quantization.default_qconfig)
        torch.qint8
    """
    if qconfig is None:
        raise AssertionError("qconfig must be provided to determine weight dtype")
    return qconfig.weight().dtype


_STATIC_ACT = ('quint8', 'qint8', 'qint32', 'float16', 'uint8', 'int8', 'int16', 'int32',
               'float8_e5m2', 'float8_e4m3fn')


def _in(dtype, names):
    return any(dtype == getattr(D, n) for n in names)


def activation_is_statically_quantized(qconfig):
    """Whether ``qconfig`` quantizes activations statically (to an 8/16/32-bit integer,
    float16 or float8 dtype, and not dynamically).

    Example::

        >>> activation_is_statically_quantized(ember.ao.quantization.default_qconfig)
        True
    """
    return (_in(activation_dtype(qconfig), _STATIC_ACT)
            and not activation_is_dynamically_quantized(qconfig))


def activation_is_dynamically_quantized(qconfig):
    """Whether ``qconfig``'s activation observer is dynamic (``is_dynamic``).

    Example::

        >>> activation_is_dynamically_quantized(ember.ao.quantization.default_dynamic_qconfig)
        True
    """
    return get_qconfig_dtypes(qconfig)[2]


def activation_is_int8_quantized(qconfig):
    """Whether ``qconfig`` quantizes activations to an 8-bit integer dtype.

    Example::

        >>> activation_is_int8_quantized(ember.ao.quantization.default_qconfig)
        True
    """
    return _in(activation_dtype(qconfig), ('quint8', 'qint8', 'uint8', 'int8'))


def activation_is_int32_quantized(qconfig):
    """Whether ``qconfig`` quantizes activations to 32-bit integers.

    Example::

        >>> activation_is_int32_quantized(ember.ao.quantization.default_qconfig)
        False
    """
    return _in(activation_dtype(qconfig), ('qint32', 'int32'))


def weight_is_quantized(qconfig):
    """Whether ``qconfig`` quantizes weights (to an integer, float16 or float8 dtype).

    Example::

        >>> weight_is_quantized(ember.ao.quantization.float16_dynamic_qconfig)
        True
    """
    return _in(weight_dtype(qconfig), ('quint8', 'qint8', 'float16', 'quint4x2', 'uint8',
                                       'int8', 'int16', 'int32', 'float8_e5m2',
                                       'float8_e4m3fn'))


def weight_is_statically_quantized(qconfig):
    """Whether ``qconfig`` quantizes weights to an 8-bit integer dtype.

    Example::

        >>> weight_is_statically_quantized(ember.ao.quantization.default_qconfig)
        True
    """
    return _in(weight_dtype(qconfig), ('quint8', 'qint8', 'uint8', 'int8'))


def op_is_int8_dynamically_quantized(qconfig):
    """Whether ``qconfig`` is int8 dynamic quantization (quint8 dynamic activations,
    qint8 weights).

    Example::

        >>> op_is_int8_dynamically_quantized(ember.ao.quantization.default_dynamic_qconfig)
        True
    """
    act, wt, dyn = get_qconfig_dtypes(qconfig)
    return _in(act, ('quint8', 'uint8')) and _in(wt, ('qint8', 'int8')) and bool(dyn)


def get_qconfig_dtypes(qconfig):
    """``(activation dtype, weight dtype, activation is dynamic)`` of ``qconfig``.

    Example::

        >>> get_qconfig_dtypes(ember.ao.quantization.default_qconfig)
        (torch.quint8, torch.qint8, False)
    """
    if qconfig is None:
        raise AssertionError("qconfig must be provided to extract dtypes")
    activation = qconfig.activation()
    weight = qconfig.weight()
    return activation.dtype, weight.dtype, getattr(activation, "is_dynamic", False)


_STATIC_DTYPES = ('quint8', 'qint8', 'quint4x2', 'qint32', 'uint8', 'int8', 'int16',
                  'int32', 'float8_e5m2', 'float8_e4m3fn')


def get_quant_type(qconfig):
    """The :class:`QuantType` (static, dynamic, weight-only) ``qconfig`` describes.

    Example::

        >>> get_quant_type(ember.ao.quantization.default_dynamic_qconfig)
        <QuantType.DYNAMIC: 0>
    """
    if qconfig is None:
        raise AssertionError("qconfig must be provided to determine quant type")
    activation = qconfig.activation()
    weight = qconfig.weight()
    dynamic = getattr(activation, "is_dynamic", False)
    if _in(weight.dtype, _STATIC_DTYPES):
        if dynamic:
            return QuantType.DYNAMIC
        if _in(activation.dtype, _STATIC_DTYPES):
            return QuantType.STATIC
        return QuantType.WEIGHT_ONLY
    if weight.dtype == D.float16:
        if dynamic:
            return QuantType.DYNAMIC
        if activation.dtype == D.float16:
            return QuantType.STATIC
    raise Exception(  # noqa: TRY002
        f"Unrecognized dtype combination in get_quant_type: activation({activation.dtype}),"
        f"weight({weight.dtype})")


_UNINIT_MSG = "must run observer before calling calculate_qparams. Returning default values."


def check_min_max_valid(min_val, max_val):
    """Whether an observer's ``min_val``/``max_val`` hold an observed range: False (with a
    warning) when empty or still ``(inf, -inf)``; an ``AssertionError`` when min > max.

    Example::

        >>> check_min_max_valid(ember.tensor(-1.0), ember.tensor(2.0))
        True
    """
    return _check_min_max(min_val, max_val, 3)


def _check_min_max(min_val, max_val, stacklevel):
    if min_val.numel() == 0 or max_val.numel() == 0:
        warnings.warn(_UNINIT_MSG, stacklevel=stacklevel)
        return False
    if min_val.dim() == 0 or max_val.dim() == 0:
        if bool(min_val == float("inf")) and bool(max_val == float("-inf")):
            warnings.warn(_UNINIT_MSG, stacklevel=stacklevel)
            return False
        if bool(min_val > max_val):
            raise AssertionError(f"min {min_val} should be less than max {max_val}")
    elif bool(_em.any(min_val > max_val)):
        raise AssertionError(f"min {min_val} should be less than max {max_val}")
    return True


def calculate_qmin_qmax(quant_min, quant_max, has_customized_qrange, dtype, reduce_range):
    """The quantized range an observer uses: the custom ``[quant_min, quant_max]``
    (checked against the dtype's bit range, halved with ``reduce_range``) or the dtype's
    default 8-bit (16/32-bit) range.

    Args:
        quant_min (int), quant_max (int): the custom range (or None).
        has_customized_qrange (bool): whether the custom range is used.
        dtype: the quantized dtype.
        reduce_range (bool): drop one bit.

    Example::

        >>> calculate_qmin_qmax(None, None, False, ember.qint8, True)
        (-64, 63)
    """
    if has_customized_qrange:
        lo, hi = (0, 2 ** 32 - 1) if _in(dtype, ('qint32', 'int32')) else (0, 255)
        if quant_min is not None and quant_max is not None:
            lo, hi = quant_min, quant_max
        n = hi - lo + 1
        if _in(dtype, ('qint8', 'int8')):
            if not 0 < n <= 256:
                raise AssertionError("quantization range should be positive and not exceed "
                                     "the maximum bit range (=256).")
        elif _in(dtype, ('qint32', 'int32')):
            if not 0 < n <= 2 ** 32:
                raise AssertionError("quantization range should be positive and not exceed "
                                     "the maximum bit range (=4294967296).")
        if reduce_range:
            quant_min, quant_max = quant_min // 2, quant_max // 2
        return quant_min, quant_max
    if _in(dtype, ('qint8', 'int8')):
        return (-64, 63) if reduce_range else (-128, 127)
    if _in(dtype, ('quint8', 'uint8')):
        return (0, 127) if reduce_range else (0, 255)
    if _in(dtype, ('qint32', 'int32')):
        return -(2 ** 31), 2 ** 31 - 1
    if dtype == D.uint16:
        return 0, 2 ** 16 - 1
    if dtype == D.int16:
        return -(2 ** 15), 2 ** 15 - 1
    return 0, 15


def validate_qmin_qmax(quant_min, quant_max):
    """Check a user-given quantization range: it must contain 0 and
    ``quant_min < quant_max`` (``AssertionError`` otherwise).

    Example::

        >>> validate_qmin_qmax(-8, 7)
    """
    if not quant_min <= 0 <= quant_max:
        raise AssertionError("Used-specified quantization range must include 0.")
    if quant_min >= quant_max:
        raise AssertionError("qmin must be strictly less than qmax for user-specified "
                             "quantization range.")


def _qparams_from_range(min_val, max_val, quant_min, quant_max, dtype, eps,
                        has_customized_qrange, qscheme, scale_dtype):
    """Scale and zero point for the observed ``[min_val, max_val]`` (tensors, per tensor
    or per channel), as the observers compute them. The one implementation behind
    ``UniformQuantizationObserverBase._calculate_qparams`` and :func:`determine_qparams`."""
    em = _em
    if not _check_min_max(min_val, max_val, 4):
        dev = min_val.device.type
        return em.tensor([1.0], device=dev), em.tensor([0], device=dev)
    min_val_neg = em.min(min_val, em.zeros_like(min_val))
    max_val_pos = em.max(max_val, em.zeros_like(max_val))
    device = min_val_neg.device
    scale = em.ones(min_val_neg.size(), dtype=scale_dtype, device=device)
    zero_point = em.zeros(min_val_neg.size(), dtype=em.int64, device=device)
    eps = eps.to(device)
    if qscheme == D.per_tensor_symmetric or qscheme == D.per_channel_symmetric:
        max_val_pos = em.max(-min_val_neg, max_val_pos)
        scale = max_val_pos / (float(quant_max - quant_min) / 2)
        scale = em.max(scale, eps)
        if _in(dtype, ('quint8', 'uint8')):
            mid = (quant_min + quant_max) // 2 if has_customized_qrange else 128
            zero_point = zero_point.new_full(zero_point.size(), mid)
        elif dtype == D.uint16 and scale_dtype == D.float32:
            zero_point = zero_point.new_full(zero_point.size(), 2 ** 15)
    elif qscheme == D.per_channel_affine_float_qparams:
        scale = (max_val - min_val) / float(quant_max - quant_min)
        scale = em.where(scale > eps, scale, em.ones_like(scale))
        zero_point = -1 * min_val / scale
    else:
        scale = (max_val_pos - min_val_neg) / float(quant_max - quant_min)
        scale = em.max(scale, eps)
        zero_point = quant_min - em.round(min_val_neg / scale).to(em.int)
        zero_point = em.clamp(zero_point, quant_min, quant_max)
    if len(scale.shape) == 0:
        scale = em.tensor([float(scale)], dtype=scale.dtype, device=device)
    if len(zero_point.shape) == 0:
        zero_point = em.tensor([int(zero_point)], dtype=zero_point.dtype, device=device)
        if qscheme == D.per_channel_affine_float_qparams:
            zero_point = em.tensor([float(zero_point)], dtype=zero_point.dtype,
                                   device=device)
    return scale, zero_point


def determine_qparams(min_val, max_val, quant_min, quant_max, dtype, eps,
                      has_customized_qrange, qscheme=D.per_tensor_affine):
    """Scale (float64) and zero point (int64) for the range ``[min_val, max_val]`` (per
    tensor or per channel), as the observers compute them.

    Args:
        min_val (Tensor), max_val (Tensor): the observed range.
        quant_min (int), quant_max (int): the quantized range.
        dtype: the quantized dtype.
        eps (Tensor): the smallest scale.
        has_customized_qrange (bool): whether the range was user-given.
        qscheme: the quantization scheme.

    Example::

        >>> s, z = determine_qparams(ember.tensor(-1.0), ember.tensor(1.0), 0, 255,
        ...                          ember.quint8, ember.tensor([1e-7]), False)
        >>> z
        tensor([127])
    """
    scale, zero_point = _qparams_from_range(min_val, max_val, quant_min, quant_max, dtype,
                                            eps, has_customized_qrange, qscheme,
                                            D.float64)
    return scale.to(D.float64), zero_point.to(D.int64)


def _parent_name(target):
    """``'foo.bar'`` -> ``('foo', 'bar')``; ``'foo'`` -> ``('', 'foo')``."""
    head, _, tail = target.rpartition(".")
    return head, tail


def has_no_children_ignoring_parametrizations(module):
    """Whether ``module`` has no child modules (a parametrized module's
    ``parametrizations`` container does not count).

    Example::

        >>> has_no_children_ignoring_parametrizations(ember.nn.Linear(2, 2))
        True
    """
    if len(module._modules) == 0:
        return True
    from ...nn.utils.parametrize import is_parametrized
    if is_parametrized(module):
        return len(module._modules) == 1 and "parametrizations" in module._modules
    return False


def _get_path_of_module(root, submodule):
    """The qualified name of ``submodule`` inside ``root`` (None if absent)."""
    for n, p in root.named_modules():
        if submodule is p:
            return n
    return None


def _get_signature_locals(f, loc):
    params = inspect.signature(f).parameters
    return {k: v for k, v in loc.items() if k in params}


def _get_default_kwargs(f):
    kwargs = OrderedDict()
    for name, param in inspect.signature(f).parameters.items():
        if param.default is not param.empty:
            kwargs[name] = param.default
        elif param.kind is param.VAR_POSITIONAL:
            kwargs[name] = ()
        elif param.kind is param.VAR_KEYWORD:
            kwargs[name] = {}
    return kwargs


def _normalize_kwargs(func, loc):
    normalized = _get_default_kwargs(func)
    for attr, val in _get_signature_locals(func, loc).items():
        if attr in normalized:
            normalized[attr] = val
    return normalized


def _get_num_pos_args(f):
    return len(inspect.getfullargspec(f).args)


def get_fqn_to_example_inputs(model, example_inputs):
    """Run ``model(*example_inputs)`` and record, for every submodule called, the
    positional inputs it received (keyword arguments filled in by position from its
    ``forward``'s defaults): ``{qualified name: inputs tuple}``.

    Args:
        model (Module): the model.
        example_inputs (tuple): its inputs.

    Example::

        >>> m = ember.nn.Sequential(ember.nn.Linear(2, 2))
        >>> sorted(get_fqn_to_example_inputs(m, (ember.ones(1, 2),)))
        ['', '0']
    """
    Module = _em.nn.Module
    root = model
    found = {}
    orig_call = Module.__call__

    def _recording_call(self, *args, **kwargs):
        inputs = list(args)
        normalized = _normalize_kwargs(self.forward, kwargs)
        to_pop = _get_num_pos_args(self.forward) - 1 - len(inputs)
        while to_pop and normalized:
            normalized.popitem(last=False)
            to_pop -= 1
        inputs.extend(normalized.values())
        fqn = _get_path_of_module(root, self)
        if fqn is not None:
            found[fqn] = tuple(inputs)
        return orig_call(self, *args, **kwargs)

    Module.__call__ = _recording_call
    try:
        model(*example_inputs)
    finally:
        Module.__call__ = orig_call
    return found


def _assert_and_get_unique_device(module):
    """The one device of ``module``'s parameters and buffers (None when it has none)."""
    devices = {p.device for p in module.parameters()} | {p.device for p in module.buffers()}
    cpu, meta = _em.device("cpu"), _em.device("meta")
    if devices == {cpu, meta}:
        warnings.warn("Both 'meta' and 'cpu' are present in the list of devices. Module can "
                      "have one device. We Select 'cpu'.", stacklevel=2)
        devices = {cpu}
    if len(devices) > 1:
        raise AssertionError("prepare only works with cpu or single-device CUDA modules, "
                             f"but got devices {devices}")
    return next(iter(devices)) if devices else None


DEPRECATION_WARNING = (
    "torch.ao.quantization is deprecated and will be removed in 2.10. \n"
    "For migrations of users: \n"
    "1. Eager mode quantization (torch.ao.quantization.quantize, "
    "torch.ao.quantization.quantize_dynamic), please migrate to use torchao eager mode "
    "quantize_ API instead \n"
    "2. FX graph mode quantization (torch.ao.quantization.quantize_fx.prepare_fx,"
    "torch.ao.quantization.quantize_fx.convert_fx, please migrate to use torchao pt2e "
    "quantization API instead (prepare_pt2e, convert_pt2e) \n"
    "3. pt2e quantization has been migrated to torchao "
    "(https://github.com/pytorch/ao/tree/main/torchao/quantization/pt2e) \n"
    "see https://github.com/pytorch/ao/issues/2259 for more details"
)
