"""``examples/train_digits.py``, the README's main job: the same program on ember and on
PyTorch trains to the same losses and accuracies (the data split, shuffles, dropout masks
and initial weights are drawn from the same random streams), writes its checkpoint and
plot, and ``--resume`` continues an interrupted run exactly."""
import importlib.util
import os

import numpy as np
import pytest

EXAMPLE = os.path.join(os.path.dirname(__file__), '..', '..', 'examples', 'train_digits.py')


def _example():
    spec = importlib.util.spec_from_file_location('train_digits', EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _history(out, lib):
    ckpt = lib.load(os.path.join(out, 'checkpoint.pt'), weights_only=False)
    return ckpt['history']


def test_same_run_as_pytorch(tmp_path, capsys):
    import torch
    import ember
    ex = _example()
    acc_e = ex.main(['--epochs', '4', '--out', str(tmp_path / 'e'), '--no-progress'])
    acc_t = ex.main(['--epochs', '4', '--out', str(tmp_path / 't'), '--no-progress',
                     '--use-torch'])
    he, ht = _history(tmp_path / 'e', ember), _history(tmp_path / 't', torch)
    for k in ('train_loss', 'val_loss', 'val_acc'):
        np.testing.assert_allclose(he[k], ht[k], rtol=2e-3, atol=2e-3, err_msg=k)
    assert abs(acc_e - acc_t) <= 1 / 180 + 1e-9     # at most one test image apart
    out = capsys.readouterr().out
    assert f"checkpoint: {tmp_path / 'e' / 'checkpoint.pt'}" in out
    assert os.path.getsize(tmp_path / 'e' / 'training.png') > 1000


def test_resume_continues_exactly(tmp_path):
    import ember
    ex = _example()
    full, part = str(tmp_path / 'full'), str(tmp_path / 'part')
    ex.main(['--epochs', '4', '--out', full, '--no-progress'])
    ex.main(['--epochs', '4', '--out', part, '--no-progress', '--stop-after', '2'])
    assert len(_history(part, ember)['train_loss']) == 2
    ex.main(['--epochs', '4', '--out', part, '--no-progress', '--resume'])
    hf, hp = _history(full, ember), _history(part, ember)
    assert hf == hp


def test_resume_refuses_another_schedule(tmp_path):
    ex = _example()
    out = str(tmp_path / 'r')
    ex.main(['--epochs', '2', '--out', out, '--no-progress', '--stop-after', '1'])
    with pytest.raises(SystemExit, match='--epochs 2'):
        ex.main(['--epochs', '3', '--out', out, '--no-progress', '--resume'])
