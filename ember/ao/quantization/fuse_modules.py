"""``ember.ao.quantization.fuse_modules``: fuse named runs of a model's modules (conv + bn +
relu, linear + relu...) into single modules before quantization, as
``torch.ao.quantization.fuse_modules``. The first module of each run is replaced by the
fused module and the others by :class:`~ember.nn.Identity`."""
import copy

from ...nn.modules.linear import Identity
from ...nn.utils.parametrize import type_before_parametrizations
from .fuser_method_mappings import fuse_conv_bn, fuse_conv_bn_relu, get_fuser_method  # noqa: F401

__all__ = ['fuse_known_modules', 'fuse_modules', 'fuse_modules_qat']


def _get_module(model, key):
    mod = model
    for name in key.split('.'):
        mod = getattr(mod, name)
    return mod


def _set_module(model, key, module):
    *path, last = key.split('.')
    parent = model
    for name in path:
        parent = getattr(parent, name)
    setattr(parent, last, module)


def fuse_known_modules(mod_list, is_qat, additional_fuser_method_mapping=None):
    r"""Fuse a list of modules whose types form a known pattern (conv + bn, conv + bn +
    relu, conv + relu, linear + bn, linear + relu, bn + relu, convtranspose + bn).

    The forward pre-hooks of the first module and the forward hooks of the last one move
    to the fused module; other hooks are lost.

    Args:
        mod_list (list[nn.Module]): the modules, in order.
        is_qat (bool): fuse for quantization-aware training.
        additional_fuser_method_mapping (dict, optional): more ``{types: fuser}`` entries.

    Returns:
        list[nn.Module]: as long as ``mod_list``: the fused module, then ``nn.Identity``
        modules (in the first module's training mode).

    Example::

        >>> mods = [nn.Conv2d(3, 4, 3).eval(), nn.ReLU().eval()]
        >>> fused, ident = ember.ao.quantization.fuse_known_modules(mods, False)
    """
    types = tuple(type_before_parametrizations(m) for m in mod_list)
    fuser_method = get_fuser_method(types, additional_fuser_method_mapping)
    if fuser_method is None:
        raise NotImplementedError(f'Cannot fuse modules: {types}')
    fused = fuser_method(is_qat, *mod_list)
    first, last = mod_list[0], mod_list[-1]
    for hook in first._forward_pre_hooks.values():
        fused.register_forward_pre_hook(hook)
    first._forward_pre_hooks.clear()
    for hook in last._forward_hooks.values():
        fused.register_forward_hook(hook)
    last._forward_hooks.clear()
    new_mods = [fused]
    for _ in mod_list[1:]:
        identity = Identity()
        identity.training = first.training
        new_mods.append(identity)
    return new_mods


def _fuse_modules(model, modules_to_fuse, is_qat, inplace=False,
                  fuser_func=fuse_known_modules, fuse_custom_config_dict=None):
    if not inplace:
        model = copy.deepcopy(model)
    extra = (fuse_custom_config_dict or {}).get('additional_fuser_method_mapping', {})
    groups = ([modules_to_fuse] if all(isinstance(m, str) for m in modules_to_fuse)
              else modules_to_fuse)
    for names in groups:
        mods = [_get_module(model, name) for name in names]
        new_mods = fuser_func(mods, is_qat, extra)
        for name, mod in zip(names, new_mods):
            _set_module(model, name, mod)
    return model


def fuse_modules(model, modules_to_fuse, inplace=False, fuser_func=fuse_known_modules,
                 fuse_custom_config_dict=None):
    r"""Fuse runs of a model's modules for post-training quantization: a batch norm is
    folded into the convolution or linear layer before it, a ReLU joins it in an
    ``nn.intrinsic`` container (``ConvReLU2d``, ``LinearReLU``...). The model must be in
    eval mode for batch-norm folding.

    Args:
        model (nn.Module): the model.
        modules_to_fuse (list): a list of lists of module names (dotted paths), or one list
            of names.
        inplace (bool): change ``model`` itself instead of a deep copy. Default: ``False``
        fuser_func (Callable): ``fuser_func(mod_list, is_qat, additional_mapping)`` returns
            the replacement modules. Default: :func:`fuse_known_modules`
        fuse_custom_config_dict (dict, optional): ``{'additional_fuser_method_mapping':
            {types: fuser}}``.

    Returns:
        nn.Module: the model with fused modules.

    Example::

        >>> m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU()).eval()
        >>> fused = ember.ao.quantization.fuse_modules(m, [['0', '1', '2']])
        >>> type(fused[0]).__name__
        'ConvReLU2d'
    """
    return _fuse_modules(model, modules_to_fuse, is_qat=False, inplace=inplace,
                         fuser_func=fuser_func, fuse_custom_config_dict=fuse_custom_config_dict)


def fuse_modules_qat(model, modules_to_fuse, inplace=False, fuser_func=fuse_known_modules,
                     fuse_custom_config_dict=None):
    r"""Fuse runs of a model's modules for quantization-aware training: conv + bn (+ relu)
    and linear + bn are kept together in ``nn.intrinsic`` containers (``ConvBnReLU2d``...)
    that ``prepare_qat`` turns into their QAT forms, with the batch norm folded during
    training. Arguments as :func:`fuse_modules`.

    Args:
        model (nn.Module): the model (in training mode).
        modules_to_fuse (list): a list of lists of module names, or one list of names.
        inplace (bool): change ``model`` itself. Default: ``False``
        fuser_func (Callable): see :func:`fuse_modules`.
        fuse_custom_config_dict (dict, optional): see :func:`fuse_modules`.

    Returns:
        nn.Module: the model with fused modules.

    Example::

        >>> m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU()).train()
        >>> fused = ember.ao.quantization.fuse_modules_qat(m, ['0', '1', '2'])
        >>> type(fused[0]).__name__
        'ConvBnReLU2d'
    """
    return _fuse_modules(model, modules_to_fuse, is_qat=True, inplace=inplace,
                         fuser_func=fuser_func, fuse_custom_config_dict=fuse_custom_config_dict)
