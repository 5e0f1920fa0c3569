"""``ember.profiler``: PyTorch's profiler API (``torch.profiler``) over ember's op
recorder (``ember.autograd.profiler``): ``profile`` with schedules and trace handlers,
``record_function``, ``ProfilerActivity``.

NOTE: unlike PyTorch, ember records CPU wall time of its ops itself (no Kineto):
CUDA activities are accepted but record nothing of the device.
"""
from ..autograd.profiler import record_function
from ..autograd.profiler_util import DeviceType
from .profiler import (ExecutionTraceObserver, ProfilerAction, ProfilerActivity,
                       _KinetoProfile, kineto_available, profile, schedule,
                       supported_activities, tensorboard_trace_handler)
from . import itt

__all__ = ['profile', 'schedule', 'supported_activities', 'tensorboard_trace_handler',
           'ProfilerAction', 'ProfilerActivity', 'kineto_available', 'DeviceType',
           'record_function', 'ExecutionTraceObserver']
