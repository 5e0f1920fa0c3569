"""The profiler's results: events, their per-name averages and the summary table.

``FunctionEvent`` is one recorded range (an op call, a ``record_function`` range, a
backward node); ``FunctionEventAvg`` sums the events that share a key;
``EventList`` is a list of events with PyTorch's reporting methods (``table``,
``key_averages``, ``export_chrome_trace``, ``export_stacks``, ``total_average``).
Times are in microseconds, memory in bytes, as in PyTorch.
"""
import enum
import os
from collections import defaultdict

__all__ = ['EventList', 'FunctionEvent', 'FunctionEventAvg', 'Interval', 'Kernel',
           'DeviceType', 'StringTable', 'MemRecordsAcc', 'FormattedTimesMixin',
           'MEMORY_EVENT_NAME', 'OUT_OF_MEMORY_EVENT_NAME']

MEMORY_EVENT_NAME = '[memory]'
OUT_OF_MEMORY_EVENT_NAME = '[OutOfMemory]'


class DeviceType(enum.IntEnum):
    """The kind of device an event ran on (PyTorch's ``torch.autograd.DeviceType``)."""
    CPU = 0
    CUDA = 1
    MKLDNN = 2
    OPENGL = 3
    OPENCL = 4
    IDEEP = 5
    HIP = 6
    FPGA = 7
    MAIA = 8
    XLA = 9
    Vulkan = 10
    Metal = 11
    XPU = 12
    MPS = 13
    Meta = 14
    HPU = 15
    VE = 16
    Lazy = 17
    IPU = 18
    MTIA = 19
    PrivateUse1 = 20


class Interval:
    """A time range ``[start, end]`` in microseconds.

    Args:
        start (int or float): the start time (us).
        end (int or float): the end time (us).

    Example::

        >>> from ember.autograd.profiler_util import Interval
        >>> Interval(5, 12).elapsed_us()
        7
    """

    __slots__ = ('start', 'end')

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        """The length of the range in microseconds."""
        return self.end - self.start

    def __repr__(self):
        return f"Interval(start={self.start}, end={self.end})"


class Kernel:
    """A device kernel launched by an op (never produced on ember's CPU profiler).

    Args:
        name (str): the kernel's name.
        device (int): the device index.
        duration (int or float): the run time (us).

    Example::

        >>> from ember.autograd.profiler_util import Kernel
        >>> k = Kernel('gemm', 0, 10)
        >>> k.name, k.duration
        ('gemm', 10)
    """

    __slots__ = ('name', 'device', 'duration')

    def __init__(self, name, device, duration):
        self.name = name
        self.device = device
        self.duration = duration


class StringTable(defaultdict):
    """A cache of demangled names: a ``defaultdict`` whose missing keys map to
    themselves (NOTE: unlike PyTorch, names are not demangled, they are kept as they are).

    Example::

        >>> from ember.autograd.profiler_util import StringTable
        >>> StringTable()['aten::add']
        'aten::add'
    """

    def __missing__(self, key):
        self[key] = key
        return key


class MemRecordsAcc:
    """Memory records within an interval (NOTE: unlike PyTorch, ember records an op's
    memory on the op's event, so the profiler builds this with no records).

    Args:
        mem_records (iterable): records whose first item is their time (us).

    Example::

        >>> from ember.autograd.profiler_util import MemRecordsAcc
        >>> acc = MemRecordsAcc([(5, 'a'), (20, 'b')])
        >>> list(acc.in_interval(0, 10))
        [(5, 'a')]
    """

    def __init__(self, mem_records):
        self._records = list(mem_records)

    def in_interval(self, start_us, end_us):
        """The records whose time lies in ``[start_us, end_us]``."""
        return iter(r for r in self._records if start_us <= r[0] <= end_us)


def _format_time(time_us):
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_us):
    if total_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_us:.2f}%"


def _format_memory(nbytes):
    for scale, unit in ((1 << 30, 'GB'), (1 << 20, 'MB'), (1 << 10, 'KB')):
        if abs(nbytes) >= scale:
            return f"{nbytes / scale:.2f} {unit}"
    return f"{nbytes} B"


class FormattedTimesMixin:
    """Time properties shared by an event and an average of events (``cpu_time`` is
    the average per call; the ``*_str`` forms are formatted as the table prints them). The
    class using it provides ``count``, ``cpu_time_total``, ``self_cpu_time_total``,
    ``device_time_total`` and ``self_device_time_total``.

    Example::

        >>> with ember.autograd.profiler.profile() as prof:
        ...     y = ember.ones(3) + 1
        >>> avg = [e for e in prof.key_averages() if e.key == 'aten::add'][0]
        >>> avg.cpu_time_str.endswith('us')   # e.g. '12.000us'
        True
    """

    @property
    def cpu_time(self):
        """Average CPU time per call (us)."""
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def cpu_time_str(self):
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self):
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self):
        return _format_time(self.self_cpu_time_total)

    @property
    def device_time(self):
        return 0.0 if self.count == 0 else self.device_time_total / self.count

    @property
    def device_time_str(self):
        return _format_time(self.device_time)

    @property
    def device_time_total_str(self):
        return _format_time(self.device_time_total)

    @property
    def self_device_time_total_str(self):
        return _format_time(self.self_device_time_total)

    cuda_time = device_time
    cuda_time_total = property(lambda self: self.device_time_total)
    self_cuda_time_total = property(lambda self: self.self_device_time_total)
    cuda_memory_usage = property(lambda self: self.device_memory_usage)
    self_cuda_memory_usage = property(lambda self: self.self_device_memory_usage)


class FunctionEvent(FormattedTimesMixin):
    """One recorded range: an op call (``aten::mm``), a ``record_function`` range or a
    backward node, with its time, input shapes, memory and nesting.

    Attributes:
        name (str): the range's name. ``key`` is the same name (the grouping key).
        time_range (Interval): start and end in microseconds since the profiler started.
        cpu_parent (FunctionEvent or None), cpu_children (list): nesting on its thread.
        input_shapes (list): shapes of the arguments (``record_shapes=True``).
        cpu_memory_usage (int): bytes the range allocated, its children included.
        stack (list of str): Python frames (``with_stack=True``), innermost first.

    Example::

        >>> with ember.profiler.profile() as p:
        ...     ember.ones(2).add(1)
        >>> p.events()[-1].name
        'aten::add'
    """

    def __init__(self, id, name, thread, start_us, end_us, fwd_thread=None, input_shapes=None,
                 stack=None, scope=0, use_device=None, cpu_memory_usage=0,
                 device_memory_usage=0, is_async=False, is_remote=False, sequence_nr=-1,
                 node_id=-1, device_type=DeviceType.CPU, device_index=0, device_resource_id=None,
                 is_legacy=False, flops=None, trace_name=None, concrete_inputs=None,
                 kwinputs=None, is_user_annotation=False, overload_name=''):
        self.id = id
        self.node_id = node_id
        self.name = name
        self.overload_name = overload_name
        self.trace_name = trace_name if trace_name is not None else name
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = fwd_thread
        self.kernels = []
        self.count = 1
        self.cpu_children = []
        self.cpu_parent = None
        self.input_shapes = input_shapes
        self.concrete_inputs = concrete_inputs
        self.kwinputs = kwinputs or {}
        self.stack = stack if stack is not None else []
        self.scope = scope
        self.use_device = use_device
        self.cpu_memory_usage = cpu_memory_usage
        self.device_memory_usage = device_memory_usage
        self.is_async = is_async
        self.is_remote = is_remote
        self.sequence_nr = sequence_nr
        self.device_type = device_type
        self.device_index = device_index
        self.device_resource_id = device_resource_id if device_resource_id is not None else thread
        self.is_legacy = is_legacy
        self.flops = flops
        self.is_user_annotation = is_user_annotation
        self.self_cpu_percent = -1
        self.total_cpu_percent = -1
        self.total_device_percent = -1

    @property
    def key(self):
        """The grouping key: the event's name."""
        return self.name

    metadata_json = None

    def append_kernel(self, name, device, duration):
        self.kernels.append(Kernel(name, device, duration))

    def append_cpu_child(self, child):
        """Add ``child`` as a range nested directly in this one."""
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        self.cpu_parent = parent

    @property
    def self_cpu_memory_usage(self):
        """Bytes allocated by this range itself (children excluded)."""
        return self.cpu_memory_usage - sum(c.cpu_memory_usage for c in self.cpu_children)

    @property
    def self_device_memory_usage(self):
        return 0

    @property
    def cpu_time_total(self):
        """Wall time of the range (us), children included."""
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        """Wall time of the range (us) minus its children's."""
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def device_time_total(self):
        return 0

    @property
    def self_device_time_total(self):
        return 0

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} device_type={self.device_type} "
                f"node_id={self.node_id} cpu_time={self.cpu_time_str} "
                f"start_us={self.time_range.start} end_us={self.time_range.end} "
                f"cpu_children={[c.id for c in self.cpu_children]} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage} "
                f"is_legacy={self.is_legacy} scope={self.scope} flops={self.flops}>")


class FunctionEventAvg(FormattedTimesMixin):
    """The sum of the events that share a key (name, and input shapes or stack when
    grouped by them): ``count``, ``cpu_time_total``, ``self_cpu_time_total``, memory.
    :meth:`profile.key_averages` returns a list of them.

    Example::

        >>> with ember.autograd.profiler.profile() as prof:
        ...     y = ember.ones(3) + 1
        ...     y = ember.ones(3) + 1
        >>> [(e.key, e.count) for e in prof.key_averages()]
        [('aten::ones', 2), ('aten::add', 2)]
    """

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0
        self.device_time_total = 0
        self.self_cpu_time_total = 0
        self.self_device_time_total = 0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.flops = 0
        self.is_user_annotation = False
        self.self_cpu_percent = -1
        self.total_cpu_percent = -1
        self.total_device_percent = -1

    def add(self, other):
        """Add an event (or another average) into this one."""
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.overload_name = other.overload_name
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
            self.device_type = other.device_type
            self.is_legacy = other.is_legacy
            self.use_device = other.use_device
            self.is_user_annotation = other.is_user_annotation
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {self.key} vs {other.key}")
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.count += other.count
        if other.flops:
            self.flops += other.flops
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage}>")


class EventList(list):
    """A list of :class:`FunctionEvent` (or :class:`FunctionEventAvg`) with PyTorch's
    reports.

    Example::

        >>> with ember.profiler.profile() as p:
        ...     ember.ones(2, 2).mm(ember.ones(2, 2))
        >>> print(p.key_averages().table(sort_by='self_cpu_time_total'))
    """

    def __init__(self, *args, use_device=None, profile_memory=False, with_flops=False,
                 **kwargs):
        super().__init__(*args, **kwargs)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops
        self._tree_built = False

    def _build_tree(self):
        self._tree_built = True

    def __str__(self):
        return self.table()

    @property
    def self_cpu_time_total(self):
        """Sum of the events' self CPU times (us)."""
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False, time_unit=None):
        """The events as PyTorch's summary table (a string).

        Args:
            sort_by (str, optional): attribute to sort the rows by, largest first
                (``'cpu_time_total'``, ``'self_cpu_time_total'``, ``'count'``,
                ``'cpu_memory_usage'``, ``'self_cpu_memory_usage'``, ...).
            row_limit (int): at most this many rows.
            header (str, optional): a title line printed above the table.
            top_level_events_only (bool): only the events that have no parent.
            time_unit (str, optional): ``'s'``, ``'ms'`` or ``'us'`` for every time.
        """
        return _build_table(self, sort_by=sort_by, header=header, row_limit=row_limit,
                            max_src_column_width=max_src_column_width,
                            max_name_column_width=max_name_column_width,
                            max_shapes_column_width=max_shapes_column_width,
                            with_flops=self._with_flops, profile_memory=self._profile_memory,
                            top_level_events_only=top_level_events_only, time_unit=time_unit)

    def export_chrome_trace(self, path):
        """Write the events as a Chrome trace (``chrome://tracing``, Perfetto): a JSON
        object whose ``traceEvents`` are complete (``"ph": "X"``) events in microseconds."""
        import json
        with open(path, 'w') as f:
            json.dump(_chrome_trace(self), f)

    def supported_export_stacks_metrics(self):
        """The metrics ``export_stacks`` accepts."""
        return ['self_cpu_time_total', 'self_cuda_time_total', 'self_xpu_time_total',
                'self_privateuse1_time_total']

    def export_stacks(self, path, metric='self_cpu_time_total'):
        """Write one line per event that has a stack (``with_stack=True``):
        ``frame;frame;...;frame value`` (outermost frame first; spaces, tabs and
        semicolons inside a frame become ``_``), the format of flame-graph tools.

        Raises:
            ValueError: for a metric not in ``supported_export_stacks_metrics()``.
        """
        if metric not in self.supported_export_stacks_metrics():
            raise ValueError("metric should be one of: "
                             + str(self.supported_export_stacks_metrics()))
        attr = metric.replace('cuda', 'device').replace('xpu', 'device').replace(
            'privateuse1', 'device')
        clean = str.maketrans(' ;\t\n', '____')   # frames may not hold the separators
        with open(path, 'w') as f:
            for evt in self:
                if evt.stack:
                    value = getattr(evt, attr)
                    if int(value) > 0:
                        frames = ';'.join(s.translate(clean) for s in reversed(evt.stack))
                        f.write(frames + ' ' + str(int(value)) + '\n')

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0,
                     group_by_overload_name=False):
        """One :class:`FunctionEventAvg` per key: the event name, plus its input shapes
        with ``group_by_input_shapes`` and its innermost ``group_by_stack_n`` frames."""
        stats = {}
        for evt in self:
            key = [str(evt.key), str(evt.node_id)]
            if group_by_input_shapes:
                key.append(str(evt.input_shapes))
            if group_by_stack_n > 0:
                key += list(evt.stack[:group_by_stack_n])
            if group_by_overload_name:
                key.append(evt.overload_name)
            key = tuple(key)
            avg = stats.get(key)
            if avg is None:
                avg = stats[key] = FunctionEventAvg()
            avg.add(evt)
            if not group_by_input_shapes:
                avg.input_shapes = None
            if group_by_stack_n == 0:
                avg.stack = None
        return EventList(stats.values(), use_device=self._use_device,
                         profile_memory=self._profile_memory, with_flops=self._with_flops)

    def total_average(self):
        """One :class:`FunctionEventAvg` summing every event (key ``'Total'``)."""
        total = FunctionEventAvg()
        for evt in self:
            total.add(_Renamed(evt))
        total.key = 'Total'
        return total


class _Renamed:
    """An event seen under the key 'Total' (for ``total_average``)."""

    def __init__(self, evt):
        self._e = evt
        self.key = 'Total'

    def __getattr__(self, name):
        return getattr(self._e, name)


def _chrome_trace(events):
    pid = os.getpid()
    out = []
    for e in events:
        if not isinstance(e, FunctionEvent):
            continue
        args = {}
        if e.input_shapes is not None:
            args['Input Dims'] = e.input_shapes
        if e.sequence_nr >= 0:
            args['Sequence number'] = e.sequence_nr
        if e.flops:
            args['flops'] = e.flops
        cat = 'user_annotation' if e.is_user_annotation else 'cpu_op'
        out.append({'ph': 'X', 'cat': cat, 'name': e.trace_name, 'pid': pid,
                    'tid': e.thread, 'ts': e.time_range.start,
                    'dur': e.time_range.elapsed_us(), 'args': args})
    return {'schemaVersion': 1, 'traceEvents': out, 'displayTimeUnit': 'ms',
            'traceName': '', 'deviceProperties': []}


def _build_table(events, sort_by=None, header=None, row_limit=100, max_src_column_width=75,
                 max_name_column_width=55, max_shapes_column_width=80, with_flops=False,
                 profile_memory=False, top_level_events_only=False, time_unit=None):
    if len(events) == 0:
        return ""
    has_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    if sort_by is not None:
        attr = sort_by.replace('cuda', 'device').replace('xpu', 'device').replace(
            'privateuse1', 'device')
        events = sorted(events, key=lambda e: getattr(e, attr), reverse=True)
    name_w = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_w = min(name_w, max_name_column_width)
    shapes_w = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_w = min(shapes_w, max_shapes_column_width)
    stacks = [e.stack for e in events if e.stack]
    src_w = None
    if stacks:
        src_w = max(max(len(s) for s in st) for st in stacks) + 4
        if max_src_column_width is not None:
            src_w = min(src_w, max_src_column_width)

    headers = ['Name', 'Self CPU %', 'Self CPU', 'CPU total %', 'CPU total', 'CPU time avg']
    if profile_memory:
        headers += ['CPU Mem', 'Self CPU Mem']
    headers.append('# of Calls')
    widths = [(name_w, '>')] + [(12, '>')] * (len(headers) - 1)
    if has_shapes:
        headers.append('Input Shapes')
        widths.append((shapes_w, '>'))
    if stacks:
        headers.append('Source Location')
        widths.append((src_w, '<'))
    flops_scale = None
    if with_flops:
        raw = [e.flops for e in events if e.flops and e.flops > 0]
        if raw:
            import math
            units = ['FLOPs', 'KFLOPs', 'MFLOPs', 'GFLOPs', 'TFLOPs', 'PFLOPs']
            lg = max(0, min(math.log10(min(raw)) / 3, len(units) - 1))
            flops_scale = 10 ** (math.floor(lg) * -3.0)
            headers.append(f"Total {units[int(lg)]}")
            widths.append((12, '>'))
    row_fmt = ''.join('{: ' + d + str(w) + '}  ' for w, d in widths)
    sep = ''.join('-' * w + '  ' for w, _ in widths)
    line_len = sum(w + 2 for w, _ in widths) - 2

    total_self = sum(e.self_cpu_time_total for e in events)

    def t(us, s):
        if time_unit == 's':
            return f"{us / 1e6:.3f}s"
        if time_unit == 'ms':
            return f"{us / 1e3:.3f}ms"
        if time_unit == 'us':
            return f"{us:.3f}us"
        return s

    lines = []
    if header is not None:
        lines += ['=' * line_len, header]
    if top_level_events_only:
        lines += ['=' * line_len, 'This report only display top-level ops statistics']
    lines += [sep, row_fmt.format(*headers), sep]
    n = 0
    for e in events:
        if n == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        n += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + '...'
        e.self_cpu_percent = _format_time_share(e.self_cpu_time_total, total_self)
        e.total_cpu_percent = _format_time_share(e.cpu_time_total, total_self)
        row = [name, e.self_cpu_percent, t(e.self_cpu_time_total, e.self_cpu_time_total_str),
               e.total_cpu_percent, t(e.cpu_time_total, e.cpu_time_total_str),
               t(e.cpu_time, e.cpu_time_str)]
        if profile_memory:
            row += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
        row.append(e.count)
        if has_shapes:
            row.append(str(e.input_shapes)[:shapes_w])
        if stacks:
            src = e.stack[0] if e.stack else ''
            if len(src) > src_w:
                src = '...' + src[len(src) - src_w + 3:]
            row.append(src)
        if flops_scale is not None:
            row.append('--' if not e.flops else f"{e.flops * flops_scale:8.3f}")
        lines.append(row_fmt.format(*row))
        if stacks and e.stack:
            src_i = headers.index('Source Location')
            for s in e.stack[1:5]:
                if len(s) > src_w:
                    s = '...' + s[len(s) - src_w + 3:]
                more = [''] * len(headers)
                more[src_i] = s
                lines.append(row_fmt.format(*more))
    lines.append(sep)
    lines.append(f"Self CPU time total: {_format_time(total_self)}")
    return '\n'.join(lines) + '\n'
