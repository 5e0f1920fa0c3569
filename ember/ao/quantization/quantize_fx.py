"""``ember.ao.quantization.quantize_fx``: FX graph mode quantization, as
``torch.ao.quantization.quantize_fx``: :func:`fuse_fx`, :func:`prepare_fx`,
:func:`prepare_qat_fx`, :func:`convert_fx` and :func:`convert_to_reference_fx` on
``ember.fx`` graphs, driven by a :class:`~ember.ao.quantization.QConfigMapping` and a
:class:`~ember.ao.quantization.backend_config.BackendConfig`.

As in PyTorch 2.13, ``prepare_fx``, ``prepare_qat_fx`` and ``convert_fx`` emit torch's
``DeprecationWarning`` (the flow moved to torchao); the same numbers come out.

NOTE: unlike PyTorch, of the custom configs (:class:`PrepareCustomConfig` and co., or
their dict forms) only non-traceable modules and preserved attributes are acted on
(standalone and custom modules are not); dynamic qconfigs are lowered for ``Linear``
and ``LinearReLU`` only, float16 qconfigs not at all (the patterns stay float); functional ``F.conv*`` calls stay in their reference form
after lowering (torch 2.13's own lowering of them fails unless every argument is given).
Lowering covers the weighted modules, functional ``F.linear`` (prepacked weight) and
``F.layer_norm``, ``add``/``mul`` (with ReLU), batch norm, layer norm, ELU, LeakyReLU,
Hardswish, Dropout, Softmax and BNReLU modules, and the ops that keep their input's qparams or have fixed ones (pooling,
``cat``, ``flatten``, ``relu``, ``sigmoid``, views...); other quantized ops stay in their
reference ``dequantize -> op -> quantize`` form.
"""
import copy
import warnings

from ember.fx import GraphModule
from .backend_config import BackendConfig, get_native_backend_config
from .qconfig_mapping import QConfigMapping
from .utils import DEPRECATION_WARNING
from .fx.tracer import QuantizationTracer, Scope, ScopeContextManager
from .fx import fuse as _fuse, prepare as _prepare, convert as _convert
from .fx.custom_config import ConvertCustomConfig, FuseCustomConfig, PrepareCustomConfig

__all__ = ['fuse_fx', 'prepare_fx', 'prepare_qat_fx', 'convert_fx', 'convert_to_reference_fx',
           'QuantizationTracer', 'Scope', 'ScopeContextManager', 'BackendConfig',
           'QConfigMapping', 'DEPRECATION_WARNING', 'GraphModule', 'PrepareCustomConfig',
           'ConvertCustomConfig', 'FuseCustomConfig', 'fuse', 'prepare', 'convert',
           'attach_preserved_attrs_to_model', 'get_skipped_module_name_and_classes']

fuse, prepare, convert = _fuse, _prepare, _convert


_DICT_KEYS = {'non_traceable_module_names': 'non_traceable_module_name',
              'non_traceable_module_classes': 'non_traceable_module_class'}


def _cfg(config, key):
    """An entry of a custom config (a config object or its older dict form)."""
    if config is None:
        return []
    if isinstance(config, dict):
        return config.get(_DICT_KEYS.get(key, key), [])
    return getattr(config, key, [])


def _attach_preserved_attrs(src, dst, names):
    attach_preserved_attrs_to_model(dst, {n: getattr(src, n) for n in names if hasattr(src, n)})


def attach_preserved_attrs_to_model(model, preserved_attrs):
    """Set each ``{name: value}`` of ``preserved_attrs`` on ``model`` (and record them in
    ``model.meta['_user_preserved_attributes']``), as torch keeps user attributes across
    the FX workflow.

    Args:
        model (GraphModule): the model.
        preserved_attrs (dict): the attributes.

    Example::

        >>> gm = ember.fx.symbolic_trace(ember.nn.ReLU())
        >>> attach_preserved_attrs_to_model(gm, {'version': 2})
        >>> gm.version
        2
    """
    meta = getattr(model, 'meta', None)
    if isinstance(meta, dict):
        meta.setdefault('_user_preserved_attributes', {}).update(preserved_attrs)
    for name, value in preserved_attrs.items():
        setattr(model, name, value)


def get_skipped_module_name_and_classes(prepare_custom_config, is_standalone_module):
    """The module names and classes the tracer does not trace through: the
    non-traceable ones of ``prepare_custom_config`` (standalone modules too, unless
    preparing a standalone module itself).

    Args:
        prepare_custom_config (PrepareCustomConfig or dict): the config.
        is_standalone_module (bool): preparing a standalone module.

    Returns:
        tuple[list[str], list[type]]

    Example::

        >>> c = PrepareCustomConfig().set_non_traceable_module_names(['head'])
        >>> get_skipped_module_name_and_classes(c, False)
        (['head'], [])
    """
    names = list(_cfg(prepare_custom_config, 'non_traceable_module_names'))
    classes = list(_cfg(prepare_custom_config, 'non_traceable_module_classes'))
    if not is_standalone_module and isinstance(prepare_custom_config, PrepareCustomConfig):
        names += list(prepare_custom_config.standalone_module_names)
        classes += list(prepare_custom_config.standalone_module_classes)
    return names, classes


def _check_is_graph_module(model):
    if not isinstance(model, GraphModule):
        raise ValueError(
            "input model must be a GraphModule, Got type:" + str(type(model))
            + " Please make sure to follow the tutorials.")


def _trace(model, prepare_custom_config):
    tracer = QuantizationTracer(*get_skipped_module_name_and_classes(prepare_custom_config,
                                                                      False))
    graph = tracer.trace(model)
    gm = GraphModule(model, graph)
    _attach_preserved_attrs(model, gm, _cfg(prepare_custom_config, 'preserved_attributes'))
    return gm, tracer


def _qconfig_mapping(qconfig_mapping):
    if isinstance(qconfig_mapping, dict):
        warnings.warn(
            "Passing a QConfig dictionary to prepare is deprecated and will not be supported "
            "in a future version. Please pass in a QConfigMapping instead.",
            FutureWarning, stacklevel=3)
        return QConfigMapping.from_dict(qconfig_mapping)
    if not isinstance(qconfig_mapping, QConfigMapping):
        raise AssertionError("qconfig_mapping must be a QConfigMapping")
    return qconfig_mapping


def _backend(backend_config):
    if backend_config is None:
        return get_native_backend_config()
    if isinstance(backend_config, dict):
        warnings.warn(
            "Passing a backend_config_dict to prepare is deprecated and will not be supported "
            "in a future version. Please pass in a BackendConfig instead.",
            FutureWarning, stacklevel=3)
        return BackendConfig.from_dict(backend_config)
    return backend_config


def _prepare_fx(model, qconfig_mapping, is_qat, example_inputs, prepare_custom_config=None,
                backend_config=None):
    qconfig_mapping = _qconfig_mapping(qconfig_mapping)
    backend_config = _backend(backend_config)
    gm, tracer = _trace(model, prepare_custom_config)
    gm = _fuse(gm, is_qat, backend_config=backend_config)
    prepared = _prepare(gm, qconfig_mapping, is_qat, tracer.node_name_to_scope,
                        example_inputs, prepare_custom_config, backend_config=backend_config)
    _attach_preserved_attrs(model, prepared, _cfg(prepare_custom_config,
                                                  'preserved_attributes'))
    return prepared


def fuse_fx(model, fuse_custom_config=None, backend_config=None):
    r"""Trace ``model`` and fuse its module chains (``Conv+BN(+ReLU)``, ``Linear+ReLU``,
    ``Linear+BN``, ``BN+ReLU``...) into ``nn.intrinsic`` modules, as the backend config's
    fusion patterns say (eval mode: batch norms are folded into the weights).

    Args:
        model (nn.Module): the float model (not changed).
        fuse_custom_config (FuseCustomConfig or dict, optional): preserved attributes.
        backend_config (BackendConfig, optional): default: the native config.

    Returns:
        GraphModule: the fused model.

    Example::

        >>> m = nn.Sequential(nn.Conv2d(1, 1, 1), nn.BatchNorm2d(1), nn.ReLU()).eval()
        >>> fused = fuse_fx(m)
    """
    gm, _ = _trace(model, fuse_custom_config)
    fused = _fuse(gm, False, fuse_custom_config, _backend(backend_config))
    _attach_preserved_attrs(model, fused, _cfg(fuse_custom_config, 'preserved_attributes'))
    return fused


def prepare_fx(model, qconfig_mapping, example_inputs, prepare_custom_config=None,
               _equalization_config=None, backend_config=None):
    r"""Prepare ``model`` (in eval mode) for post-training static quantization: trace it,
    fuse it, and insert observers (``activation_post_process_<i>`` modules) where the
    backend config's patterns are quantized under ``qconfig_mapping``.

    Args:
        model (nn.Module): the float model, in eval mode.
        qconfig_mapping (QConfigMapping or dict): the qconfigs per global / type / name.
        example_inputs (tuple): example positional inputs.
        prepare_custom_config (PrepareCustomConfig or dict, optional): non-traceable
            modules, preserved attributes.
        _equalization_config: unused.
        backend_config (BackendConfig, optional): default: the native config.

    Returns:
        GraphModule: the observed model; run calibration data through it, then
        :func:`convert_fx`.

    Raises:
        AssertionError: ``qconfig_mapping`` is neither a ``QConfigMapping`` nor a dict.

    Example::

        >>> from ember.ao.quantization import get_default_qconfig_mapping
        >>> m = nn.Sequential(nn.Linear(4, 4), nn.ReLU()).eval()
        >>> prepared = prepare_fx(m, get_default_qconfig_mapping(), (ember.randn(1, 4),))
    """
    warnings.warn(DEPRECATION_WARNING, DeprecationWarning, stacklevel=2)
    return _prepare_fx(model, qconfig_mapping, False, example_inputs, prepare_custom_config,
                       backend_config)


def prepare_qat_fx(model, qconfig_mapping, example_inputs, prepare_custom_config=None,
                   backend_config=None):
    r"""Prepare ``model`` (in training mode) for quantization-aware training: trace it,
    fuse it (``Conv+BN`` kept as ``ConvBn`` modules), swap modules to their QAT forms
    (fake-quantized weights) and insert fake-quantize modules on the activations.

    Args:
        model (nn.Module): the float model, in training mode.
        qconfig_mapping (QConfigMapping or dict): QAT qconfigs.
        example_inputs (tuple): example positional inputs.
        prepare_custom_config (dict, optional): as :func:`prepare_fx`.
        backend_config (BackendConfig, optional): default: the native config.

    Returns:
        GraphModule: the model to train, then :func:`convert_fx`.

    Raises:
        AssertionError: ``qconfig_mapping`` is neither a ``QConfigMapping`` nor a dict.

    Example::

        >>> from ember.ao.quantization import get_default_qat_qconfig_mapping
        >>> m = nn.Sequential(nn.Linear(4, 4), nn.ReLU()).train()
        >>> prepared = prepare_qat_fx(m, get_default_qat_qconfig_mapping(), (ember.randn(1, 4),))
    """
    warnings.warn(DEPRECATION_WARNING, DeprecationWarning, stacklevel=2)
    return _prepare_fx(model, qconfig_mapping, True, example_inputs, prepare_custom_config,
                       backend_config)


def _convert_fx(graph_module, is_reference, convert_custom_config=None, qconfig_mapping=None,
                backend_config=None, _remove_qconfig=True):
    _check_is_graph_module(graph_module)
    converted = _convert(graph_module, is_reference, convert_custom_config,
                         _remove_qconfig_flag=_remove_qconfig,
                         qconfig_mapping=qconfig_mapping, backend_config=backend_config)
    _attach_preserved_attrs(graph_module, converted,
                            _cfg(convert_custom_config, 'preserved_attributes'))
    return converted


def convert_fx(graph_module, convert_custom_config=None, _remove_qconfig=True,
               qconfig_mapping=None, backend_config=None, keep_original_weights=False):
    r"""Convert a prepared and calibrated (or trained) model to a quantized model: the
    observers become ``quantize_per_tensor`` calls, weighted modules become
    ``nn.quantized`` / ``nn.intrinsic.quantized`` modules, ``add``/``mul`` become
    ``ember.ops.quantized`` ops, and shape-preserving ops run on quantized tensors.

    Args:
        graph_module (GraphModule): the model from :func:`prepare_fx` /
            :func:`prepare_qat_fx` (changed in place).
        convert_custom_config (ConvertCustomConfig or dict, optional): preserved
            attributes.
        _remove_qconfig (bool): delete the modules' ``qconfig`` attributes.
        qconfig_mapping: unused (the prepare-time mapping is used).
        backend_config (BackendConfig, optional): default: the one prepare used.
        keep_original_weights (bool): unused.

    Returns:
        GraphModule: the quantized model.

    Raises:
        ValueError: ``graph_module`` is not a ``GraphModule``.

    Example::

        >>> prepared(ember.randn(8, 4))          # calibrate
        >>> quantized = convert_fx(prepared)
    """
    warnings.warn(DEPRECATION_WARNING, DeprecationWarning, stacklevel=2)
    return _convert_fx(graph_module, False, convert_custom_config, qconfig_mapping,
                       backend_config, _remove_qconfig)


def convert_to_reference_fx(graph_module, convert_custom_config=None, _remove_qconfig=True,
                            qconfig_mapping=None, backend_config=None):
    r"""Convert a prepared and calibrated model to a reference quantized model:
    ``quantize_per_tensor`` + ``dequantize`` around float ops, and reference quantized
    modules (weights quantized and dequantized on each call) for the weighted modules.

    Args:
        graph_module (GraphModule): the model from :func:`prepare_fx` (changed in place).
        convert_custom_config (ConvertCustomConfig or dict, optional): preserved
            attributes.
        _remove_qconfig (bool): delete the modules' ``qconfig`` attributes.
        qconfig_mapping: unused.
        backend_config (BackendConfig, optional): default: the one prepare used.

    Returns:
        GraphModule: the reference quantized model.

    Raises:
        ValueError: ``graph_module`` is not a ``GraphModule``.

    Example::

        >>> reference = convert_to_reference_fx(prepared)
    """
    return _convert_fx(graph_module, True, convert_custom_config, qconfig_mapping,
                       backend_config, _remove_qconfig)
