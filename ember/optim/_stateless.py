"""``swap_in_optimizer_params_and_state``: run an optimizer temporarily on other
parameters and a state dict, restoring its own afterwards."""
import contextlib
from collections import defaultdict

from .._tensor import Tensor

__all__ = ['swap_in_optimizer_params_and_state']

_NAME = 'swap_in_optimizer_params_and_state'


def _check_state(state):
    if not isinstance(state, dict):
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['state'] to be a dict mapping "
                           "packed parameter ids to per-param state dicts, got "
                           f"{type(state).__name__}.")
    if any(isinstance(k, Tensor) for k in state):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style state keyed by packed "
                           "parameter ids.")
    if any(isinstance(k, int) and not isinstance(v, dict) for k, v in state.items()):
        raise RuntimeError(f"{_NAME} requires per-parameter optimizer state entries to be "
                           "dictionaries.")
    return state


def _check_groups(optimizer, groups):
    if not isinstance(groups, list):
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['param_groups'] to be a list of "
                           f"param-group dicts, got {type(groups).__name__}.")
    if len(optimizer.param_groups) != len(groups):
        raise RuntimeError("swapin_optim_state has a different number of parameter groups than "
                           "the live optimizer.")
    return groups


def _check_group(idx, live, saved):
    if not isinstance(saved, dict):
        raise RuntimeError(f"{_NAME} requires each optimizer param group to be a dictionary.")
    ids = saved.get('params')
    if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style param_groups[*]"
                           "['params'] entries keyed by packed parameter ids.")
    if len(live['params']) != len(ids):
        raise RuntimeError(f"swapin_optim_state param group {idx} has a different number of "
                           "params than the live optimizer param group.")
    only_saved = [k for k in saved if k not in live]
    only_live = [k for k in live if k not in saved]
    if only_saved or only_live:
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style param group keys to "
                           "exactly match the live optimizer group keys for group "
                           f"{idx}. Keys only in swap-in: {only_saved}. Keys only in live: "
                           f"{only_live}.")
    return ids


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters, swapin_optim_state):
    """Within the ``with`` block, ``optimizer`` works on ``swapin_parameters`` (a dict of
    name -> tensor, in the order of the optimizer's groups) with the per-parameter state
    and group options of ``swapin_optim_state`` (an ``optimizer.state_dict()``-style dict);
    its own parameters, options and state are restored on exit.

    Args:
        optimizer (Optimizer): an optimizer with initialized state.
        swapin_parameters (dict): the parameters to optimize instead.
        swapin_optim_state (dict): their state, as ``state_dict()`` packs it.

    Example::

        >>> with ember.optim.swap_in_optimizer_params_and_state(opt, params, sd):
        ...     opt.step()
    """
    if not optimizer.state:
        raise RuntimeError(f"{_NAME} requires initialized optimizer state.")
    if not isinstance(swapin_optim_state, dict):
        raise RuntimeError(f"{_NAME} requires a DCP-style optimizer state_dict.")
    state = _check_state(swapin_optim_state.get('state'))
    groups = _check_groups(optimizer, swapin_optim_state.get('param_groups'))
    flat = list(swapin_parameters.values())
    plan, off, seen = [], 0, set()
    for idx, (live, saved) in enumerate(zip(optimizer.param_groups, groups)):
        ids = _check_group(idx, live, saved)
        seen.update(ids)
        if off + len(ids) > len(flat):
            raise RuntimeError(f"{_NAME} requires the explicit parameter state to match "
                               "optimizer.param_groups ordering.")
        plan.append((live, saved, flat[off:off + len(ids)]))
        off += len(ids)
    extra = [k for k in state if k not in seen]
    if extra:
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['state'] to be keyed only by "
                           f"packed parameter ids from param_groups[*]['params']; got extra keys "
                           f"{extra!r}.")
    own_state = optimizer.state
    snapshots = [dict(g) for g in optimizer.param_groups]
    try:
        new_state = defaultdict(dict)
        for live, saved, params in plan:
            live['params'] = params
            for k, v in saved.items():
                if k != 'params':
                    live[k] = v
            for p, pid in zip(params, saved['params']):
                new_state[p] = dict(state.get(pid, {}))
        optimizer.state = new_state
        yield
    finally:
        for g, snap in zip(optimizer.param_groups, snapshots):
            g.clear()
            g.update(snap)
        optimizer.state = own_state


swap_in_optimizer_params_and_state.__module__ = 'ember.optim'
