"""ember.profiler against torch.profiler: table layout, op names and call counts,
backward rows, chrome traces, schedules, grouping by input shape, memory, flops."""
import gzip
import json
import os
import re
import warnings

import numpy as np
import pytest
import torch

import ember
from ember._ops import _dispatch
from ember.autograd import engine


def _mods():
    return (ember, torch)


def _header(table):
    lines = table.splitlines()
    return [h for h in re.split(r'\s{2,}', lines[1].strip())]


def _counts(prof, names):
    out = {}
    for e in prof.key_averages():
        if e.key in names:
            out[e.key] = e.count
    return out


def _program(m):
    x = m.tensor(np.arange(16, dtype=np.float32).reshape(4, 4) / 10)
    for _ in range(3):
        y = m.mm(x, x)
        z = m.add(y, 1)
        m.relu(z)
    x.sum()
    return x


def _profiled(m, fn, **kw):
    with m.profiler.profile(**kw) as p:
        fn(m)
    return p


# ------------------------------------------------------------------ table
@pytest.mark.parametrize('memory', [False, True])
@pytest.mark.parametrize('shapes', [False, True])
def test_table_headers_equal_torch(memory, shapes):
    heads = []
    for m in _mods():
        p = _profiled(m, _program, record_shapes=shapes, profile_memory=memory)
        t = p.key_averages(group_by_input_shape=shapes).table(sort_by='cpu_time_total')
        heads.append(_header(t))
        assert t.splitlines()[0] == t.splitlines()[2] == t.splitlines()[-2]
        assert re.fullmatch(r'Self CPU time total: [0-9.]+(us|ms|s)', t.splitlines()[-1])
    assert heads[0] == heads[1]
    assert heads[0][0] == 'Name' and heads[0][-1 - shapes] == '# of Calls'
    assert ('CPU Mem' in heads[0]) == memory and ('Input Shapes' in heads[0]) == shapes


def test_column_widths_equal_torch():
    # same names in both -> same line layout (name column = longest name + 4)
    def fn(m):
        with m.profiler.record_function('a_fairly_long_range_name'):
            m.ones(2).sum()
    seps = [_profiled(m, fn).key_averages().table().splitlines()[0] for m in _mods()]
    assert seps[0] == seps[1]


def test_call_counts_equal_torch():
    names = {'aten::mm', 'aten::add', 'aten::relu', 'aten::sum'}
    e, t = (_counts(_profiled(m, _program), names) for m in _mods())
    assert e == t == {'aten::mm': 3, 'aten::add': 3, 'aten::relu': 3, 'aten::sum': 1}


def test_row_names_present_in_table():
    p = _profiled(ember, _program)
    t = p.key_averages().table(row_limit=100)
    for n in ('aten::mm', 'aten::add', 'aten::relu', 'aten::sum'):
        assert re.search(r'\s' + re.escape(n) + r'\s', t)


def test_row_limit_and_sort():
    p = _profiled(ember, _program)
    t = p.key_averages().table(sort_by='count', row_limit=2)
    rows = t.splitlines()[3:-2]
    assert len(rows) == 2
    assert rows[0].split()[-1] == '3'


def test_training_step_names_like_torch():
    """Op and backward-node names of a small CNN step that both record, call counts
    where ember's decomposition matches torch's."""
    def step(m):
        m.manual_seed(0)
        conv, lin = m.nn.Conv2d(1, 2, 3), m.nn.Linear(2 * 3 * 3, 4)
        pool, lossf = m.nn.MaxPool2d(2), m.nn.CrossEntropyLoss()
        x = m.randn(2, 1, 8, 8)
        y = m.tensor([1, 3])
        with m.profiler.profile() as p:
            out = lin(m.relu(pool(conv(x))).flatten(1))
            lossf(out, y).backward()
        return p
    names = ['aten::conv2d', 'aten::max_pool2d', 'aten::relu', 'aten::linear', 'aten::flatten',
             'aten::cross_entropy_loss',
             'autograd::engine::evaluate_function: AddmmBackward0', 'AddmmBackward0',
             'autograd::engine::evaluate_function: ConvolutionBackward0',
             'ConvolutionBackward0', 'ReluBackward0', 'NllLossBackward0',
             'LogSoftmaxBackward0', 'MaxPool2DWithIndicesBackward0',
             'torch::autograd::AccumulateGrad']
    e, t = (_counts(step(m), set(names)) for m in _mods())
    assert e == t
    assert set(e) == set(names)
    assert e['torch::autograd::AccumulateGrad'] == 4


def test_backward_rows_nested_like_torch():
    def fn(m):
        a = m.ones(3, 3, requires_grad=True)
        m.mm(a, a).sum().backward()
    for m in _mods():
        evs = _profiled(m, fn).events()
        ev = [e for e in evs if e.name == 'autograd::engine::evaluate_function: MmBackward0']
        assert len(ev) == 1
        kids = [c.name for c in ev[0].cpu_children]
        assert 'MmBackward0' in kids
        inner = [e for e in evs if e.name == 'SumBackward0'][0]
        assert inner.cpu_parent.name == 'autograd::engine::evaluate_function: SumBackward0'
        assert any(c.name == 'aten::expand' for c in inner.cpu_children)


# ------------------------------------------------------------------ chrome trace
def test_chrome_trace_json_and_nesting(tmp_path):
    def fn(m):
        with m.profiler.record_function('outer'):
            with m.profiler.record_function('inner'):
                m.mm(m.ones(3, 3), m.ones(3, 3))
    for m in _mods():
        p = _profiled(m, fn)
        path = str(tmp_path / f'{m.__name__}.json')
        p.export_chrome_trace(path)
        with open(path) as f:
            tr = json.load(f)
        evs = {e['name']: e for e in tr['traceEvents'] if e.get('ph') == 'X'}
        for e in evs.values():
            for k in ('name', 'ts', 'dur', 'pid', 'tid'):
                assert k in e
        o, i, mm = evs['outer'], evs['inner'], evs['aten::mm']
        assert o['ts'] <= i['ts'] and i['ts'] + i['dur'] <= o['ts'] + o['dur']
        assert i['ts'] <= mm['ts'] and mm['ts'] + mm['dur'] <= i['ts'] + i['dur']
        assert o['tid'] == i['tid'] == mm['tid']


def test_record_function_parents():
    with ember.profiler.profile() as p:
        with ember.profiler.record_function('outer'):
            with ember.profiler.record_function('inner'):
                ember.ones(2).add(1)
    ev = {e.name: e for e in p.events()}
    assert ev['inner'].cpu_parent is ev['outer']
    assert ev['aten::add'].cpu_parent is ev['inner']
    assert ev['outer'].cpu_time_total >= ev['inner'].cpu_time_total
    assert ev['outer'].self_cpu_time_total == pytest.approx(
        ev['outer'].cpu_time_total - ev['inner'].cpu_time_total)


def test_record_function_decorator_and_off():
    @ember.profiler.record_function('deco')
    def f(x):
        return x * 2
    f(ember.ones(2))            # no profiler: a plain call
    with ember.profiler.profile() as p:
        f(ember.ones(2))
        f(ember.ones(2))
    c = _counts(p, {'deco', 'aten::mul'})
    assert c == {'deco': 2, 'aten::mul': 2}


def test_tensorboard_trace_handler(tmp_path):
    for gz in (False, True):
        d = tmp_path / f'log{int(gz)}'
        h = ember.profiler.tensorboard_trace_handler(str(d), worker_name='w0', use_gzip=gz)
        with ember.profiler.profile(
                schedule=ember.profiler.schedule(wait=0, warmup=1, active=1),
                on_trace_ready=h) as p:
            for _ in range(3):
                ember.ones(2).sum()
                p.step()
        files = sorted(os.listdir(d))
        assert files and all(re.fullmatch(r'w0\.\d+\.pt\.trace\.json' + (r'\.gz' if gz else ''),
                                          f) for f in files)
        opener = gzip.open if gz else open
        with opener(d / files[0], 'rt') as f:
            tr = json.load(f)
        assert any(e['name'] == 'aten::sum' for e in tr['traceEvents'])


# ------------------------------------------------------------------ schedule
@pytest.mark.parametrize('kw', [dict(wait=1, warmup=1, active=2),
                                dict(wait=1, warmup=1, active=2, repeat=1, skip_first=1),
                                dict(wait=0, warmup=1, active=1, repeat=2),
                                dict(wait=2, warmup=1, active=1, skip_first=3, skip_first_wait=1)])
def test_schedule_actions_equal_torch(kw):
    es = ember.profiler.schedule(**kw)
    ts = torch.profiler.schedule(**kw)
    assert [es(i).name for i in range(20)] == [ts(i).name for i in range(20)]


def test_schedule_errors_and_warning():
    for m in _mods():
        with pytest.raises(AssertionError):
            m.profiler.schedule(wait=0, warmup=0, active=0)
        with pytest.warns(UserWarning, match='warmup'):
            m.profiler.schedule(wait=0, warmup=0, active=1)


@pytest.mark.parametrize('kw', [dict(wait=1, warmup=1, active=2, repeat=2),
                                dict(wait=0, warmup=1, active=1, skip_first=2)])
def test_schedule_recorded_steps_equal_torch(kw):
    res = []
    for m in _mods():
        ready = []

        def on_ready(prof):
            assert isinstance(prof, m.profiler.profile)
            names = sorted({e.name for e in prof.events()
                            if e.name.startswith('step') or e.name.startswith('ProfilerStep')})
            ready.append((prof.step_num, names))
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with m.profiler.profile(schedule=m.profiler.schedule(**kw),
                                    on_trace_ready=on_ready) as p:
                for i in range(9):
                    with m.profiler.record_function(f'step{i}'):
                        m.ones(2).add(1)
                    p.step()
        res.append(ready)
    assert res[0] == res[1]
    assert res[0]


def test_stop_while_recording_calls_on_trace_ready():
    for m in _mods():
        calls = []
        p = m.profiler.profile(on_trace_ready=calls.append)
        p.start()
        m.ones(2).sum()
        p.stop()
        assert calls == [p]
        assert any(e.name == 'aten::sum' for e in p.events())


# ------------------------------------------------------------------ grouping, memory, flops
def test_group_by_input_shape_equal_torch():
    def fn(m):
        a, b = m.ones(2, 3), m.ones(3, 4)
        m.mm(a, b)
        m.mm(a, b)
        m.mm(b.t(), a.t())
    rows = []
    for m in _mods():
        p = _profiled(m, fn, record_shapes=True)
        rows.append(sorted((e.key, str(e.input_shapes), e.count)
                           for e in p.key_averages(group_by_input_shape=True)
                           if e.key == 'aten::mm'))
        assert [e.count for e in p.key_averages() if e.key == 'aten::mm'] == [3]
    assert rows[0] == rows[1] == [('aten::mm', '[[2, 3], [3, 4]]', 2),
                                  ('aten::mm', '[[4, 3], [3, 2]]', 1)]


def test_input_shapes_column_in_table():
    p = _profiled(ember, lambda m: m.mm(m.ones(2, 3), m.ones(3, 4)), record_shapes=True)
    t = p.key_averages(group_by_input_shape=True).table()
    assert 'Input Shapes' in t and '[[2, 3], [3, 4]]' in t


def test_memory_equal_torch():
    def fn(m):
        a = m.ones(4, 4)
        m.mm(a, a)
        m.add(a, a)
        a.add_(1)
        a.view(16)
    mems = []
    for m in _mods():
        p = _profiled(m, fn, profile_memory=True)
        mems.append({e.key: e.self_cpu_memory_usage for e in p.key_averages()
                     if e.key in ('aten::mm', 'aten::add', 'aten::add_', 'aten::view')})
        t = p.key_averages().table()
        assert 'CPU Mem' in t and 'Self CPU Mem' in t
    # torch's add_ reports the release of its wrapped scalar (-4 B); ember allocates nothing
    assert mems[0].pop('aten::add_') == 0
    mems[1].pop('aten::add_')
    assert mems[0] == mems[1] == {'aten::mm': 64, 'aten::add': 64, 'aten::view': 0}


def test_flops_equal_torch():
    def fn(m):
        m.mm(m.ones(2, 3), m.ones(3, 5))
    fl = []
    for m in _mods():
        p = _profiled(m, fn, with_flops=True)
        fl.append([e.flops for e in p.events() if e.name == 'aten::mm'])
        assert 'FLOPs' in p.key_averages().table()
    assert fl[0] == fl[1] == [60]


def test_export_stacks(tmp_path):
    with ember.profiler.profile(with_stack=True) as p:
        ember.mm(ember.ones(30, 30), ember.ones(30, 30))
    path = tmp_path / 'st.txt'
    p.export_stacks(str(path), 'self_cpu_time_total')
    lines = path.read_text().splitlines()
    assert lines and all(re.fullmatch(r'[^ ]+ \d+', ln) for ln in lines)
    assert any('test_profiler.py' in ln for ln in lines)
    with pytest.raises(ValueError):
        p.export_stacks(str(path), 'bogus')
    ev = [e for e in p.events() if e.name == 'aten::mm'][0]
    assert 'test_profiler.py' in ev.stack[0]


# ------------------------------------------------------------------ API surface
def test_enums_equal_torch():
    assert {k: int(v) for k, v in ember.profiler.ProfilerActivity.__members__.items()} == \
        {k: int(v) for k, v in torch.profiler.ProfilerActivity.__members__.items()}
    assert [(a.name, a.value) for a in ember.profiler.ProfilerAction] == \
        [(a.name, a.value) for a in torch.profiler.ProfilerAction]
    assert ember.profiler.supported_activities() == {ember.profiler.ProfilerActivity.CPU}
    assert ember.profiler.DeviceType.CPU == 0 and ember.profiler.DeviceType.CUDA == 1


def test_no_cost_when_off():
    assert not _dispatch.observing() and engine._profile_hook is None
    raw = ember.Tensor.add
    with ember.profiler.profile():
        assert _dispatch.observing() and engine._profile_hook is not None
        assert ember.Tensor.add is not raw
    assert not _dispatch.observing() and engine._profile_hook is None
    assert ember.Tensor.add is raw


def test_nested_profilers_raise():
    with ember.profiler.profile():
        with pytest.raises(RuntimeError, match='already enabled'):
            with ember.profiler.profile():
                pass
    assert not _dispatch.observing()


def test_acc_events_keeps_cycles_like_torch():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for acc in (False, True):
            res = []
            for m in _mods():
                with m.profiler.profile(schedule=m.profiler.schedule(wait=0, warmup=0, active=1),
                                        acc_events=acc) as p:
                    for _ in range(2):
                        m.ones(2).sum()
                        p.step()
                res.append(([e.count for e in p.key_averages() if e.key == 'aten::sum'],
                            sorted(e.trace_name for e in p.events() if 'Profiler' in e.name)))
            assert res[0] == res[1]
            assert res[0][0] == ([2] if acc else [])


def test_execution_trace_observer(tmp_path):
    path = str(tmp_path / 'et.json')
    et = ember.profiler.ExecutionTraceObserver().register_callback(path)
    assert et.is_registered() and et.get_output_file_path() == path
    et.start()
    ember.mm(ember.ones(2, 2), ember.ones(2, 2))
    et.stop()
    et.unregister_callback()
    with open(path) as f:
        nodes = json.load(f)['nodes']
    assert any(n['name'] == 'aten::mm' and n['inputs']['shapes'] == [[2, 2], [2, 2]]
               for n in nodes)
    assert not _dispatch.observing()


def test_events_and_total_average():
    p = _profiled(ember, _program)
    evs = p.events()
    assert [e.time_range.start for e in evs] == sorted(e.time_range.start for e in evs)
    tot = evs.total_average()
    assert tot.key == 'Total' and tot.count == len(evs)
    assert evs.self_cpu_time_total == pytest.approx(sum(e.self_cpu_time_total for e in evs))


def test_indexing_and_forwarding_bindings_like_torch():
    def fn(m):
        x = m.ones(3, 3)
        x[0]
        x[:1]
        x[1:, 0]
        x[m.tensor([0, 2])]
        m.nn.ReLU()(x)
        m.nn.functional.relu(x)
        x.relu()
    names = {'aten::select', 'aten::slice', 'aten::index', 'aten::relu'}
    e, t = (_counts(_profiled(m, fn), names) for m in _mods())
    assert e['aten::relu'] == t['aten::relu'] == 3
    assert e['aten::index'] == t['aten::index'] == 1
    assert set(e) == names and e['aten::select'] >= 1 and e['aten::slice'] >= 1


def test_toggle_collection_dynamic():
    acts = [ember.profiler.ProfilerActivity.CPU]
    with ember.profiler.profile(activities=acts) as p:
        ember.ones(2).neg()
        p.toggle_collection_dynamic(False, acts)
        assert not _dispatch.observing()
        ember.ones(2).exp()
        p.toggle_collection_dynamic(True, acts)
        ember.ones(2).abs()
    names = {e.name for e in p.events()}
    assert {'aten::neg', 'aten::abs'} <= names and 'aten::exp' not in names
    assert not _dispatch.observing()


def test_legacy_names_and_config():
    ap = ember.autograd.profiler
    assert ap.ProfilerActivity is ember.profiler.ProfilerActivity
    assert ap.MEMORY_EVENT_NAME == torch.autograd.profiler.MEMORY_EVENT_NAME
    p = ap.profile(record_shapes=True, custom_trace_id_callback=lambda: 'abc')
    c = p.config(create_trace_id=True)
    assert c.report_input_shapes and c.trace_id == 'abc'
    u = ap.EnforceUnique()
    u.see('a', 1)
    with pytest.raises(RuntimeError):
        u.see('a', 1)


def test_linalg_names_like_torch():
    def fn(m):
        a = m.eye(3) * 2
        m.linalg.inv(a)
        m.linalg.det(a)
        m.linalg.vector_norm(a)
        m.linalg.multi_dot([a, a, a])
    names = {'aten::linalg_inv', 'aten::linalg_det', 'aten::linalg_vector_norm',
             'aten::linalg_multi_dot'}
    e, t = (_counts(_profiled(m, fn), names) for m in _mods())
    assert e == t and set(e) == names
