"""ember.autograd.profiler (the legacy profiler API) against torch.autograd.profiler."""
import json
import re

import numpy as np
import pytest
import torch

import ember
from ember._ops import _dispatch
from ember.autograd import engine
from ember.autograd.profiler_util import _format_memory, _format_time


def _prog(m):
    a = m.tensor(np.ones((3, 4), np.float32), requires_grad=True)
    b = m.tensor(np.ones((4, 2), np.float32))
    with m.autograd.profiler.record_function('fwd'):
        y = m.mm(a, b)
        z = m.mul(y, 2)
    z.sum().backward()


def _run(m, **kw):
    with m.autograd.profiler.profile(**kw) as p:
        _prog(m)
    return p


def test_counts_and_names_equal_torch():
    # (aten::mm is left out: torch's MmBackward0 calls aten::mm, ember's computes on arrays)
    names = {'fwd', 'aten::mul', 'aten::sum', 'MmBackward0', 'MulBackward0',
             'SumBackward0', 'autograd::engine::evaluate_function: MmBackward0',
             'torch::autograd::AccumulateGrad'}
    res = []
    for m in (ember, torch):
        p = _run(m)
        res.append({e.key: e.count for e in p.key_averages() if e.key in names})
    assert res[0] == res[1]
    assert set(res[0]) == names


def test_function_events_tree():
    p = _run(ember)
    evs = p.function_events
    fwd = [e for e in evs if e.name == 'fwd'][0]
    assert {c.name for c in fwd.cpu_children} == {'aten::mm', 'aten::mul'}
    for c in fwd.cpu_children:
        assert c.cpu_parent is fwd
        assert fwd.time_range.start <= c.time_range.start <= c.time_range.end <= fwd.time_range.end
    assert fwd.self_cpu_time_total <= fwd.cpu_time_total
    bw = [e for e in evs if e.name == 'MmBackward0'][0]
    assert bw.sequence_nr >= 0


def test_table_and_footer_like_torch():
    for m in (ember, torch):
        p = _run(m, profile_memory=True)
        t = p.table(sort_by='self_cpu_time_total', row_limit=5)
        lines = t.splitlines()
        assert len(lines) == 5 + 5
        heads = re.split(r'\s{2,}', lines[1].strip())
        assert heads == ['Name', 'Self CPU %', 'Self CPU', 'CPU total %', 'CPU total',
                         'CPU time avg', 'CPU Mem', 'Self CPU Mem', '# of Calls']
        assert lines[-1].startswith('Self CPU time total: ')
        assert p.self_cpu_time_total > 0


def test_long_names_truncated_like_torch():
    for m in (ember, torch):
        name = 'x' * 70
        with m.autograd.profiler.profile() as p:
            with m.autograd.profiler.record_function(name):
                pass
        row = p.key_averages().table().splitlines()[3]
        assert row.lstrip().startswith('x' * 52 + '...')


def test_top_level_only_and_header():
    p = _run(ember)
    t = p.key_averages().table(top_level_events_only=True, header='HDR')
    assert 'HDR' in t and 'This report only display top-level ops statistics' in t


def test_formatting_equal_torch():
    from torch.autograd import profiler_util as tpu
    for us in (0.5, 12.3456, 999.9, 1000.0, 123456.7, 3.2e6):
        assert _format_time(us) == tpu._format_time(us)
    for b in (0, 4, -320, 1023, 1024, 48664, -86360, 5 << 20, 3 << 30):
        assert _format_memory(b) == tpu._format_memory(b)


def test_disabled_is_noop():
    with ember.autograd.profiler.profile(enabled=False) as p:
        assert not _dispatch.observing()
        ember.ones(2).sum()
    assert not _dispatch.observing() and engine._profile_hook is None


def test_unfinished_raises():
    p = ember.autograd.profiler.profile()
    with pytest.raises(RuntimeError, match="didn't finish"):
        p.table()


def test_export_chrome_trace(tmp_path):
    p = _run(ember, record_shapes=True)
    path = tmp_path / 't.json'
    p.export_chrome_trace(str(path))
    tr = json.loads(path.read_text())
    xs = [e for e in tr['traceEvents'] if e['ph'] == 'X']
    assert {'fwd', 'aten::mm', 'MmBackward0'} <= {e['name'] for e in xs}
    mm = [e for e in xs if e['name'] == 'aten::mm'][0]
    assert mm['args']['Input Dims'] == [[3, 4], [4, 2]]
    assert isinstance(mm['ts'], float) and mm['dur'] >= 0


def test_record_function_exception_closes_range():
    with ember.autograd.profiler.profile() as p:
        with pytest.raises(ValueError):
            with ember.autograd.profiler.record_function('boom'):
                raise ValueError
        ember.ones(1).sum()
    ev = {e.name: e for e in p.function_events}
    assert ev['aten::sum'].cpu_parent is None


def test_op_error_closes_range():
    with ember.autograd.profiler.profile() as p:
        with pytest.raises(RuntimeError):
            ember.mm(ember.ones(2, 3), ember.ones(2, 3))
        ember.ones(1).sum()
    ev = {e.name: e for e in p.function_events}
    assert ev['aten::sum'].cpu_parent is None and 'aten::mm' in ev


def test_emit_nvtx_emit_itt_noop():
    for cls in (ember.autograd.profiler.emit_nvtx, ember.autograd.profiler.emit_itt):
        with cls():
            ember.ones(2).sum()
        with cls(enabled=False, record_shapes=True):
            pass
    assert not _dispatch.observing()


def test_threads_recorded_separately():
    import threading

    def work():
        ember.ones(2).add(1)
    with ember.autograd.profiler.profile() as p:
        th = threading.Thread(target=work)
        th.start()
        th.join()
        ember.ones(2).add(1)
    adds = [e for e in p.function_events if e.name == 'aten::add']
    assert len(adds) == 2 and adds[0].thread != adds[1].thread
    assert all(e.cpu_parent is None for e in adds)
