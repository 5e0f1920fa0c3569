"""``ember.ao.quantization.qconfig_mapping``: :class:`QConfigMapping`, the table from
model parts (globally, by type, by name, by name regex, by call order) to qconfigs, and the
default mappings per backend (as ``torch.ao.quantization.qconfig_mapping``)."""
from collections import OrderedDict

from .fake_quantize import default_weight_fake_quant, FixedQParamsFakeQuantize
from .observer import (default_fixed_qparams_range_0to1_observer,
                       default_fixed_qparams_range_neg1to1_observer,
                       default_placeholder_observer, default_weight_observer)
from .qconfig import (default_quint8_weight_qconfig, default_reuse_input_qconfig,
                      default_symmetric_qnnpack_qat_qconfig,
                      default_symmetric_qnnpack_qconfig, get_default_qat_qconfig,
                      get_default_qconfig, QConfig)
from .observer import _PartialWrapper  # noqa: F401
from .qconfig import QConfigAny  # noqa: F401
from .utils import _em

__all__ = [
    "get_default_qconfig_mapping",
    "get_default_qat_qconfig_mapping",
    "QConfigMapping",
]

_GLOBAL_DICT_KEY = ""
_OBJECT_TYPE_DICT_KEY = "object_type"
_MODULE_NAME_REGEX_DICT_KEY = "module_name_regex"
_MODULE_NAME_DICT_KEY = "module_name"
_MODULE_NAME_OBJECT_TYPE_ORDER_DICT_KEY = "module_name_object_type_order"


def _fixed_qparams_op_to_observer():
    """The ops whose output range is known, with the fixed-qparams observer for it."""
    em, nn, F = _em, _em.nn, _em.nn.functional
    zero_one = default_fixed_qparams_range_0to1_observer
    neg_one_one = default_fixed_qparams_range_neg1to1_observer
    return {
        nn.Hardsigmoid: zero_one, F.hardsigmoid: zero_one, "hardsigmoid": zero_one,
        "hardsigmoid_": zero_one, nn.Sigmoid: zero_one, em.sigmoid: zero_one,
        "sigmoid": zero_one, "sigmoid_": zero_one, nn.Softmax: zero_one,
        nn.Tanh: neg_one_one, em.tanh: neg_one_one, "tanh": neg_one_one,
        "tanh_": neg_one_one,
    }


_FIXED_QPARAMS_OP_TO_OBSERVER = _fixed_qparams_op_to_observer()


def _get_default_qconfig_mapping(is_qat, backend, version):
    """The default mapping: the backend's qconfig globally, plus the special cases
    (reshape reuses its input's observer; ConvTranspose gets per-tensor weights on
    x86/fbgemm; LayerNorm keeps float weights; PReLU gets quint8 weights; ops with a known
    output range get fixed qparams)."""
    qconfig = (get_default_qat_qconfig if is_qat else get_default_qconfig)(backend, version)
    default_weight = default_weight_fake_quant if is_qat else default_weight_observer
    if backend in ("fbgemm", "x86"):
        qconfig_transpose = QConfig(activation=qconfig.activation, weight=default_weight)
    else:
        qconfig_transpose = qconfig
    qconfig_layernorm = QConfig(activation=qconfig.activation,
                                weight=default_placeholder_observer)
    nn, F = _em.nn, _em.nn.functional
    mapping = (QConfigMapping()
               .set_global(qconfig)
               .set_object_type("reshape", default_reuse_input_qconfig)
               .set_object_type(nn.ConvTranspose1d, qconfig_transpose)
               .set_object_type(nn.ConvTranspose2d, qconfig_transpose)
               .set_object_type(nn.ConvTranspose3d, qconfig_transpose)
               .set_object_type(F.conv_transpose1d, qconfig_transpose)
               .set_object_type(F.conv_transpose2d, qconfig_transpose)
               .set_object_type(F.conv_transpose3d, qconfig_transpose)
               .set_object_type(F.layer_norm, qconfig_layernorm)
               .set_object_type(nn.LayerNorm, qconfig_layernorm)
               .set_object_type(nn.PReLU, default_quint8_weight_qconfig))
    by_observer = {}
    for op, observer in _FIXED_QPARAMS_OP_TO_OBSERVER.items():
        if observer not in by_observer:
            act = FixedQParamsFakeQuantize.with_args(observer=observer) if is_qat else observer
            by_observer[observer] = QConfig(activation=act, weight=default_weight)
        mapping.set_object_type(op, by_observer[observer])
    return mapping


def get_default_qconfig_mapping(backend="x86", version=0):
    """The default :class:`QConfigMapping` for post-training quantization.

    Args:
        backend (str): ``'x86'`` (default), ``'fbgemm'``, ``'qnnpack'`` or ``'onednn'``.
        version (int): the qconfig version (0).

    Example::

        >>> m = ember.ao.quantization.get_default_qconfig_mapping('qnnpack')
        >>> m.global_qconfig.activation().reduce_range
        False
    """
    return _get_default_qconfig_mapping(False, backend, version)


def get_default_qat_qconfig_mapping(backend="x86", version=1):
    """The default :class:`QConfigMapping` for quantization-aware training.

    Args:
        backend (str): ``'x86'`` (default), ``'fbgemm'``, ``'qnnpack'`` or ``'onednn'``.
        version (int): the QAT qconfig version (0 or 1).

    Example::

        >>> m = ember.ao.quantization.get_default_qat_qconfig_mapping()
        >>> type(m.global_qconfig.activation()).__name__
        'FusedMovingAvgObsFakeQuantize'
    """
    return _get_default_qconfig_mapping(True, backend, version)


def _get_symmetric_qnnpack_qconfig_mapping():
    return _get_default_qconfig_mapping_with_default_qconfig(
        False, "qnnpack", default_symmetric_qnnpack_qconfig)


def _get_symmetric_qnnpack_qat_qconfig_mapping():
    return _get_default_qconfig_mapping_with_default_qconfig(
        True, "qnnpack", default_symmetric_qnnpack_qat_qconfig)


def _get_default_qconfig_mapping_with_default_qconfig(is_qat, backend, default_qconfig):
    """The backend's default mapping with ``default_qconfig`` globally and for every object
    type except the fixed-qparams ops."""
    if is_qat:
        mapping = get_default_qat_qconfig_mapping(backend)
    else:
        mapping = get_default_qconfig_mapping(backend)
    mapping.set_global(default_qconfig)
    for pattern in mapping.object_type_qconfigs:
        if pattern not in _FIXED_QPARAMS_OP_TO_OBSERVER:
            mapping.set_object_type(pattern, default_qconfig)
    return mapping


_QCONFIG_STYLE_ORDER = [
    "global_qconfig",
    "object_type_qconfigs",
    "module_name_regex_qconfigs",
    "module_name_qconfigs",
    "module_name_object_type_order_qconfigs",
]


class QConfigMapping:
    """Which :class:`QConfig` each part of a model gets. In increasing priority:

    * ``set_global``: the default qconfig;
    * ``set_object_type``: by module type, function or method name;
    * ``set_module_name_regex``: by module names matching a regex (first registered wins);
    * ``set_module_name``: by module name;
    * ``set_module_name_object_type_order``: by module name, object type and the index of
      the call.

    Each setter returns the mapping, so calls chain; setting a key again replaces its
    qconfig (a regex keeps its original position).

    Example::

        >>> from ember.ao.quantization import QConfigMapping, default_qconfig
        >>> m = (QConfigMapping().set_global(default_qconfig)
        ...      .set_object_type(ember.nn.Linear, None)
        ...      .set_module_name("conv1", default_qconfig))
        >>> list(m.module_name_qconfigs)
        ['conv1']
    """

    def __init__(self):
        self.global_qconfig = None
        self.object_type_qconfigs = OrderedDict()
        self.module_name_regex_qconfigs = OrderedDict()
        self.module_name_qconfigs = OrderedDict()
        self.module_name_object_type_order_qconfigs = OrderedDict()

    def set_global(self, global_qconfig):
        """Set the global (default) qconfig."""
        self.global_qconfig = global_qconfig
        return self

    def set_object_type(self, object_type, qconfig):
        """Set the qconfig of a module type, a function or a method name."""
        self.object_type_qconfigs[object_type] = qconfig
        return self

    def set_module_name_regex(self, module_name_regex, qconfig):
        """Set the qconfig of modules whose name matches ``module_name_regex`` (regexes
        are tried in the order they were first registered)."""
        self.module_name_regex_qconfigs[module_name_regex] = qconfig
        return self

    def set_module_name(self, module_name, qconfig):
        """Set the qconfig of the module named ``module_name``."""
        self.module_name_qconfigs[module_name] = qconfig
        return self

    def set_module_name_object_type_order(self, module_name, object_type, index, qconfig):
        """Set the qconfig of the ``index``-th call of ``object_type`` inside the module
        named ``module_name``."""
        self.module_name_object_type_order_qconfigs[(module_name, object_type, index)] = \
            qconfig
        return self

    def __repr__(self):
        out = self.__class__.__name__ + " ("
        for style in _QCONFIG_STYLE_ORDER:
            out += f"\n {style}"
            qconfigs = getattr(self, style)
            if isinstance(qconfigs, OrderedDict) and len(qconfigs) > 0:
                for key, qconfig in qconfigs.items():
                    out += f"\n  {key}: {qconfig}"
            else:
                out += f"\n  {qconfigs}"
        return out + "\n)"

    def to_dict(self):
        """The mapping as the older qconfig dict: keys ``""`` (global), ``"object_type"``,
        ``"module_name_regex"``, ``"module_name"``, ``"module_name_object_type_order"``,
        each (but the global) a list of tuples."""
        return {
            _GLOBAL_DICT_KEY: self.global_qconfig,
            _OBJECT_TYPE_DICT_KEY: list(self.object_type_qconfigs.items()),
            _MODULE_NAME_REGEX_DICT_KEY: list(self.module_name_regex_qconfigs.items()),
            _MODULE_NAME_DICT_KEY: list(self.module_name_qconfigs.items()),
            _MODULE_NAME_OBJECT_TYPE_ORDER_DICT_KEY: [
                (*k, v) for k, v in self.module_name_object_type_order_qconfigs.items()],
        }

    @classmethod
    def from_dict(cls, qconfig_dict):
        """A mapping built from a qconfig dict (the keys of :meth:`to_dict`, all
        optional)."""
        conf = cls()
        if _GLOBAL_DICT_KEY in qconfig_dict:
            conf.set_global(qconfig_dict[_GLOBAL_DICT_KEY])
        for object_type, qconfig in qconfig_dict.get(_OBJECT_TYPE_DICT_KEY, []):
            conf.set_object_type(object_type, qconfig)
        for regex, qconfig in qconfig_dict.get(_MODULE_NAME_REGEX_DICT_KEY, []):
            conf.set_module_name_regex(regex, qconfig)
        for name, qconfig in qconfig_dict.get(_MODULE_NAME_DICT_KEY, []):
            conf.set_module_name(name, qconfig)
        for name, object_type, index, qconfig in qconfig_dict.get(
                _MODULE_NAME_OBJECT_TYPE_ORDER_DICT_KEY, []):
            conf.set_module_name_object_type_order(name, object_type, index, qconfig)
        return conf
