"""Parametrizations: express a parameter or buffer of a module as a function of other
tensors (``register_parametrization``), with caching, removal and transfer.

A parametrized module's class is replaced by a subclass named ``Parametrized<Name>``
holding one property per parametrized tensor; the original tensors live in
``module.parametrizations[<name>].original`` (or ``original0``, ``original1``, ... when a
``right_inverse`` returns several tensors), so ``state_dict`` keys are
``parametrizations.<name>.original`` as in PyTorch."""
import collections.abc
import copyreg
from contextlib import contextmanager
from copy import deepcopy

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ['cached', 'ParametrizationList', 'register_parametrization', 'is_parametrized',
           'remove_parametrizations', 'type_before_parametrizations',
           'transfer_parametrizations_and_params']

_cache_enabled = 0
_cache = {}


@contextmanager
def cached():
    """Context manager that caches the value of every parametrized tensor computed inside
    it: the parametrization runs once per tensor, however often the tensor is read (e.g. a
    weight used at every step of a recurrent loop). The cache is cleared on exit.

    Example::

        >>> with nn.utils.parametrize.cached():
        ...     out = model(x)
    """
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, X):
    if isinstance(X, Parameter):
        module.register_parameter(name, X)
    else:
        module.register_buffer(name, X)


def _maybe_set(dest, src):
    # NOTE: PyTorch uses Tensor.set_; ember points ``dest`` at ``src``'s storage through
    # ``.data`` (same effect: ``dest`` keeps its identity and takes ``src``'s values, shape
    # and memory).
    if dest is not src:
        dest.data = src.detach()


class ParametrizationList(ModuleList):
    """A sequential list of the parametrizations of one tensor of a module; it holds the
    unparametrized tensor as ``original`` (or ``original0``, ``original1``, ...). Created by
    :func:`register_parametrization`, not by hand.

    Args:
        modules (sequence): the parametrizations (at least one).
        original (Parameter or Tensor): the tensor being parametrized.
        unsafe (bool): skip the dtype/shape consistency checks. Default: ``False``

    Example::

        >>> m = nn.Linear(3, 3)
        >>> P.register_parametrization(m, 'weight', Symmetric())
        >>> type(m.parametrizations.weight).__name__
        'ParametrizationList'
    """

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError('ParametrizationList requires one or more modules.')
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape = original.shape
        original_dtype = original.dtype
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, 'right_inverse'):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, Tensor) and not isinstance(new, collections.abc.Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError('When `right_inverse` outputs one tensor, it may not change '
                                 f'the dtype.\noriginal.dtype: {original.dtype}\n'
                                 f'right_inverse(original).dtype: {new.dtype}')
            if original.device != new.device:
                raise ValueError('When `right_inverse` outputs one tensor, it may not change '
                                 f'the device.\noriginal.device: {original.device}\n'
                                 f'right_inverse(original).device: {new.device}')
            with no_grad():
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, 'original', original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                     f"tensors (list, tuple...). Got element {i} of the "
                                     f"sequence with type {type(originali).__name__}.")
                if isinstance(original, Parameter):
                    originali = Parameter(originali, original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f'original{i}', originali)
        if not self.unsafe:
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError(f'A parametrization must return a tensor. Got '
                                 f'{type(Z).__name__}.')
            if Z.dtype != original_dtype:
                raise ValueError('Registering a parametrization may not change the dtype of '
                                 'the tensor, unless `unsafe` flag is enabled.\n'
                                 f'unparametrized dtype: {original_dtype}\n'
                                 f'parametrized dtype: {Z.dtype}')
            if Z.shape != original_shape:
                raise ValueError('Registering a parametrization may not change the shape of '
                                 'the tensor, unless `unsafe` flag is enabled.\n'
                                 f'unparametrized shape: {original_shape}\n'
                                 f'parametrized shape: {Z.shape}')

    def right_inverse(self, value):
        """Set the original tensor(s) so that the parametrized tensor equals ``value``
        (running each parametrization's ``right_inverse``, last to first).

        Args:
            value (Tensor): the value the parametrized tensor should take.

        Example::

            >>> m.weight = ember.eye(3)   # calls parametrizations.weight.right_inverse
        """
        with no_grad():
            for module in reversed(self):
                if hasattr(module, 'right_inverse'):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f'parametrization {type(module).__name__} does not '
                                       'implement right_inverse.')
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f'`right_inverse` should return a tensor. Got '
                                     f'{type(value).__name__}')
                if value.dtype != self.original.dtype:
                    raise ValueError(f'The tensor returned by `right_inverse` has dtype '
                                     f'{value.dtype} while `original` has dtype '
                                     f'{self.original.dtype}')
                _maybe_set(self.original, value)
            else:
                if not isinstance(value, collections.abc.Sequence):
                    raise ValueError("'right_inverse' must return a sequence of tensors. Got "
                                     f"{type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError("'right_inverse' must return a sequence of tensors of "
                                     f"length {self.ntensors}. Got a sequence of length "
                                     f"{len(value)}.")
                for i, tensor in enumerate(value):
                    original_i = getattr(self, f'original{i}')
                    if not isinstance(tensor, Tensor):
                        raise ValueError("'right_inverse' must return a sequence of tensors or "
                                         "reference-type opaques. Got element "
                                         f"{i} of type {type(tensor).__name__}.")
                    if original_i.dtype != tensor.dtype:
                        raise ValueError(f'Tensor {i} returned by `right_inverse` has dtype '
                                         f'{tensor.dtype} while `original{i}` has dtype '
                                         f'{original_i.dtype}')
                    _maybe_set(original_i, tensor)

    def forward(self):
        """The parametrized tensor: the parametrizations applied in order to the
        original(s)."""
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f'original{i}') for i in range(self.ntensors)))
        i = 1
        mods = self._modules
        while str(i) in mods:
            x = mods[str(i)](x)
            i += 1
        return x


def _inject_new_class(module):
    cls = module.__class__

    def default_deepcopy(self, memo):
        obj = memo.get(id(self), None)
        if obj is not None:
            return obj
        replica = self.__new__(self.__class__)
        memo[id(self)] = replica
        replica.__dict__ = deepcopy(self.__dict__, memo)
        for slot in copyreg._slotnames(self.__class__):
            if hasattr(self, slot):
                setattr(replica, slot, deepcopy(getattr(self, slot), memo))
        return replica

    def getstate(self):
        raise RuntimeError(
            'Serialization of parametrized modules is only supported through state_dict(). '
            'See:\nhttps://pytorch.org/tutorials/beginner/saving_loading_models.html'
            '#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training')

    dct = {'__getstate__': getstate}
    if not hasattr(cls, '__deepcopy__'):
        dct['__deepcopy__'] = default_deepcopy
    module.__class__ = type(f'Parametrized{cls.__name__}', (cls,), dct)


def _inject_property(module, tensor_name):
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(module), tensor_name)
            tensor = _cache.get(key)
            if tensor is None:
                tensor = parametrization()
                _cache[key] = tensor
            return tensor
        return parametrization()

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Register a parametrization of the tensor ``tensor_name`` of ``module``: reading
    ``module.<tensor_name>`` then returns ``parametrization(original)``.

    The original tensor moves to ``module.parametrizations[tensor_name].original`` (the
    parameter object itself, so an optimizer holding it keeps working); the module's class
    becomes ``Parametrized<Name>``. When ``parametrization`` has a ``right_inverse``, the
    original is first set to ``right_inverse(tensor)`` (which may return several tensors:
    ``original0``, ``original1``, ...), and assigning ``module.<tensor_name> = value`` calls
    it. Registering on an already parametrized tensor chains the new parametrization after
    the existing ones.

    Args:
        module (nn.Module): the module.
        tensor_name (str): the name of a parameter or buffer (or of an already
            parametrized tensor).
        parametrization (nn.Module): the parametrization.
        unsafe (bool): allow a parametrization that changes dtype or shape (skips the
            consistency checks). Default: ``False``

    Returns:
        the module.

    Raises:
        ValueError: if the module has no tensor ``tensor_name``, or the parametrization
            breaks the consistency checks.

    Example::

        >>> class Symmetric(nn.Module):
        ...     def forward(self, X):
        ...         return X.triu() + X.triu(1).mT
        >>> m = nn.Linear(5, 5)
        >>> P.register_parametrization(m, 'weight', Symmetric())
        >>> print(ember.allclose(m.weight, m.weight.T))
        True
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            Y = getattr(module, tensor_name)
            X = parametrization(Y)
            if not isinstance(X, Tensor):
                raise ValueError(f'A parametrization must return a tensor. Got '
                                 f'{type(X).__name__}.')
            if X.dtype != Y.dtype:
                raise ValueError('Registering a parametrization may not change the dtype of '
                                 'the tensor, unless the `unsafe` flag is enabled.\n'
                                 f'module.{tensor_name}.dtype: {Y.dtype}\n'
                                 f'parametrization(module.{tensor_name}).dtype: {X.dtype}')
            if X.shape != Y.shape:
                raise ValueError('Registering a parametrization may not change the shape of '
                                 'the tensor, unless the `unsafe` flag is enabled.\n'
                                 f'module.{tensor_name}.shape: {Y.shape}\n'
                                 f'parametrization(module.{tensor_name}).shape: {X.shape}')
            if hasattr(parametrization, 'right_inverse'):
                try:
                    Z = parametrization.right_inverse(X)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(Z, Tensor):
                        raise ValueError('parametrization.right_inverse must return a tensor. '
                                         f'Got: {type(Z).__name__}')
                    if Z.dtype != Y.dtype:
                        raise ValueError(
                            'The tensor returned by parametrization.right_inverse must have '
                            f'the same dtype as module.{tensor_name}, unless the `unsafe` flag '
                            f'is enabled.\nmodule.{tensor_name}.dtype: {Y.dtype}\n'
                            f'returned dtype: {Z.dtype}')
                    if Z.shape != Y.shape:
                        raise ValueError(
                            'The tensor returned by parametrization.right_inverse must have '
                            f'the same shape as module.{tensor_name}, unless the `unsafe` flag '
                            f'is enabled.\nmodule.{tensor_name}.shape: {Y.shape}\n'
                            f'returned shape: {Z.shape}')
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has a parametrization (on ``tensor_name``, when given).

    Args:
        module (nn.Module): the module.
        tensor_name (str, optional): a tensor's name. Default: ``None`` (any).

    Returns:
        bool

    Example::

        >>> P.is_parametrized(nn.Linear(2, 2))
        False
    """
    parametrizations = getattr(module, 'parametrizations', None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Remove the parametrizations of ``module.<tensor_name>``.

    With ``leave_parametrized=True`` the tensor keeps its current parametrized value (the
    original parameter object is reused, holding that value); otherwise it goes back to the
    unparametrized original. When the last parametrization goes, the module gets its
    original class back.

    Args:
        module (nn.Module): the module.
        tensor_name (str): the parametrized tensor's name.
        leave_parametrized (bool): keep the parametrized value. Default: ``True``

    Returns:
        the module.

    Raises:
        ValueError: if ``module.<tensor_name>`` is not parametrized, or is parametrized by
            several tensors and ``leave_parametrized=False``.

    Example::

        >>> P.remove_parametrizations(m, 'weight')
        >>> type(m).__name__
        'Linear'
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f'Module {module} does not have a parametrization on {tensor_name}')
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
                _maybe_set(original, t)
    elif leave_parametrized:
        t = getattr(module, tensor_name)
        original = Parameter(t) if t.requires_grad else t
    else:
        raise ValueError('Cannot leave unparametrized (`leave_parametrized=False`) a tensor '
                         'that is parametrized in terms of a sequence of tensors.')
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, 'parametrizations')
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The class of ``module`` before it was parametrized (its own class otherwise).

    Args:
        module (nn.Module): the module.

    Returns:
        type

    Example::

        >>> P.type_before_parametrizations(m)
        <class 'ember.nn.modules.linear.Linear'>
    """
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Move the parametrizations (and their original tensors) of ``from_module`` onto
    ``to_module``: of ``tensor_name`` only, or of all parametrized tensors. A missing
    tensor is first created on ``to_module`` as a parameter.

    Args:
        from_module (nn.Module): the parametrized module.
        to_module (nn.Module): the module that receives them.
        tensor_name (str, optional): the tensor to transfer. Default: all.

    Returns:
        the receiving module.

    Example::

        >>> P.transfer_parametrizations_and_params(m, nn.Linear(5, 5))
    """
    if is_parametrized(from_module):
        names = from_module.parametrizations if tensor_name is None else [tensor_name]
        for pname in names:
            if not hasattr(to_module, pname):
                setattr(to_module, pname, Parameter(getattr(from_module, pname)))
            for fn in from_module.parametrizations[pname]:
                register_parametrization(to_module, pname, fn)
            src = from_module.parametrizations[pname]
            dst = to_module.parametrizations[pname]
            if hasattr(src, 'original'):
                dst.original = src.original
            else:
                i = 0
                while hasattr(src, f'original{i}'):
                    setattr(dst, f'original{i}', getattr(src, f'original{i}'))
                    i += 1
    return to_module
