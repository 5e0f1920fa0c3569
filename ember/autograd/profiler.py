"""The autograd profiler: records op calls, ``record_function`` ranges and backward
nodes with their wall time, input shapes and memory.

How it observes: while a profiler records, an interceptor is installed on the op seam
(``ember/_ops/_dispatch.py``'s ``push_interceptor``), so every public op call opens a
range named as PyTorch names the op (``aten::mm``); the backward engine checks one
module-level hook per node (``engine._profile_hook``) and opens the ranges
``autograd::engine::evaluate_function: <Node>`` and ``<Node>`` around it. While nothing
records, neither is installed and ops run at full speed.
"""
import enum
import itertools
import os
import threading
import time

from .profiler_util import (EventList, FunctionEvent, FunctionEventAvg, DeviceType,  # noqa: F401
                            Interval, Kernel, StringTable, MemRecordsAcc, MEMORY_EVENT_NAME,
                            OUT_OF_MEMORY_EVENT_NAME)

__all__ = ['profile', 'record_function', 'emit_nvtx', 'emit_itt', 'EventList', 'FunctionEvent',
           'FunctionEventAvg', 'load_nvprof', 'parse_nvprof_trace', 'kineto_available',
           'KinetoStepTracker', 'ProfilerActivity', 'ProfilerState', 'ProfilerConfig',
           'EnforceUnique', 'MEMORY_EVENT_NAME', 'OUT_OF_MEMORY_EVENT_NAME']


class ProfilerActivity(enum.IntEnum):
    """What a profiler records: ``CPU`` ops (and ``CUDA``, ``XPU``, ``MTIA``, ``HPU``,
    ``PrivateUse1`` device activity, which ember accepts but does not record)."""
    CPU = 0
    XPU = 1
    CUDA = 2
    HPU = 3
    MTIA = 4
    PrivateUse1 = 5

    def __repr__(self):
        return f"<ProfilerActivity.{self.name}: {int(self)}>"

    def __str__(self):
        return f"ProfilerActivity.{self.name}"


class ProfilerState(enum.IntEnum):
    """The profiler's mode (ember records as ``CPU`` whatever is asked)."""
    Disabled = 0
    CPU = 1
    CUDA = 2
    NVTX = 3
    ITT = 4
    PRIVATEUSE1 = 5
    KINETO = 6
    KINETO_GPU_FALLBACK = 7
    KINETO_PRIVATEUSE1_FALLBACK = 8
    KINETO_ONDEMAND = 9


class ProfilerConfig:
    """The options of a recording, kept as attributes of the same names.

    Args:
        state (ProfilerState, optional): the recording mode. Default: ``ProfilerState.CPU``.
        report_input_shapes (bool, optional): record the input shapes of ops. Default: False.
        profile_memory (bool, optional): record memory use. Default: False.
        with_stack (bool, optional): record Python stacks. Default: False.
        with_flops (bool, optional): estimate FLOPs. Default: False.
        with_modules (bool, optional): record the module hierarchy. Default: False.
        experimental_config (optional): accepted for compatibility.
        trace_id (str, optional): an id for the trace.

    Example::

        >>> from ember.autograd.profiler import ProfilerConfig
        >>> ProfilerConfig(report_input_shapes=True).report_input_shapes
        True
    """

    def __init__(self, state=ProfilerState.CPU, report_input_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, trace_id=None):
        self.state = state
        self.report_input_shapes = report_input_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.with_modules = with_modules
        self.experimental_config = experimental_config
        self.trace_id = trace_id


class EnforceUnique:
    """Raises if the same key is seen twice: :meth:`see` records a key (any tuple of
    arguments) and raises ``RuntimeError`` on a repeat.

    Example::

        >>> u = ember.autograd.profiler.EnforceUnique()
        >>> u.see('add', 1)
        >>> u.see('add', 1)
        Traceback (most recent call last):
          ...
        RuntimeError: duplicate key: ('add', 1)
    """

    def __init__(self):
        self.seen = set()

    def see(self, *key):
        """Record ``key``; raises RuntimeError if it was seen before."""
        if key in self.seen:
            raise RuntimeError("duplicate key: " + str(key))
        self.seen.add(key)

# ember op name -> the name of the ATen op PyTorch's profiler shows for the same call
_ATEN_NAMES = {
    'cross_entropy': 'cross_entropy_loss', 'nll_loss': 'nll_loss_nd',
    'truediv': 'div', 'floordiv': 'floor_divide', 'getitem': 'index', 'setitem': 'index_put_',
    'rtruediv': 'reciprocal', 'radd': 'add', 'rmul': 'mul', 'rsub': 'rsub', 'rpow': 'pow',
    'matmul': 'matmul', 'iadd': 'add_', 'isub': 'sub_', 'imul': 'mul_', 'itruediv': 'div_',
    'and': 'bitwise_and', 'or': 'bitwise_or', 'xor': 'bitwise_xor', 'invert': 'bitwise_not',
    'lt': 'lt', 'le': 'le', 'gt': 'gt', 'ge': 'ge', 'eq': 'eq', 'ne': 'ne',
    'binary_cross_entropy_with_logits': 'binary_cross_entropy_with_logits',
}
_names = {}


def _aten_name(name):
    n = _names.get(name)
    if n is None:
        base = name.strip('_') if name.startswith('__') else name
        n = _names[name] = 'aten::' + _ATEN_NAMES.get(base, base)
    return n


class _Frame:
    """A range being recorded (becomes a FunctionEvent when the profiler stops).
    Slots and a children list made only when needed keep the many frames of a long
    recording cheap for the garbage collector."""

    __slots__ = ('name', 'tid', 'parent', 'children', 'user', 'start', 'end', 'shapes', 'mem',
                 'claimed', 'stack', 'flops', 'seq')

    def __init__(self, name, tid, parent, user):
        self.name = name
        self.tid = tid
        self.parent = parent
        self.children = None
        self.user = user
        self.end = None
        self.shapes = None
        self.mem = 0
        self.claimed = None
        self.stack = None
        self.flops = None
        self.seq = -1


_get_ident = threading.get_ident
_now = time.perf_counter_ns


class _ThreadStack(threading.local):
    top = None


class _Recorder:
    """The state of one recording: every thread's top-level frames, the options."""

    def __init__(self, record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False):
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_flops = with_flops
        self.roots = []
        self.tls = _ThreadStack()
        self.t0 = time.perf_counter_ns()
        self.wall0 = time.time_ns()

    # --- ranges
    def open(self, name, user=False):
        tls = self.tls
        parent = tls.top
        f = _Frame(name, _get_ident(), parent, user)
        if parent is None:
            self.roots.append(f)
        elif parent.children is None:
            parent.children = [f]
        else:
            parent.children.append(f)
        tls.top = f
        if self.with_stack:
            f.stack = _py_stack()
        if user and self.record_shapes:
            f.shapes = ()
        f.start = _now()
        return f

    def close(self, f):
        f.end = _now()
        self.tls.top = f.parent

    # --- the op interceptor
    def intercept(self, name, call, args, kwargs):
        n = _names.get(name)
        if n is None:
            n = _aten_name(name)
        if n == 'aten::index' and len(args) > 1:
            n = _index_name(args[1])
        elif name in _linalg_names:
            n = _linalg_raws.get(id(call), n)   # ember.linalg.inv -> aten::linalg_inv
        top = self.tls.top
        if top is not None and top.name == n and top.children is None and not top.user:
            # a binding that forwards to another binding of the same op (F.relu ->
            # Tensor.relu): one range, as PyTorch shows one op
            return call(*args, **kwargs)
        f = self.open(n)
        if self.record_shapes or self.with_flops:
            f.shapes = _shapes(args, kwargs)
        tls = self.tls
        try:
            out = call(*args, **kwargs)
        finally:
            f.end = _now()
            tls.top = f.parent
        if self.with_flops:
            f.flops = _flops(f.name, f.shapes, out)
        if self.profile_memory:
            self._claim(f, args, out)
        if not self.record_shapes:
            f.shapes = None
        return out

    def _claim(self, f, args, out):
        """Attribute to ``f`` the bytes of its outputs that are new tensors not already
        attributed to one of its children."""
        Tensor = _tensor_type()
        outs = out if isinstance(out, (tuple, list)) else (out,)
        kids = []
        for c in f.children or ():
            if c.claimed:
                kids.extend(c.claimed)
                c.claimed = None
        kid_ids = {id(k) for k in kids} if kids else ()
        ins = None
        mine = []
        for t in outs:
            if not isinstance(t, Tensor) or t._base is not None or id(t) in kid_ids:
                continue
            if ins is None:
                ins = {}
                for a in args:
                    if isinstance(a, Tensor):
                        ins[id(a)] = a._st
            if id(t) in ins:
                continue   # an in-place op returns its input
            st = t._st
            if st is not None:
                shared = False
                for ist in ins.values():
                    if ist is st:
                        shared = True   # shares an input's storage (detach, a view)
                        break
                if shared:
                    continue
            mine.append(t)
            f.mem += t._data.nbytes
        p = f.parent
        # hand the claimed tensors up to enclosing op ranges only (kept alive that long)
        if p is not None and not p.user:
            if kids:
                mine.extend(kids)
            f.claimed = mine

    # --- backward nodes (called by the engine while recording)
    def evaluate(self, node, run, args):
        f = self.open('autograd::engine::evaluate_function: ' + node.name(), user=True)
        f.seq = getattr(node, '_seq', -1)
        try:
            return run(*args)
        finally:
            self.close(f)

    def apply(self, node, fn, args):
        f = self.open(node.name(), user=True)
        f.seq = getattr(node, '_seq', -1)
        try:
            return fn(*args)
        finally:
            self.close(f)

    # --- results
    def events(self, use_device=None):
        """The recorded ranges as FunctionEvents, ordered by start time."""
        out = []
        ids = itertools.count()
        t0 = self.t0
        wall0 = self.wall0 // 1000

        def convert(f, parent):
            if f.end is None:   # still open (a range left open when the profiler stopped)
                return None
            name = f.name
            if f.user and name.startswith('ProfilerStep#'):
                name = 'ProfilerStep*'   # PyTorch groups the steps under one name
            shapes = f.shapes
            e = FunctionEvent(next(ids), name, f.tid, (f.start - t0) / 1000.0,
                              (f.end - t0) / 1000.0,
                              input_shapes=_as_lists(shapes) if shapes is not None else None, stack=f.stack,
                              use_device=use_device, sequence_nr=f.seq, flops=f.flops,
                              trace_name=f.name,
                              is_user_annotation=f.user and not f.name.startswith('autograd::')
                              and f.seq < 0)
            e._wall0 = wall0
            out.append(e)
            if parent is not None:
                e.cpu_parent = parent
                parent.cpu_children.append(e)
            for c in f.children or ():
                convert(c, e)
            e.cpu_memory_usage = f.mem + sum(c.cpu_memory_usage for c in e.cpu_children)
            return e

        import gc
        was = gc.isenabled()
        gc.disable()   # many small objects: no collection passes while they are made
        try:
            for r in self.roots:
                convert(r, None)
        finally:
            if was:
                gc.enable()
        out.sort(key=lambda e: (e.time_range.start, -e.time_range.end))
        for i, e in enumerate(out):
            e.id = i
        return out


_Tensor = None


def _tensor_type():
    global _Tensor
    if _Tensor is None:
        from .._tensor import Tensor
        _Tensor = Tensor
    return _Tensor


def _index_name(idx):
    """The ATen op PyTorch records for ``tensor[idx]``: ``select`` for an integer,
    ``slice`` for basic slicing, ``index`` when a tensor or list takes part."""
    from .._tensor import Tensor
    items = idx if isinstance(idx, tuple) else (idx,)
    kind = 'aten::slice'
    for i in items:
        if isinstance(i, (Tensor, list)) or (hasattr(i, 'dtype') and hasattr(i, 'shape')):
            return 'aten::index'
        if isinstance(i, int) and not isinstance(i, bool):
            kind = 'aten::select'
    return kind


def _shapes(args, kwargs):
    """The input shapes of a call, as nested tuples (made lists when the events are
    built: tuples of ints are not tracked by the garbage collector, so recording many
    of them does not make collections slower)."""
    Tensor = _tensor_type()
    res = []
    for a in args:
        if isinstance(a, Tensor):
            res.append(a._data.shape)
        elif isinstance(a, (list, tuple)) and a and isinstance(a[0], Tensor):
            res.append(tuple(b._data.shape if isinstance(b, Tensor) else () for b in a))
        else:
            res.append(())
    if kwargs:
        for v in kwargs.values():
            res.append(v._data.shape if isinstance(v, Tensor) else ())
    return tuple(res)


def _as_lists(shapes):
    return [[list(s) for s in x] if x and isinstance(x[0], tuple) else list(x) for x in shapes]


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _flops(name, shapes, out):
    """Floating-point operations of the op, counted as PyTorch's profiler counts them
    (``2*M*N*K`` for a matrix product, one per output element for add and mul)."""
    if not shapes:
        return None
    try:
        if name in ('aten::mm', 'aten::matmul') and len(shapes[0]) == 2 and len(shapes[1]) == 2:
            (m, k), (_, n) = shapes[0], shapes[1]
            return 2 * m * n * k
        if name == 'aten::addmm':
            (m, k), (_, n) = shapes[1], shapes[2]
            return 2 * m * n * k
        if name == 'aten::bmm':
            (b, m, k), (_, _, n) = shapes[0], shapes[1]
            return 2 * b * m * n * k
        if name in ('aten::conv2d', 'aten::convolution') and shapes[1]:
            w = shapes[1]
            return 2 * _numel(out.shape) * _numel(w[1:])
        if name in ('aten::add', 'aten::mul', 'aten::add_', 'aten::mul_'):
            return _numel(out.shape)
    except Exception:
        return None
    return None


_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _py_stack():
    """The Python frames of the call, innermost first, without ember's own frames
    (``file(line): function``, as PyTorch prints them)."""
    import traceback
    out = []
    for fr in reversed(traceback.extract_stack()):
        if fr.filename.startswith(_HERE):
            continue
        out.append(f"{fr.filename}({fr.lineno}): {fr.name}")
    return out


# ------------------------------------------------------------- ember.linalg names
_linalg_names = frozenset()
_linalg_raws = {}


def _scan_linalg():
    """Name the op bodies found only in ``ember.linalg`` as PyTorch does
    (``aten::linalg_<name>``)."""
    global _linalg_names, _linalg_raws
    from .._ops import _dispatch
    top = {id(_dispatch.raw_op(f)) for f in _dispatch.public_functions('ember').values()}
    raws = {}
    for attr, f in _dispatch.public_functions('ember.linalg').items():
        r = _dispatch.raw_op(f)
        if id(r) not in top:
            raws[id(r)] = 'aten::linalg_' + attr
    _linalg_raws = raws
    _linalg_names = frozenset(a for a in _dispatch.public_functions('ember.linalg'))


# ------------------------------------------------------------- the active recorder
_lock = threading.Lock()
_active = None        # the _Recorder recording now
_handle = None        # its interceptor handle


def _start(rec):
    """Start recording into ``rec`` (install the interceptor and the engine hook)."""
    global _active, _handle
    from .._ops import _dispatch
    from . import engine
    with _lock:
        if _active is not None:
            raise RuntimeError("Can't profile: profiler already enabled on this thread")
        _active = rec
        if not _linalg_raws:
            _scan_linalg()
        _handle = _dispatch.push_interceptor(rec.intercept)
        engine._profile_hook = rec


def _stop(rec):
    global _active, _handle
    from . import engine
    with _lock:
        if _active is not rec:
            return
        engine._profile_hook = None
        _handle.remove()
        _active = None
        _handle = None


def _enabled():
    return _active is not None


# ------------------------------------------------------------- public API
class profile:
    """Context manager that records the ops run inside it (PyTorch's legacy
    ``torch.autograd.profiler.profile``).

    Args:
        enabled (bool): record (``False`` makes it a no-op). Default: ``True``.
        use_cuda (bool): also time CUDA kernels (NOTE: unlike PyTorch, ember records
            CPU wall time only; CUDA times are 0).
        record_shapes (bool): record the input shapes of each op.
        with_flops (bool): estimate FLOPs of matrix products, convolutions, add, mul.
        profile_memory (bool): record the bytes of each op's new output tensors.
        with_stack (bool): record the Python stack of each op.
        with_modules (bool): accepted (NOTE: unlike PyTorch, no module hierarchy).
        use_kineto, use_cpu, experimental_config, acc_events, custom_trace_id_callback,
            use_device: accepted for compatibility.

    Example::

        >>> x = ember.randn(4, 4, requires_grad=True)
        >>> with ember.autograd.profiler.profile() as prof:
        ...     (x.mm(x)).sum().backward()
        >>> print(prof.key_averages().table(sort_by='self_cpu_time_total'))
    """

    function_events = None

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None):
        self.enabled = enabled
        if not enabled:
            return
        self.use_cuda = use_cuda
        self.use_device = 'cuda' if use_cuda and use_device is None else use_device
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.record_shapes |= self.with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.use_cpu = use_cpu
        self.acc_events = acc_events
        self.experimental_config = experimental_config
        self.custom_trace_id_callback = custom_trace_id_callback
        self.function_events = None
        self.entered = False
        self._recorder = None
        self._old = []

    def config(self, create_trace_id=False):
        """The recording options as a :class:`ProfilerConfig`."""
        return ProfilerConfig(ProfilerState.CPU, self.record_shapes, self.profile_memory,
                              self.with_stack, self.with_flops, self.with_modules,
                              self.experimental_config,
                              self.create_trace_id() if create_trace_id else None)

    def default_trace_id(self):
        """A fresh random trace id (32 hex digits)."""
        import uuid
        return uuid.uuid4().hex

    def create_trace_id(self):
        """The trace id: from ``custom_trace_id_callback`` when given."""
        cb = self.custom_trace_id_callback
        return cb() if cb is not None else self.default_trace_id()

    def toggle_collection_dynamic(self, enabled, activities):
        """Pause (``enabled=False``) or resume recording of CPU ops while profiling."""
        if ProfilerActivity.CPU not in activities:
            return
        if enabled and _active is None and self._recorder is not None:
            _start(self._recorder)
        elif not enabled and self._recorder is not None:
            _stop(self._recorder)

    def _new_recorder(self):
        return _Recorder(self.record_shapes, self.profile_memory, self.with_stack,
                         self.with_flops)

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self._prepare_trace()
        self._start_trace()
        return self

    def _prepare_trace(self):
        self.entered = True

    def _start_trace(self):
        self.entered = True
        if self._recorder is not None and self.acc_events:
            self._old.append(self._recorder)
        self._recorder = self._new_recorder()
        _start(self._recorder)

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return
        self._stop_trace()

    def _stop_trace(self):
        if self._recorder is None:
            return
        _stop(self._recorder)
        evs = []
        for r in self._old + [self._recorder]:
            evs.extend(r.events(self.use_device))
        self.function_events = EventList(evs, use_device=self.use_device,
                                         profile_memory=self.profile_memory,
                                         with_flops=self.with_flops)
        self.function_events._build_tree()
        return False

    def __repr__(self):
        if self.function_events is None:
            return '<unfinished torch.autograd.profile>'
        return repr(self.function_events)

    def __str__(self):
        if self.function_events is None:
            return '<unfinished torch.autograd.profile>'
        return str(self.function_events)

    def _check_finish(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """The recorded events as a table (see :meth:`EventList.table`)."""
        self._check_finish()
        return self.function_events.table(
            sort_by=sort_by, row_limit=row_limit, max_src_column_width=max_src_column_width,
            max_name_column_width=max_name_column_width,
            max_shapes_column_width=max_shapes_column_width, header=header,
            top_level_events_only=top_level_events_only, time_unit=time_unit)

    table.__doc__ = EventList.table.__doc__

    def export_chrome_trace(self, path):
        """Write the events as a Chrome trace JSON file."""
        self._check_finish()
        return self.function_events.export_chrome_trace(path)

    def export_stacks(self, path, metric='self_cpu_time_total'):
        """Write the recorded stacks (``with_stack=True``) in flame-graph format."""
        self._check_finish()
        if not self.with_stack:
            raise AssertionError("export_stacks() requires with_stack=True")
        return self.function_events.export_stacks(path, metric)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """The events averaged per name (and per input shapes / stack when asked)."""
        self._check_finish()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n,
                                                 group_by_overload_name)

    def total_average(self):
        """All events summed as one :class:`FunctionEventAvg`."""
        self._check_finish()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        """The sum of every event's self CPU time (us)."""
        self._check_finish()
        return self.function_events.self_cpu_time_total


class record_function:
    """Label a block of code (or a function, as a decorator) as a named range in the
    profiler's results. A no-op while no profiler records.

    Args:
        name (str): the range's name.
        args (str, optional): extra information (ignored, as PyTorch's CPU profiler).

    Example::

        >>> with ember.profiler.profile() as prof:
        ...     with ember.profiler.record_function('forward'):
        ...         y = ember.ones(3) * 2
    """

    def __init__(self, name, args=None):
        self.name = name
        self.args = args
        self.run_callbacks_on_exit = True
        self._frames = []

    def __enter__(self):
        rec = _active
        self._frames.append((rec, rec.open(self.name, user=True) if rec is not None else None))
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.run_callbacks_on_exit or not self._frames:
            return
        rec, f = self._frames.pop()
        if f is not None:
            rec.close(f)

    def _call_end_callbacks_on_future(self, fut):
        """Close the range when ``fut`` completes (here: at once); returns ``fut``."""
        self.run_callbacks_on_exit = False
        if self._frames:
            rec, f = self._frames.pop()
            if f is not None:
                rec.close(f)
        return fut

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapped


class emit_nvtx:
    """Emit NVTX ranges for nvprof / Nsight (NOTE: unlike PyTorch, a no-op: ember has no
    NVTX; without CUDA PyTorch's also does nothing useful). Entering it twice without
    leaving raises ``RuntimeError`` (it is not reentrant).

    Args:
        enabled (bool): default ``True``.
        record_shapes (bool): default ``False``.

    Example::

        >>> with ember.autograd.profiler.emit_nvtx():
        ...     y = ember.ones(2) * 2
    """

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.entered = False
        self.record_shapes = record_shapes

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("NVTX annotation context manager is not reentrant")
        self.entered = True
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if self.enabled:
            self.entered = False
        return False


class emit_itt(emit_nvtx):
    """Emit Intel ITT ranges for VTune (NOTE: unlike PyTorch, a no-op: ember has no ITT).
    Entering it twice without leaving raises ``RuntimeError`` (it is not reentrant).

    Args:
        enabled (bool): default ``True``.
        record_shapes (bool): default ``False``.

    Example::

        >>> with ember.autograd.profiler.emit_itt():
        ...     y = ember.ones(2) * 2
    """

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("ITT annotation context manager is not reentrant")
        self.entered = True
        return self


def load_nvprof(path):
    """Open an nvprof trace (NOTE: unlike PyTorch, unsupported: raises
    ``NotImplementedError``).

    Args:
        path (str): the trace file.

    Example::

        >>> ember.autograd.profiler.load_nvprof('trace.nvvp')
        Traceback (most recent call last):
          ...
        NotImplementedError: ember cannot read nvprof traces
    """
    raise NotImplementedError("ember cannot read nvprof traces")


def parse_nvprof_trace(path):
    """Parse an nvprof trace (NOTE: unlike PyTorch, unsupported: raises
    ``NotImplementedError``).

    Args:
        path (str): the trace file.

    Example::

        >>> ember.autograd.profiler.parse_nvprof_trace('trace.nvvp')
        Traceback (most recent call last):
          ...
        NotImplementedError: ember cannot read nvprof traces
    """
    raise NotImplementedError("ember cannot read nvprof traces")


def kineto_available():
    """Whether the Kineto profiler library is there: False, as ember's profiler is its own.

    NOTE: unlike PyTorch, whose builds (CPU ones included) answer True.

    Example::

        >>> ember.autograd.profiler.kineto_available()
        False
    """
    return False


class KinetoStepTracker:
    """Counts profiler steps per requester (PyTorch's step tracker); ``current_step``
    is the largest count. The counts are class-level (shared by the whole process).

    Example::

        >>> from ember.autograd.profiler import KinetoStepTracker
        >>> KinetoStepTracker.init_step_count('my_loop')
        >>> step = KinetoStepTracker.increment_step('my_loop')
        >>> step == KinetoStepTracker.current_step()
        True
        >>> KinetoStepTracker.erase_step_count('my_loop')
        True
    """

    _counts = {}
    _step = -1

    @classmethod
    def init_step_count(cls, requester):
        """Start counting steps for ``requester`` at the current step."""
        cls._counts[requester] = cls._step

    @classmethod
    def erase_step_count(cls, requester):
        """Stop counting for ``requester``; True if it was counted."""
        return cls._counts.pop(requester, None) is not None

    @classmethod
    def increment_step(cls, requester):
        """Count one step of ``requester``; returns the current step."""
        if requester not in cls._counts:
            cls.init_step_count(requester)
        cls._counts[requester] += 1
        new = max(cls._counts.values())
        if new > cls._step:
            cls._step = new
        return cls._step

    @classmethod
    def current_step(cls):
        """The largest step count of all requesters."""
        return cls._step
