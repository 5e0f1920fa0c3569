"""``ember.distributed.launcher``: the programmatic launcher behind
``python -m ember.distributed.run`` (``LaunchConfig``, ``elastic_launch``, ``launch_agent``)."""
from .api import ChildFailedError, LaunchConfig, elastic_launch, launch_agent

__all__ = ['LaunchConfig', 'elastic_launch', 'launch_agent', 'ChildFailedError']
