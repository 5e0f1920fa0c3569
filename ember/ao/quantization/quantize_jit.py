"""Quantization of TorchScript models (``torch.ao.quantization.quantize_jit``).

PyTorch quantizes a scripted model by rewriting its TorchScript graph (observer insertion,
conv-bn folding, quantized-op substitution). Ember has no TorchScript: ``ember.jit.script``
returns the module it is given, so there is no graph to rewrite. The names below are kept
so that code importing them still imports; each checks its arguments as PyTorch does and
then raises ``NotImplementedError`` pointing at the eager and FX workflows, which quantize
the same models.
"""
from ...nn.modules.module import Module

__all__ = ['script_qconfig', 'script_qconfig_dict', 'fuse_conv_bn_jit', 'prepare_jit',
           'prepare_dynamic_jit', 'convert_jit', 'convert_dynamic_jit', 'quantize_jit',
           'quantize_dynamic_jit']

_ADVICE = ("ember has no TorchScript, so {what} cannot rewrite a scripted model's graph; "
           "quantize the module itself with ember.ao.quantization.prepare/convert (eager "
           "mode), quantize_dynamic, or ember.ao.quantization.quantize_fx")


def _unsupported(what):
    return NotImplementedError(_ADVICE.format(what=what))


def _script_module(model):
    """``model`` must be what ``ember.jit.script`` / ``trace`` give for a module: the
    module itself (or an ``ember.jit.ScriptModule``)."""
    if not isinstance(model, Module):
        raise ValueError("input must be a script module, got: " + str(type(model)))


def _check_qconfig_dict(qconfig_dict):
    if not all(isinstance(k, str) for k in qconfig_dict):
        raise ValueError("qconfig_dict should only contain names(str) as keys.")


def script_qconfig(qconfig):
    """Instantiate a qconfig's observers as TorchScript modules (a ``QConfig`` whose
    ``activation`` and ``weight`` are scripted observer instances).

    NOTE: unlike PyTorch, raises ``NotImplementedError``: ember has no TorchScript module
    objects to hold the observers.

    Args:
        qconfig (QConfig): the qconfig whose observers are instantiated.

    Example::

        >>> script_qconfig(ember.ao.quantization.default_qconfig)
        Traceback (most recent call last):
        NotImplementedError: ...
    """
    raise _unsupported('script_qconfig')


def script_qconfig_dict(qconfig_dict):
    """:func:`script_qconfig` applied to every qconfig of ``qconfig_dict`` (``None``
    entries stay ``None``).

    NOTE: unlike PyTorch, raises ``NotImplementedError`` for a dict holding any qconfig
    (see :func:`script_qconfig`); a dict of ``None`` entries is returned as PyTorch returns
    it.

    Args:
        qconfig_dict (dict): module name -> qconfig or ``None``.

    Example::

        >>> script_qconfig_dict({'': None})
        {'': None}
    """
    return {k: script_qconfig(v) if v else None for k, v in qconfig_dict.items()}


def fuse_conv_bn_jit(model, inplace=False):
    """Fold each convolution's following batch norm into the convolution in a scripted
    model in eval mode.

    NOTE: unlike PyTorch, raises ``NotImplementedError`` for a module (ember has no
    TorchScript graph to fold); use :func:`ember.ao.quantization.fuse_modules` or
    :func:`ember.ao.quantization.fuse_conv_bn` on the module instead. An argument that is
    not a module raises PyTorch's ``AttributeError`` (it has no ``_c``).

    Args:
        model (Module): the scripted (in ember: the plain) model.
        inplace (bool): fold in place.

    Example::

        >>> fuse_conv_bn_jit(ember.nn.Conv2d(1, 1, 1))
        Traceback (most recent call last):
        NotImplementedError: ...
    """
    if not isinstance(model, Module):
        model._c          # PyTorch's error for an object that is not a script module
    raise _unsupported('fuse_conv_bn_jit')


def prepare_jit(model, qconfig_dict, inplace=False):
    """Insert observers into a scripted model for post-training static quantization.

    NOTE: unlike PyTorch, raises ``NotImplementedError`` once the arguments are checked (no
    TorchScript graph); since ``ember.jit.script`` returns its module, any module is
    accepted as the scripted model. Use :func:`ember.ao.quantization.prepare` or
    ``quantize_fx.prepare_fx`` instead.

    Args:
        model (Module): the scripted model.
        qconfig_dict (dict): submodule name (``''`` for the whole model) -> qconfig.
        inplace (bool): prepare in place.

    Raises:
        ValueError: ``model`` is not a module, or a key of ``qconfig_dict`` is not a string.

    Example::

        >>> prepare_jit(ember.nn.Linear(2, 2), {'': ember.ao.quantization.default_qconfig})
        Traceback (most recent call last):
        NotImplementedError: ...
    """
    _script_module(model)
    _check_qconfig_dict(qconfig_dict)
    raise _unsupported('prepare_jit')


def prepare_dynamic_jit(model, qconfig_dict, inplace=False):
    """Insert observers into a scripted model for dynamic quantization.

    NOTE: unlike PyTorch, raises ``NotImplementedError`` once the arguments are checked, as
    :func:`prepare_jit`; use :func:`ember.ao.quantization.quantize_dynamic` instead.

    Args:
        model (Module): the scripted model.
        qconfig_dict (dict): submodule name -> qconfig.
        inplace (bool): prepare in place.

    Example::

        >>> prepare_dynamic_jit(ember.nn.Linear(2, 2), {'': ember.ao.quantization.default_dynamic_qconfig})
        Traceback (most recent call last):
        NotImplementedError: ...
    """
    _script_module(model)
    _check_qconfig_dict(qconfig_dict)
    raise _unsupported('prepare_dynamic_jit')


def convert_jit(model, inplace=False, debug=False, preserved_attrs=None):
    """Replace a prepared scripted model's observed float ops by quantized ops.

    NOTE: unlike PyTorch, raises ``NotImplementedError`` for a module (see
    :func:`prepare_jit`); use :func:`ember.ao.quantization.convert` instead.

    Args:
        model (Module): the prepared scripted model.
        inplace (bool): convert in place.
        debug (bool): keep float ops with quantize/dequantize around them (reference form).
        preserved_attrs (list of str, optional): attributes kept through freezing.

    Example::

        >>> convert_jit(ember.nn.Linear(2, 2))
        Traceback (most recent call last):
        NotImplementedError: ...
    """
    _script_module(model)
    raise _unsupported('convert_jit')


def convert_dynamic_jit(model, inplace=False, debug=False, preserved_attrs=None):
    """Replace a prepared scripted model's observed float ops by dynamically quantized ops.

    NOTE: unlike PyTorch, raises ``NotImplementedError`` for a module (see
    :func:`prepare_jit`).

    Args:
        model (Module): the prepared scripted model.
        inplace (bool): convert in place.
        debug (bool): keep the reference form.
        preserved_attrs (list of str, optional): attributes kept through freezing.

    Example::

        >>> convert_dynamic_jit(ember.nn.Linear(2, 2))
        Traceback (most recent call last):
        NotImplementedError: ...
    """
    _script_module(model)
    raise _unsupported('convert_dynamic_jit')


def quantize_jit(model, qconfig_dict, run_fn, run_args, inplace=False, debug=False):
    """Post-training static quantization of a scripted model: :func:`prepare_jit`,
    ``run_fn(model, *run_args)`` (calibration), :func:`convert_jit`.

    NOTE: unlike PyTorch, raises ``NotImplementedError`` once the arguments are checked
    (see :func:`prepare_jit`); use :func:`ember.ao.quantization.quantize` instead.

    Args:
        model (Module): the scripted float model.
        qconfig_dict (dict): submodule name -> qconfig.
        run_fn (Callable): calibration function, called as ``run_fn(model, *run_args)``.
        run_args (tuple): its arguments.
        inplace (bool): quantize in place.
        debug (bool): keep the reference form.

    Raises:
        AssertionError: ``run_fn`` or ``run_args`` is missing.

    Example::

        >>> quantize_jit(ember.nn.Linear(2, 2), {'': None}, print, [()])
        Traceback (most recent call last):
        NotImplementedError: ...
    """
    if not run_fn:
        raise AssertionError("Must provide calibration function for post training static "
                             "quantization")
    if not run_args:
        raise AssertionError("Must provide calibration dataset for post training static "
                             "quantization")
    return prepare_jit(model, qconfig_dict, inplace)


def quantize_dynamic_jit(model, qconfig_dict, inplace=False, debug=False):
    """Dynamic quantization of a scripted model: :func:`prepare_dynamic_jit` then
    :func:`convert_dynamic_jit`.

    NOTE: unlike PyTorch, raises ``NotImplementedError`` once the arguments are checked
    (see :func:`prepare_jit`); use :func:`ember.ao.quantization.quantize_dynamic` instead.

    Args:
        model (Module): the scripted float model.
        qconfig_dict (dict): submodule name -> qconfig.
        inplace (bool): quantize in place.
        debug (bool): keep the reference form.

    Example::

        >>> quantize_dynamic_jit(ember.nn.Linear(2, 2), {'': None})
        Traceback (most recent call last):
        NotImplementedError: ...
    """
    return prepare_dynamic_jit(model, qconfig_dict, inplace)
