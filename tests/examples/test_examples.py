"""The small examples (examples/*.py besides the digits run): each runs on ember and gives
what the same code gives on PyTorch."""
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import ember

HERE = os.path.join(os.path.dirname(__file__), '..', '..', 'examples')


def _load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, name + '.py'))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_learn_zero():
    ex = _load('learn_zero')
    (le, me), (lt, mt) = ex.run(ember), ex.run(torch)
    np.testing.assert_allclose(le, lt, rtol=1e-3, atol=1e-4)
    assert me < 0.25 * ex.run(ember, steps=0)[1] and abs(me - mt) < 1e-3


def test_custom_optimizer_matches_builtin_sgd_and_torch():
    ex = _load('custom_optimizer')
    e, t = ex.run(ember), ex.run(torch)
    assert e['SimpleSGD'][0] == pytest.approx(e['SGD'][0])   # same update rule as SGD
    np.testing.assert_allclose(e['SimpleSGD'][1], e['SGD'][1], rtol=1e-6)
    for k in e:
        assert e[k][0] == pytest.approx(t[k][0], rel=1e-4, abs=1e-6)
        np.testing.assert_allclose(e[k][1], t[k][1], rtol=1e-4, atol=1e-5)
    assert e['SGD'][0] < 1e-3


def test_custom_function():
    ex = _load('custom_function')
    (ok_e, loss_e), (ok_t, loss_t) = ex.run(ember), ex.run(torch)
    assert ok_e is True and ok_t is True
    assert loss_e == pytest.approx(loss_t, rel=1e-3)


def test_per_layer_lr():
    ex = _load('per_layer_lr')
    (lre, le), (lrt, lt) = ex.run(ember), ex.run(torch)
    assert lre == lrt and lre[0] == [1e-3, 1e-1] and lre[-1] == [1.25e-4, 1.25e-2]
    assert le == pytest.approx(lt, rel=1e-3)


@pytest.mark.parametrize('name', ['learn_zero', 'custom_optimizer', 'custom_function',
                                  'per_layer_lr'])
def test_runs_as_a_program(name):
    r = subprocess.run([sys.executable, os.path.join(HERE, name + '.py')], capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, OMP_NUM_THREADS='1'))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip()
