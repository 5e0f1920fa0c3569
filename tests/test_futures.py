"""``ember.futures`` against ``torch.futures``: values, errors, ``then`` chains, callbacks,
``collect_all`` / ``wait_all`` (also across threads)."""
import threading

import pytest
import torch

import ember


def _run(m, case):
    F = m.futures
    a, b = F.Future(), F.Future()
    if case == 'values':
        both = F.collect_all([a, b])
        first = both.done()
        b.set_result(2)
        a.set_result(1)
        return first, both.done(), [f.value() for f in both.wait()], F.wait_all([a, b])
    if case == 'errors':
        both = F.collect_all([a, b])
        b.set_exception(KeyError('k'))
        done = both.done()             # not before every future has completed
        a.set_exception(ValueError('v'))
        try:
            both.wait()
        except ValueError as e:        # the first failed one in list order
            return done, both.done(), str(e)
    if case == 'wait_all-error':
        a.set_result(1)
        b.set_exception(KeyError('k'))
        try:
            F.wait_all([a, b])
        except KeyError as e:
            return 'raised', str(e)
    if case == 'empty':
        c = F.collect_all([])
        return c.done(), c.wait(), F.wait_all([])
    if case == 'then':
        chained = a.then(lambda f: f.value() * 10)
        seen = []
        a.add_done_callback(lambda f: seen.append(f.value()))
        a.set_result(4)
        return chained.wait(), seen
    if case == 'then-error':
        chained = a.then(lambda f: 1 / 0)
        a.set_result(1)
        with pytest.raises(RuntimeError) as e:
            chained.wait()
        return chained.done(), str(e.value).split('\n')[0]
    if case == 'threads':
        both = F.collect_all([a, b])
        ts = [threading.Timer(0.05, a.set_result, (5,)), threading.Timer(0.02, b.set_result, (6,))]
        for t in ts:
            t.start()
        out = [f.value() for f in both.wait()]
        for t in ts:
            t.join()
        return out


@pytest.mark.parametrize('case', ['values', 'errors', 'wait_all-error', 'empty', 'then',
                                  'then-error', 'threads'])
def test_like_torch(case):
    assert _run(ember, case) == _run(torch, case)


def test_errors_like_torch():
    for m in (ember, torch):
        f = m.futures.Future()
        with pytest.raises(RuntimeError):        # torch: an internal assert
            f.value()
        with pytest.raises(AssertionError, match="3 is of type <class 'int'>, not an Exception"):
            f.set_exception(3)
        f.set_result(1)
        with pytest.raises(RuntimeError, match="can only be marked completed once"):
            f.set_result(2)
        with pytest.raises(TypeError):
            m.futures.collect_all([1])
    with pytest.raises(RuntimeError, match="only available once it's completed"):
        ember.futures.Future().value()
    assert ember.futures.Future is ember.distributed.Future is ember.Future
