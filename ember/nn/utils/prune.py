"""Pruning: zero out parts of a module's tensors through a mask.

Pruning ``module.<name>`` moves the parameter to ``<name>_orig``, adds the buffer
``<name>_mask`` and a forward pre-hook that recomputes ``<name> = <name>_orig *
<name>_mask`` before every forward (names as PyTorch's, so pruned state dicts load in
PyTorch). Pruning the same tensor again combines the masks through a
:class:`PruningContainer`; :func:`remove` makes the pruning permanent."""
import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

__all__ = ['BasePruningMethod', 'PruningContainer', 'Identity', 'RandomUnstructured',
           'L1Unstructured', 'RandomStructured', 'LnStructured', 'CustomFromMask',
           'identity', 'random_unstructured', 'l1_unstructured', 'random_structured',
           'ln_structured', 'global_unstructured', 'custom_from_mask', 'remove', 'is_pruned',
           'ABC', 'abstractmethod', 'Iterable']


def _contig():
    from ..._memory_format import contiguous_format
    return contiguous_format


class BasePruningMethod(ABC):
    """Abstract base class of the pruning methods. A subclass defines ``PRUNING_TYPE``
    (``'unstructured'``, ``'structured'`` -- with a ``dim`` attribute -- or ``'global'``)
    and :meth:`compute_mask`; :meth:`apply` prunes a module's tensor with it.

    Example::

        >>> class EveryOther(prune.BasePruningMethod):
        ...     PRUNING_TYPE = 'unstructured'
        ...     def compute_mask(self, t, default_mask):
        ...         mask = default_mask.clone()
        ...         mask.view(-1)[::2] = 0
        ...         return mask
        >>> EveryOther.apply(nn.Linear(3, 2), 'bias')
    """

    def __call__(self, module, inputs):
        """The forward pre-hook: ``module.<name> = <name>_orig * <name>_mask``."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """Return the mask (same shape as ``t``) for ``t``, starting from the mask of the
        previous pruning iterations ``default_mask`` (entries pruned there stay pruned).

        Args:
            t (Tensor): the tensor to prune (or its importance scores).
            default_mask (Tensor): the mask so far.

        Example::

            >>> mask = prune.L1Unstructured(0.5).compute_mask(t, ember.ones_like(t))
        """

    def apply_mask(self, module):
        """Return the pruned tensor: ``<name>_orig * <name>_mask``.

        Args:
            module (nn.Module): the pruned module.

        Example::

            >>> w = method.apply_mask(module)
        """
        if self._tensor_name is None:
            raise AssertionError(f'Module {module} has to be pruned')
        mask = getattr(module, self._tensor_name + '_mask')
        orig = getattr(module, self._tensor_name + '_orig')
        if mask.dtype != orig.dtype:
            mask = mask.to(dtype=orig.dtype)
        return mask * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)``, combining it with an
        earlier pruning of the same tensor in a :class:`PruningContainer`.

        Args:
            module (nn.Module): the module.
            name (str): the parameter's name.
            args: the method's constructor arguments.
            importance_scores (Tensor, optional): scores (same shape as the parameter) that
                decide what is pruned instead of the parameter's values.
            kwargs: the method's constructor keyword arguments.

        Returns:
            the pruning method (or container) registered as the forward pre-hook.

        NOTE: unlike PyTorch, a failed ``apply`` (an invalid amount, mismatched importance
        scores...) leaves the module as it was; PyTorch has by then dropped an earlier
        pruning hook of the same tensor.

        Example::

            >>> prune.L1Unstructured.apply(nn.Linear(3, 2), 'weight', amount=2)
        """
        from ..._ops.creation import ones_like
        hooks = module._forward_pre_hooks
        saved_hooks = list(hooks.items())
        saved_mask = module._buffers.get(name + '_mask')
        old = None
        old_len = None
        moved = False
        try:
            found = 0
            stale = []
            for k, hook in hooks.items():
                if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                    old = hook
                    stale.append(k)
                    found += 1
            if found > 1:
                raise AssertionError(f'Avoid adding multiple pruning hooks to the same tensor '
                                     f'{name} of module {module}. Use a PruningContainer.')
            for k in stale:
                del hooks[k]
            method = cls(*args, **kwargs)
            method._tensor_name = name
            if old is not None:
                if isinstance(old, PruningContainer):
                    old_len = len(old._pruning_methods)
                    old.add_pruning_method(method)
                    method = old
                else:
                    container = PruningContainer(old)
                    container.add_pruning_method(method)
                    method = container
            orig = getattr(module, name)
            if importance_scores is not None:
                if importance_scores.shape != orig.shape:
                    raise AssertionError(f'importance_scores should have the same shape as '
                                         f'parameter {name} of {module}, got '
                                         f'{importance_scores.shape} vs {orig.shape}')
            else:
                importance_scores = orig
            if not isinstance(method, PruningContainer):
                module.register_parameter(name + '_orig', orig)
                del module._parameters[name]
                moved = True
                default_mask = ones_like(orig)
            else:
                default_mask = getattr(module, name + '_mask').detach().clone(
                    memory_format=_contig())
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + '_mask', mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            # NOTE: unlike PyTorch (which drops an earlier pruning hook of the tensor when
            # e.g. the new amount is invalid), a failed apply leaves the module as it was
            if moved:
                orig = module._parameters.pop(name + '_orig')
                module.__dict__.pop(name, None)
                module.register_parameter(name, orig)
            if old_len is not None:
                old._pruning_methods = old._pruning_methods[:old_len]
            if saved_mask is None:
                module._buffers.pop(name + '_mask', None)
            else:
                module._buffers[name + '_mask'] = saved_mask
            hooks.clear()
            hooks.update(saved_hooks)
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """Return the pruned version of ``t`` (``t * mask``), without touching a module.

        Args:
            t (Tensor): the tensor to prune.
            default_mask (Tensor, optional): the mask of earlier iterations (default ones).
            importance_scores (Tensor, optional): scores deciding what is pruned (default
                ``t``).

        Example::

            >>> prune.L1Unstructured(amount=1).prune(ember.tensor([1., -3., 2.]))
            tensor([0., -3., 2.])
        """
        from ..._ops.creation import ones_like
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError('importance_scores should have the same shape as tensor '
                                     f't, got {importance_scores.shape} vs {t.shape}')
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruning permanent: ``<name>`` becomes a parameter again (the
        ``<name>_orig`` object, holding the pruned values); ``<name>_orig`` and
        ``<name>_mask`` go. The forward pre-hook is removed by :func:`remove`.

        Args:
            module (nn.Module): the pruned module.

        Example::

            >>> method.remove(module)
        """
        if self._tensor_name is None:
            raise AssertionError(f'Module {module} has to be pruned before pruning can be '
                                 'removed')
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + '_orig']
        orig.data = weight.data
        del module._parameters[self._tensor_name + '_orig']
        del module._buffers[self._tensor_name + '_mask']
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """A sequence of pruning methods applied one after the other to the same tensor
    (iterative pruning): each new method prunes only what is still unpruned.

    Args:
        args: the pruning methods (all on the same tensor name).

    Example::

        >>> c = prune.PruningContainer(m1); c.add_pruning_method(m2); len(c)
        2
    """

    def __init__(self, *args):
        self._pruning_methods = ()
        if not isinstance(args, Iterable):
            self._tensor_name = args._tensor_name
            self.add_pruning_method(args)
        elif len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method):
        """Append a pruning method (it must act on the same tensor name).

        Args:
            method (BasePruningMethod): the method.

        Example::

            >>> c.add_pruning_method(m)
        """
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f'{type(method)} is not a BasePruningMethod subclass')
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError('Can only add pruning methods acting on the parameter named '
                             f"'{self._tensor_name}' to PruningContainer {self}. Found "
                             f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """The mask of the last method, computed on the part of ``t`` still unpruned by
        ``default_mask`` (entries for ``'unstructured'``, channels along ``dim`` for
        ``'structured'``, everything for ``'global'``) and combined with it.

        Args:
            t (Tensor): the tensor (or importance scores).
            default_mask (Tensor): the mask of the earlier methods.

        Example::

            >>> mask = container.compute_mask(t, mask_so_far)
        """
        method = self._pruning_methods[-1]
        mask = default_mask
        new_mask = mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == 'unstructured':
            slc = mask == 1
        elif kind == 'structured':
            if not hasattr(method, 'dim'):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to '
                                     'have the attribute `dim` defined.')
            nd = t.dim()
            dim = method.dim
            if dim < 0:
                dim = nd + dim
            if dim < 0:
                raise IndexError(f'Index is out of bounds for tensor with dimensions {nd}')
            keep = mask.sum(dim=[d for d in range(nd) if d != dim]) != 0
            slc = [slice(None)] * nd
            slc[dim] = keep
            slc = tuple(slc)
        elif kind == 'global':
            slc = tuple([slice(None)] * len(t.shape))
        else:
            raise ValueError(f'Unrecognized PRUNING_TYPE {kind}')
        partial = method.compute_mask(t[slc], default_mask=mask[slc])
        new_mask[slc] = partial.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """A pruning method that prunes nothing (a mask of ones): a way to get the pruning
    reparametrization (``<name>_orig``, ``<name>_mask``) without pruning.

    Example::

        >>> prune.Identity.apply(nn.Linear(2, 2), 'weight')
    """
    PRUNING_TYPE = 'unstructured'

    def compute_mask(self, t, default_mask):
        """Return ``default_mask`` unchanged.

        Args:
            t (Tensor): the tensor (or its importance scores).
            default_mask (Tensor): the mask of earlier pruning.

        Example::

            >>> prune.Identity().compute_mask(t, ember.ones_like(t))
        """
        return default_mask

    @classmethod
    def apply(cls, module, name):
        """Apply the identity pruning to ``module.<name>``.

        Args:
            module (nn.Module): the module.
            name (str): the parameter's name.

        Example::

            >>> prune.Identity.apply(nn.Linear(2, 2), 'weight')
        """
        return super().apply(module, name)


def _validate_amount_init(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError(f'Invalid type for amount: {amount}. Must be int or float.')
    if ((isinstance(amount, numbers.Integral) and amount < 0)
            or (not isinstance(amount, numbers.Integral)
                and (float(amount) > 1.0 or float(amount) < 0.0))):
        raise ValueError(f'amount={amount} should either be a float in the range [0, 1] or a '
                         'non-negative integer')


def _validate_amount(amount, size):
    if isinstance(amount, numbers.Integral) and amount > size:
        raise ValueError(f'amount={amount} should be smaller than the number of parameters '
                         f'to prune={size}')


def _validate_structured(t):
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError('Structured pruning can only be applied to multidimensional tensors. '
                         f'Found tensor of shape {shape} with {len(shape)} dims')


def _nparams_toprune(amount, size):
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * size)


def _validate_dim(t, dim):
    if dim >= t.dim():
        raise IndexError(f'Invalid index {dim} for tensor of size {t.shape}')


def _norm_along(t, n, dim):
    dims = list(range(t.dim()))
    if dim < 0:
        dim = dims[dim]
    dims.remove(dim)
    return t.norm(p=n, dim=dims)


class RandomUnstructured(BasePruningMethod):
    """Prune (currently unpruned) entries of a tensor at random (the ones with the largest
    ``rand_like`` draws, as PyTorch draws them, so a seeded run prunes the same entries).

    Args:
        amount (int or float): how many entries to prune: a number of entries, or a
            fraction in ``[0, 1]``.

    Example::

        >>> prune.RandomUnstructured(amount=0.3).compute_mask(t, ember.ones_like(t))
    """
    PRUNING_TYPE = 'unstructured'

    def __init__(self, amount):
        _validate_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        """A copy of ``default_mask`` with ``amount`` entries zeroed: those with the largest
        ``rand_like(t)`` draws.

        Args:
            t (Tensor): the tensor (or its importance scores).
            default_mask (Tensor): the mask of earlier pruning.

        Example::

            >>> prune.RandomUnstructured(2).compute_mask(t, ember.ones_like(t))
        """
        from ..._ops.random_ops import rand_like
        size = t.nelement()
        k = _nparams_toprune(self.amount, size)
        _validate_amount(k, size)
        mask = default_mask.clone(memory_format=_contig())
        if k != 0:
            prob = rand_like(t)
            idx = prob.view(-1).topk(k).indices
            mask.view(-1)[idx] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        """Prune ``module.<name>`` at random.

        Args:
            module (nn.Module): the module.
            name (str): the parameter's name.
            amount (int or float): number or fraction of entries to prune.

        Example::

            >>> prune.RandomUnstructured.apply(nn.Linear(3, 2), 'weight', 0.5)
        """
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prune the (currently unpruned) entries of a tensor with the smallest absolute value.

    Args:
        amount (int or float): number or fraction of entries to prune.

    Example::

        >>> prune.L1Unstructured(amount=1).prune(ember.tensor([1., -3., 2.]))
        tensor([0., -3., 2.])
    """
    PRUNING_TYPE = 'unstructured'

    def __init__(self, amount):
        _validate_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        """A copy of ``default_mask`` with the ``amount`` entries of smallest ``|t|`` zeroed.

        Args:
            t (Tensor): the tensor (or its importance scores).
            default_mask (Tensor): the mask of earlier pruning.

        Example::

            >>> prune.L1Unstructured(2).compute_mask(t, ember.ones_like(t))
        """
        size = t.nelement()
        k = _nparams_toprune(self.amount, size)
        _validate_amount(k, size)
        mask = default_mask.clone(memory_format=_contig())
        if k != 0:
            idx = t.abs().view(-1).topk(k, largest=False).indices
            mask.view(-1)[idx] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        """Prune the smallest-magnitude entries of ``module.<name>``.

        Args:
            module (nn.Module): the module.
            name (str): the parameter's name.
            amount (int or float): number or fraction of entries to prune.
            importance_scores (Tensor, optional): scores used instead of the values.

        Example::

            >>> prune.L1Unstructured.apply(nn.Linear(3, 2), 'weight', amount=2)
        """
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prune whole (currently unpruned) channels along ``dim`` at random.

    Args:
        amount (int or float): number or fraction of channels to prune.
        dim (int): the channel dimension. Default: -1

    Example::

        >>> prune.RandomStructured(amount=1, dim=0).compute_mask(t, ember.ones_like(t))
    """
    PRUNING_TYPE = 'structured'

    def __init__(self, amount, dim=-1):
        _validate_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        """The mask that zeroes randomly chosen channels along ``dim`` (those whose
        ``rand`` draw is at most the ``k``-th smallest), times ``default_mask``.

        Args:
            t (Tensor): the tensor.
            default_mask (Tensor): the mask of earlier pruning.

        Example::

            >>> m = prune.RandomStructured(0.5, dim=0).compute_mask(t, ember.ones_like(t))
        """
        from ..._ops.creation import zeros_like
        from ..._ops.random_ops import rand
        _validate_structured(t)
        _validate_dim(t, self.dim)
        size = t.shape[self.dim]
        k = _nparams_toprune(self.amount, size)
        _validate_amount(k, size)
        if k == 0:
            return default_mask
        prob = rand(size)
        threshold = prob.kthvalue(k).values
        keep = prob > threshold
        mask = zeros_like(t)
        slc = [slice(None)] * len(t.shape)
        slc[self.dim] = keep
        mask[tuple(slc)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        """Prune random channels of ``module.<name>``.

        Args:
            module (nn.Module): the module.
            name (str): the parameter's name.
            amount (int or float): number or fraction of channels to prune.
            dim (int): the channel dimension. Default: -1

        Example::

            >>> prune.RandomStructured.apply(nn.Conv2d(3, 4, 2), 'weight', 0.5, dim=0)
        """
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prune the (currently unpruned) channels along ``dim`` with the smallest L``n``
    norm.

    Args:
        amount (int or float): number or fraction of channels to prune.
        n (int, float, inf, -inf, 'fro', 'nuc'): the order of the norm (as ``Tensor.norm``'s
            ``p``).
        dim (int): the channel dimension. Default: -1

    Example::

        >>> prune.LnStructured(amount=1, n=2, dim=0).compute_mask(t, ember.ones_like(t))
    """
    PRUNING_TYPE = 'structured'

    def __init__(self, amount, n, dim=-1):
        _validate_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        """The mask keeping the channels with the largest norms, times ``default_mask``.

        Args:
            t (Tensor): the tensor (or importance scores).
            default_mask (Tensor): the mask of earlier pruning.

        Example::

            >>> mask = prune.LnStructured(1, 2, dim=0).compute_mask(t, ember.ones_like(t))
        """
        from ..._ops.creation import zeros_like
        _validate_structured(t)
        _validate_dim(t, self.dim)
        size = t.shape[self.dim]
        k = _nparams_toprune(self.amount, size)
        keep = size - k
        _validate_amount(k, size)
        norm = _norm_along(t, self.n, self.dim)
        idx = norm.topk(keep, largest=True).indices
        if k == 0:
            return default_mask
        mask = zeros_like(t)
        slc = [slice(None)] * len(t.shape)
        slc[self.dim] = idx
        mask[tuple(slc)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        """Prune the lowest-norm channels of ``module.<name>``.

        Args:
            module (nn.Module): the module.
            name (str): the parameter's name.
            amount (int or float): number or fraction of channels to prune.
            n: the order of the norm.
            dim (int): the channel dimension.
            importance_scores (Tensor, optional): scores used instead of the values.

        Example::

            >>> prune.LnStructured.apply(nn.Conv2d(3, 4, 2), 'weight', 0.5, n=2, dim=0)
        """
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prune with a precomputed mask (combined with any earlier mask).

    Args:
        mask (Tensor): the mask (1 keeps, 0 prunes), shaped like the tensor.

    Example::

        >>> prune.CustomFromMask(ember.tensor([0., 1.])).prune(ember.tensor([3., 4.]))
        tensor([0., 4.])
    """
    PRUNING_TYPE = 'global'

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        """``default_mask * mask`` (the shapes must match).

        Args:
            t (Tensor): the tensor (or its importance scores).
            default_mask (Tensor): the mask of earlier pruning.

        Example::

            >>> prune.CustomFromMask(m).compute_mask(t, ember.ones_like(t))
        """
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f'default_mask shape {default_mask.shape} must match '
                                 f'self.mask shape {self.mask.shape}')
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        """Prune ``module.<name>`` with ``mask``.

        Args:
            module (nn.Module): the module.
            name (str): the parameter's name.
            mask (Tensor): the mask.

        Example::

            >>> prune.CustomFromMask.apply(nn.Linear(2, 1), 'bias', ember.tensor([0.]))
        """
        return super().apply(module, name, mask=mask)


def identity(module, name):
    """Apply the pruning reparametrization to ``module.<name>`` without pruning anything
    (``<name>_orig``, ``<name>_mask`` of ones, the forward pre-hook).

    Args:
        module (nn.Module): the module.
        name (str): the parameter's name.

    Returns:
        the module.

    Example::

        >>> lin = prune.identity(nn.Linear(4, 2), 'bias')
        >>> lin.bias_mask
        tensor([1., 1.])
    """
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` (currently unpruned) entries of ``module.<name>`` chosen at random.

    Args:
        module (nn.Module): the module.
        name (str): the parameter's name.
        amount (int or float): a number of entries, or a fraction in ``[0, 1]``.

    Returns:
        the module.

    Example::

        >>> lin = prune.random_unstructured(nn.Linear(4, 2), 'weight', amount=0.25)
        >>> int((lin.weight == 0).sum())
        2
    """
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the ``amount`` (currently unpruned) entries of ``module.<name>`` with the
    smallest absolute value (or the smallest ``importance_scores``).

    Args:
        module (nn.Module): the module.
        name (str): the parameter's name.
        amount (int or float): a number of entries, or a fraction in ``[0, 1]``.
        importance_scores (Tensor, optional): scores (shaped like the parameter) used
            instead of its values.

    Returns:
        the module.

    Example::

        >>> conv = prune.l1_unstructured(nn.Conv1d(2, 2, 3), 'weight', amount=4)
        >>> list(conv.state_dict())
        ['bias', 'weight_orig', 'weight_mask']
    """
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` (currently unpruned) channels of ``module.<name>`` along ``dim``,
    chosen at random.

    Args:
        module (nn.Module): the module.
        name (str): the parameter's name.
        amount (int or float): a number of channels, or a fraction in ``[0, 1]``.
        dim (int): the channel dimension.

    Returns:
        the module.

    Example::

        >>> conv = prune.random_structured(nn.Conv2d(4, 6, 3), 'weight', amount=0.5, dim=0)
        >>> int((conv.weight_mask.sum((1, 2, 3)) == 0).sum())
        3
    """
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the ``amount`` (currently unpruned) channels of ``module.<name>`` along ``dim``
    with the smallest L``n`` norm.

    Args:
        module (nn.Module): the module.
        name (str): the parameter's name.
        amount (int or float): a number of channels, or a fraction in ``[0, 1]``.
        n: the order of the norm (``p`` of ``Tensor.norm``).
        dim (int): the channel dimension.
        importance_scores (Tensor, optional): scores used instead of the values.

    Returns:
        the module.

    Example::

        >>> lin = prune.ln_structured(nn.Linear(6, 4), 'weight', amount=2, n=1, dim=0)
        >>> lin.weight_mask.sum(1)
        tensor([6., 0., 6., 0.])   # (seed-dependent) the two rows of smallest L1 norm go
    """
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune the tensors of ``parameters`` together: ``pruning_method`` (an
    ``'unstructured'`` method class) decides on all their (currently unpruned) entries at
    once, as if they were one vector, so each tensor may be pruned by a different fraction.

    Args:
        parameters (Iterable of (module, name) tuples): the tensors to prune.
        pruning_method (type): e.g. ``prune.L1Unstructured``.
        importance_scores (dict, optional): ``{(module, name): scores}`` used instead of
            the values.
        kwargs: the method's arguments (e.g. ``amount``).

    Raises:
        TypeError: if the method is not unstructured, or the arguments have wrong types.

    Example::

        >>> net = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 1))
        >>> prune.global_unstructured([(net[0], 'weight'), (net[1], 'weight')],
        ...                           pruning_method=prune.L1Unstructured, amount=5)
    """
    from ..._ops.creation import ones_like
    from .convert_parameters import parameters_to_vector
    if not isinstance(parameters, Iterable):
        raise TypeError('global_unstructured(): parameters is not an Iterable')
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError('global_unstructured(): importance_scores must be of type dict')
    parameters = list(parameters)
    scores = parameters_to_vector([importance_scores.get((m, n), getattr(m, n))
                                   for m, n in parameters])
    default_mask = parameters_to_vector([getattr(m, n + '_mask', None)
                                         if hasattr(m, n + '_mask')
                                         else ones_like(getattr(m, n))
                                         for m, n in parameters])
    container = PruningContainer()
    container._tensor_name = 'temp'
    method = pruning_method(**kwargs)
    method._tensor_name = 'temp'
    if method.PRUNING_TYPE != 'unstructured':
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f'Found method {pruning_method} of type {method.PRUNING_TYPE}')
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, default_mask)
    pointer = 0
    for m, n in parameters:
        p = getattr(m, n)
        k = p.numel()
        custom_from_mask(m, n, mask=final_mask[pointer:pointer + k].view_as(p))
        pointer += k


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` with the precomputed ``mask``.

    Args:
        module (nn.Module): the module.
        name (str): the parameter's name.
        mask (Tensor): the mask (1 keeps, 0 prunes), shaped like the parameter.

    Returns:
        the module.

    Example::

        >>> lin = prune.custom_from_mask(nn.Linear(3, 4), 'bias',
        ...                              mask=ember.tensor([1, 1, 0, 1]))
        >>> lin.bias_mask
        tensor([1., 1., 0., 1.])
    """
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent: ``<name>`` becomes a parameter
    holding the pruned values; ``<name>_orig``, ``<name>_mask`` and the hook go.

    Args:
        module (nn.Module): the module.
        name (str): the parameter's name.

    Returns:
        the module.

    Raises:
        ValueError: if ``module.<name>`` is not pruned.

    Example::

        >>> lin = prune.l1_unstructured(nn.Linear(3, 3), 'weight', amount=3)
        >>> lin = prune.remove(lin, 'weight')
        >>> [name for name, _ in lin.named_parameters()]
        ['bias', 'weight']
    """
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module):
    """Whether ``module`` or one of its submodules has a pruning hook.

    Args:
        module (nn.Module): the module.

    Returns:
        bool

    Example::

        >>> net = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
        >>> prune.is_pruned(net)
        False
        >>> _ = prune.identity(net[0], 'bias')
        >>> prune.is_pruned(net)
        True
    """
    for _, sub in module.named_modules():
        for hook in sub._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False
