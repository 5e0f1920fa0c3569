"""distributed.checkpoint's on-disk format is torch's: a folder saved by torch's ``dcp.save``
(one process, no process group) loads in ember and one saved by ember loads in torch; the
DTensor pieces of a 2-rank ember save load whole in torch; a hostile ``.metadata`` pickle
is refused without running it."""
import os
import pickle
import sys
import warnings

import numpy as np
import pytest

import ember
import ember.distributed.checkpoint as edcp

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
from _ranks import run_ranks  # noqa: E402

torch = pytest.importorskip('torch')
import torch.distributed.checkpoint as tdcp  # noqa: E402


def _quiet():
    w = warnings.catch_warnings()
    w.__enter__()
    warnings.simplefilter('ignore')     # torch: "assuming the intent is to save in a single process"
    return w


def test_torch_saved_loads_in_ember(tmp_path):
    ck = str(tmp_path / 'ck')
    w = _quiet()
    try:
        tdcp.save({'model': {'w': torch.arange(6.).reshape(2, 3),
                             'b': torch.arange(3, dtype=torch.float64)},
                   'step': 7, 'extra': {'lr': [0.5, 0.25], 'name': 'run'},
                   'i': torch.tensor(5), 'lst': [torch.ones(2), 3]}, checkpoint_id=ck)
    finally:
        w.__exit__(None, None, None)
    assert sorted(os.listdir(ck)) == ['.metadata', '__0_0.distcp']
    sd = {'model': {'w': ember.zeros(2, 3), 'b': ember.zeros(3, dtype=ember.float64)},
          'step': 0, 'extra': {'lr': [0., 0.], 'name': ''}, 'i': ember.tensor(0),
          'lst': [ember.zeros(2), 0]}
    w_ = sd['model']['w']
    edcp.load(sd, checkpoint_id=ck)
    assert sd['model']['w'] is w_ and w_.tolist() == [[0., 1, 2], [3, 4, 5]]
    assert sd['model']['b'].dtype == ember.float64 and sd['model']['b'].tolist() == [0., 1, 2]
    assert sd['step'] == 7 and sd['extra'] == {'lr': [0.5, 0.25], 'name': 'run'}
    assert sd['i'].item() == 5 and sd['lst'][0].tolist() == [1., 1.] and sd['lst'][1] == 3
    md = edcp.FileSystemReader(ck).read_metadata()
    tmd = tdcp.FileSystemReader(ck).read_metadata()
    assert list(md.state_dict_metadata) == list(tmd.state_dict_metadata)
    assert md.planner_data == tmd.planner_data
    m = md.state_dict_metadata['model.w']
    assert type(m).__name__ == 'TensorStorageMetadata' and list(m.size) == [2, 3]
    assert m.properties.dtype == ember.float32
    assert [list(c.offsets) for c in m.chunks] == [[0, 0]]
    with pytest.raises(edcp.CheckpointException, match='Size mismatch'):
        edcp.load({'i': ember.zeros(2)}, checkpoint_id=ck)
    with pytest.raises(edcp.CheckpointException, match='Missing key in checkpoint state_dict: x'):
        edcp.load({'x': ember.zeros(2)}, checkpoint_id=ck)


def test_ember_saved_loads_in_torch(tmp_path):
    ck = str(tmp_path / 'ck')
    ember.manual_seed(0)
    w = ember.randn(3, 4)
    edcp.save({'model': {'w': w, 'h': ember.arange(4, dtype=ember.int32)}, 'step': 9,
               'extra': {'lr': [0.5], 'name': 'x'}, 'lst': [ember.ones(2), 3]},
              checkpoint_id=ck)
    assert sorted(os.listdir(ck)) == ['.metadata', '__0_0.distcp']
    sd = {'model': {'w': torch.zeros(3, 4), 'h': torch.zeros(4, dtype=torch.int32)},
          'step': 0, 'extra': {'lr': [0.], 'name': ''}, 'lst': [torch.zeros(2), 0]}
    q = _quiet()
    try:
        tdcp.load(sd, checkpoint_id=ck)
    finally:
        q.__exit__(None, None, None)
    np.testing.assert_array_equal(sd['model']['w'].numpy(), w.numpy())
    assert sd['model']['h'].tolist() == [0, 1, 2, 3] and sd['step'] == 9
    assert sd['extra'] == {'lr': [0.5], 'name': 'x'} and sd['lst'][0].tolist() == [1., 1.]
    tmd = tdcp.FileSystemReader(ck).read_metadata()
    assert type(tmd).__module__ == 'torch.distributed.checkpoint.metadata'
    assert tmd.state_dict_metadata['model.h'].properties.dtype == torch.int32


class _Evil:
    def __reduce__(self):
        return (os.system, ('touch pwned',))


def test_hostile_metadata_is_refused(tmp_path):
    ck = tmp_path / 'ck'
    edcp.save({'a': ember.zeros(2)}, checkpoint_id=ck)
    (ck / '.metadata').write_bytes(pickle.dumps(_Evil()))
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with pytest.raises(pickle.UnpicklingError, match='Unsupported global'):
            edcp.load({'a': ember.zeros(2)}, checkpoint_id=ck)
    finally:
        os.chdir(cwd)
    assert not (tmp_path / 'pwned').exists()
    # an allowed class with a wrong field type
    (ck / '.metadata').write_bytes(b'\x80\x02}q\x00.')
    with pytest.raises(pickle.UnpicklingError, match='invalid checkpoint metadata'):
        edcp.load({'a': ember.zeros(2)}, checkpoint_id=ck)


SAVE_DTENSOR = r'''
import sys
import ember, ember.distributed as dist
import ember.distributed.checkpoint as dcp
from ember.distributed.tensor import distribute_tensor, Shard, Replicate, init_device_mesh
dist.init_process_group('gloo')
mesh = init_device_mesh('cpu', (2,))
full = ember.arange(15.).reshape(5, 3)
d = distribute_tensor(full, mesh, [Shard(0)])
rep = distribute_tensor(ember.ones(2), mesh, [Replicate()])
dcp.save({'d': d, 'rep': rep, 'step': 3}, checkpoint_id=sys.argv[1])
# loaded back into the other sharding (columns)
d2 = distribute_tensor(ember.zeros(5, 3), mesh, [Shard(1)])
dcp.load({'d': d2}, checkpoint_id=sys.argv[1])
assert ember.equal(d2.full_tensor(), full)
print('ok')
'''


def test_two_rank_dtensor_save_loads_whole_in_torch(tmp_path):
    ck = str(tmp_path / 'ck')
    run_ranks(SAVE_DTENSOR, 2, timeout=60, args=(ck,))
    assert sorted(os.listdir(ck)) == ['.metadata', '__0_0.distcp', '__1_0.distcp']
    tmd = tdcp.FileSystemReader(ck).read_metadata()
    chunks = tmd.state_dict_metadata['d'].chunks
    assert [(list(c.offsets), list(c.sizes)) for c in chunks] == [([0, 0], [3, 3]),
                                                                   ([3, 0], [2, 3])]
    assert len(tmd.state_dict_metadata['rep'].chunks) == 1        # replicated: written once
    sd = {'d': torch.zeros(5, 3), 'rep': torch.zeros(2), 'step': 0}
    q = _quiet()
    try:
        tdcp.load(sd, checkpoint_id=ck)
    finally:
        q.__exit__(None, None, None)
    assert sd['d'].tolist() == torch.arange(15.).reshape(5, 3).tolist()
    assert sd['rep'].tolist() == [1., 1.] and sd['step'] == 3


def test_interrupted_save_leaves_previous_checkpoint(tmp_path, monkeypatch):
    """A save into a folder holding a checkpoint writes its data beside the files the current
    index uses and replaces the index last: a save that fails midway leaves the previous
    checkpoint loadable (by ember and torch); a completed one replaces it and removes the
    old files."""
    from ember.distributed.checkpoint import _format
    ck = str(tmp_path / 'ck')
    edcp.save({'a': ember.arange(4.), 'b': ember.ones(2), 'n': 1}, checkpoint_id=ck)
    real, calls = _format._save_bytes, []

    def failing(obj):
        calls.append(1)
        if len(calls) == 3:            # the second tensor: the data file is half written
            raise OSError('disk full')
        return real(obj)
    monkeypatch.setattr(_format, '_save_bytes', failing)
    with pytest.raises(OSError, match='disk full'):
        edcp.save({'a': ember.zeros(4), 'b': ember.zeros(2), 'n': 2}, checkpoint_id=ck)
    monkeypatch.setattr(_format, '_save_bytes', real)
    sd = {'a': ember.zeros(4), 'b': ember.zeros(2), 'n': 0}
    edcp.load(sd, checkpoint_id=ck)
    assert sd['a'].tolist() == [0., 1, 2, 3] and sd['b'].tolist() == [1., 1.] and sd['n'] == 1
    tsd = {'a': torch.zeros(4), 'b': torch.zeros(2), 'n': 0}
    q = _quiet()
    try:
        tdcp.load(tsd, checkpoint_id=ck)
    finally:
        q.__exit__(None, None, None)
    assert tsd['a'].tolist() == [0., 1, 2, 3] and tsd['n'] == 1
    edcp.save({'a': ember.full((4,), 5.), 'b': ember.zeros(2), 'n': 3}, checkpoint_id=ck)
    edcp.load(sd, checkpoint_id=ck)
    assert sd['a'].tolist() == [5.] * 4 and sd['n'] == 3
    assert sorted(f for f in os.listdir(ck) if f.endswith('.distcp')) == ['__0_1.distcp']


def test_planners(tmp_path):
    """The planner names torch's ``dcp`` exports exist (enums with torch's members); the
    default planners are accepted, ``allow_partial_load`` leaves the keys a checkpoint lacks
    as they are (as torch's), other planner classes are refused."""
    from torch.distributed.checkpoint import planner as tp
    from ember.distributed.checkpoint import planner as ep
    for name in ('DefaultLoadPlanner', 'DefaultSavePlanner', 'LoadPlan', 'LoadPlanner',
                 'ReadItem', 'SavePlan', 'SavePlanner', 'WriteItem', 'BytesStorageMetadata',
                 'ChunkStorageMetadata', 'TensorStorageMetadata'):
        assert name in edcp.__all__ and hasattr(tdcp, name), name
    for name in ('WriteItemType', 'LoadItemType'):
        assert ([(m.name, m.value) for m in getattr(ep, name)] ==
                [(m.name, m.value) for m in getattr(tp, name)])
    ck = str(tmp_path / 'ck')
    edcp.save({'a': ember.ones(2)}, checkpoint_id=ck, planner=edcp.DefaultSavePlanner())
    sd = {'a': ember.zeros(2), 'b': ember.zeros(1)}
    edcp.load(sd, checkpoint_id=ck, planner=edcp.DefaultLoadPlanner(allow_partial_load=True))
    assert sd['a'].tolist() == [1., 1.] and sd['b'].tolist() == [0.]
    tsd = {'a': torch.zeros(2), 'b': torch.zeros(1)}
    q = _quiet()
    try:
        tdcp.load(tsd, checkpoint_id=ck, planner=tdcp.DefaultLoadPlanner(allow_partial_load=True))
    finally:
        q.__exit__(None, None, None)
    assert tsd['a'].tolist() == [1., 1.] and tsd['b'].tolist() == [0.]
    with pytest.raises(edcp.CheckpointException, match='Missing key in checkpoint state_dict: b'):
        edcp.load(sd, checkpoint_id=ck, planner=edcp.DefaultLoadPlanner())

    class Mine(edcp.DefaultLoadPlanner):
        pass
    with pytest.raises(NotImplementedError, match='only DefaultLoadPlanner is accepted'):
        edcp.load(sd, checkpoint_id=ck, planner=Mine())
