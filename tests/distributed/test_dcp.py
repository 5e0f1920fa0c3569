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
# torch's flattening: a list of plain values is one entry
assert set(md.state_dict_metadata) == {'model.weight', 'model.bias', 'step', 'extra.lr',
                                       'extra.name', 'shard.0', 'shard.1'}
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
    # every entry written once: each stored piece in one file, a rank's own shard in its file
    md = dcp.FileSystemReader(ck).read_metadata()
    files = {}
    for idx, info in md.storage_data.items():
        files.setdefault(idx.fqn, []).append(info.relative_path)
    assert all(len(v) == 1 for v in files.values()) and set(files) == set(md.state_dict_metadata)
    assert files['shard.0'] == ['__0_0.distcp'] and files['shard.1'] == ['__1_0.distcp']
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



def _st_header(path):
    import json
    import struct
    with open(path, 'rb') as f:
        n = struct.unpack('<Q', f.read(8))[0]
        h = json.loads(f.read(n))
    meta = h.pop('__metadata__')
    meta['DCP_SHARDING_INFO'] = json.loads(meta['DCP_SHARDING_INFO'])
    return meta, h


def test_hf_storage_exchanges_checkpoints_with_torch(tmp_path):
    """dcp.save/load through the Hugging Face storages: torch's files load into ember and
    ember's into torch (and into the safetensors library), with torch's file names, index,
    headers (dtype codes, shapes, DCP sharding record) and errors."""
    import json
    import warnings
    import torch
    import torch.distributed.checkpoint as tdcp
    from torch.distributed.checkpoint import hf_storage as th
    from safetensors.torch import load_file
    from ember.distributed.checkpoint import hf_storage as eh
    assert sorted(eh.__all__) == sorted(['HuggingFaceStorageWriter', 'HuggingFaceStorageReader'])
    assert dcp.HuggingFaceStorageWriter is eh.HuggingFaceStorageWriter    # as torch exports them
    assert tdcp.HuggingFaceStorageReader is th.HuggingFaceStorageReader
    assert dcp.HuggingFaceStorageReader is eh.HuggingFaceStorageReader
    vals = {'model.w': np.arange(6.).reshape(2, 3), 'model.v': np.array([[1.5], [-2.]]),
            'x': np.arange(4), 'h': np.array([0.5, -1.25]), 'm': np.array([True, False])}
    dts = {'model.w': 'float32', 'model.v': 'float64', 'x': 'int64', 'h': 'bfloat16',
           'm': 'bool'}
    mapping = {'model.w': 1, 'model.v': 2, 'x': 2, 'h': 1, 'm': 2}

    def build(lib):
        t = {k: lib.tensor(v, dtype=getattr(lib, dts[k])) for k, v in vals.items()}
        return {'model': {'w': t['model.w'], 'v': t['model.v']}, 'x': t['x'], 'h': t['h'],
                'm': t['m']}

    def empty(lib):
        sd = build(lib)
        for v in (sd['model']['w'], sd['model']['v'], sd['x'], sd['h'], sd['m']):
            v.zero_()
        return sd

    def flat(sd):
        return {'model.w': sd['model']['w'], 'model.v': sd['model']['v'], 'x': sd['x'],
                'h': sd['h'], 'm': sd['m']}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        tdcp.save(build(torch), storage_writer=th.HuggingFaceStorageWriter(
            str(tmp_path / 't'), fqn_to_index_mapping=mapping))
        md = dcp.save(build(ember), storage_writer=eh.HuggingFaceStorageWriter(
            str(tmp_path / 'e'), fqn_to_index_mapping=mapping))
        assert sorted(md.state_dict_metadata) == sorted(vals)
        assert md.state_dict_metadata['model.w'].size == (2, 3)
        assert md.state_dict_metadata['h'].properties.dtype == ember.bfloat16
        assert sorted(os.listdir(tmp_path / 'e')) == sorted(os.listdir(tmp_path / 't'))
        idx = 'model.safetensors.index.json'
        assert (json.load(open(tmp_path / 'e' / idx)) == json.load(open(tmp_path / 't' / idx)))
        for name in os.listdir(tmp_path / 't'):
            if name.endswith('.safetensors'):
                assert _st_header(tmp_path / 'e' / name)[0] == _st_header(tmp_path / 't' / name)[0]
                he, ht = _st_header(tmp_path / 'e' / name)[1], _st_header(tmp_path / 't' / name)[1]
                assert ({k: (v['dtype'], v['shape']) for k, v in he.items()} ==
                        {k: (v['dtype'], v['shape']) for k, v in ht.items()})
                for k, v in load_file(str(tmp_path / 'e' / name)).items():
                    assert torch.equal(v, flat(build(torch))[k]), k
        # each side reads the other's files
        sd_e = empty(ember)
        dcp.load(sd_e, storage_reader=eh.HuggingFaceStorageReader(str(tmp_path / 't')))
        sd_t = empty(torch)
        tdcp.load(sd_t, storage_reader=th.HuggingFaceStorageReader(str(tmp_path / 'e')))
    for k, v in flat(sd_e).items():
        assert v.dtype == getattr(ember, dts[k])
        assert v.float().tolist() == flat(sd_t)[k].float().tolist() == \
            torch.tensor(vals[k]).to(getattr(torch, dts[k])).float().tolist(), k
    # errors: a name the files lack, a shape that differs (nothing is written before)
    with pytest.raises(dcp.CheckpointException, match='Missing key in checkpoint state_dict: zz'):
        dcp.load({'x': ember.zeros(4), 'zz': ember.zeros(1)},
                 storage_reader=eh.HuggingFaceStorageReader(str(tmp_path / 't')))
    h = ember.ones(2)
    with pytest.raises(dcp.CheckpointException, match=r'Size mismatch between saved .*4.* '
                       r'and current: .*5.* for x'):
        dcp.load({'h': h, 'x': ember.zeros(5)},
                 storage_reader=eh.HuggingFaceStorageReader(str(tmp_path / 't')))
    assert h.tolist() == [1., 1.]
    with pytest.raises(NotImplementedError, match='save_distributed'):
        eh.HuggingFaceStorageWriter(str(tmp_path / 'd'), save_distributed=True)
