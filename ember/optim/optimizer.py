"""``Optimizer``: the base class of all optimizers (parameter groups, per-parameter
state, ``state_dict`` in PyTorch's format, step and state-dict hooks)."""
import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

from .._grad_state import _Mode
from .._tensor import Tensor
from ..autograd.graph import RemovableHandle

__all__ = ['Optimizer', 'required', 'register_optimizer_step_pre_hook',
           'register_optimizer_step_post_hook']


class _RequiredParameter:
    """Singleton marking a hyper-parameter that has no default."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()


def register_optimizer_step_pre_hook(hook):
    """Register a pre-hook common to all optimizers: ``hook(optimizer, args, kwargs) -> None
    or (new_args, new_kwargs)`` runs before every ``step``.

    Args:
        hook (Callable): the hook.

    Returns:
        :class:`ember.utils.hooks.RemovableHandle`: ``handle.remove()`` unregisters it.

    Example::

        >>> h = ember.optim.optimizer.register_optimizer_step_pre_hook(lambda opt, a, k: None)
        >>> h.remove()
    """
    h = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[h.id] = hook
    return h


def register_optimizer_step_post_hook(hook):
    """Register a post-hook common to all optimizers: ``hook(optimizer, args, kwargs) -> None``
    runs after every ``step``.

    Args:
        hook (Callable): the hook.

    Returns:
        :class:`ember.utils.hooks.RemovableHandle`

    Example::

        >>> h = ember.optim.optimizer.register_optimizer_step_post_hook(lambda opt, a, k: None)
        >>> h.remove()
    """
    h = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[h.id] = hook
    return h


def _with_step_hooks(step):
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        # A step runs in no-grad mode unless the optimizer is differentiable (see the
        # NOTE in Optimizer's docstring); the closure re-enables grad itself.
        prev = _Mode.grad
        if prev and not self.defaults.get('differentiable', False):
            _Mode.grad = False
        try:
            if not (_global_optimizer_pre_hooks or self._optimizer_step_pre_hooks
                    or _global_optimizer_post_hooks or self._optimizer_step_post_hooks):
                return step(self, *args, **kwargs)
            for hook in chain(_global_optimizer_pre_hooks.values(),
                              self._optimizer_step_pre_hooks.values()):
                r = hook(self, args, kwargs)
                if r is not None:
                    if isinstance(r, tuple) and len(r) == 2:
                        args, kwargs = r
                    else:
                        raise RuntimeError(f"{hook} must return None or a tuple of (new_args, "
                                           f"new_kwargs), but got {r}.")
            out = step(self, *args, **kwargs)
            for hook in chain(self._optimizer_step_post_hooks.values(),
                              _global_optimizer_post_hooks.values()):
                hook(self, args, kwargs)
            return out
        finally:
            _Mode.grad = prev
    wrapper._hooked = True
    return wrapper


def _typename(p):
    if isinstance(p, Tensor):
        return p.type()
    return type(p).__name__


class Optimizer:
    """Base class of optimizers.

    Args:
        params (iterable): tensors to optimize, or dicts defining parameter groups (each
            with a ``'params'`` key and per-group options), or ``(name, tensor)`` pairs.
        defaults (dict): default values of the optimization options.

    Subclasses implement ``step``.

    NOTE: unlike PyTorch, the ``step`` of every optimizer, a user's subclass included, runs
    in no-grad mode unless ``defaults['differentiable']`` is true (PyTorch does this for its
    own optimizers only, so a subclass whose ``step`` calls ``p.add_(...)`` without
    ``torch.no_grad()`` raises there, as the book example of seed 004 does; it runs here).
    A ``closure`` passed to ``step`` runs with grad enabled, as in PyTorch.

    Example::

        >>> opt = ember.optim.SGD(model.parameters(), lr=0.1)
        >>> opt.zero_grad(); loss.backward(); opt.step()
    """

    def _patch_step_function(self):
        # As torch: the step hooks (and ember's no-grad step) wrap the class's ``step`` when
        # an instance is initialised, not when the class is created, so a subclass that
        # wraps another optimizer without calling ``Optimizer.__init__`` (accelerate's
        # AcceleratedOptimizer) keeps its own plain ``step``.
        cls = type(self)
        step = cls.step
        if not getattr(step, '_hooked', False):
            cls.step = _with_step_hooks(step)

    def __init__(self, params, defaults):
        self._patch_step_function()
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {_typename(params)}")
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{'params': param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self):
        return {'defaults': self.defaults, 'state': self.state, 'param_groups': self.param_groups}

    _group_setstate_defaults = {}   # option -> default, for groups of older pickles

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._patch_step_function()
        for k in ('_optimizer_step_pre_hooks', '_optimizer_step_post_hooks',
                  '_optimizer_state_dict_pre_hooks', '_optimizer_state_dict_post_hooks',
                  '_optimizer_load_state_dict_pre_hooks', '_optimizer_load_state_dict_post_hooks'):
            if k not in self.__dict__:
                self.__dict__[k] = OrderedDict()
        for group in self.__dict__.get('param_groups', ()):   # options newer than a pickle
            for k, v in self._group_setstate_defaults.items():
                group.setdefault(k, v)

    def __repr__(self):
        s = self.__class__.__name__ + ' ('
        for i, group in enumerate(self.param_groups):
            s += '\n'
            s += f'Parameter Group {i}\n'
            for key in sorted(group.keys()):
                if key != 'params':
                    s += f'    {key}: {group[key]}\n'
        s += ')'
        return s

    # ------------------------------------------------------------ groups
    def add_param_group(self, param_group):
        """Add a parameter group (a dict with ``'params'`` and optional options, others
        taken from ``defaults``), e.g. to train layers unfrozen later."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group['params']
        if isinstance(params, Tensor):
            param_group['params'] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group['params'] = list(params)
        extracted, names = [], []
        for p in param_group['params']:
            if isinstance(p, tuple) and len(p) == 2:
                names.append(p[0])
                extracted.append(p[1])
            else:
                extracted.append(p)
        if names:
            if len(names) != len(extracted):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group['params'] = extracted
            param_group['param_names'] = names
        for p in param_group['params']:
            if not isinstance(p, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(p))
            if not self.defaults.get('differentiable', None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group['params']
        if len(params) != len(set(map(id, params))):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        param_set = set()
        for group in self.param_groups:
            param_set.update(map(id, group['params']))
            if ('param_names' in param_group) != ('param_names' in group):
                raise ValueError("all optimizer param groups should be with/without names. "
                                 "cannot add param group " +
                                 ("with names" if 'param_names' in param_group else "without names")
                                 + " to the optimizer")
        if not param_set.isdisjoint(map(id, params)):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ------------------------------------------------------------ grads and step
    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all optimized tensors (to ``None`` by default, else to
        zero in place)."""
        for group in self.param_groups:
            for p in group['params']:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        g = p.grad
                        if g.grad_fn is not None:
                            g.detach_()
                        else:
                            g.requires_grad_(False)
                        g.zero_()

    def step(self, closure=None):
        """Perform one optimization step (subclasses implement it)."""
        raise NotImplementedError

    # ------------------------------------------------------------ hooks
    def _hook(self, d, hook, prepend=False):
        h = RemovableHandle(d)
        d[h.id] = hook
        if prepend:
            d.move_to_end(h.id, last=False)
        return h

    def register_step_pre_hook(self, hook):
        """Register ``hook(optimizer, args, kwargs)`` run before ``step``; it may return
        ``(new_args, new_kwargs)``."""
        return self._hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """Register ``hook(optimizer, args, kwargs)`` run after ``step``."""
        return self._hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        """Register ``hook(optimizer)`` run before ``state_dict``."""
        return self._hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        """Register ``hook(optimizer, state_dict)`` run after ``state_dict``; it may return
        a replacement dict."""
        return self._hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        """Register ``hook(optimizer, state_dict)`` run before ``load_state_dict``; it may
        return the state dict to load instead."""
        return self._hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        """Register ``hook(optimizer)`` run after ``load_state_dict``."""
        return self._hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ------------------------------------------------------------ state dict
    def state_dict(self):
        """The optimizer's state as a dict in PyTorch's format: ``'state'`` maps each
        parameter's index (counted across groups in order) to its state dict;
        ``'param_groups'`` lists the groups' options with ``'params'`` as index lists.

        Example::

            >>> opt.state_dict()['param_groups'][0]['params']
            [0, 1]
        """
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        mappings = {}
        start = 0

        def pack(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != 'params'}
            for i, p in enumerate(group['params'], start):
                if id(p) not in mappings:
                    mappings[id(p)] = i
            packed['params'] = [mappings[id(p)] for p in group['params']]
            start += len(packed['params'])
            return packed
        param_groups = [pack(g) for g in self.param_groups]
        packed_state = {(mappings[id(k)] if isinstance(k, Tensor) else k): v
                        for k, v in self.state.items()}
        sd = {'state': packed_state, 'param_groups': param_groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            r = hook(self, sd)
            if r is not None:
                sd = r
        return sd

    @staticmethod
    def _cast_state(param, value, key=None):
        if isinstance(value, Tensor):
            if key == 'step':
                return value
            if param.is_floating_point():
                return value.to(dtype=param.dtype, device=param.device)
            return value.to(device=param.device)
        if isinstance(value, dict):
            return {k: Optimizer._cast_state(param, v, k) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(Optimizer._cast_state(param, v) for v in value)
        return value

    def load_state_dict(self, state_dict):
        """Restore the state saved by :meth:`state_dict` (tensors are cast to each
        parameter's dtype and device; ``step`` counters are kept as they are)."""
        state_dict = dict(state_dict)
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            r = hook(self, state_dict)
            if r is not None:
                state_dict = r
        groups = self.param_groups
        saved_groups = deepcopy(state_dict['param_groups'])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g['params']) != len(s['params']) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g['params'] for g in saved_groups),
                          chain.from_iterable(g['params'] for g in groups)))
        state = defaultdict(dict)
        for k, v in state_dict['state'].items():
            if k in id_map:
                param = id_map[k]
                state[param] = self._cast_state(param, v)
            else:
                state[k] = v
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved['params'] = group['params']
            if 'param_names' in group and 'param_names' not in saved:
                saved['param_names'] = group['param_names']
            new_groups.append(saved)
        self.__setstate__({'state': state, 'param_groups': new_groups})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)
