"""ember.utils.benchmark against torch.utils.benchmark: Measurement statistics and repr,
Compare tables built from the same fixed raw times, and Timer behaviour (calls made,
globals, setup, errors) driven by a fake clock so that nothing depends on real timings."""
import random
import timeit

import pytest
import torch
import torch.utils.benchmark as TB

import ember
import ember.utils.benchmark as EB


def _strip_first(r):
    # the first line is object.__repr__ (module path and address differ)
    first, _, rest = r.partition('\n')
    assert first.startswith('<') and first.endswith('>') and 'Measurement object at' in first
    return rest


def _pair(number, raw, stmt='x + 1', setup='pass', **kw):
    return (TB.Measurement(number, list(raw), TB.TaskSpec(stmt, setup, **kw)),
            EB.Measurement(number, list(raw), EB.TaskSpec(stmt, setup, **kw)))


def _check_measurement(t, e):
    for a in ('median', 'iqr', 'times', 'number_per_run', 'raw_times', 'significant_figures',
              'has_warnings', 'title', 'as_row_name', 'env', 'label', 'sub_label',
              'description', 'num_threads', 'stmt', 'setup', 'metadata'):
        assert getattr(e, a) == getattr(t, a), a
    assert e.mean == pytest.approx(t.mean, rel=1e-14, abs=0)
    for th in (0.05, 0.1, 0.5):
        assert e.meets_confidence(th) == t.meets_confidence(th)
    assert _strip_first(repr(e)) == _strip_first(repr(t))
    assert repr(e).startswith('<ember.utils.benchmark.utils.common.Measurement object at 0x')


FIXED = [
    (1, [1.5e-6]),
    (100, [2e-4, 2.2e-4]),
    (10, [1e-5, 2e-5, 3e-5]),
    (10, [1e-5, 2e-5, 3e-5, 4e-5]),                       # IQR warning (gross)
    (1000, [5.73e-3, 5.70e-3, 5.75e-3, 5.9e-3, 5.72e-3]),  # tight
    (1, [0.5, 0.52, 0.61, 0.55, 0.58, 0.57, 0.9]),        # "system fluctuation"
    (7, [3e-8, 3.1e-8, 2.9e-8, 3e-8]),                    # ns
    (1, [12.0, 13.0, 12.5, 12.2]),                        # s
    (3, [1e-9, 1e-9, 1e-9, 1e-9]),                        # zero IQR
]


@pytest.mark.parametrize('number,raw', FIXED)
@pytest.mark.parametrize('kw', [{}, dict(label='add', sub_label='float', description='n=4'),
                                dict(label='add', num_threads=4, env='A'),
                                dict(sub_label='s')])
def test_measurement_fixed(number, raw, kw):
    _check_measurement(*_pair(number, raw, **kw))


@pytest.mark.parametrize('stmt,setup', [('y = x\ny += 1', 'pass'), ('x + 1', 'x = 1'),
                                        ('x + 1', 'x = 1\ny = 2'), ('', '')])
def test_measurement_multiline_summaries(stmt, setup):
    _check_measurement(*_pair(10, [1e-5, 1.2e-5, 1.1e-5, 1.3e-5], stmt, setup))
    _check_measurement(*_pair(10, [1e-5, 1.2e-5, 1.1e-5, 1.3e-5], stmt, setup,
                              sub_label='sub', description='desc'))


def test_measurement_random():
    rng = random.Random(0)
    for _ in range(200):
        n = rng.choice([1, 2, 3, 4, 5, 7, 10, 33])
        scale = 10 ** rng.uniform(-9, 1)
        raw = [scale * rng.uniform(0.5, 1.5) ** rng.choice([1, 3]) for _ in range(n)]
        _check_measurement(*_pair(rng.choice([1, 10, 1000]), raw, num_threads=rng.choice([1, 2])))


def test_measurement_merge_and_metadata():
    ts = TB.TaskSpec('x + 1', 'pass', label='L')
    es = EB.TaskSpec('x + 1', 'pass', label='L')
    ts2 = TB.TaskSpec('x + 2', 'pass', label='L')
    es2 = EB.TaskSpec('x + 2', 'pass', label='L')
    t = TB.Measurement.merge([TB.Measurement(2, [4e-6, 5e-6], ts, {'a': 1}),
                              TB.Measurement(1, [1e-6], ts2),
                              TB.Measurement(5, [2e-5], ts)])
    e = EB.Measurement.merge([EB.Measurement(2, [4e-6, 5e-6], es, {'a': 1}),
                              EB.Measurement(1, [1e-6], es2),
                              EB.Measurement(5, [2e-5], es)])
    assert len(e) == len(t) == 2
    for a, b in zip(t, e):
        assert b.number_per_run == a.number_per_run == 1
        assert b.raw_times == a.raw_times and b.metadata is a.metadata is None
        _check_measurement(a, b)
    assert es == EB.TaskSpec('x + 1', 'pass', label='L') and hash(es) == hash(
        EB.TaskSpec('x + 1', 'pass', label='L'))


def test_helpers():
    for x in (1e-10, 9.99e-10, 1e-9, 5e-7, 1e-6, 1e-3, 0.5, 1.0, 3e3):
        assert EB.select_unit(x) == TB.select_unit(x)
    for x, n in ((3.14159, 2), (3.14159, 1), (0.000123456, 3), (98765.4, 2), (1.0, 4),
                 (9.99, 2), (12.5, 2)):
        assert EB.trim_sigfig(x, n) == TB.trim_sigfig(x, n)
    for u in ('ns', 'us', 'ms', 's'):
        assert EB.unit_to_english(u) == TB.unit_to_english(u)
    assert EB.ordered_unique([3, 1, 3, 2, 1]) == TB.ordered_unique([3, 1, 3, 2, 1])
    with pytest.raises(AssertionError):
        EB.trim_sigfig(1.0, 1.5)
    prior = ember.get_num_threads()
    with EB.set_torch_threads(1):
        assert ember.get_num_threads() == 1
    assert ember.get_num_threads() == prior


# ------------------------------------------------------------------ Compare
def _measurements(lib, rng_seed=0, envs=(None,), threads=(1,)):
    rng = random.Random(rng_seed)
    B = TB if lib is torch else EB
    out = []
    for env in envs:
        for nt in threads:
            for label in ('add', 'matmul'):
                for sub in ('float', 'int', None):
                    for desc in ('n=1', 'n=64', 'n=1024'):
                        scale = {'n=1': 2e-6, 'n=64': 9e-6, 'n=1024': 3e-4}[desc]
                        n = rng.choice([1, 4, 9])
                        spread = rng.choice([0.01, 0.05, 0.3])
                        raw = [scale * (1 + spread * rng.uniform(-1, 1)) for _ in range(n)]
                        stmt = 'x + y' if label == 'add' else 'x @ y'
                        out.append(B.Measurement(rng.choice([1, 10]), raw, B.TaskSpec(
                            stmt, 'pass', label=label, sub_label=sub, description=desc,
                            env=env, num_threads=nt)))
    return out


@pytest.mark.parametrize('opts', [(), ('trim',), ('colorize',), ('colorize_rows',),
                                  ('highlight',), ('trim', 'colorize', 'highlight')])
@pytest.mark.parametrize('kw', [{}, dict(envs=('A', 'B')), dict(threads=(1, 4)),
                                dict(envs=('A', 'longer env'), threads=(2, 1))])
def test_compare_tables(opts, kw):
    strs = []
    for lib in (torch, ember):
        B = TB if lib is torch else EB
        c = B.Compare(_measurements(lib, **kw))
        if 'trim' in opts:
            c.trim_significant_figures()
        if 'colorize' in opts:
            c.colorize()
        if 'colorize_rows' in opts:
            c.colorize(rowwise=True)
        if 'highlight' in opts:
            c.highlight_warnings()
        strs.append(str(c))
    assert strs[1] == strs[0]


def test_compare_print_extend_and_errors(capsys):
    t = TB.Compare(_measurements(torch)[:5])
    e = EB.Compare(_measurements(ember)[:5])
    t.extend_results(_measurements(torch)[5:12])
    e.extend_results(_measurements(ember)[5:12])
    t.print()
    out_t = capsys.readouterr().out
    e.print()
    assert capsys.readouterr().out == out_t
    for B in (TB, EB):
        with pytest.raises(ValueError, match="Expected an instance of `Measurement`, got "
                                             "<class 'int'> instead."):
            B.Compare([1])
    assert EB.Colorize('rowwise') is EB.Colorize.ROWWISE
    assert [c.value for c in EB.Colorize] == [c.value for c in TB.Colorize]


def test_compare_single_measurements():
    def build(B, d):
        return str(B.Compare([B.Measurement(1, [1.5e-3], B.TaskSpec('f()', 'pass', description=d)),
                              B.Measurement(1, [2.5e-3], B.TaskSpec('g()', 'pass', description=d))]))
    assert build(EB, 'a') == build(TB, 'a')
    for B in (TB, EB):      # no description: torch's table cannot name the column
        with pytest.raises(TypeError):
            build(B, None)


# ------------------------------------------------------------------ Timer
class _Clock:
    """A fake clock: advances by ``tick`` per read, and by ``work`` per statement run."""

    def __init__(self, tick=1e-7, work=1e-5):
        self.t, self.tick, self.work = 0.0, tick, work
        self.stmt_calls = self.setup_calls = 0

    def __call__(self):
        self.t += self.tick
        return self.t

    def run(self):
        self.stmt_calls += 1
        self.t += self.work

    def setup(self):
        self.setup_calls += 1


def _timers(stmt='clock.run()', setup='clock.setup()', **kw):
    out = []
    for B in (TB, EB):
        c = _Clock()
        out.append((B.Timer(stmt, setup=setup, timer=c, globals={'clock': c}, **kw), c))
    return out


@pytest.mark.parametrize('number', [1, 5, 100, 1000])
def test_timeit_calls_and_result(number):
    res = []
    for timer, clock in _timers(label='L', description='d'):
        m = timer.timeit(number)
        res.append((clock.stmt_calls, clock.setup_calls, m.number_per_run, m.raw_times, m))
    (ts, tset, tn, traw, tm), (es, eset, en, eraw, em) = res
    assert (es, eset, en) == (ts, tset, tn)
    assert es == number + max(number // 100, 2)     # warm-up, then the timed runs
    assert eset == 2                                # setup once per timing
    assert eraw == pytest.approx(traw, rel=1e-12)
    assert em.label == 'L' and em.description == 'd'


@pytest.mark.parametrize('min_run_time', [0.0001, 0.01, 0.2])
@pytest.mark.parametrize('work', [1e-6, 1e-4, 0.05])
def test_blocked_autorange_deterministic(min_run_time, work):
    res = []
    for B in (TB, EB):
        c = _Clock(work=work)
        calls = []
        t = B.Timer('clock.run()', setup='clock.setup()', timer=c, globals={'clock': c})
        m = t.blocked_autorange(callback=lambda n, s: calls.append(n), min_run_time=min_run_time)
        res.append((c.stmt_calls, c.setup_calls, m.number_per_run, len(m.raw_times), calls, m))
    assert res[1][:5] == res[0][:5]
    assert res[1][5].raw_times == pytest.approx(res[0][5].raw_times, rel=1e-9)


@pytest.mark.parametrize('threshold,max_run_time', [(0.1, 10.0), (0.0, 0.05), (0.5, 1.0)])
def test_adaptive_autorange_deterministic(threshold, max_run_time):
    res = []
    for B in (TB, EB):
        c = _Clock(work=2e-4)
        src = random.Random(3)

        def run():
            c.stmt_calls += 1
            c.t += 2e-4 * (1 + 0.3 * src.random())
        t = B.Timer('run()', timer=c, globals={'run': run})
        m = t.adaptive_autorange(threshold, max_run_time=max_run_time)
        res.append((c.stmt_calls, m.number_per_run, len(m.raw_times), m))
    assert res[1][:3] == res[0][:3]
    assert res[1][3].raw_times == pytest.approx(res[0][3].raw_times, rel=1e-9)


def test_timer_globals_setup_and_dedent():
    for B in (TB, EB):
        seen = {}
        t = B.Timer("""
            out.append(x + y)
            """, setup="""
            y = 2
            """, globals={'x': 1, 'out': seen.setdefault('out', [])})
        assert t._task_spec.stmt == 'out.append(x + y)' and t._task_spec.setup == 'y = 2'
        t.timeit(3)
        assert seen['out'] == [3] * 5
    g = {'x': 1}
    EB.Timer('x', globals=g)
    assert g == {'x': 1}                       # the caller's dict is copied, not changed
    t = EB.Timer('ember.ones(2) + torch.ones(2)')
    assert t._globals['ember'] is ember and t._globals['torch'] is ember
    t.timeit(2)


def test_timer_errors():
    for B in (TB, EB):
        with pytest.raises(ValueError, match='Currently only a `str` stmt is supported.'):
            B.Timer(lambda: 1)
        with pytest.raises(ValueError, match='global_setup is C\\+\\+ only'):
            B.Timer('pass', global_setup='#include <x>')
        with pytest.raises(ValueError, match='Invalid language `java`'):
            B.Timer('pass', language='java')
        with pytest.raises(NotImplementedError, match='See `Timer.blocked_autorange.`'):
            B.Timer().repeat()
        with pytest.raises(NotImplementedError, match='See `Timer.blocked_autorange.`'):
            B.Timer().autorange()
        with pytest.raises(SyntaxError):
            B.Timer('x = = 1')
        with pytest.raises(NameError):
            B.Timer('undefined_name_xyz').timeit(1)
        with pytest.raises(ZeroDivisionError):
            B.Timer('1 / 0').timeit(1)
    with pytest.raises(NotImplementedError):
        EB.Timer('pass', language='cpp')
    with pytest.raises(NotImplementedError):
        EB.Timer().collect_callgrind()
    with pytest.raises(NotImplementedError):
        EB.CallgrindStats()


def test_timer_task_spec_and_threads():
    for B in (TB, EB):
        t = B.Timer('x', setup='x = 1', label='L', sub_label='S', description='D', env='E',
                    num_threads=2)
        ts = t._task_spec
        assert (ts.stmt, ts.setup, ts.label, ts.sub_label, ts.description, ts.env,
                ts.num_threads) == ('x', 'x = 1', 'L', 'S', 'D', 'E', 2)
    seen = []
    c = _Clock()
    EB.Timer('seen.append(ember.get_num_threads()); clock.run()', timer=c,
             globals={'seen': seen, 'clock': c}, num_threads=1).timeit(4)
    assert set(seen) == {1}
    assert EB.Timer()._timer.timer is EB.timer and isinstance(EB.Timer()._timer, timeit.Timer)


def test_real_timer_smoke():
    m = EB.Timer('x + 1', setup='x = ember.ones(4)').blocked_autorange(min_run_time=0.01)
    assert m.number_per_run >= 1 and len(m.raw_times) >= 1 and m.median > 0
    assert 'x + 1' in repr(m)


def test_measurement_pickles_and_compares():
    import pickle
    t, e = _pair(10, [1e-5, 2e-5, 3e-5, 4e-5], label='L')
    e.metadata = {'a': 1}
    e2 = pickle.loads(pickle.dumps(e))
    assert e2 == e and e2.metadata == {'a': 1} and e2.label == 'L'
    _check_measurement(t, pickle.loads(pickle.dumps(_pair(10, [1e-5, 2e-5, 3e-5, 4e-5],
                                                          label='L')[1])))
