"""``ember.distributed.algorithms``: DDP communication hooks (``ddp_comm_hooks``) and the
:class:`Join` context manager for training with uneven inputs (``join``)."""
from .join import Join, Joinable, JoinHook

__all__ = ['Join', 'Joinable', 'JoinHook']
