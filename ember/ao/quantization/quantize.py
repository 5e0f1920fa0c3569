"""``ember.ao.quantization.quantize``: eager-mode quantization of a model, as
``torch.ao.quantization.quantize``.

* :func:`propagate_qconfig_` hands each module its qconfig (its own, else by name or type
  from a dict, else its parent's);
* :func:`prepare` attaches observers to the outputs of the leaf modules to quantize (and to
  ``QuantStub``'s input), :func:`prepare_qat` first swaps float layers for their QAT forms
  (fake-quantized weights) and attaches fake-quantize modules;
* :func:`convert` swaps every module that has a quantized counterpart in the mapping for it
  (``from_float`` reads the observers' scales and zero points) and drops the observers;
* :func:`quantize`, :func:`quantize_qat` and :func:`quantize_dynamic` run the whole flow.

As in PyTorch 2.13, the workflow functions emit torch's ``DeprecationWarning`` (eager mode
moved to torchao); the same numbers come out.
"""
import copy
import functools
import inspect
import itertools
import warnings

from ... import _dtype as D
from ...nn.modules.container import Sequential
from ...nn.modules.dropout import Dropout
from ...nn.utils.parametrize import type_before_parametrizations
from ..nn.intrinsic.modules.fused import _FusedModule
from . import quantization_mappings as _qm
from .stubs import DeQuantStub, QuantWrapper

__all__ = ['get_default_custom_config_dict', 'propagate_qconfig_', 'add_quant_dequant',
           'prepare', 'quantize', 'quantize_dynamic', 'prepare_qat', 'quantize_qat',
           'convert', 'swap_module']


def _deprecated(fn):
    """Mark a workflow function deprecated as torch 2.13 does: each call warns
    ``DeprecationWarning`` with torch's message, attributed to the caller."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        from .utils import DEPRECATION_WARNING
        warnings.warn(DEPRECATION_WARNING, DeprecationWarning, stacklevel=2)
        return fn(*args, **kwargs)
    return wrapper


def _qconfig_module():
    from . import qconfig
    return qconfig


def _is_activation_post_process(module):
    from .observer import _is_activation_post_process as check
    return check(module)


def _custom_class_pairs():
    """torch's default custom-module classes: LSTM and MultiheadAttention are observed as
    their ``nn.quantizable`` forms and converted to ``nn.quantized`` ones (pairs whose
    classes ember does not have yet are left out)."""
    pairs = {}
    for name in ('LSTM', 'MultiheadAttention'):
        float_cls = _qm._resolve(f'nn.{name}')
        observed = _qm._resolve(f'nnquantizable.{name}')
        quantized = _qm._resolve(f'nnq.{name}')
        pairs[name] = (float_cls, observed, quantized)
    return pairs


def get_default_custom_config_dict():
    """The default custom-module configuration of :func:`prepare` and :func:`convert`:
    ``nn.LSTM`` and ``nn.MultiheadAttention`` are observed as their ``nn.quantizable`` forms
    and converted to their ``nn.quantized`` forms.

    Returns:
        dict: ``{'float_to_observed_custom_module_class': {...},
        'observed_to_quantized_custom_module_class': {...}}``

    Example::

        >>> d = ember.ao.quantization.get_default_custom_config_dict()
        >>> sorted(d)
        ['float_to_observed_custom_module_class', 'observed_to_quantized_custom_module_class']
    """
    to_observed, to_quantized = {}, {}
    missing = _qm._MISSING
    for float_cls, observed, quantized in _custom_class_pairs().values():
        if missing not in (float_cls, observed):
            to_observed[float_cls] = observed
            if quantized is not missing:
                to_quantized[observed] = quantized
    return {'float_to_observed_custom_module_class': to_observed,
            'observed_to_quantized_custom_module_class': to_quantized}


def _propagate_qconfig_helper(module, qconfig_dict, qconfig_parent=None, prefix='',
                              prepare_custom_config_dict=None):
    qc = _qconfig_module()
    module_qconfig = qconfig_dict.get(type_before_parametrizations(module), qconfig_parent)
    module_qconfig = qconfig_dict.get(prefix, module_qconfig)
    module_qconfig = getattr(module, 'qconfig', module_qconfig)
    qc._assert_valid_qconfig(module_qconfig, module)
    module_qconfig = qc._add_module_to_qconfig_obs_ctr(module_qconfig, module)
    module.qconfig = module_qconfig
    custom = prepare_custom_config_dict
    for name, child in module.named_children():
        child_prefix = f'{prefix}.{name}' if prefix else name
        if custom is None or not (
                name in custom.get('non_traceable_module_name', [])
                or type(child) in custom.get('non_traceable_module_class', [])):
            _propagate_qconfig_helper(child, qconfig_dict, module_qconfig, child_prefix)


def propagate_qconfig_(module, qconfig_dict=None, prepare_custom_config_dict=None):
    r"""Give every module of ``module``'s tree a ``qconfig`` attribute, in place.

    A module keeps the ``qconfig`` it already has; otherwise it takes the entry of
    ``qconfig_dict`` for its qualified name, else the entry for its type, else its parent's.

    Args:
        module (nn.Module): the model.
        qconfig_dict (dict, optional): ``{name or module type: QConfig}``.
        prepare_custom_config_dict (dict, optional): ``non_traceable_module_name`` /
            ``non_traceable_module_class`` lists of children not to descend into.

    Example::

        >>> m = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
        >>> qconfig = ember.ao.quantization.default_qconfig
        >>> ember.ao.quantization.propagate_qconfig_(m, {nn.Linear: qconfig})
        >>> m[0].qconfig is qconfig, m[1].qconfig
        (True, None)
    """
    _propagate_qconfig_helper(module, qconfig_dict or {},
                              prepare_custom_config_dict=prepare_custom_config_dict or {})


def _observer_forward_hook(self, input, output):
    """Forward hook: run the module's output through its observer."""
    return self.activation_post_process(output)


def _observer_forward_pre_hook(self, input):
    """Forward pre-hook: run the module's first input through its observer."""
    return self.activation_post_process(input[0])


def _register_activation_post_process_hook(module, pre_hook=False):
    if not hasattr(module, 'activation_post_process'):
        raise AssertionError(
            'Expect activation_post_process attribute already attached to the module')
    if pre_hook:
        module.register_forward_pre_hook(_observer_forward_pre_hook, prepend=True)
    else:
        module.register_forward_hook(_observer_forward_hook, prepend=True)


def _get_unique_devices_(module):
    return ({p.device for p in module.parameters() if p.device.type != 'meta'}
            | {b.device for b in module.buffers() if b.device.type != 'meta'})


def _has_no_children(module):
    from .utils import has_no_children_ignoring_parametrizations
    return has_no_children_ignoring_parametrizations(module)


def _add_observer_(module, qconfig_propagation_list=None, non_leaf_module_list=None,
                   device=None, custom_module_class_mapping=None):
    """Attach an output observer (``activation_post_process`` + a forward hook) to each leaf
    module of ``module`` that has a qconfig and whose type is in
    ``qconfig_propagation_list``, and to the fused and ``non_leaf_module_list`` modules;
    custom modules are first swapped for their observed classes."""
    if qconfig_propagation_list is None:
        qconfig_propagation_list = _qm.get_default_qconfig_propagation_list()
    if custom_module_class_mapping is None:
        custom_module_class_mapping = {}
    if device is None:
        devices = _get_unique_devices_(module)
        if len(devices) > 1:
            raise AssertionError('_add_observer_ only works with cpu or single-device CUDA '
                                 f'modules, but got devices {devices}')
        device = next(iter(devices)) if devices else None
    functional_classes = tuple(c for c in (_qm._resolve('nnq.FloatFunctional'),
                                           _qm._resolve('nnq.QFunctional'))
                               if c is not _qm._MISSING)

    def make_observer(qconfig, special=None):
        obs = qconfig.activation() if special is None else special()
        if device is not None:
            obs.to(device)
        return obs

    def needs_observation(m):
        return hasattr(m, 'qconfig') and m.qconfig is not None

    def insert_observer(m, special=None):
        if needs_observation(m) and not isinstance(m, DeQuantStub):
            m.add_module('activation_post_process', make_observer(m.qconfig, special))
            _register_activation_post_process_hook(
                m, pre_hook=_qconfig_module()._activation_is_memoryless(m.qconfig))

    for name, child in module.named_children():
        kind = type_before_parametrizations(child)
        if kind is Dropout:
            continue
        if functional_classes and issubclass(kind, functional_classes):
            if needs_observation(child):
                if not hasattr(child, 'activation_post_process'):
                    raise AssertionError(f'functional class {kind} has no pre-defined '
                                         '`activation_post_process`')
                child.activation_post_process = make_observer(child.qconfig)
        elif isinstance(child, _FusedModule):
            if needs_observation(child):
                insert_observer(child)
        elif non_leaf_module_list is not None and kind in non_leaf_module_list:
            if needs_observation(child):
                insert_observer(child)
        elif _qm._has_special_act_post_process(child):
            insert_observer(child, _qm._get_special_act_post_process(child))
        elif needs_observation(child) and kind in custom_module_class_mapping:
            observed_cls = custom_module_class_mapping[kind]
            observed = observed_cls.from_float(child)
            setattr(module, name, observed)
            if not issubclass(observed_cls, tuple(_qm.no_observer_set())):
                insert_observer(observed)
        else:
            _add_observer_(child, qconfig_propagation_list, non_leaf_module_list, device,
                           custom_module_class_mapping)

    propagated = (not isinstance(module, Sequential)
                  and type_before_parametrizations(module) in qconfig_propagation_list)
    if propagated and _has_no_children(module):
        insert_observer(module)
    # AdaRound-style modules carry weight_fake_quant and still get an output observer
    if propagated and hasattr(module, 'weight_fake_quant'):
        insert_observer(module)


def add_quant_dequant(module):
    r"""Wrap each leaf module that has a qconfig in a :class:`QuantWrapper`, in place.

    Args:
        module (nn.Module): the model, its modules carrying ``qconfig``.

    Returns:
        nn.Module: ``module`` with its leaves wrapped, or a new ``QuantWrapper`` around
        ``module`` itself when it is such a leaf.

    Example::

        >>> lin = nn.Linear(4, 2)
        >>> lin.qconfig = ember.ao.quantization.default_qconfig
        >>> type(ember.ao.quantization.add_quant_dequant(lin)).__name__
        'QuantWrapper'
    """
    if _has_no_children(module) and hasattr(module, 'qconfig') and module.qconfig:
        return QuantWrapper(module)
    for name, child in module.named_children():
        module._modules[name] = add_quant_dequant(child)
    return module


@_deprecated
def prepare(model, inplace=False, allow_list=None, observer_non_leaf_module_list=None,
            prepare_custom_config_dict=None):
    r"""Prepare a model for post-training static quantization: propagate the qconfigs and
    attach observers to the outputs of the modules to quantize (and to each ``QuantStub``'s
    input). Run calibration data through the result, then :func:`convert` it.

    Args:
        model (nn.Module): the model; qconfigs are set beforehand on its modules
            (``model.qconfig = get_default_qconfig('x86')``).
        inplace (bool): change ``model`` itself instead of a deep copy. Default: ``False``
        allow_list (set, optional): module types to observe. Default: the default qconfig
            propagation list.
        observer_non_leaf_module_list (set, optional): non-leaf module types to observe too.
        prepare_custom_config_dict (dict, optional): ``float_to_observed_custom_module_class``
            mapping. Default: :func:`get_default_custom_config_dict`.

    Returns:
        nn.Module: the prepared model.

    Warns:
        DeprecationWarning: as torch 2.13 (eager quantization moved to torchao).
        UserWarning: no module got a qconfig.

    Example::

        >>> model.qconfig = ember.ao.quantization.get_default_qconfig('x86')
        >>> prepared = ember.ao.quantization.prepare(model)
        >>> prepared(calibration_batch)
    """
    if prepare_custom_config_dict is None:
        prepare_custom_config_dict = get_default_custom_config_dict()
    custom_mapping = prepare_custom_config_dict.get('float_to_observed_custom_module_class', {})
    if not inplace:
        model = copy.deepcopy(model)
    propagation_list = (allow_list if allow_list is not None
                        else _qm.get_default_qconfig_propagation_list())
    propagate_qconfig_(model, qconfig_dict=None)
    if not any(hasattr(m, 'qconfig') and m.qconfig for m in model.modules()):
        warnings.warn('None of the submodule got qconfig applied. Make sure you passed correct '
                      'configuration through `qconfig_dict` or by assigning the `.qconfig` '
                      'attribute directly on submodules', stacklevel=2)
    _add_observer_(model, propagation_list, observer_non_leaf_module_list,
                   custom_module_class_mapping=custom_mapping)
    return model


def _remove_activation_post_process(module):
    if (hasattr(module, 'activation_post_process')
            and _is_activation_post_process(module.activation_post_process)):
        delattr(module, 'activation_post_process')
    for hooks, hook in ((module._forward_pre_hooks, _observer_forward_pre_hook),
                        (module._forward_hooks, _observer_forward_hook)):
        for key in [k for k, fn in hooks.items() if fn is hook]:
            hooks.pop(key)


def _remove_qconfig(module):
    """Delete the ``qconfig`` attributes and observers left in ``module``'s tree."""
    for child in module.children():
        _remove_qconfig(child)
    if hasattr(module, 'qconfig'):
        del module.qconfig
    _remove_activation_post_process(module)


@_deprecated
def quantize(model, run_fn, run_args, mapping=None, inplace=False):
    r"""Post-training static quantization in one call: :func:`prepare` (on an eval-mode
    copy), ``run_fn(prepared, *run_args)`` to calibrate, :func:`convert`.

    Args:
        model (nn.Module): the float model, with qconfigs set.
        run_fn (Callable): ``run_fn(model, *run_args)`` runs calibration data.
        run_args (tuple): its further arguments.
        mapping (dict, optional): float-to-quantized module mapping. Default: the static one.
        inplace (bool): change ``model`` itself. Default: ``False``

    Returns:
        nn.Module: the quantized model.

    Example::

        >>> model.qconfig = ember.ao.quantization.default_qconfig
        >>> qmodel = ember.ao.quantization.quantize(model, lambda m, x: m(x), (batch,))
    """
    if mapping is None:
        mapping = _qm.get_default_static_quant_module_mappings()
    if not inplace:
        model = copy.deepcopy(model)
    model.eval()
    prepare(model, inplace=True)
    run_fn(model, *run_args)
    convert(model, mapping, inplace=True)
    return model


def _dynamic_default_qconfig(dtype, qc):
    if dtype == D.qint8:
        return qc.default_dynamic_qconfig
    if dtype == D.float16:
        return qc.float16_dynamic_qconfig
    if dtype == D.quint8:
        return qc.float_qparams_weight_only_qconfig
    if dtype == D.quint4x2:
        return qc.float_qparams_weight_only_qconfig_4bit
    return None


@_deprecated
def quantize_dynamic(model, qconfig_spec=None, dtype=D.qint8, mapping=None, inplace=False):
    r"""Dynamic quantization: swap the chosen layers for versions with int8 (or float16)
    weights that quantize their activations on the fly at each call.

    Args:
        model (nn.Module): the float model (put in eval mode).
        qconfig_spec (set or dict, optional): a set of module types and/or qualified names
            to quantize with ``dtype``'s default qconfig, or a dict ``{type or name:
            QConfig}``. Default: ``Linear``, ``LSTM``, ``GRU`` and the RNN cells for
            ``qint8``/``float16``, ``Embedding(Bag)`` for ``quint8``, ``EmbeddingBag`` for
            ``quint4x2``.
        dtype (ember.dtype): ``qint8``, ``float16``, ``quint8`` or ``quint4x2``.
            Default: ``ember.qint8``
        mapping (dict, optional): float-to-dynamic module mapping. Default: the dynamic one.
        inplace (bool): change ``model`` itself. Default: ``False``

    Returns:
        nn.Module: the quantized model.

    Example::

        >>> qmodel = ember.ao.quantization.quantize_dynamic(model, {nn.Linear},
        ...                                                 dtype=ember.qint8)
    """
    qc = _qconfig_module()
    if qconfig_spec is None:
        default = _dynamic_default_qconfig(dtype, qc)
        if default is None:
            raise ValueError(f"Don't know how to quantize with default settings for {dtype}. "
                             'Provide full qconfig please')
        if dtype in (D.qint8, D.float16):
            names = ('Linear', 'LSTM', 'GRU', 'LSTMCell', 'RNNCell', 'GRUCell')
        elif dtype == D.quint8:
            names = ('EmbeddingBag', 'Embedding')
        else:
            names = ('EmbeddingBag',)
        qconfig_spec = {_qm._resolve(f'nn.{n}'): default for n in names}
    elif isinstance(qconfig_spec, set):
        default = None
        for known in (D.qint8, D.float16, D.quint8, D.quint4x2):
            if dtype is known:
                default = _dynamic_default_qconfig(dtype, qc)
        if default is None:
            raise RuntimeError('Unknown dtype specified for quantize_dynamic: ', str(dtype))
        qconfig_spec = dict(zip(qconfig_spec, itertools.repeat(default)))
    if mapping is None:
        mapping = _qm.get_default_dynamic_quant_module_mappings()
    if not inplace:
        model = copy.deepcopy(model)
    model.eval()
    propagate_qconfig_(model, qconfig_spec)
    convert(model, mapping, inplace=True)
    return model


@_deprecated
def prepare_qat(model, mapping=None, inplace=False):
    r"""Prepare a model for quantization-aware training: swap its float layers for their QAT
    forms (``nn.qat.Linear``, ``nn.intrinsic.qat.ConvBnReLU2d``... whose weights are
    fake-quantized) and attach fake-quantize modules to the outputs. Train the result, then
    :func:`convert` it.

    Args:
        model (nn.Module): the float model, in training mode, with qconfigs set (e.g.
            ``get_default_qat_qconfig('x86')``).
        mapping (dict, optional): float-to-QAT module mapping. Default: the QAT one.
        inplace (bool): change ``model`` itself. Default: ``False``

    Returns:
        nn.Module: the QAT model.

    Example::

        >>> model.qconfig = ember.ao.quantization.get_default_qat_qconfig('x86')
        >>> qat_model = ember.ao.quantization.prepare_qat(model.train())
    """
    if not model.training:
        raise AssertionError('prepare_qat only works on models in training mode')
    if mapping is None:
        mapping = _qm.get_default_qat_module_mappings()
    if not inplace:
        model = copy.deepcopy(model)
    propagate_qconfig_(model, qconfig_dict=None)
    convert(model, mapping=mapping, inplace=True, remove_qconfig=False)
    prepare(model, observer_non_leaf_module_list=set(mapping.values()), inplace=True)
    return model


@_deprecated
def quantize_qat(model, run_fn, run_args, inplace=False):
    r"""Quantization-aware training in one call: :func:`prepare_qat` (on a training-mode
    copy), ``run_fn(model, *run_args)`` to train, :func:`convert`.

    Args:
        model (nn.Module): the float model, with qconfigs set.
        run_fn (Callable): ``run_fn(model, *run_args)`` trains (or just runs) the model.
        run_args (tuple): its further arguments.
        inplace (bool): change ``model`` itself. Default: ``False``

    Returns:
        nn.Module: the quantized model.

    Example::

        >>> model.qconfig = ember.ao.quantization.get_default_qat_qconfig('x86')
        >>> qmodel = ember.ao.quantization.quantize_qat(model, train_loop, (data,))
    """
    if not inplace:
        model = copy.deepcopy(model)
    model.train()
    prepare_qat(model, inplace=True)
    run_fn(model, *run_args)
    convert(model, inplace=True)
    return model


@_deprecated
def convert(module, mapping=None, inplace=False, remove_qconfig=True, is_reference=False,
            convert_custom_config_dict=None, use_precomputed_fake_quant=False):
    r"""Swap every module that has a counterpart in ``mapping`` (and a qconfig) for it,
    built by the counterpart's ``from_float`` from the module and its observers; fused
    modules are swapped as one unit. Then drop the qconfigs and observers.

    Args:
        module (nn.Module): the prepared (and calibrated or trained) model.
        mapping (dict, optional): ``{float type: quantized type}``. Default: the static
            mapping (the reference one with ``is_reference=True``).
        inplace (bool): change ``module`` itself. Default: ``False``
        remove_qconfig (bool): delete the qconfigs and observers afterwards. Default: ``True``
        is_reference (bool): convert to reference quantized modules. Default: ``False``
        convert_custom_config_dict (dict, optional): ``observed_to_quantized_custom_module_class``
            mapping. Default: :func:`get_default_custom_config_dict`.
        use_precomputed_fake_quant (bool): passed to the ``from_float`` methods that take it.
            Default: ``False``

    Returns:
        nn.Module: the converted model.

    Example::

        >>> quantized = ember.ao.quantization.convert(prepared_and_calibrated)
    """
    if not inplace:
        module = copy.deepcopy(module)
    _convert(module, mapping, inplace=True, is_reference=is_reference,
             convert_custom_config_dict=convert_custom_config_dict,
             use_precomputed_fake_quant=use_precomputed_fake_quant)
    if remove_qconfig:
        _remove_qconfig(module)
    return module


def _convert(module, mapping=None, inplace=False, is_reference=False,
             convert_custom_config_dict=None, use_precomputed_fake_quant=False):
    if mapping is None:
        mapping = (_qm.get_default_static_quant_reference_module_mappings() if is_reference
                   else _qm.get_default_static_quant_module_mappings())
    if convert_custom_config_dict is None:
        convert_custom_config_dict = get_default_custom_config_dict()
    custom_mapping = convert_custom_config_dict.get(
        'observed_to_quantized_custom_module_class', {})
    if not inplace:
        module = copy.deepcopy(module)
    swapped = {}
    for name, child in module.named_children():
        # a fused module or an observed custom module is swapped as one unit
        if (not isinstance(child, _FusedModule)
                and type_before_parametrizations(child) not in custom_mapping):
            _convert(child, mapping, True, is_reference, convert_custom_config_dict,
                     use_precomputed_fake_quant=use_precomputed_fake_quant)
        swapped[name] = swap_module(child, mapping, custom_mapping, use_precomputed_fake_quant)
    for name, new in swapped.items():
        module._modules[name] = new
    return module


def swap_module(mod, mapping, custom_module_class_mapping, use_precomputed_fake_quant=False):
    r"""The quantized counterpart of ``mod`` when it has a qconfig and its type is in
    ``mapping`` (or in ``custom_module_class_mapping``), else ``mod`` itself.

    The new module keeps ``mod``'s forward pre-hooks and its forward hooks other than the
    observer's, and moves to ``mod``'s device.

    Args:
        mod (nn.Module): the module.
        mapping (dict): ``{float type: quantized type}``; the quantized type's
            ``from_float`` builds the module.
        custom_module_class_mapping (dict): ``{observed type: quantized type}``, built by
            ``from_observed``.
        use_precomputed_fake_quant (bool): passed to ``from_float`` when it takes it.
            Default: ``False``

    Returns:
        nn.Module

    Example::

        >>> new = ember.ao.quantization.swap_module(
        ...     observed_linear, ember.ao.quantization.get_default_static_quant_module_mappings(), {})
    """
    new_mod = mod
    if getattr(mod, 'qconfig', None) is None:
        return new_mod
    kind = type_before_parametrizations(mod)
    if kind in custom_module_class_mapping:
        new_mod = custom_module_class_mapping[kind].from_observed(mod)
    elif kind in mapping:
        qmod = mapping[kind]
        if getattr(qmod, '_IS_REFERENCE', False):
            from .utils import get_qparam_dict
            weight_post_process = mod.qconfig.weight()
            weight_post_process(mod.weight)
            new_mod = qmod.from_float(mod, get_qparam_dict(weight_post_process))
        elif 'use_precomputed_fake_quant' in inspect.signature(qmod.from_float).parameters:
            new_mod = qmod.from_float(mod, use_precomputed_fake_quant=use_precomputed_fake_quant)
        else:
            new_mod = qmod.from_float(mod)
    else:
        return new_mod
    for hook in mod._forward_pre_hooks.values():
        new_mod.register_forward_pre_hook(hook)
    for hook in mod._forward_hooks.values():
        if hook is not _observer_forward_hook:
            new_mod.register_forward_hook(hook)
    devices = _get_unique_devices_(mod)
    if len(devices) > 1 and not (len(devices) == 2
                                 and any(d.type == 'meta' for d in devices)):
        raise AssertionError('swap_module only works with cpu or single-device CUDA modules, '
                             f'but got devices {devices}')
    device = next(iter(devices)) if devices else None
    if device:
        new_mod.to(device)
    return new_mod


def _get_observer_dict(mod, target_dict, prefix=''):
    """Collect every ``activation_post_process`` of ``mod``'s tree into ``target_dict``
    under its qualified name (for debugging)."""
    head = prefix + '.' if prefix else ''
    if hasattr(mod, 'activation_post_process'):
        target_dict[head + 'activation_post_process'] = mod.activation_post_process
    for name, child in mod.named_children():
        _get_observer_dict(child, target_dict, head + name if prefix else name)
