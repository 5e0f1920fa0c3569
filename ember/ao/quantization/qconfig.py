"""``ember.ao.quantization.qconfig``: quantization configurations (which observer or
fake-quantize module to build for a layer's activations and weights) and the defaults per
backend (as ``torch.ao.quantization.qconfig``)."""
import copy
import warnings
from collections import namedtuple
from typing import Any, Optional

from ... import _dtype as D
from ...nn.modules.module import Module
from ...nn.modules.linear import Identity
from .fake_quantize import (
    default_dynamic_fake_quant, default_embedding_fake_quant,
    default_embedding_fake_quant_4bit, default_fake_quant, default_fused_act_fake_quant,
    default_fused_per_channel_wt_fake_quant, default_fused_wt_fake_quant,
    default_per_channel_weight_fake_quant, default_weight_fake_quant, FakeQuantize,
    FakeQuantizeBase, fused_per_channel_wt_fake_quant_range_neg_127_to_127,
    fused_wt_fake_quant_range_neg_127_to_127, FusedMovingAvgObsFakeQuantize)
from .observer import (
    _PartialWrapper, default_debug_observer, default_dynamic_quant_observer,
    default_float_qparams_observer, default_float_qparams_observer_4bit, default_observer,
    default_per_channel_weight_observer, default_placeholder_observer,
    default_reuse_input_observer, default_weight_observer, HistogramObserver,
    MinMaxObserver, MovingAverageMinMaxObserver, NoopObserver,
    per_channel_weight_observer_range_neg_127_to_127, PlaceholderObserver,
    ReuseInputObserver, weight_observer_range_neg_127_to_127)
from .utils import _em

__all__ = [
    "QConfig",
    "QConfigDynamic",
    "default_qconfig",
    "default_debug_qconfig",
    "default_per_channel_qconfig",
    "default_dynamic_qconfig",
    "float16_dynamic_qconfig",
    "float16_static_qconfig",
    "per_channel_dynamic_qconfig",
    "float_qparams_weight_only_qconfig",
    "float_qparams_weight_only_qconfig_4bit",
    "default_quint8_weight_qconfig",
    "default_qat_qconfig",
    "default_dynamic_qat_qconfig",
    "default_weight_only_qconfig",
    "default_activation_only_qconfig",
    "default_qat_qconfig_v2",
    "default_reuse_input_qconfig",
    "default_symmetric_qnnpack_qconfig",
    "default_per_channel_symmetric_qnnpack_qconfig",
    "default_symmetric_qnnpack_qat_qconfig",
    "default_per_channel_symmetric_qnnpack_qat_qconfig",
    "default_embedding_qat_qconfig",
    "default_embedding_qat_qconfig_4bit",
    "get_default_qconfig",
    "get_default_qat_qconfig",
    "get_default_qconfig_dict",
    "get_default_qat_qconfig_dict",
    "QConfigAny",
    "qconfig_equals",
]


class QConfig(namedtuple("QConfig", ["activation", "weight"])):
    """How to quantize a layer: the observer (or fake-quantize) **constructors** for its
    activations and its weights. Each prepared layer calls them to make its own instances,
    so pass classes or ``with_args`` factories, not instances (a ``ValueError`` otherwise).

    Args:
        activation: constructor of the activation observer.
        weight: constructor of the weight observer.

    Example::

        >>> from ember.ao.quantization import QConfig, MinMaxObserver
        >>> qc = QConfig(activation=MinMaxObserver.with_args(dtype=ember.quint8),
        ...              weight=MinMaxObserver.with_args(dtype=ember.qint8))
        >>> qc.weight().dtype
        torch.qint8
    """
    __slots__ = ()

    def __new__(cls, activation, weight):
        if isinstance(activation, Module) or isinstance(weight, Module):
            raise ValueError(
                "QConfig received observer instance, please pass observer class instead. "
                "Use MyObserver.with_args(x=1) to override arguments to constructor if needed")
        return super().__new__(cls, activation, weight)


_QCONFIG_DYNAMIC_MSG = ("`QConfigDynamic` is going to be deprecated in PyTorch 1.12, please "
                        "use `QConfig` instead")


class QConfigDynamic(namedtuple("QConfigDynamic", ["activation", "weight"])):
    """The dynamic-quantization form of :class:`QConfig` (deprecated: building one emits a
    ``FutureWarning``; use :class:`QConfig`).

    Args:
        activation: constructor of the activation observer (``Identity`` by default).
        weight: constructor of the weight observer (``Identity`` by default).

    Example::

        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter('ignore')
        ...     qc = ember.ao.quantization.QConfigDynamic(
        ...         weight=ember.ao.quantization.default_weight_observer)
    """
    __slots__ = ()
    __deprecated__ = _QCONFIG_DYNAMIC_MSG

    def __new__(cls, activation=Identity, weight=Identity):
        warnings.warn(_QCONFIG_DYNAMIC_MSG, FutureWarning, stacklevel=2)
        if isinstance(weight, Module):
            raise ValueError(
                "QConfigDynamic received observer instance, please pass observer class "
                "instead. Use MyObserver.with_args(x=1) to override arguments to constructor "
                "if needed")
        return super().__new__(cls, activation, weight)


default_qconfig = QConfig(activation=default_observer, weight=default_weight_observer)
default_debug_qconfig = QConfig(weight=default_weight_observer,
                                activation=default_debug_observer)
default_per_channel_qconfig = QConfig(activation=default_observer,
                                      weight=default_per_channel_weight_observer)
default_dynamic_qconfig = QConfig(activation=default_dynamic_quant_observer,
                                  weight=default_weight_observer)
float16_dynamic_qconfig = QConfig(
    activation=PlaceholderObserver.with_args(dtype=D.float16, is_dynamic=True),
    weight=PlaceholderObserver.with_args(dtype=D.float16))
float16_static_qconfig = QConfig(activation=PlaceholderObserver.with_args(dtype=D.float16),
                                 weight=PlaceholderObserver.with_args(dtype=D.float16))
per_channel_dynamic_qconfig = QConfig(activation=default_dynamic_quant_observer,
                                      weight=default_per_channel_weight_observer)
float_qparams_weight_only_qconfig = QConfig(activation=default_placeholder_observer,
                                            weight=default_float_qparams_observer)
float_qparams_weight_only_qconfig_4bit = QConfig(activation=default_placeholder_observer,
                                                 weight=default_float_qparams_observer_4bit)
default_qat_qconfig = QConfig(activation=default_fake_quant, weight=default_weight_fake_quant)
default_dynamic_qat_qconfig = QConfig(activation=default_dynamic_fake_quant,
                                      weight=default_weight_fake_quant)
default_weight_only_qconfig = QConfig(activation=Identity, weight=default_weight_fake_quant)
default_activation_only_qconfig = QConfig(activation=default_fake_quant, weight=Identity)
default_qat_qconfig_v2 = QConfig(activation=default_fused_act_fake_quant,
                                 weight=default_fused_wt_fake_quant)
default_reuse_input_qconfig = QConfig(activation=default_reuse_input_observer,
                                      weight=NoopObserver)

_BACKENDS = ["fbgemm", "x86", "qnnpack", "onednn"]


def _check_backend(backend):
    if backend not in _BACKENDS:
        raise AssertionError("backend: " + str(backend)
                             + f" not supported. backend must be one of {_BACKENDS}")


def _cpu_has_vnni():
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as feats
    except ImportError:   # pragma: no cover
        return True
    return bool(feats.get("AVX512VNNI", False))


def get_default_qconfig(backend="x86", version=0):
    """The default post-training (static) qconfig for ``backend``: a histogram activation
    observer (7-bit on ``x86``/``fbgemm``) and per-channel symmetric int8 weights
    (per-tensor on ``qnnpack``).

    Args:
        backend (str): ``'x86'`` (default), ``'fbgemm'``, ``'qnnpack'`` or ``'onednn'``.
        version (int): 0 (the only version).

    Example::

        >>> qc = ember.ao.quantization.get_default_qconfig('fbgemm')
        >>> qc.activation().reduce_range
        True
    """
    _check_backend(backend)
    if version != 0:
        raise AssertionError("Version number: " + str(version)
                             + " in get_default_qconfig is not supported. Version number "
                             "must be 0")
    if backend in ("fbgemm", "x86"):
        return QConfig(activation=HistogramObserver.with_args(reduce_range=True),
                       weight=default_per_channel_weight_observer)
    if backend == "qnnpack":
        return QConfig(activation=HistogramObserver.with_args(reduce_range=False),
                       weight=default_weight_observer)
    if not _cpu_has_vnni():
        warnings.warn("Default qconfig of oneDNN backend with reduce_range of false may have "
                      "accuracy issues on CPU without Vector Neural Network Instruction "
                      "support.", stacklevel=2)
    return QConfig(activation=HistogramObserver.with_args(reduce_range=False),
                   weight=default_per_channel_weight_observer)


default_symmetric_qnnpack_qconfig = QConfig(
    activation=HistogramObserver.with_args(dtype=D.qint8, reduce_range=False, eps=2 ** -12),
    weight=weight_observer_range_neg_127_to_127)
default_per_channel_symmetric_qnnpack_qconfig = QConfig(
    activation=HistogramObserver.with_args(dtype=D.qint8, reduce_range=False, eps=2 ** -12),
    weight=per_channel_weight_observer_range_neg_127_to_127)
default_embedding_qat_qconfig = QConfig(activation=NoopObserver.with_args(dtype=D.float32),
                                        weight=default_embedding_fake_quant)
default_embedding_qat_qconfig_4bit = QConfig(
    activation=NoopObserver.with_args(dtype=D.float32),
    weight=default_embedding_fake_quant_4bit)
default_quint8_weight_qconfig = QConfig(activation=HistogramObserver, weight=MinMaxObserver)


def get_default_qat_qconfig(backend="x86", version=1):
    """The default quantization-aware-training qconfig for ``backend``: fake-quantize
    modules with moving-average min/max observers (fused observer + fake quantization in
    version 1, the default), 7-bit activations on ``x86``/``fbgemm``, per-channel weights
    (per-tensor on ``qnnpack``).

    Args:
        backend (str): ``'x86'`` (default), ``'fbgemm'``, ``'qnnpack'`` or ``'onednn'``.
        version (int): 0 or 1.

    Example::

        >>> qc = ember.ao.quantization.get_default_qat_qconfig('fbgemm')
        >>> type(qc.activation()).__name__
        'FusedMovingAvgObsFakeQuantize'
    """
    _check_backend(backend)
    if version == 0:
        fq, per_channel_w, per_tensor_w = FakeQuantize, default_per_channel_weight_fake_quant, \
            default_weight_fake_quant
    elif version == 1:
        fq, per_channel_w, per_tensor_w = FusedMovingAvgObsFakeQuantize, \
            default_fused_per_channel_wt_fake_quant, default_fused_wt_fake_quant
    else:
        raise AssertionError("Version number: " + str(version)
                             + "in get_default_qat_qconfig is not supported. Version number "
                             "must be 0 or 1")
    if backend == "onednn":
        act = fq.with_args(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255)
    else:
        act = fq.with_args(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
                           reduce_range=backend in ("fbgemm", "x86"))
    return QConfig(activation=act,
                   weight=per_tensor_w if backend == "qnnpack" else per_channel_w)


default_symmetric_qnnpack_qat_qconfig = QConfig(
    activation=FusedMovingAvgObsFakeQuantize.with_args(
        observer=MovingAverageMinMaxObserver, quant_min=-128, quant_max=127, dtype=D.qint8,
        reduce_range=False, eps=2 ** -12),
    weight=fused_wt_fake_quant_range_neg_127_to_127)
default_per_channel_symmetric_qnnpack_qat_qconfig = QConfig(
    activation=FusedMovingAvgObsFakeQuantize.with_args(
        observer=MovingAverageMinMaxObserver, quant_min=-128, quant_max=127, dtype=D.qint8,
        reduce_range=False, eps=2 ** -12),
    weight=fused_per_channel_wt_fake_quant_range_neg_127_to_127)

_default_fp32_placeholder_qconfig = QConfig(
    activation=PlaceholderObserver.with_args(dtype=D.float32),
    weight=PlaceholderObserver.with_args(dtype=D.float32))
_default_quint8_placeholder_qconfig = QConfig(
    activation=PlaceholderObserver.with_args(dtype=D.quint8), weight=None)


def get_default_qconfig_dict(backend="x86", version=0):
    """The default post-training qconfig mapping as a dict (deprecated: emits a
    ``FutureWarning``; use :func:`get_default_qconfig_mapping`).

    Args:
        backend (str): the backend. version (int): the version.

    Example::

        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter('ignore')
        ...     sorted(ember.ao.quantization.get_default_qconfig_dict())[:2]
        ['', 'module_name']
    """
    warnings.warn("`torch.ao.quantization.get_default_qconfig_dict` is deprecated and will be "
                  "removed in a future version. Please use "
                  "`torch.ao.quantization.get_default_qconfig_mapping` instead.",
                  FutureWarning, stacklevel=2)
    from .qconfig_mapping import get_default_qconfig_mapping
    return get_default_qconfig_mapping(backend, version).to_dict()


def get_default_qat_qconfig_dict(backend="x86", version=1):
    """The default QAT qconfig mapping as a dict (deprecated: emits a ``FutureWarning``; use
    :func:`get_default_qat_qconfig_mapping`).

    Args:
        backend (str): the backend. version (int): the version.

    Example::

        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter('ignore')
        ...     d = ember.ao.quantization.get_default_qat_qconfig_dict()
    """
    warnings.warn("`torch.ao.quantization.get_default_qat_qconfig_dict` is deprecated and will "
                  "be removed in a future version. Please use "
                  "`torch.ao.quantization.get_default_qat_qconfig_mapping` instead.",
                  FutureWarning, stacklevel=2)
    from .qconfig_mapping import get_default_qat_qconfig_mapping
    return get_default_qat_qconfig_mapping(backend, version).to_dict()


def _assert_valid_qconfig(qconfig, mod):
    """Per-channel weight observers are refused for ConvTranspose modules."""
    if qconfig is None:
        return
    nn = _em.nn
    if isinstance(mod, (nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d)):
        if qconfig.weight is None:
            return
        from .observer import MovingAveragePerChannelMinMaxObserver, PerChannelMinMaxObserver
        if isinstance(qconfig.weight(), (PerChannelMinMaxObserver,
                                         MovingAveragePerChannelMinMaxObserver)):
            raise AssertionError("Per channel weight observer is not supported yet for "
                                 "ConvTranspose{n}d.")


QConfigAny = Optional[QConfig]


def _add_module_to_qconfig_obs_ctr(qconfig, module):
    r"""``qconfig`` with constructors that build their observers on ``module``'s device (the
    ``factory_kwargs`` read at construction time), for constructors that accept
    ``factory_kwargs``; others are kept as they are."""
    if module is None or qconfig is None or qconfig._fields != ("activation", "weight"):
        return qconfig

    def device_kwargs():
        if not isinstance(module, Module):
            raise AssertionError("module must be an instance of torch.nn.Module")
        devices = {p.device for p in module.parameters()} | \
            {p.device for p in module.buffers()}
        device = next(iter(devices)) if devices else None
        return None if device is None else {"device": device}

    def on_module_device(ctor):
        try:
            ctor.with_args(factory_kwargs=None)()
            return ctor.with_callable_args(factory_kwargs=device_kwargs)
        except AttributeError:
            return ctor
        except TypeError:
            return ctor

    return QConfig(on_module_device(qconfig.activation), on_module_device(qconfig.weight))


def _obs_or_fq_ctr_equals(a, b):
    if isinstance(a, _PartialWrapper) and isinstance(b, _PartialWrapper):
        return _partial_wrapper_equals(a, b)
    return a == b


def _partial_wrapper_equals(a, b):
    """Whether two ``with_args`` constructors build the same thing (same class, same
    arguments; a nested ``observer`` compared the same way)."""
    ka = copy.copy(a.p.keywords)
    kb = copy.copy(b.p.keywords)
    same = True
    if "observer" in ka and "observer" in kb:
        same = _obs_or_fq_ctr_equals(ka.pop("observer"), kb.pop("observer"))
    return a.p.func == b.p.func and a.p.args == b.p.args and same and ka == kb


def qconfig_equals(q1, q2):
    """Whether two qconfigs build the same observers (``with_args`` factories compared by
    class and arguments, as ``functools.partial`` has no equality).

    Example::

        >>> from ember.ao.quantization import qconfig_equals, get_default_qconfig
        >>> qconfig_equals(get_default_qconfig('fbgemm'), get_default_qconfig('x86'))
        True
    """
    if q1 is None or q2 is None:
        return q1 == q2
    try:
        return (_obs_or_fq_ctr_equals(q1.activation, q2.activation)
                and _obs_or_fq_ctr_equals(q1.weight, q2.weight))
    except AttributeError:
        return q1 == q2


def _activation_is_memoryless(qconfig):
    """Whether the qconfig's activation observer is a moving average with constant 1."""
    def memoryless(obs):
        return hasattr(obs, "averaging_constant") and obs.averaging_constant == 1
    act = qconfig.activation()
    if isinstance(act, FakeQuantizeBase) and hasattr(act, "activation_post_process"):
        return memoryless(act.activation_post_process)
    return memoryless(act)


def _is_reuse_input_qconfig(qconfig):
    return (qconfig is not None and isinstance(qconfig.activation(), ReuseInputObserver)
            and isinstance(qconfig.weight(), NoopObserver))


_ObserverOrFakeQuantizeConstructor = Any
