"""``ember.distributed.checkpoint.default_planner``: the default save and load planners
(what :func:`~ember.distributed.checkpoint.save` and
:func:`~ember.distributed.checkpoint.load` do when given none).

NOTE: unlike PyTorch, these planners are options holders: ember's save and load plan by
themselves (flattening as torch's, replicated pieces written once); their planning methods
are not called.
"""
from .planner import LoadPlanner, SavePlanner

__all__ = ['DefaultSavePlanner', 'DefaultLoadPlanner']


class DefaultSavePlanner(SavePlanner):
    """The default save planner: flatten nested state dicts, write replicated pieces once.

    Args:
        flatten_state_dict, flatten_sharded_tensors, dedup_replicated_tensors,
        dedup_save_to_lowest_rank, enable_plan_caching: accepted.

    Example::

        >>> dcp.save(sd, checkpoint_id='ckpt', planner=DefaultSavePlanner())
    """

    def __init__(self, flatten_state_dict=True, flatten_sharded_tensors=True,
                 dedup_replicated_tensors=None, dedup_save_to_lowest_rank=False,
                 enable_plan_caching=False):
        self.flatten_state_dict = flatten_state_dict
        self.flatten_sharded_tensors = flatten_sharded_tensors
        self.dedup_save_to_lowest_rank = dedup_save_to_lowest_rank
        self.enable_plan_caching = enable_plan_caching

    def set_up_planner(self, state_dict, storage_meta=None, is_coordinator=False):
        """Not called by ember's save."""
        raise NotImplementedError("ember's dcp.save plans by itself")

    create_local_plan = create_global_plan = finish_plan = resolve_data = set_up_planner


class DefaultLoadPlanner(LoadPlanner):
    """The default load planner: every key of the state dict must be in the checkpoint,
    unless ``allow_partial_load`` (then the missing keys are left as they are).

    Args:
        flatten_state_dict, flatten_sharded_tensors: accepted.
        allow_partial_load (bool): skip keys the checkpoint lacks. Default: ``False``.

    Example::

        >>> dcp.load(sd, checkpoint_id='ckpt', planner=DefaultLoadPlanner(allow_partial_load=True))
    """

    def __init__(self, flatten_state_dict=True, flatten_sharded_tensors=True,
                 allow_partial_load=False):
        self.flatten_state_dict = flatten_state_dict
        self.flatten_sharded_tensors = flatten_sharded_tensors
        self.allow_partial_load = allow_partial_load

    def set_up_planner(self, state_dict, metadata=None, is_coordinator=False):
        """Not called by ember's load."""
        raise NotImplementedError("ember's dcp.load plans by itself")

    create_local_plan = create_global_plan = finish_plan = load_bytes = set_up_planner
    resolve_tensor = commit_tensor = set_up_planner
