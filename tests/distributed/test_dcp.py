"""ember.distributed.checkpoint: 2 ranks save a state_dict with replicated entries (a model,
written once) and per-rank shards into a folder; one process (world size 1) and 3 ranks
load it back in place. Bounded multi-rank runs."""
import os
import sys

import numpy as np
import pytest

import ember
import ember.distributed as edist
import ember.distributed.checkpoint as dcp

sys.path.insert(0, os.path.dirname(__file__))
from _ranks import run_ranks  # noqa: E402

SAVE = r'''
import sys
import ember, ember.nn as nn, ember.distributed as dist
import ember.distributed.checkpoint as dcp
dist.init_process_group('gloo')
r = dist.get_rank()
ember.manual_seed(0)
model = nn.Linear(4, 3)
sd = {'model': model, 'step': 7, 'extra': {'lr': [0.5, 0.25], 'name': 'run'},
      f'shard.{r}': ember.arange(5.) + 10 * r}
md = dcp.save(sd, checkpoint_id=sys.argv[1])
assert set(md.state_dict_metadata) == {'model.weight', 'model.bias', 'step', 'extra.lr.0',
                                       'extra.lr.1', 'extra.name', 'shard.0', 'shard.1'}
print('ok', r)
'''

LOAD = r'''
import sys
import ember, ember.nn as nn, ember.distributed as dist
import ember.distributed.checkpoint as dcp
dist.init_process_group('gloo')
r = dist.get_rank()
ember.manual_seed(1)
model = nn.Linear(4, 3)
ember.manual_seed(0)
ref = nn.Linear(4, 3)
sd = {'model': model, 'step': 0, f'shard.{r % 2}': ember.zeros(5)}
dcp.load(sd, checkpoint_id=sys.argv[1])
assert ember.equal(model.weight, ref.weight) and ember.equal(model.bias, ref.bias)
assert sd['step'] == 7 and sd[f'shard.{r % 2}'].tolist() == [10. * (r % 2) + i for i in range(5)]
print('ok', r)
'''


@pytest.mark.skipif(not edist.is_mpi_available(), reason='mpi4py not installed')
def test_save_two_ranks_load_other_world_sizes(tmp_path):
    ck = str(tmp_path / 'ckpt')
    run_ranks(SAVE, 2, timeout=60, args=(ck,))
    assert sorted(os.listdir(ck)) == ['.metadata', '__0_0.distcp', '__1_0.distcp']
    # every entry written once: the files hold disjoint keys covering the checkpoint
    parts = [ember.load(os.path.join(ck, f'__{r}_0.distcp')) for r in range(2)]
    assert not set(parts[0]) & set(parts[1]) and 'shard.1' in parts[1] and 'shard.0' in parts[0]
    # world size 1 (no process group): everything, both shards
    ember.manual_seed(0)
    ref = ember.nn.Linear(4, 3)
    sd = {'model': {'weight': ember.zeros(3, 4), 'bias': ember.zeros(3)}, 'step': 0,
          'extra': {'lr': [0., 0.], 'name': ''}, 'shard.0': ember.zeros(5),
          'shard.1': ember.zeros(5, dtype=ember.float64)}
    w = sd['model']['weight']
    dcp.load(sd, checkpoint_id=ck)
    assert sd['model']['weight'] is w and ember.equal(w, ref.weight.detach())
    assert sd['step'] == 7 and sd['extra'] == {'lr': [0.5, 0.25], 'name': 'run'}
    assert sd['shard.1'].dtype == ember.float64 and sd['shard.1'].tolist() == [10., 11, 12, 13, 14]
    with pytest.raises(dcp.CheckpointException, match='Missing key in checkpoint state_dict: nope'):
        dcp.load({'nope': ember.zeros(1)}, checkpoint_id=ck)
    with pytest.raises(dcp.CheckpointException, match='Size mismatch'):
        dcp.load({'shard.0': ember.zeros(4)}, checkpoint_id=ck)
    # three ranks
    run_ranks(LOAD, 3, timeout=60, args=(ck,))


def test_single_process_roundtrip(tmp_path):
    sd = {'a': ember.randn(3, 2), 'b': {'c': ember.arange(4)}}
    dcp.save(sd, storage_writer=dcp.FileSystemWriter(tmp_path / 'x'))
    out = {'a': ember.zeros(3, 2), 'b': {'c': ember.zeros(4, dtype=ember.int64)}}
    dcp.load(out, storage_reader=dcp.FileSystemReader(tmp_path / 'x'))
    assert ember.equal(out['a'], sd['a']) and ember.equal(out['b']['c'], sd['b']['c'])
    with pytest.raises(RuntimeError, match='`checkpoint_id` must be specified'):
        dcp.save(sd)
    fut = dcp.async_save({'a': sd['a'] * 2}, checkpoint_id=tmp_path / 'y')
    assert set(fut.result().state_dict_metadata) == {'a'}
    out = {'a': ember.zeros(3, 2)}
    dcp.load(out, checkpoint_id=tmp_path / 'y')
    assert ember.equal(out['a'], sd['a'] * 2)


def test_state_dict_helpers_resume_training(tmp_path):
    torch = pytest.importorskip('torch')
    from torch.distributed.checkpoint import state_dict as tsd
    from ember.distributed.checkpoint import state_dict as esd
    rs = np.random.RandomState(0)
    X, Y = rs.randn(8, 3).astype('float32'), rs.randn(8, 2).astype('float32')
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    em = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.Tanh(), ember.nn.Linear(4, 2))
    em.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    topt = torch.optim.Adam(tm.parameters(), lr=0.1)
    eopt = ember.optim.Adam(em.parameters(), lr=0.1)
    # a fresh optimizer: both libraries materialise the state the same way
    tm_sd, to_sd = tsd.get_state_dict(tm, topt)
    em_sd, eo_sd = esd.get_state_dict(em, eopt)
    assert list(em_sd) == list(tm_sd) and list(eo_sd['state']) == list(to_sd['state'])
    assert eo_sd['param_groups'][0]['params'] == to_sd['param_groups'][0]['params']
    assert {k: float(v['step']) for k, v in eo_sd['state'].items()} == \
        {k: float(v['step']) for k, v in to_sd['state'].items()}

    def tstep():
        topt.zero_grad(); torch.nn.functional.mse_loss(tm(torch.tensor(X)), torch.tensor(Y)).backward(); topt.step()

    def estep(m, o):
        o.zero_grad(); ember.nn.functional.mse_loss(m(ember.tensor(X)), ember.tensor(Y)).backward(); o.step()
    topt = torch.optim.Adam(tm.parameters(), lr=0.1)
    eopt = ember.optim.Adam(em.parameters(), lr=0.1)
    tstep(); tstep()
    estep(em, eopt)
    msd, osd = esd.get_state_dict(em, eopt)
    dcp.save({'model': msd, 'optim': osd}, checkpoint_id=tmp_path / 'c')
    # a new model and optimizer resume from the checkpoint
    em2 = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.Tanh(), ember.nn.Linear(4, 2))
    eopt2 = ember.optim.Adam(em2.parameters(), lr=0.5)
    msd2, osd2 = esd.get_state_dict(em2, eopt2)
    sd = {'model': msd2, 'optim': osd2}
    dcp.load(sd, checkpoint_id=tmp_path / 'c')
    esd.set_state_dict(em2, eopt2, model_state_dict=sd['model'], optim_state_dict=sd['optim'])
    assert eopt2.param_groups[0]['lr'] == 0.1
    estep(em2, eopt2)
    for (k, v), (k2, w) in zip(em2.state_dict().items(), tm.state_dict().items()):
        np.testing.assert_allclose(v.numpy(), w.detach().numpy(), atol=1e-6, err_msg=k)


def test_hf_storage_is_a_clear_not_implemented():
    """``checkpoint.hf_storage`` (imported by transformers) has torch's two classes, as
    storage types; building one says it is not implemented in ember."""
    import torch.distributed.checkpoint.hf_storage as th
    from ember.distributed.checkpoint import hf_storage as eh
    assert sorted(eh.__all__) == sorted(n for n in ('HuggingFaceStorageWriter',
                                                    'HuggingFaceStorageReader')
                                        if hasattr(th, n))
    assert issubclass(eh.HuggingFaceStorageWriter, dcp.StorageWriter)
    assert issubclass(eh.HuggingFaceStorageReader, dcp.StorageReader)
    for cls in (eh.HuggingFaceStorageWriter, eh.HuggingFaceStorageReader):
        with pytest.raises(NotImplementedError, match='not implemented in ember'):
            cls('ckpt')
