"""``torch.distributed.constants``: the default timeouts of process groups.

Example::

    >>> from ember.distributed.constants import default_pg_timeout
    >>> default_pg_timeout
    datetime.timedelta(seconds=1800)
"""
from datetime import timedelta

from . import default_pg_timeout

__all__ = ['default_pg_timeout', 'default_pg_nccl_timeout']

# the default timeout of every backend's collectives (30 minutes, as torch)
_DEFAULT_PG_TIMEOUT = default_pg_timeout
# NCCL's own default: None (use the general one), as in torch's CPU builds
default_pg_nccl_timeout = None
