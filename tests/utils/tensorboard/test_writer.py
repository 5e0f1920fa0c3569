"""ember.utils.tensorboard against torch.utils.tensorboard: the same calls made with both
writers into two directories must leave the same files behind (events compared field by
field with wall times cleared, other files byte for byte)."""
import glob
import os
import re
import socket
import subprocess
import sys
import time
from datetime import datetime

import numpy as np
import pytest

pytest.importorskip('tensorboard')   # an optional extra of ember (in the test extra)
torch = pytest.importorskip('torch')
from tensorboard.backend.event_processing import event_file_loader  # noqa: E402
from tensorboard.compat.proto import event_pb2  # noqa: E402
from torch.utils import tensorboard as ttb  # noqa: E402

import ember  # noqa: E402
from ember.utils import tensorboard as etb  # noqa: E402
from ember.utils.tensorboard import summary as esummary  # noqa: E402

from _side_by_side import run_side_by_side  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


# ------------------------------------------------------------------------------ helpers

def _is_event_file(name):
    return name.startswith('events.out.tfevents.')


def _creation_order(name):
    # events.out.tfevents.<time>.<host>.<pid>.<uid><suffix>
    m = re.match(r'events\.out\.tfevents\.(\d+)\.(.+)\.(\d+)\.(\d+)', name)
    return int(m.group(1)), int(m.group(4))


def read_events(path, keep_walltime=False):
    """The events of one event file as stored, wall times cleared (unless asked to keep them)."""
    out = []
    for raw in event_file_loader.RawEventFileLoader(path).Load():
        ev = event_pb2.Event.FromString(raw)   # as written (no migration to tensors)
        if not keep_walltime:
            ev.wall_time = 0
        out.append(ev)
    return out


def snapshot(logdir, keep_walltime=False):
    """``{relative path: content}`` of everything under ``logdir``: an event file's content
    is its list of events (files in one directory numbered in creation order), any other
    file's its bytes."""
    snap = {}
    for dirpath, _, files in os.walk(logdir):
        rel = os.path.relpath(dirpath, logdir)
        events = sorted((f for f in files if _is_event_file(f)),
                        key=_creation_order)
        for i, f in enumerate(events):
            snap[os.path.join(rel, f'events#{i}')] = read_events(os.path.join(dirpath, f),
                                                                 keep_walltime)
        for f in files:
            if not _is_event_file(f):
                with open(os.path.join(dirpath, f), 'rb') as fh:
                    snap[os.path.join(rel, f)] = fh.read()
    return snap


def assert_same(a, b):
    assert sorted(a) == sorted(b)
    for k in a:
        if isinstance(a[k], list):
            assert len(a[k]) == len(b[k]), k
            for ea, eb in zip(a[k], b[k]):
                assert ea == eb, f"{k}:\n{ea}\n!=\n{eb}"
        else:
            assert a[k] == b[k], k


def both(tmp_path, fn, keep_walltime=False, **kwargs):
    """Run ``fn(writer, lib)`` with torch's and ember's SummaryWriter; compare the dirs.
    Returns the ember snapshot."""
    snaps = []
    for name, lib, mod in (('torch', torch, ttb), ('ember', ember, etb)):
        d = str(tmp_path / name)
        w = mod.SummaryWriter(d, **kwargs)
        fn(w, lib)
        w.close()
        snaps.append(snapshot(d, keep_walltime))
    assert_same(*snaps)
    return snaps[1]


def summaries(snap, key='./events#0'):
    return [e.summary for e in snap[key] if e.HasField('summary')]


def t(lib, arr):
    """A tensor of ``lib`` holding a copy of ``arr``."""
    return lib.tensor(np.array(arr))


def raises_both(fn, exc):
    """Both libraries raise ``exc`` with the same message for ``fn(writer, lib)``."""
    msgs = []
    for lib, mod in ((torch, ttb), (ember, etb)):
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            w = mod.SummaryWriter(d)
            with pytest.raises(exc) as info:
                fn(w, lib)
            w.close()
            msgs.append(' '.join(str(info.value).split()))
    assert msgs[0] == msgs[1]
    return msgs[1]


RNG = np.random.default_rng(0)
F32 = RNG.standard_normal((4, 5)).astype(np.float32)


# ------------------------------------------------------------------------------ scalars

def test_add_scalar(tmp_path):
    def fn(w, lib):
        w.add_scalar('py/float', 0.1, 0)
        w.add_scalar('py/int', 7, 1)
        w.add_scalar('py/bool', True, 2)
        w.add_scalar('np/f32', np.float32(0.3), 3)
        w.add_scalar('np/0d', np.array(2.5), 4)
        w.add_scalar('np/f64', np.float64(1 / 3), np.int64(5))
        w.add_scalar('t/f32', t(lib, np.float32(0.7)), 6)
        w.add_scalar('t/f64', t(lib, np.float64(1 / 7)), 7)
        w.add_scalar('t/one', t(lib, [[np.float32(1.25)]]), 8)
        w.add_scalar('t/int', t(lib, np.int64(3)), 9)
        w.add_scalar('t/bool', t(lib, np.bool_(True)), 10)
        w.add_scalar('t/half', lib.tensor(0.1, dtype=lib.float16), 11)
        w.add_scalar('t/bf16', lib.tensor(1000.3, dtype=lib.bfloat16), 12)
        w.add_scalar('t/grad', (lib.ones(3, requires_grad=True) * 2).sum(), 13)
        w.add_scalar('nostep', 1.0)
        w.add_scalar('new', t(lib, np.float64(1 / 3)), 14, new_style=True)
        w.add_scalar('new64', t(lib, np.float64(1 / 3)), 15, new_style=True,
                     double_precision=True)
        w.add_scalar('wall', 1.0, 16, walltime=1234.5)
        w.add_scalar('tensor_step', 2.0, t(lib, np.int64(17)))
    snap = both(tmp_path, fn)
    vals = {s.value[0].tag: s.value[0] for s in summaries(snap)}
    assert vals['t/f64'].simple_value == pytest.approx(1 / 7)
    assert [e.step for e in snap['./events#0'] if e.HasField('summary')][-1] == 17
    assert list(vals['new64'].tensor.double_val) == [1 / 3]
    # the given wall time is kept (compared with torch's)
    snaps = [[e for e in snapshot(str(tmp_path / n), keep_walltime=True)['./events#0']
              if e.step == 16][0] for n in ('torch', 'ember')]
    assert snaps[0].wall_time == snaps[1].wall_time == 1234.5


def test_add_scalar_errors():
    msg = raises_both(lambda w, lib: w.add_scalar('x', t(lib, [1.0, 2.0])), AssertionError)
    assert 'Tensor should contain one element (0 dimensions)' in msg
    msg = raises_both(lambda w, lib: w.add_scalar('x', [1.0]), NotImplementedError)
    assert "but numpy array or torch tensor are expected" in msg
    raises_both(lambda w, lib: w.add_scalar('x', np.zeros(0)), AssertionError)


def test_add_scalars_subdirectories(tmp_path):
    def fn(w, lib):
        for step in range(3):
            w.add_scalars('run/loss', {'train': t(lib, np.float32(step / 3)),
                                       'val': step * 2.0}, step, walltime=100.0 + step)
        w.add_scalar('plain', 1.0, 0)
        keys = sorted(os.path.relpath(k, w.get_logdir()) for k in w.all_writers)
        assert keys == ['.', 'run_loss_train', 'run_loss_val']
    snap = both(tmp_path, fn)
    assert 'run_loss_train/events#0' in snap and 'run_loss_val/events#0' in snap
    vals = [s.value[0] for s in summaries(snap, 'run_loss_val/events#0')]
    assert [v.tag for v in vals] == ['run/loss'] * 3
    assert [v.simple_value for v in vals] == [0.0, 2.0, 4.0]
    timed = snapshot(str(tmp_path / 'ember'), keep_walltime=True)['run_loss_train/events#0']
    assert [e.wall_time for e in timed if e.HasField('summary')] == [100.0, 101.0, 102.0]


def test_add_scalars_bad_value_writes_nothing(tmp_path):
    msg = raises_both(lambda w, lib: w.add_scalars('m', {'a': 1.0, 'b': [2.0]}, 0),
                      NotImplementedError)
    assert 'but numpy array or torch tensor are expected' in msg
    # NOTE: unlike torch (which has logged 'a' in its sub-directory by then), nothing is
    # written
    w = etb.SummaryWriter(str(tmp_path))
    with pytest.raises(NotImplementedError):
        w.add_scalars('m', {'a': 1.0, 'b': [2.0]}, 0)
    assert list(w.all_writers) == [w.get_logdir()]
    w.close()
    assert not os.path.exists(tmp_path / 'm_a')


def test_add_tensor(tmp_path):
    def fn(w, lib):
        w.add_tensor('f32', t(lib, F32), 0)
        w.add_tensor('f64', t(lib, F32.astype(np.float64) / 3), 1)
        w.add_tensor('f16', t(lib, F32.astype(np.float16)), 2)
        w.add_tensor('bf16', t(lib, F32).to(lib.bfloat16), 3)
        w.add_tensor('i64', t(lib, np.arange(6).reshape(2, 3)), 4)
        w.add_tensor('i32', t(lib, np.arange(6, dtype=np.int32)), 5)
        w.add_tensor('i16', t(lib, np.arange(3, dtype=np.int16)), 5)
        w.add_tensor('i8', t(lib, np.arange(-3, 3, dtype=np.int8)), 5)
        w.add_tensor('u8', t(lib, np.arange(250, 256, dtype=np.uint8)), 6)
        w.add_tensor('b', t(lib, np.array([True, False])), 7)
        w.add_tensor('c64', t(lib, (F32 + 1j * F32[::-1]).astype(np.complex64)), 8)
        w.add_tensor('c128', t(lib, np.array([1 + 2j, 3 - 4j])), 9)
        w.add_tensor('scalar', t(lib, np.float32(2.5)), 10)
    both(tmp_path, fn)
    raises_both(lambda w, lib: w.add_tensor('u16', t(lib, np.arange(3, dtype=np.uint16))),
                ValueError)
    raises_both(lambda w, lib: w.add_tensor('np', np.zeros(3)), AttributeError)


# ------------------------------------------------------------------------------ histograms

def test_add_histogram(tmp_path):
    vals = RNG.standard_normal(1000).astype(np.float32)

    def fn(w, lib):
        w.add_histogram('tf', t(lib, vals), 0)
        w.add_histogram('auto', t(lib, vals), 1, bins='auto')
        w.add_histogram('fd', vals.astype(np.float64), 2, bins='fd')
        w.add_histogram('count', t(lib, vals), 3, bins=17)
        w.add_histogram('maxbins', t(lib, vals), 4, bins=100, max_bins=7)
        w.add_histogram('maxbins_exact', t(lib, vals), 4, bins=30, max_bins=10)
        w.add_histogram('int', t(lib, np.arange(-5, 20)), 5)
        w.add_histogram('const', t(lib, np.zeros(10, np.float32)), 6)
        w.add_histogram('one', 3.0, 7)
        w.add_histogram('outside', np.array([5.0]), 8, bins=[0.0, 1.0])
        w.add_histogram('edges', t(lib, vals), 9, bins=[-1.0, 0.0, 0.5, 4.0])
        w.add_histogram_raw('raw', min=-1, max=3, num=4, sum=4.0, sum_squares=14.0,
                            bucket_limits=[0.0, 1.0, 3.0], bucket_counts=[1, 1, 2],
                            global_step=10)
    snap = both(tmp_path, fn)
    h = summaries(snap)[0].value[0].histo
    assert h.num == 1000 and h.min == pytest.approx(vals.min())


def test_add_histogram_errors():
    msg = raises_both(lambda w, lib: w.add_histogram('e', t(lib, np.zeros(0))), ValueError)
    assert msg == 'The input has no element.'
    msg = raises_both(lambda w, lib: w.add_histogram_raw('r', 0, 1, 1, 1, 1, [1.0, 2.0],
                                                        [1]), ValueError)
    assert 'len(bucket_limits) != len(bucket_counts)' in msg


# ------------------------------------------------------------------------------ images

IMG = RNG.random((3, 6, 10)).astype(np.float32)
BATCH = RNG.random((11, 3, 4, 5)).astype(np.float32)


def test_add_image_formats(tmp_path):
    def fn(w, lib):
        w.add_image('chw', t(lib, IMG), 0)
        w.add_image('hwc', t(lib, IMG.transpose(1, 2, 0)), 1, dataformats='HWC')
        w.add_image('hw', t(lib, IMG[0]), 2, dataformats='HW')
        w.add_image('wh', t(lib, IMG[0]), 2, dataformats='WH')
        w.add_image('gray', t(lib, IMG[:1]), 3)
        w.add_image('rgba', t(lib, np.concatenate([IMG, IMG[:1]])), 4)
        w.add_image('u8', t(lib, (IMG * 255).astype(np.uint8)), 5)
        w.add_image('f64_out_of_range', t(lib, IMG.astype(np.float64) * 3 - 1), 6)
        w.add_image('np', IMG, 7)
        w.add_images('nchw', t(lib, BATCH), 8)
        w.add_images('nhwc', t(lib, BATCH[:2, :1].transpose(0, 2, 3, 1)), 9,
                     dataformats='NHWC')
        w.add_image_with_boxes('boxes', t(lib, IMG), t(lib, [[1.0, 1.0, 5.0, 4.0],
                                                             [0.0, 0.0, 2.0, 2.0]]), 10,
                               labels=['a', 'b'])
        w.add_image_with_boxes('boxes_nolabels', t(lib, IMG), t(lib, [[1.0, 1.0, 5.0, 4.0]]),
                               11, labels=['a', 'b'], rescale=2)
    snap = both(tmp_path, fn)
    img = summaries(snap)[0].value[0].image
    assert (img.height, img.width, img.colorspace) == (6, 10, 3)
    assert img.encoded_image_string[:8] == b'\x89PNG\r\n\x1a\n'
    nchw = [s.value[0].image for s in summaries(snap) if s.value[0].tag == 'nchw'][0]
    assert (nchw.height, nchw.width) == (8, 40)   # 11 images, 8 a row


def test_add_image_errors():
    msg = raises_both(lambda w, lib: w.add_image('x', t(lib, IMG[0])), AssertionError)
    assert 'size of input tensor and input format are different' in msg
    msg = raises_both(lambda w, lib: w.add_image('x', t(lib, IMG), dataformats='CCW'),
                      AssertionError)
    assert 'You can not use the same dimension shorthand twice' in msg
    raises_both(lambda w, lib: w.add_image('x', t(lib, IMG), dataformats='XYZ'), ValueError)
    raises_both(lambda w, lib: w.add_images('x', t(lib, BATCH[:, :2])),
                AssertionError)


def test_add_figure(tmp_path):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    def fig(k):
        f = plt.figure(figsize=(2, 1.5), dpi=40)
        plt.plot([0, 1, 2], [k, 2 * k, 0])
        return f

    def fn(w, lib):
        f = fig(1)
        w.add_figure('one', f, 0)
        assert not plt.fignum_exists(f.number)
        w.add_figure('list', [fig(1), fig(2)], 1)
        f = fig(3)
        w.add_figure('keep', f, 2, close=False)
        assert plt.fignum_exists(f.number)
        plt.close(f)
    snap = both(tmp_path, fn)
    img = summaries(snap)[0].value[0].image
    assert (img.height, img.width) == (60, 80)


def test_add_video_without_moviepy(tmp_path, capsys):
    vid = RNG.random((3, 2, 3, 4, 4)).astype(np.float32)
    both(tmp_path, lambda w, lib: w.add_video('v', t(lib, vid), 0, fps=2))
    out = capsys.readouterr().out
    try:
        import moviepy  # noqa: F401
    except ImportError:
        assert out.count('add_video needs package moviepy') == 2


# ------------------------------------------------------------------------------ audio, text

def test_add_audio(tmp_path, capsys):
    snd = np.sin(np.linspace(0, 20, 300)).astype(np.float32)

    def fn(w, lib):
        w.add_audio('a', t(lib, snd), 0)
        w.add_audio('a2', t(lib, snd[None] * 0.5), 1, sample_rate=8000)
        w.add_audio('clip', t(lib, snd * 3), 2)
        w.add_audio('np64', snd.astype(np.float64), 3)
    snap = both(tmp_path, fn)
    assert capsys.readouterr().out.count('audio amplitude out of range') == 2
    a = summaries(snap)[1].value[0].audio
    assert (a.sample_rate, a.length_frames, a.content_type) == (8000, 300, 'audio/wav')
    msg = raises_both(lambda w, lib: w.add_audio('x', t(lib, np.zeros((2, 3)))),
                      AssertionError)
    assert msg == 'input tensor should be 1 dimensional.'


def test_add_text(tmp_path):
    def fn(w, lib):
        w.add_text('note', 'hello **world**', 0)
        w.add_text('uni', 'ünïcødé ✓', 1)
    snap = both(tmp_path, fn)
    v = summaries(snap)[0].value[0]
    assert v.tag == 'note/text_summary' and v.tensor.string_val == [b'hello **world**']


# ------------------------------------------------------------------------------ hparams

def test_add_hparams(tmp_path):
    def fn(w, lib):
        w.add_hparams({'lr': 0.1, 'bsize': 32, 'opt': 'sgd', 'nesterov': True,
                       'skip': None, 'wd': t(lib, [np.float32(0.5)])},
                      {'hparam/acc': 0.9, 'hparam/loss': t(lib, np.float32(0.25))},
                      hparam_domain_discrete={'opt': ['sgd', 'adam'], 'bsize': [16, 32]},
                      run_name='run1', global_step=3)
        w.add_hparams({'lr': 0.01}, {'hparam/acc': 0.5}, run_name='run2')
    snap = both(tmp_path, fn)
    tags = [s.value[0].tag for s in summaries(snap, 'run1/events#0')]
    assert tags[:3] == ['_hparams_/experiment', '_hparams_/session_start_info',
                        '_hparams_/session_end_info']


def test_add_hparams_errors():
    msg = raises_both(lambda w, lib: w.add_hparams([('lr', 1)], {}), TypeError)
    assert msg == 'hparam_dict and metric_dict should be dictionary.'
    msg = raises_both(lambda w, lib: w.add_hparams({'a': 1}, {}, {'a': ['x']}), TypeError)
    assert 'hparam_domain_discrete[a] should be a list of same type' in msg
    msg = raises_both(lambda w, lib: w.add_hparams({'a': [1]}, {}), ValueError)
    assert msg == 'value should be one of int, float, str, bool, or torch.Tensor'
    msg = raises_both(lambda w, lib: w.add_hparams({'a': 1}, {'m': t(lib, [1.0, 2.0])},
                                                   run_name='r'), AssertionError)
    assert 'Tensor should contain one element' in msg


def test_add_hparams_bad_metric_writes_nothing(tmp_path):
    # NOTE: unlike torch (which has written the sub-run's hparams events by then)
    w = etb.SummaryWriter(str(tmp_path))
    with pytest.raises(NotImplementedError):
        w.add_hparams({'a': 1}, {'m': [1.0]}, run_name='r')
    w.close()
    assert not os.path.exists(tmp_path / 'r')


# ------------------------------------------------------------------------------ PR curves

def test_add_pr_curve(tmp_path):
    labels = RNG.integers(0, 2, 200)
    preds = RNG.random(200).astype(np.float32)
    weights = RNG.random(200)

    def fn(w, lib):
        w.add_pr_curve('pr', t(lib, labels), t(lib, preds), 0)
        w.add_pr_curve('pr_bool', t(lib, labels.astype(bool)), t(lib, preds), 1,
                       num_thresholds=10)
        w.add_pr_curve('pr_big', labels, preds, 2, num_thresholds=500, weights=weights)
        n = 5
        tp, fp = np.array([5, 4, 3, 1, 0]), np.array([5, 3, 1, 0, 0])
        w.add_pr_curve_raw('raw', t(lib, tp), t(lib, fp), t(lib, 5 - fp), t(lib, 5 - tp),
                           t(lib, tp / np.maximum(tp + fp, 1)), t(lib, tp / 5.0), 3,
                           num_thresholds=n)
        w.add_pr_curve_raw('raw_np', tp, fp, 5 - fp, 5 - tp, tp / 10, tp / 5, 4,
                           num_thresholds=200)
    snap = both(tmp_path, fn)
    v = summaries(snap)[0].value[0]
    assert [d.size for d in v.tensor.tensor_shape.dim] == [6, 127]


# ------------------------------------------------------------------------------ embeddings

def test_add_embedding(tmp_path, capsys):
    mat = RNG.standard_normal((6, 3)).astype(np.float32)
    imgs = RNG.random((6, 3, 4, 4)).astype(np.float32)

    def fn(w, lib):
        w.add_embedding(t(lib, mat), metadata=list('abcdef'), label_img=t(lib, imgs))
        w.add_embedding(t(lib, mat * 2), metadata=[[i, i * 2] for i in range(6)],
                        metadata_header=['i', 'twice'], global_step=3, tag='deep/tag%x')
        w.add_embedding(mat.astype(np.float64), global_step=3, tag='deep/tag%x')
    snap = both(tmp_path, fn)
    assert './projector_config.pbtxt' in snap
    assert '00003/deep%2ftag%25x/metadata.tsv' in snap
    assert '00000/default/sprite.png' in snap
    assert capsys.readouterr().out.count('Embedding dir exists') == 2


def test_add_embedding_errors(tmp_path):
    mat = np.zeros((3, 2), np.float32)
    raises_both(lambda w, lib: w.add_embedding(t(lib, mat), metadata=['a']), AssertionError)
    msg = raises_both(lambda w, lib: w.add_embedding(
        t(lib, mat), metadata=[[1, 2]] * 3, metadata_header=['a']), AssertionError)
    assert msg == 'len of header must be equal to the number of columns in metadata'
    raises_both(lambda w, lib: w.add_embedding(t(lib, mat), label_img=t(lib, np.zeros(
        (2, 3, 2, 2)))), AssertionError)
    msg = raises_both(lambda w, lib: w.add_embedding(t(lib, mat), label_img=t(lib, np.zeros(
        (3, 2, 2, 2)))), AssertionError)
    assert msg == 'Input should be a 4D numpy array with 3 channels'
    msg = raises_both(lambda w, lib: w.add_embedding(t(lib, np.zeros(3)), metadata=list(
        'abc')), AssertionError)
    assert 'mat should be 2D' in msg
    # NOTE: unlike torch (which has made the directory and written metadata.tsv by then),
    # ember writes nothing for bad input
    w = etb.SummaryWriter(str(tmp_path))
    with pytest.raises(AssertionError):
        w.add_embedding(ember.zeros(3), metadata=list('abc'))
    w.close()
    assert not os.path.exists(tmp_path / '00000')
    (tmp_path / '00007').mkdir()
    (tmp_path / '00007' / 'default').write_text('')
    for mod in (ttb, etb):
        w = mod.SummaryWriter(str(tmp_path))
        with pytest.raises(NotADirectoryError, match='exists, but is a file'):
            w.add_embedding(np.zeros((2, 2)), global_step=7)
        w.close()


# ------------------------------------------------------------------------------ layouts, meshes

def test_add_custom_scalars(tmp_path):
    def fn(w, lib):
        w.add_custom_scalars({'Taiwan': {'twse': ['Multiline', ['twse/0050', 'twse/2330']]},
                              'USA': {'dow': ['Margin', ['dow/aaa', 'dow/bbb', 'dow/ccc']],
                                      'nasdaq': ['Margin', ['n/a', 'n/b', 'n/c']]}})
        w.add_custom_scalars_multilinechart(['loss/train', 'loss/val'], title='loss')
        w.add_custom_scalars_marginchart(['m', 'lo', 'hi'], category='c')
    both(tmp_path, fn)
    msg = raises_both(lambda w, lib: w.add_custom_scalars_marginchart(['a', 'b']),
                      AssertionError)
    assert msg == 'Expected 3 tags, got 2.'
    raises_both(lambda w, lib: w.add_custom_scalars({'c': {'x': ['Margin', ['a']]}}),
                AssertionError)


def test_add_mesh(tmp_path):
    verts = RNG.random((1, 4, 3)).astype(np.float32)
    colors = RNG.integers(0, 256, (1, 4, 3))
    faces = np.array([[[0, 1, 2], [1, 2, 3]]])

    def fn(w, lib):
        w.add_mesh('cloud', t(lib, verts), global_step=0)
        w.add_mesh('mesh', t(lib, verts), colors=t(lib, colors), faces=t(lib, faces),
                   config_dict={'camera': {'cls': 'PerspectiveCamera', 'fov': 75}},
                   global_step=1)
    snap = both(tmp_path, fn)
    assert len(summaries(snap)[1].value) == 3


# ------------------------------------------------------------------------------ graphs

def _graph_events(logdir):
    evs = snapshot(logdir)['./events#0']
    g = [e for e in evs if e.graph_def]
    r = [e for e in evs if e.HasField('tagged_run_metadata')]
    from tensorboard.compat.proto.graph_pb2 import GraphDef
    gd = GraphDef()
    gd.ParseFromString(g[0].graph_def)
    return gd, r[0].tagged_run_metadata


@pytest.mark.filterwarnings('ignore::DeprecationWarning')   # torch.jit.trace's notice
def test_add_graph(tmp_path):
    def build(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = lib.nn.Linear(4, 3)
                self.seq = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.ReLU())

            def forward(self, x):
                return self.seq(self.fc(x)).sum(1) * 2
        return Net()

    res = []
    for name, lib, mod in (('torch', torch, ttb), ('ember', ember, etb)):
        net = build(lib)
        with mod.SummaryWriter(str(tmp_path / name)) as w:
            w.add_graph(net, lib.zeros(5, 4))
        assert net.training                 # the mode is restored
        res.append(_graph_events(str(tmp_path / name)))
    (tg, trm), (eg, erm) = res
    assert trm == erm                      # tag 'step1', CPU step stats
    assert tg.versions == eg.versions

    def io_nodes(g):
        return {n.name: (n.op, list(n.attr['_output_shapes'].list.shape[0].dim))
                for n in g.node if n.op == 'IO Node'}
    assert io_nodes(tg) == io_nodes(eg)
    assert set(io_nodes(eg)) == {'input/x', 'output/output.1'}
    # the module scopes are torch's; every edge points at a node of the graph
    for scope in ('Net/Linear[fc]/', 'Net/Sequential[seq]/Linear[0]/',
                  'Net/Sequential[seq]/ReLU[1]/'):
        assert any(n.name.startswith(scope) for n in tg.node)
        assert any(n.name.startswith(scope) for n in eg.node)
    names = {n.name for n in eg.node}
    assert all(i in names for n in eg.node for i in n.input)
    out = [n for n in eg.node if n.name == 'output/output.1'][0]
    assert out.input[0].startswith('Net/')


@pytest.mark.filterwarnings('ignore::DeprecationWarning')
def test_add_graph_several_inputs_and_outputs(tmp_path):
    def build(lib):
        class Two(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = lib.nn.Conv2d(2, 3, 3, padding=1)

            def forward(self, a, b, unused=None):
                h = lib.relu(self.conv(a)) + b
                return h.flatten(1), h.mean()
        return Two()

    nodes = []
    for name, lib, mod in (('torch', torch, ttb), ('ember', ember, etb)):
        with mod.SummaryWriter(str(tmp_path / name)) as w:
            w.add_graph(build(lib), (lib.zeros(2, 2, 4, 4), lib.ones(2, 3, 4, 4)))
        g, _ = _graph_events(str(tmp_path / name))
        nodes.append({n.name: list(n.attr['_output_shapes'].list.shape[0].dim)
                      for n in g.node if n.op == 'IO Node'})
    assert nodes[0] == nodes[1]
    assert sorted(nodes[1]) == ['input/a', 'input/b', 'output/output.1']


def test_add_graph_untraceable_model(tmp_path, capsys):
    # NOTE: unlike PyTorch (TorchScript tracing records the branch taken), ember builds the
    # graph with ember.fx.symbolic_trace, which cannot follow control flow on values
    class Branchy(ember.nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                return x
            return -x

    w = etb.SummaryWriter(str(tmp_path))
    with pytest.raises(Exception):
        w.add_graph(Branchy(), ember.ones(2))
    w.close()
    assert 'Error occurs, No graph saved' in capsys.readouterr().out


def test_add_onnx_graph(tmp_path, capsys):
    from onnx import TensorProto, helper, save
    x = helper.make_tensor_value_info('x', TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info('y', TensorProto.FLOAT, [2, 3])
    nodes = [helper.make_node('Relu', ['x'], ['h']),
             helper.make_node('LeakyRelu', ['h'], ['y'], alpha=0.2)]
    path = str(tmp_path / 'm.onnx')
    save(helper.make_model(helper.make_graph(nodes, 'g', [x], [y])), path)
    both(tmp_path, lambda w, lib: w.add_onnx_graph(path))


# ------------------------------------------------------------------------------ lifetime

def test_default_logdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = datetime.now().replace(microsecond=0)
    dirs = []
    for mod in (ttb, etb):
        w = mod.SummaryWriter(comment='_lr0.1')
        w.close()
        dirs.append(w.get_logdir())
    after = datetime.now()
    host = socket.gethostname()
    for d in dirs:
        m = re.fullmatch(r'runs/([A-Z][a-z]{2}\d\d_\d\d-\d\d-\d\d)_' + re.escape(host)
                         + r'_lr0\.1', d)
        assert m, d
        stamp = datetime.strptime(m.group(1), '%b%d_%H-%M-%S').replace(year=before.year)
        assert before <= stamp <= after
        assert glob.glob(os.path.join(d, 'events.out.tfevents.*'))


def test_logdir_pathlike_and_suffix(tmp_path):
    both(tmp_path, lambda w, lib: w.add_scalar('x', 1.0, 0), filename_suffix='.sfx')
    for name in ('torch', 'ember'):
        files = os.listdir(tmp_path / name)
        assert len(files) == 1 and files[0].endswith('.sfx')
    w = etb.SummaryWriter(tmp_path / 'p')
    assert w.get_logdir() == tmp_path / 'p'
    assert w.file_writer.get_logdir() == str(tmp_path / 'p')
    w.close()


def test_close_flush_reopen(tmp_path):
    def fn(w, lib):
        fw = w.file_writer
        assert w.all_writers == {fw.get_logdir(): fw}
        w.add_scalar('a', 1.0, 0)
        w.flush()
        # flushed: on disk while the writer is open
        files = glob.glob(os.path.join(w.get_logdir(), 'events.*'))
        assert [e.summary.value[0].simple_value for e in read_events(files[0])
                if e.HasField('summary')] == [1.0]
        w.close()
        assert w.file_writer is None and w.all_writers is None
        w.close()                          # twice: nothing happens
        w.flush()
        time.sleep(1.05)                   # a new event file name (its time stamp)
        w.add_scalar('a', 2.0, 1)          # reopens a new event file
        assert w.file_writer is not fw
    snap = both(tmp_path, fn, flush_secs=1000)
    assert sorted(snap) == ['./events#0', './events#1']

    with etb.SummaryWriter(str(tmp_path / 'cm')) as w:
        w.add_scalar('b', 3.0, 0)
    assert w.all_writers is None
    assert len(glob.glob(str(tmp_path / 'cm' / 'events.*'))) == 1


def test_file_writer(tmp_path):
    from torch.utils.tensorboard import summary as tsummary
    snaps = []
    for name, lib, mod, summ in (('torch', torch, ttb, tsummary),
                                 ('ember', ember, etb, esummary)):
        d = tmp_path / name
        fw = mod.FileWriter(d, max_queue=2, filename_suffix='.x')
        assert fw.get_logdir() == str(d)
        fw.add_summary(summ.scalar('s', lib.tensor(0.5)), global_step=np.int32(3),
                       walltime=10.0)
        fw.add_event(event_pb2.Event(step=4, session_log=event_pb2.SessionLog(
            status=event_pb2.SessionLog.STOP)), walltime=11.0)
        fw.add_summary(summ.histogram_raw('h', 0, 1, 1, 1, 1, [1.0], [1.0]), 5)
        fw.flush()
        assert len(read_events(glob.glob(str(d / 'events.*'))[0])) == 4
        fw.close()
        # tensorboard 2.x's EventFileWriter has no reopen(): both raise the same
        with pytest.raises(AttributeError, match="no attribute 'reopen'"):
            fw.reopen()
        snaps.append(snapshot(str(d)))
    assert_same(*snaps)
    assert sorted(snaps[1]) == ['./events#0']


def test_purge_step(tmp_path):
    def fn(w, lib):
        w.add_scalar('loss', 1.0, 5)
    snap = both(tmp_path, fn, purge_step=3)
    evs = snap['./events#0']
    assert evs[1].step == 3 and evs[1].file_version == 'brain.Event:2'
    assert evs[2].session_log.status == event_pb2.SessionLog.START


def test_event_accumulator_reads_ember_run(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    with etb.SummaryWriter(str(tmp_path)) as w:
        for i in range(4):
            w.add_scalar('loss', ember.tensor(1.0 / (i + 1)), i)
        w.add_histogram('w', ember.randn(50), 0)
        w.add_image('img', ember.rand(3, 4, 4), 0)
        w.add_graph(ember.nn.Sequential(ember.nn.Linear(3, 2), ember.nn.ReLU()),
                    ember.zeros(1, 3))
    acc = EventAccumulator(str(tmp_path), size_guidance={'scalars': 0, 'histograms': 0,
                                                         'images': 0})
    acc.Reload()
    assert [e.value for e in acc.Scalars('loss')] == pytest.approx([1, 1 / 2, 1 / 3, 1 / 4])
    assert [e.step for e in acc.Scalars('loss')] == [0, 1, 2, 3]
    assert acc.Histograms('w')[0].histogram_value.num == 50
    assert acc.Images('img')[0].width == 4
    names = [n.name for n in acc.Graph().node]
    assert names[:2] == ['input/input', 'output/output.1']
    assert 'Sequential/Linear[0]/_0' in names
    assert acc.RunMetadata('step1').step_stats.dev_stats[0].device == '/device:CPU:0'


# ------------------------------------------------------------------------------ summary module

def test_summary_module():
    from torch.utils.tensorboard import summary as tsummary
    for name in tsummary.__all__:
        assert hasattr(esummary, name), name
    assert esummary.half_to_int(0.1) == tsummary.half_to_int(0.1)
    assert esummary.int_to_half(1065353216) == tsummary.int_to_half(1065353216)
    assert esummary.scalar('s', ember.tensor(0.5)) == tsummary.scalar('s', torch.tensor(0.5))
    assert esummary.text('t', 'x') == tsummary.text('t', 'x')
    lab = RNG.integers(0, 2, 30)
    pred = RNG.random(30)
    np.testing.assert_array_equal(esummary.compute_curve(lab, pred, num_thresholds=9),
                                  tsummary.compute_curve(lab, pred, num_thresholds=9))
    assert esummary.hparams({'a': 1}, {'m': 2}) == tsummary.hparams({'a': 1}, {'m': 2})
    assert etb.RecordWriter is ttb.RecordWriter
    assert etb.__all__ == ['FileWriter', 'RecordWriter', 'SummaryWriter']


# ------------------------------------------------------------------------------ imports

def _run(code):
    return subprocess.run([sys.executable, '-c', code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def _run_both(codes):
    """``_run`` of each code, the children side by side."""
    return run_side_by_side([[sys.executable, '-c', c] for c in codes], timeout=120, cwd=ROOT)


def test_import_ember_does_not_load_tensorboard():
    r = _run("import sys, ember, ember.utils, ember.utils.data\n"
             "assert 'tensorboard' not in sys.modules, 'loaded'\n"
             "import ember.utils.tensorboard\n"
             "assert 'tensorboard' in sys.modules\n")
    assert r.returncode == 0, r.stderr


def test_import_without_tensorboard():
    blocker = ("import sys\n"
               "class Block:\n"
               "    def find_spec(self, name, path=None, target=None):\n"
               "        if name == 'tensorboard' or name.startswith('tensorboard.'):\n"
               "            raise ModuleNotFoundError(f\"No module named '{name}'\", name=name)\n"
               "sys.meta_path.insert(0, Block())\n")
    msgs = []
    for r in _run_both([blocker + f"import ember.utils\ntry:\n    import {mod}\n"
                        "except ModuleNotFoundError as e:\n    print(type(e).__name__, e.name, e)\n"
                        for mod in ('torch.utils.tensorboard', 'ember.utils.tensorboard')]):
        assert r.returncode == 0, r.stderr
        msgs.append(r.stdout.strip())
    assert msgs[0] == msgs[1] == "ModuleNotFoundError tensorboard No module named 'tensorboard'"


def test_import_with_old_tensorboard(tmp_path):
    fake = tmp_path / 'tensorboard'
    fake.mkdir()
    (fake / '__init__.py').write_text("__version__ = '1.14.0'\n")
    msgs = []
    for r in _run_both([f"import sys; sys.path.insert(0, {str(tmp_path)!r})\nimport ember.utils\n"
                        f"try:\n    import {mod}\nexcept ImportError as e:\n"
                        "    print(type(e).__name__, e)\n"
                        for mod in ('torch.utils.tensorboard', 'ember.utils.tensorboard')]):
        assert r.returncode == 0, r.stderr
        msgs.append(r.stdout.strip())
    assert msgs[0] == msgs[1] == ('ImportError TensorBoard logging requires TensorBoard '
                                  'version 1.15 or above')


TRAIN = """
import sys
import torch
from torch.utils.tensorboard import SummaryWriter

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(32, 3)
y = x.sum(1, keepdim=True)
with SummaryWriter(sys.argv[1]) as writer:
    for step in range(20):
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        writer.add_scalar('train/loss', loss, step)
        writer.add_scalar('train/lr', opt.param_groups[0]['lr'], step)
    writer.add_histogram('w', model[0].weight, 20)
print(type(writer).__module__)
"""


def test_training_script_under_ember_run(tmp_path):
    script = tmp_path / 'train.py'
    script.write_text(TRAIN)
    outs = {}
    runs = run_side_by_side([[sys.executable, str(script), str(tmp_path / 'torch')],
                             [sys.executable, '-m', 'ember', 'run', str(script),
                              str(tmp_path / 'ember')]], timeout=300, cwd=ROOT)
    for name, r in zip(('torch', 'ember'), runs):
        assert r.returncode == 0, r.stderr
        outs[name] = r.stdout.strip()
    assert outs['ember'] == 'ember.utils.tensorboard.writer'
    assert outs['torch'] == 'torch.utils.tensorboard.writer'
    snaps = {n: snapshot(str(tmp_path / n)) for n in ('torch', 'ember')}
    ev = {n: [(e.step, e.summary.value[0].tag, e.summary.value[0].simple_value)
              for e in s['./events#0'] if e.HasField('summary')
              and e.summary.value[0].HasField('simple_value')] for n, s in snaps.items()}
    assert [e[:2] for e in ev['torch']] == [e[:2] for e in ev['ember']]
    np.testing.assert_allclose([e[2] for e in ev['ember']], [e[2] for e in ev['torch']],
                               rtol=1e-5)
    losses = [e[2] for e in ev['ember'] if e[1] == 'train/loss']
    assert len(losses) == 20 and losses[-1] < losses[0]
