""":class:`Timer`: ``timeit`` made aware of ember (warm-up, thread count, replicates,
labels for :class:`Compare`)."""
import enum
import textwrap
import timeit

from . import common

__all__ = ["Timer", "timer", "Language"]


def timer() -> float:
    """The default clock of :class:`Timer`: ``timeit.default_timer()``, after waiting for
    the accelerator when one is in use.

    Example::

        >>> t0 = timer(); t1 = timer(); t1 >= t0
        True
    """
    try:
        import ember
        if ember.accelerator.is_available():
            ember.accelerator.synchronize()
    except Exception:
        pass
    return timeit.default_timer()


class Language(enum.Enum):
    """The language of a :class:`Timer`'s statement.

    Example::

        >>> Language.PYTHON.value
        0
    """
    PYTHON = 0
    CPP = 1


class Timer:
    """Measures the execution time of a Python statement, as ``timeit.Timer`` does
    (setup once per timing, the statement ``number`` times in a loop), with a warm-up,
    the thread count set for the run, replicate timings and labels for :class:`Compare`.

    Args:
        stmt (str): the statement to time. Default: ``'pass'``.
        setup (str): code run before each timing (defines what ``stmt`` uses).
            Default: ``'pass'``.
        global_setup (str): C++ only; must be empty for Python. Default: ``''``.
        timer (callable): the clock, returning seconds. Default: :func:`timer`.
        globals (dict, optional): the global variables ``stmt`` and ``setup`` run with
            (copied; ``ember`` and ``torch`` default to the ``ember`` module).
        label (str, optional): what ``stmt`` does (a table's title in :class:`Compare`).
        sub_label (str, optional): distinguishes measurements of the same label (a
            row).
        description (str, optional): distinguishes measurements of the same label and
            sub-label (a column, e.g. the input size).
        env (str, optional): marks measurements taken in different environments.
        num_threads (int): ``ember.set_num_threads`` for the run. Default: 1.
        language (Language or str): ``'python'`` (``'py'``). Default: Python.

    Raises:
        ValueError: ``stmt`` is not a string, ``global_setup`` is given for Python, or
            the language is unknown.

    Example::

        >>> t = Timer('x + y', setup='x = ember.ones(3); y = ember.ones(3)')
        >>> m = t.timeit(100)
        >>> m.number_per_run
        100

    NOTE: unlike PyTorch, C++ statements (``language='cpp'``) are not supported (no C++
    toolchain is part of ember): they raise ``NotImplementedError``; and the ``torch``
    global is the ``ember`` module.
    """

    _timer_cls = timeit.Timer

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None,
                 label=None, sub_label=None, description=None, env=None, num_threads=1,
                 language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        self._globals = dict(globals or {})
        if language in (Language.PYTHON, "py", "python"):
            import ember
            self._globals.setdefault("ember", ember)
            self._globals.setdefault("torch", ember)
            self._language = Language.PYTHON
            if global_setup:
                raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most "
                                 "likely this code can simply be moved to `setup`.")
        elif language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError("ember's Timer measures Python statements only: C++ "
                                      "timing needs PyTorch's C++ toolchain.")
        else:
            raise ValueError(f"Invalid language `{language}`.")

        stmt = textwrap.dedent(stmt)
        stmt = (stmt[1:] if stmt and stmt[0] == "\n" else stmt).rstrip()
        setup = textwrap.dedent(setup)
        setup = (setup[1:] if setup and setup[0] == "\n" else setup).rstrip()

        self._timer = self._timer_cls(stmt=stmt, setup=setup, timer=timer,
                                      globals=self._globals)
        self._task_spec = common.TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup,
                                          label=label, sub_label=sub_label,
                                          description=description, env=env,
                                          num_threads=num_threads)

    def _timeit(self, number):
        # never report zero: the statistics divide by the times
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number=1000000):
        """Run ``stmt`` ``number`` times (after a warm-up of ``max(number // 100, 2)``
        runs) and time it, as ``timeit.Timer.timeit``.

        Args:
            number (int): executions of the statement. Default: 1000000.

        Returns:
            Measurement: one timing of ``number`` runs.

        Example::

            >>> Timer('1 + 1').timeit(10).number_per_run
            10
        """
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))
            return common.Measurement(number_per_run=number,
                                      raw_times=[self._timeit(number=number)],
                                      task_spec=self._task_spec)

    def repeat(self, repeat=-1, number=-1):
        """Not provided (as in PyTorch): use :meth:`blocked_autorange`.

        Raises:
            NotImplementedError: always.
        """
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        """Not provided (as in PyTorch): use :meth:`blocked_autorange`.

        Raises:
            NotImplementedError: always.
        """
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _threaded_measurement_loop(self, number, time_hook, stop_hook, min_run_time,
                                   max_run_time=None, callback=None):
        total_time = 0.0
        can_stop = False
        times = []
        with common.set_torch_threads(self._task_spec.num_threads):
            while (total_time < min_run_time) or (not can_stop):
                time_spent = time_hook()
                times.append(time_spent)
                total_time += time_spent
                if callback:
                    callback(number, time_spent)
                can_stop = stop_hook(times)
                if max_run_time and total_time > max_run_time:
                    break
        return times

    def _estimate_block_size(self, min_run_time):
        with common.set_torch_threads(self._task_spec.num_threads):
            overhead = common._quantile_lower_median([self._timeit(0) for _ in range(5)])
            number = 1
            while True:
                time_taken = self._timeit(number)
                relative_overhead = overhead / time_taken
                if relative_overhead <= 1e-4 and time_taken >= min_run_time / 1000:
                    break
                if time_taken > min_run_time:
                    break
                if number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Time blocks of ``block_size`` runs until ``min_run_time`` seconds are spent.

        The block size is found first: starting at 1 and growing tenfold until the cost
        of reading the clock is at most 0.01% of a block (and a block takes at least
        ``min_run_time / 1000``) or a block takes longer than ``min_run_time``.

        Args:
            callback (callable, optional): called as ``callback(block_size, seconds)``
                after each block.
            min_run_time (float): total seconds to spend timing. Default: 0.2.

        Returns:
            Measurement: one timing per block.

        Example::

            >>> m = Timer('sum(range(100))').blocked_autorange(min_run_time=0.01)
            >>> len(m.times) >= 1
            True
        """
        number = self._estimate_block_size(min_run_time)

        def time_hook():
            return self._timeit(number)

        def stop_hook(times):
            return True

        times = self._threaded_measurement_loop(number, time_hook, stop_hook,
                                                min_run_time=min_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0,
                           callback=None):
        """Like :meth:`blocked_autorange`, but keeps timing blocks until the spread is
        small (IQR / median below ``threshold``, with more than 3 blocks and at least
        ``min_run_time`` seconds) or ``max_run_time`` seconds are spent.

        Args:
            threshold (float): the relative spread to reach. Default: 0.1.
            min_run_time (float): seconds to spend before checking the spread.
                Default: 0.01.
            max_run_time (float): seconds after which timing stops regardless.
                Default: 10.
            callback (callable, optional): called as ``callback(block_size, seconds)``
                after each block.

        Returns:
            Measurement: one timing per block.

        Example::

            >>> m = Timer('sum(range(100))').adaptive_autorange(max_run_time=0.1)
            >>> m.number_per_run >= 1
            True
        """
        number = self._estimate_block_size(min_run_time=0.05)

        def time_hook():
            return self._timeit(number)

        def stop_hook(times):
            if len(times) > 3:
                return common.Measurement(number_per_run=number, raw_times=times,
                                          task_spec=self._task_spec
                                          ).meets_confidence(threshold=threshold)
            return False
        times = self._threaded_measurement_loop(number, time_hook, stop_hook, min_run_time,
                                                max_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)

    def collect_callgrind(self, number=100, *, repeats=None, collect_baseline=True,
                          retain_out_file=False):
        """Not available: instruction counts need Valgrind and PyTorch's compiled
        bindings.

        Raises:
            NotImplementedError: always.

        NOTE: unlike PyTorch, ember has no Callgrind support.
        """
        raise NotImplementedError("collect_callgrind is not supported by ember (it needs "
                                  "Valgrind and PyTorch's compiled Callgrind bindings).")
