"""``ember.distributed.fsdp.wrap``: auto-wrap policies of the FSDP1 wrapper: which submodules
``FullyShardedDataParallel(model, auto_wrap_policy=...)`` wraps in their own FSDP instance
(each then gathers and frees its parameters on its own), and ``enable_wrap``/``wrap`` for
wrapping by hand.

A callable policy is called as ``policy(module=m, recurse=..., nonwrapped_numel=n)``: with
``recurse=True`` it says whether to look inside ``m``'s children; with ``recurse=False``
whether to wrap ``m`` itself, ``n`` being the number of ``m``'s parameter elements not
already wrapped in a child. Children are wrapped before their parents; the root is wrapped
by the constructor itself."""
import contextlib

__all__ = ['always_wrap_policy', 'lambda_auto_wrap_policy', 'transformer_auto_wrap_policy',
           'size_based_auto_wrap_policy', 'enable_wrap', 'wrap', 'CustomPolicy',
           'ModuleWrapPolicy']


def always_wrap_policy(module, recurse, nonwrapped_numel, *args, **kwargs):
    """Wrap every submodule.

    Example::

        >>> FSDP(model, auto_wrap_policy=always_wrap_policy)
    """
    return True


def lambda_auto_wrap_policy(module, recurse, nonwrapped_numel, lambda_fn):
    """Wrap the submodules for which ``lambda_fn(module)`` is true (bind ``lambda_fn`` with
    ``functools.partial``).

    Example::

        >>> policy = functools.partial(lambda_auto_wrap_policy,
        ...                            lambda_fn=lambda m: isinstance(m, nn.Linear))
    """
    if recurse:
        return True
    return bool(lambda_fn(module))


def transformer_auto_wrap_policy(module, recurse, nonwrapped_numel, transformer_layer_cls):
    """Wrap the submodules that are instances of ``transformer_layer_cls`` (a set of classes).

    Example::

        >>> policy = functools.partial(transformer_auto_wrap_policy,
        ...                            transformer_layer_cls={Block})
    """
    if recurse:
        return True
    return isinstance(module, tuple(transformer_layer_cls))


def _force_leaf():
    from ...nn.modules.activation import MultiheadAttention
    return {MultiheadAttention}


def _exclude():
    from ...nn.modules.container import ModuleDict, ModuleList
    return {ModuleList, ModuleDict}


def size_based_auto_wrap_policy(module, recurse, nonwrapped_numel, min_num_params=int(1e8),
                                force_leaf_modules=None, exclude_wrap_modules=None):
    """Wrap a submodule once it holds at least ``min_num_params`` parameter elements not
    wrapped in its children; never look inside ``force_leaf_modules`` (default
    ``{MultiheadAttention}``) nor wrap ``exclude_wrap_modules`` (default
    ``{ModuleList, ModuleDict}``).

    Example::

        >>> policy = functools.partial(size_based_auto_wrap_policy, min_num_params=1000)
        >>> FSDP(model, auto_wrap_policy=policy)
    """
    force = _force_leaf() if force_leaf_modules is None else force_leaf_modules
    excl = _exclude() if exclude_wrap_modules is None else exclude_wrap_modules
    if recurse:
        return not isinstance(module, tuple(force))
    return nonwrapped_numel >= min_num_params and not isinstance(module, tuple(excl))


class _Policy:
    def _targets(self, root):
        """``{submodule: extra constructor kwargs}`` of the submodules to wrap."""
        raise NotImplementedError


class ModuleWrapPolicy(_Policy):
    """Wrap every submodule whose class is one of ``module_classes``.

    Args:
        module_classes (iterable of classes): the classes to wrap.

    Example::

        >>> FSDP(model, auto_wrap_policy=ModuleWrapPolicy({nn.TransformerEncoderLayer}))
    """

    def __init__(self, module_classes):
        self._module_classes = tuple(set(module_classes))

    def _targets(self, root):
        return {m: {} for m in root.modules() if m is not root and
                isinstance(m, self._module_classes)}

    def __call__(self, module, recurse, *args, **kwargs):
        return True if recurse else isinstance(module, self._module_classes)

    def __repr__(self):
        return f"{type(self).__name__}({set(self._module_classes)})"


class CustomPolicy(_Policy):
    """Wrap the submodules for which ``lambda_fn(module)`` is true; a dict result gives
    that instance's own constructor arguments.

    Args:
        lambda_fn (callable): ``module -> bool or dict``.

    Example::

        >>> CustomPolicy(lambda m: {'sharding_strategy': ShardingStrategy.NO_SHARD}
        ...              if isinstance(m, nn.Embedding) else isinstance(m, Block))
    """

    def __init__(self, lambda_fn):
        self._lambda_fn = lambda_fn

    def _targets(self, root):
        out = {}
        for m in root.modules():
            if m is root:
                continue
            r = self._lambda_fn(m)
            if r:
                out[m] = dict(r) if isinstance(r, dict) else {}
        return out


def _numel(module, ignored):
    from .fully_sharded_data_parallel import FullyShardedDataParallel as F
    skip = set()
    for m in module.modules():
        if isinstance(m, F):
            skip.update(id(p) for p in m.parameters())
    return sum(p.numel() for p in module.parameters() if id(p) not in skip and
               id(p) not in ignored)


def _recursive_wrap(module, policy, make, ignored_modules, ignored_params, only_children):
    """Wraps ``module``'s children (and then ``module``, unless ``only_children``) as the
    callable ``policy`` says; returns ``(module or its wrapper, wrapped numel)``."""
    n = _numel(module, ignored_params)
    if not policy(module=module, recurse=True, nonwrapped_numel=n):
        return module, 0
    total = 0
    for name, child in list(module.named_children()):
        if child in ignored_modules:
            continue
        new, k = _recursive_wrap(child, policy, make, ignored_modules, ignored_params, False)
        if new is not child:
            setattr(module, name, new)
        total += k
    if not only_children and policy(module=module, recurse=False, nonwrapped_numel=n - total):
        return make(module, {}), n
    return module, total


def _auto_wrap(root, policy, make, ignored_modules, ignored_params):
    """Wraps ``root``'s submodules per ``policy`` (children first), by ``make(module,
    kwargs)``."""
    from .fully_sharded_data_parallel import FullyShardedDataParallel as F
    if isinstance(policy, _Policy):
        targets = policy._targets(root)
        ign = set(id(m) for m in ignored_modules)

        def post(parent):
            for name, child in list(parent.named_children()):
                if id(child) in ign or isinstance(child, F):
                    continue
                post(child)
                if child in targets:
                    setattr(parent, name, make(child, targets[child]))
        post(root)
    else:
        _recursive_wrap(root, policy, make, ignored_modules, ignored_params, True)


_WRAP = {'on': False, 'cls': None, 'kwargs': {}}


@contextlib.contextmanager
def enable_wrap(*, wrapper_cls, **wrapper_kwargs):
    """Within this context, :func:`wrap` wraps modules in ``wrapper_cls(module,
    **wrapper_kwargs)``.

    Example::

        >>> with enable_wrap(wrapper_cls=FSDP):
        ...     layer = wrap(nn.Linear(4, 4))
    """
    old = dict(_WRAP)
    _WRAP.update(on=True, cls=wrapper_cls, kwargs=dict(wrapper_kwargs))
    try:
        yield
    finally:
        _WRAP.clear()
        _WRAP.update(old)


def wrap(module, **wrap_overrides):
    """Wrap ``module`` in the wrapper class of the enclosing :func:`enable_wrap` (its
    arguments, updated by ``wrap_overrides``); outside such a context, return ``module``.

    Example::

        >>> with enable_wrap(wrapper_cls=FSDP):
        ...     layer = wrap(nn.Linear(4, 4))
    """
    if not _WRAP['on']:
        return module
    kw = dict(_WRAP['kwargs'])
    kw.update(wrap_overrides)
    return _WRAP['cls'](module, **kw)

