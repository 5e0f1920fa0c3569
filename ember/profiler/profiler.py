"""``ember.profiler.profile``: the profiler with activities, schedules and trace
handlers (PyTorch's ``torch.profiler.profile``), over ember's op recorder."""
import enum
import os
import warnings

from ..autograd import profiler as _prof
from ..autograd.profiler import ProfilerActivity

PROFILER_STEP_NAME = "ProfilerStep"

__all__ = ['supported_activities', 'ProfilerAction', 'ProfilerActivity', 'schedule',
           'tensorboard_trace_handler', 'profile', 'ExecutionTraceObserver', 'kineto_available']


class ProfilerAction(enum.Enum):
    """What the profiler does during a step, as a schedule returns it."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def supported_activities():
    """The activities this build can record: ``{ProfilerActivity.CPU}`` (NOTE: unlike a
    CUDA build of PyTorch, never CUDA).

    Example::

        >>> ember.profiler.supported_activities()
        {<ProfilerActivity.CPU: 0>}
    """
    return {ProfilerActivity.CPU}


kineto_available = _prof.kineto_available   # one definition (autograd.profiler)


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A profiler schedule: skip ``skip_first`` steps, then repeat cycles of ``wait``
    idle steps, ``warmup`` steps and ``active`` recorded steps (the last one saves the
    trace: ``on_trace_ready`` runs), ``repeat`` times (0: until the profiler stops).
    With ``skip_first_wait`` non-zero the first cycle starts without its wait.

    Returns:
        a function ``step -> ProfilerAction``.

    Example::

        >>> s = ember.profiler.schedule(wait=1, warmup=1, active=2)
        >>> [s(i).name for i in range(4)]
        ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE']
    """
    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), "
            f"warmup={warmup} (need >= 0), active={active} (need > 0), repeat={repeat} "
            f"(need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)
    return schedule_fn


def _default_schedule_fn(_):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False,
                              use_python_export=False):
    """An ``on_trace_ready`` handler that writes each trace into ``dir_name`` as
    ``<worker_name>.<time_ns>.pt.trace.json`` (``.gz`` with ``use_gzip``), the layout
    TensorBoard's profiler plugin reads. ``worker_name`` defaults to
    ``<hostname>_<pid>``.

    Example::

        >>> with ember.profiler.profile(
        ...         schedule=ember.profiler.schedule(wait=0, warmup=1, active=1),
        ...         on_trace_ready=ember.profiler.tensorboard_trace_handler('./log')) as p:
        ...     for _ in range(2):
        ...         ember.ones(3).sum(); p.step()
    """
    import socket
    import time

    def handler_fn(prof):
        nonlocal worker_name
        if not os.path.isdir(dir_name):
            try:
                os.makedirs(dir_name, exist_ok=True)
            except Exception as e:
                raise RuntimeError("Can't create directory: " + dir_name) from e
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker_name}.{time.time_ns()}.pt.trace.json"
        if use_gzip:
            name += '.gz'
        prof.export_chrome_trace(os.path.join(dir_name, name))
    return handler_fn


class _KinetoProfile:
    """The low-level profiler: ``start()`` / ``stop()`` one recording, then read
    ``events()``, ``key_averages()`` or export the trace."""

    def __init__(self, *, activities=None, record_shapes=False, profile_memory=False,
                 with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False,
                 custom_trace_id_callback=None):
        self.activities = set(activities) if activities else supported_activities()
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.experimental_config = experimental_config
        self.execution_trace_observer = execution_trace_observer
        self.acc_events = acc_events
        self.custom_trace_id_callback = custom_trace_id_callback
        self.profiler = None
        self.mem_tl = None
        self.use_device = 'cuda' if ProfilerActivity.CUDA in self.activities else None
        self.preset_metadata = {}
        self._metadata = {}

    def start(self):
        """Start recording."""
        self.prepare_trace()
        self.start_trace()

    def stop(self):
        """Stop recording."""
        self.stop_trace()

    def prepare_trace(self):
        """Set up the next recording (a fresh one unless ``acc_events``)."""
        if self.profiler is None or not self.acc_events:
            self.profiler = _prof.profile(
                use_device=self.use_device, record_shapes=self.record_shapes,
                with_flops=self.with_flops, profile_memory=self.profile_memory,
                with_stack=self.with_stack, with_modules=self.with_modules,
                acc_events=self.acc_events)
        self.profiler._prepare_trace()

    def start_trace(self):
        """Start recording ops."""
        self.profiler._start_trace()

    def stop_trace(self):
        """Stop recording; the events become readable."""
        if self.profiler is not None:
            self.profiler._stop_trace()
            et = self.execution_trace_observer
            if et is not None and et.is_registered():
                et._write(self.profiler.function_events)

    def _require(self):
        if self.profiler is None or self.profiler.function_events is None:
            raise AssertionError("Profiler must be initialized before exporting chrome trace")
        return self.profiler

    def export_chrome_trace(self, path):
        """Write the recorded events as a Chrome trace JSON file (gzip-compressed when
        ``path`` ends in ``.gz``)."""
        import json
        p = self._require()
        from ..autograd.profiler_util import _chrome_trace
        trace = _chrome_trace(p.function_events)
        trace.update(self._metadata)
        if path.endswith('.gz'):
            import gzip
            with gzip.open(path, 'wt') as f:
                json.dump(trace, f)
        else:
            with open(path, 'w') as f:
                json.dump(trace, f)

    def export_stacks(self, path, metric='self_cpu_time_total'):
        """Write the recorded stacks (``with_stack=True``) as flame-graph lines."""
        return self._require().export_stacks(path, metric)

    def toggle_collection_dynamic(self, enable, activities):
        """Pause (``enable=False``) or resume the recording of ``activities`` while
        profiling (only CPU matters here)."""
        if self.profiler is not None:
            self.profiler.toggle_collection_dynamic(enable, activities)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """The events averaged per op name (and input shapes / stack when asked), as an
        :class:`ember.autograd.profiler_util.EventList` with ``table()``."""
        return self._require().key_averages(group_by_input_shape, group_by_stack_n,
                                            group_by_overload_name)

    def events(self):
        """The recorded events (:class:`FunctionEvent`), in start order."""
        return self._require().function_events

    def add_metadata(self, key, value):
        """Add ``key: value`` (a string) to the exported trace."""
        self._metadata[key] = value

    def add_metadata_json(self, key, value):
        """Add ``key`` with a JSON-encoded ``value`` to the exported trace."""
        import json
        self._metadata[key] = json.loads(value)

    def preset_metadata_json(self, key, value):
        """Metadata set before the trace starts (added to the exported trace)."""
        self.preset_metadata[key] = value
        import json
        self._metadata[key] = json.loads(value)

    def export_memory_timeline(self, path, device=None):
        """NOTE: unlike PyTorch, ember records no allocator timeline: raises."""
        raise NotImplementedError("export_memory_timeline is not supported by ember's profiler")

    def _memory_profile(self):
        raise NotImplementedError("memory profiles are not supported by ember's profiler")

    def get_trace_id(self):
        """The id of the current trace (None: ember makes no trace ids by itself)."""
        return None

    def set_custom_trace_id_callback(self, callback):
        """Use ``callback()`` to make trace ids."""
        self.custom_trace_id_callback = callback


class profile(_KinetoProfile):
    """Profiler context manager (PyTorch's ``torch.profiler.profile``).

    Args:
        activities (iterable): activity groups to record (``ProfilerActivity.CPU``,
            ``ProfilerActivity.CUDA``, ...). NOTE: unlike PyTorch, only CPU ops are
            recorded.
        schedule (callable): ``step -> ProfilerAction`` (see :func:`schedule`); by
            default every step is recorded.
        on_trace_ready (callable): called with the profiler when a trace is ready
            (the schedule's ``RECORD_AND_SAVE`` step ends, or the profiler stops while
            recording).
        record_shapes (bool): record ops' input shapes.
        profile_memory (bool): record the bytes of each op's new output tensors.
        with_stack (bool): record the Python source of each op.
        with_flops (bool): estimate FLOPs of matrix products and convolutions.
        with_modules (bool): accepted (NOTE: unlike PyTorch, no module hierarchy).
        experimental_config, execution_trace_observer, acc_events, use_cuda,
            custom_trace_id_callback, post_processing_timeout_s: as in PyTorch
            (``acc_events`` keeps the events of every cycle).

    Example::

        >>> with ember.profiler.profile(record_shapes=True) as prof:
        ...     with ember.profiler.record_function('model_inference'):
        ...         ember.ones(8, 8).mm(ember.ones(8, 8))
        >>> print(prof.key_averages().table(sort_by='cpu_time_total', row_limit=10))
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False, with_flops=False,
                 with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, use_cuda=None, custom_trace_id_callback=None,
                 post_processing_timeout_s=None):
        acts = set(activities) if activities else supported_activities()
        if use_cuda is not None:
            warnings.warn("`use_cuda` is deprecated, use `activities` argument instead",
                          FutureWarning, stacklevel=2)
            if use_cuda:
                acts.add(ProfilerActivity.CUDA)
            else:
                acts.discard(ProfilerActivity.CUDA)
        if not acts:
            raise AssertionError("No valid profiler activities found")
        super().__init__(activities=acts, record_shapes=record_shapes,
                         profile_memory=profile_memory, with_stack=with_stack,
                         with_flops=with_flops, with_modules=with_modules,
                         experimental_config=experimental_config,
                         execution_trace_observer=execution_trace_observer,
                         acc_events=acc_events, custom_trace_id_callback=custom_trace_id_callback)
        if schedule:
            self.schedule = schedule
            self.record_steps = True
        else:
            self.schedule = _default_schedule_fn
            self.record_steps = False
        self.on_trace_ready = on_trace_ready
        self.post_processing_timeout_s = post_processing_timeout_s
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self.step_rec_fn = None
        A = ProfilerAction
        self.action_map = {
            (A.NONE, A.NONE): [],
            (A.NONE, A.WARMUP): [self.prepare_trace],
            (A.NONE, A.RECORD): [self.prepare_trace, self.start_trace],
            (A.NONE, A.RECORD_AND_SAVE): [self.prepare_trace, self.start_trace],
            (A.WARMUP, A.NONE): [lambda: warnings.warn("Incorrect schedule: WARMUP followed by NONE"),
                                 self.start_trace, self.stop_trace],
            (A.WARMUP, A.WARMUP): [],
            (A.WARMUP, A.RECORD): [self.start_trace],
            (A.WARMUP, A.RECORD_AND_SAVE): [self.start_trace],
            (A.RECORD, A.NONE): [lambda: warnings.warn("Incorrect schedule: RECORD followed by NONE"),
                                 self.stop_trace],
            (A.RECORD, A.WARMUP): [lambda: warnings.warn("Incorrect schedule: RECORD followed by WARMUP"),
                                   self.stop_trace],
            (A.RECORD, A.RECORD): [],
            (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [self.stop_trace, self._trace_ready, self.prepare_trace],
            (A.RECORD_AND_SAVE, A.RECORD): [self.stop_trace, self._trace_ready, self.prepare_trace,
                                            self.start_trace],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [self.stop_trace, self._trace_ready,
                                                     self.prepare_trace, self.start_trace],
            (A.WARMUP, None): [self.start_trace, self.stop_trace],
            (A.RECORD, None): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, None): [self.stop_trace, self._trace_ready],
        }

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def start(self):
        """Start profiling (the schedule's action for step 0)."""
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = _prof.record_function(PROFILER_STEP_NAME + "#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self):
        """Stop profiling (a trace being recorded is finished and handed to
        ``on_trace_ready``)."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self):
        """Signal that the next step starts (the schedule decides what happens)."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if self.current_action == ProfilerAction.DEVICE_STOPPED:
            raise ValueError("ProfilerAction.DEVICE_STOPPED is set internally by the profiler "
                             "and must not be returned by a user-provided schedule")
        self._transit_action(prev, self.current_action)
        _prof.KinetoStepTracker.increment_step('Kineto')
        if self.record_steps:
            self.step_rec_fn = _prof.record_function(PROFILER_STEP_NAME + "#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev_action, current_action):
        for action in self.action_map.get((prev_action, current_action), ()):
            action()

    def _stats(self):
        return None


class ExecutionTraceObserver:
    """Records the ops run while it is started into a JSON execution trace file
    (a list of op nodes with their names and input shapes).

    NOTE: unlike PyTorch, ember's trace holds op names, ids, parents and input shapes
    only (no tensor ids or storage offsets).

    Example::

        >>> et = ember.profiler.ExecutionTraceObserver().register_callback('et.json')
        >>> et.start(); ember.ones(2).sum(); et.stop(); et.unregister_callback()
    """

    def __init__(self):
        self._registered = False
        self._running = False
        self._path = None
        self._prof = None
        self._extra = False

    @staticmethod
    def build_execution_trace_obs_from_env():
        """An observer writing where ``ENABLE_PYTORCH_EXECUTION_TRACE`` asks, else None."""
        if os.environ.get('ENABLE_PYTORCH_EXECUTION_TRACE', '0') in ('1', 'True', 'true'):
            import tempfile
            fp = tempfile.NamedTemporaryFile('w+t', suffix='.et.json', delete=False)
            fp.close()
            return ExecutionTraceObserver().register_callback(fp.name)
        return None

    def register_callback(self, output_file_path):
        """Set the output file; returns the observer."""
        self._path = output_file_path
        self._registered = True
        return self

    def set_extra_resource_collection(self, val):
        """Accepted (ember collects no extra resources)."""
        self._extra = bool(val)

    def get_resources_dir(self, can_create=False):
        """None: ember writes no resource directory."""
        return None

    @staticmethod
    def get_resources_dir_for_et_path(trace_path, create_dir=False):
        """None: ember writes no resource directory."""
        return None

    def is_registered(self):
        """True after ``register_callback``."""
        return self._registered

    def is_running(self):
        """True between ``start`` and ``stop``."""
        return self._running

    def start(self):
        """Start observing ops (the trace is written on ``stop``)."""
        if self._registered and not self._running and _prof._active is None:
            self._prof = _prof.profile(record_shapes=True)
            self._prof.__enter__()
            self._running = True

    def stop(self):
        """Stop observing and write the trace file."""
        if not self._running:
            return
        self._prof.__exit__(None, None, None)
        self._running = False
        self._write(self._prof.function_events)

    def _write(self, events):
        import json
        nodes = [{'id': e.id, 'name': e.name, 'parent': e.cpu_parent.id if e.cpu_parent else 0,
                  'inputs': {'shapes': e.input_shapes or []}, 'tid': e.thread,
                  'start_us': e.time_range.start, 'dur_us': e.time_range.elapsed_us()}
                 for e in events]
        with open(self._path, 'w') as f:
            json.dump({'schema': 'ember-et-1', 'pid': os.getpid(), 'nodes': nodes}, f)

    def unregister_callback(self):
        """Stop and forget the output file."""
        self.stop()
        self._registered = False

    def cleanup(self):
        """Stop and unregister."""
        self.unregister_callback()

    def get_output_file_path(self):
        """The trace file's path (None before ``register_callback``)."""
        return self._path
