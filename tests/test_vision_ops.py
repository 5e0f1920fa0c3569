"""``ember._vision_ops``: torchvision's ``nms`` written for ember (checked against a direct
implementation of torchvision's documented rule), registered under ``torchvision::`` when
torchvision asks ``ops.load_library`` for its compiled library."""
import os

import numpy as np
import pytest

import ember
from ember import _vision_ops


def _reference_nms(boxes, scores, thr):
    """Keep boxes by decreasing score; drop one whose IoU with a kept box exceeds thr."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    keep = []
    for i in order:
        ok = True
        for j in keep:
            a, b = boxes[i], boxes[j]
            iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
            ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
            inter = iw * ih
            union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
            if inter / union > thr:
                ok = False
                break
        if ok:
            keep.append(i)
    return keep


@pytest.mark.parametrize('seed', range(4))
def test_nms_matches_reference(seed):
    rng = np.random.default_rng(seed)
    n = 40
    xy = rng.uniform(0, 50, (n, 2))
    wh = rng.uniform(1, 20, (n, 2))
    boxes = np.concatenate([xy, xy + wh], 1)
    scores = rng.permutation(n) / n            # distinct scores
    for thr in (0.0, 0.3, 0.7, 1.0):
        got = _vision_ops.nms(ember.tensor(boxes), ember.tensor(scores), thr)
        assert got.dtype == ember.int64
        assert got.tolist() == _reference_nms(boxes.tolist(), scores.tolist(), thr), thr
    empty = _vision_ops.nms(ember.zeros(0, 4), ember.zeros(0), 0.5)
    assert empty.shape == (0,) and empty.dtype == ember.int64


def test_nms_checks_shapes():
    with pytest.raises(RuntimeError, match='boxes should be a 2d tensor, got 1D'):
        _vision_ops.nms(ember.zeros(4), ember.zeros(1), 0.5)
    with pytest.raises(RuntimeError, match='boxes should have 4 elements in dimension 1'):
        _vision_ops.nms(ember.zeros(2, 3), ember.zeros(2), 0.5)
    with pytest.raises(RuntimeError, match='same number of elements in dimension 0'):
        _vision_ops.nms(ember.zeros(2, 4), ember.zeros(3), 0.5)


@pytest.fixture
def fresh_registry():
    from ember import library
    saved = {k: library._OPS.pop(k) for k in ('torchvision::nms', 'torchvision::qnms')
             if k in library._OPS}
    defined = _vision_ops._defined
    _vision_ops._defined = False
    yield
    for k in ('torchvision::nms', 'torchvision::qnms'):
        library._OPS.pop(k, None)
    library._OPS.update(saved)
    _vision_ops._defined = defined


def test_registered_when_torchvision_loads_its_library(tmp_path, fresh_registry):
    pkg = tmp_path / 'torchvision'
    pkg.mkdir()
    lib = pkg / '_C.so'
    lib.write_bytes(b'\x7fELF not really libc10.so')
    with pytest.raises(OSError, match='Could not load this library'):
        ember.ops.load_library(str(lib))
    assert str(os.path.realpath(lib)) not in ember.ops.loaded_libraries
    boxes = ember.tensor([[0., 0., 2., 2.], [0., 0., 2., 1.9], [3., 3., 4., 4.]])
    keep = ember.ops.torchvision.nms(boxes, ember.tensor([.9, .8, .7]), 0.5)
    assert keep.tolist() == [0, 2]
    with pytest.raises(NotImplementedError, match='quantized'):
        ember.ops.torchvision.qnms(boxes, ember.tensor([.9, .8, .7]), 0.5)
