"""Shared pieces of ``ember.utils.benchmark``: the task description (:class:`TaskSpec`),
the result of a timing (:class:`Measurement`) and the number-formatting helpers.

The statistics follow PyTorch's ``torch.utils.benchmark`` to the digit: quantiles by
linear interpolation (median, IQR), and the unit choice, significant-figure estimate and
trimming computed in single precision, as PyTorch computes them on default-dtype tensors.
"""
import collections
import contextlib
import dataclasses
import math
import textwrap

import numpy as _np

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
           "ordered_unique", "set_torch_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # 25 ns

_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25

_f32 = _np.float32


# ------------------------------------------------------------------ numeric helpers
def _lerp(a, b, w):
    # the two-sided form PyTorch's lerp (and NumPy's quantile) use: exact at both ends
    return a + w * (b - a) if w < 0.5 else b - (b - a) * (1 - w)


def _quantile(sorted_values, q):
    """``q``-quantile of ascending values, linear interpolation (PyTorch's default)."""
    n = len(sorted_values)
    rank = q * (n - 1)
    lo = math.floor(rank)
    hi = min(lo + 1, n - 1)
    return _lerp(sorted_values[lo], sorted_values[hi], rank - lo)


def _quantile_lower_median(values):
    """The median as ``Tensor.median()`` of a default-dtype tensor gives it: the lower of
    the two middle values, in single precision."""
    s = sorted(float(_f32(v)) for v in values)
    return s[(len(s) - 1) // 2]


def _log10_f32(x):
    """``log10`` of ``x`` as PyTorch computes it on a default-dtype (single precision)
    tensor: the argument rounded to single precision, the result correctly rounded."""
    v = float(_f32(x))
    if v > 0 and math.isfinite(v):
        return _f32(math.log10(v))
    with _np.errstate(divide='ignore', invalid='ignore'):
        return _np.log10(_f32(v))


def select_unit(t: float):
    """The time unit that shows ``t`` seconds with an O(1) magnitude, and its scale.

    Args:
        t (float): a time in seconds.

    Returns:
        tuple: ``(unit, scale)``, one of ``('ns', 1e-9)``, ``('us', 1e-6)``,
        ``('ms', 1e-3)``, ``('s', 1)``.

    Example::

        >>> select_unit(5.3e-6)
        ('us', 1e-06)
    """
    v = _log10_f32(t) // _f32(3)
    key = int(v) if _np.isfinite(v) else None
    time_unit = {-3: "ns", -2: "us", -1: "ms"}.get(key, "s")
    time_scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[time_unit]
    return time_unit, time_scale


def unit_to_english(u: str) -> str:
    """The English name of a time unit (``'us'`` -> ``'microsecond'``).

    Example::

        >>> unit_to_english('ms')
        'millisecond'
    """
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x: float, n: int) -> float:
    """``x`` rounded to ``n`` significant figures (computed in single precision, as
    PyTorch does).

    Args:
        x (float): the value.
        n (int): significant figures to keep.

    Example::

        >>> round(trim_sigfig(3.14159, 2), 6)
        3.1
    """
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    magnitude = int(_np.ceil(_log10_f32(abs(x))))
    scale = 10 ** (magnitude - n)
    return float(_np.round(_f32(x / scale)) * _f32(scale))


def ordered_unique(elements):
    """The distinct elements, in order of first appearance.

    Example::

        >>> ordered_unique([3, 1, 3, 2, 1])
        [3, 1, 2]
    """
    return list(collections.OrderedDict(dict.fromkeys(elements)).keys())


@contextlib.contextmanager
def set_torch_threads(n: int):
    """Context manager running its body with ``ember.set_num_threads(n)``, restoring the
    previous thread count after.

    Args:
        n (int): intra-op thread count.

    Example::

        >>> with set_torch_threads(1):
        ...     pass
    """
    import ember
    prior_num_threads = ember.get_num_threads()
    try:
        ember.set_num_threads(n)
        yield
    finally:
        ember.set_num_threads(prior_num_threads)


# ------------------------------------------------------------------ TaskSpec
@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """What a :class:`Timer` measures (everything but its globals).

    Args:
        stmt (str): the timed statement.
        setup (str): code run before timing.
        global_setup (str): C++ only. Default: ``""``.
        label, sub_label, description, env (str, optional): the labels
            :class:`Compare` groups by.
        num_threads (int): thread count the statement runs with. Default: 1.

    Example::

        >>> TaskSpec('x + 1', 'x = 1', label='add').title
        'add'
    """
    stmt: str
    setup: str
    global_setup: str = ""
    label: str = None
    sub_label: str = None
    description: str = None
    env: str = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """A one-line name for the task: the label (or the statement), with the
        sub-label."""
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        elif "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return (f"stmt:{f' ({self.sub_label})' if self.sub_label else ''}\n"
                f"{textwrap.indent(self.stmt, '  ')}")

    def setup_str(self) -> str:
        """The setup as shown in a summary (empty for ``pass``)."""
        return ("" if (self.setup == "pass" or not self.setup)
                else f"setup:\n{textwrap.indent(self.setup, '  ')}" if "\n" in self.setup
                else f"setup: {self.setup}")

    def summarize(self) -> str:
        """The task's lines in a :class:`Measurement`'s repr."""
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join([f"{i}\n" if "\n" in i else i for i in sections if i])


_TASKSPEC_FIELDS = tuple(i.name for i in dataclasses.fields(TaskSpec))


# ------------------------------------------------------------------ Measurement
@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """The result of a :class:`Timer` measurement: one or more timings of a statement,
    with statistics and a readable ``repr``.

    Args:
        number_per_run (int): executions of the statement per timing.
        raw_times (list of float): seconds each timing took (for all its runs).
        task_spec (TaskSpec): what was timed.
        metadata (dict, optional): user payload.

    Example::

        >>> m = Measurement(10, [1e-5, 2e-5, 3e-5, 4e-5], TaskSpec('x + 1', 'pass'))
        >>> m.median, m.number_per_run
        (2.5e-06, 10)
        >>> print(m)  # doctest: +ELLIPSIS
        <ember.utils.benchmark.utils.common.Measurement object at 0x...>
        x + 1
          Median: 2.50 us
          IQR:    1.50 us (1.75 to 3.25)
          4 measurements, 10 runs per measurement, 1 thread
          WARNING: Interquartile range is 60.0% of the median measurement.
                   This suggests significant environmental influence.
    """
    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: dict = None

    def __post_init__(self) -> None:
        self._sorted_times = ()
        self._warnings = ()
        self._median = -1.0
        self._mean = -1.0
        self._p25 = -1.0
        self._p75 = -1.0

    def __getattr__(self, name):
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        return super().__getattribute__(name)

    @property
    def times(self):
        """Seconds per execution of the statement, one per timing."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        """Median time per execution (seconds)."""
        self._lazy_init()
        return self._median

    @property
    def mean(self) -> float:
        """Mean time per execution (seconds)."""
        self._lazy_init()
        return self._mean

    @property
    def iqr(self) -> float:
        """Interquartile range of the times per execution (seconds)."""
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self) -> int:
        """An estimate of how many significant figures the median has (1 to 4), from the
        spread of the interquartile times (a 90% interval, z = 1.645); :class:`Compare`
        trims to it."""
        self._lazy_init()
        n_total = len(self._sorted_times)
        lower_bound = int(n_total // 4)
        upper_bound = int(_np.ceil(_f32(3 * n_total / 4)))
        pts = [float(_f32(t)) for t in self._sorted_times[lower_bound:upper_bound]]
        if pts:
            mu = math.fsum(pts) / len(pts)
            std = float(_f32(math.sqrt(math.fsum((p - mu) ** 2 for p in pts) / len(pts))))
        else:
            std = float('nan')
        sqrt_n = float(_np.sqrt(_f32(len(pts))))
        confidence_interval = max(1.645 * std / sqrt_n if sqrt_n else float('nan'),
                                  _MIN_CONFIDENCE_INTERVAL)
        relative_ci = _log10_f32(self._median / confidence_interval)
        num_significant_figures = int(_np.floor(relative_ci))
        return min(max(num_significant_figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        """Whether the spread of the times (IQR / median) is above 10%."""
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self) -> None:
        if self.raw_times and not self._sorted_times:
            self._sorted_times = tuple(sorted(self.times))
            s = self._sorted_times
            self._median = _quantile(s, .5)
            self._mean = math.fsum(s) / len(s)
            self._p25 = _quantile(s, .25)
            self._p75 = _quantile(s, .75)

            def add_warning(msg):
                rel_iqr = self.iqr / self.median * 100
                self._warnings += (
                    f"  WARNING: Interquartile range is {rel_iqr:.1f}% "
                    f"of the median measurement.\n           {msg}",)

            if not self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD):
                add_warning("This suggests significant environmental influence.")
            elif not self.meets_confidence(_IQR_WARN_THRESHOLD):
                add_warning("This could indicate system fluctuation.")

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        """Whether IQR / median is below ``threshold``.

        Args:
            threshold (float): the relative spread allowed. Default: 0.1.
        """
        return self.iqr / self.median < threshold

    @property
    def title(self) -> str:
        """The task's title (see :attr:`TaskSpec.title`)."""
        return self.task_spec.title

    @property
    def env(self):
        """The task's ``env`` tag."""
        return self.task_spec.env

    @property
    def as_row_name(self) -> str:
        """The name of the task's row in a :class:`Compare` table."""
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        self._lazy_init()
        skip_line, newline = "MEASUREMENT_REPR_SKIP_LINE", "\n"
        n = len(self._sorted_times)
        time_unit, time_scale = select_unit(self._median)
        iqr_filter = '' if n >= 4 else skip_line
        lines = [
            object.__repr__(self),
            self.task_spec.summarize(),
            f"  {'Median: ' if n > 1 else ''}{self._median / time_scale:.2f} {time_unit}",
            f"  {iqr_filter}IQR:    {self.iqr / time_scale:.2f} {time_unit} "
            f"({self._p25 / time_scale:.2f} to {self._p75 / time_scale:.2f})",
            f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
            f"{'per measurement,' if n > 1 else ','} {self.num_threads} "
            f"thread{'s' if self.num_threads > 1 else ''}",
            newline.join(self._warnings)]
        repr_str = "\n".join(lines).strip()
        return "\n".join(ln for ln in repr_str.splitlines(keepends=False)
                         if skip_line not in ln)

    @staticmethod
    def merge(measurements):
        """Merge replicates of the same task into one measurement each (times scaled to
        ``number_per_run=1``; metadata is dropped).

        Args:
            measurements (iterable of Measurement): the measurements.

        Returns:
            list of Measurement: one per distinct :class:`TaskSpec`, in first-seen order.

        Example::

            >>> spec = TaskSpec('x + 1', 'pass')
            >>> merged = Measurement.merge([Measurement(2, [4e-6], spec), Measurement(1, [1e-6], spec)])
            >>> merged[0].times
            [2e-06, 1e-06]
        """
        grouped = collections.defaultdict(list)
        for m in measurements:
            grouped[m.task_spec].append(m)

        def merge_group(task_spec, group):
            times = []
            for m in group:
                times.extend(m.times)
            return Measurement(number_per_run=1, raw_times=times, task_spec=task_spec,
                               metadata=None)
        return [merge_group(t, g) for t, g in grouped.items()]


def _make_temp_dir(prefix=None, gc_dev_shm=False):
    """A fresh temporary directory (the caller removes it)."""
    import tempfile
    return tempfile.mkdtemp(prefix=prefix)
