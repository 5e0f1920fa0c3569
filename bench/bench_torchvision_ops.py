"""torchvision's operators on ember (``ember.ops.torchvision``, ember/_vision_ops.py):
`python bench/bench_torchvision_ops.py [name ...]`.

PyPI's torchvision cannot load its compiled operators beside the CPU torch here, so the
reference is the same algorithm written in torch ops (vectorised as ember's is): greedy nms
(one vectorised IoU row per kept box) and roi_align with a fixed sampling grid (bilinear
gathers of the four corners). Ratios are ember / that torch reference; no target is set.

- nms_1000: nms of 1000 random boxes (about 800 kept), IoU 0.5
- roi_align_fwd: 256 boxes on 2x64x50x50, 7x7 bins, sampling_ratio 2, scale 1/8
- roi_align_fwd_bwd: the same, forward and backward
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
os.environ.setdefault('OMP_NUM_THREADS', '1')

import numpy as np  # noqa: E402
import torch  # noqa: E402

import ember  # noqa: E402
from _runner import compare  # noqa: E402

torch.set_num_threads(1)
TV = ember.ops.torchvision


def torch_nms(boxes, scores, thr):
    """Greedy nms in torch ops: scores descending, one IoU row per kept box."""
    order = torch.sort(scores, descending=True, stable=True)[1]
    b = boxes[order]
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    alive = torch.ones(len(b), dtype=torch.bool)
    keep, i, n = [], 0, len(b)
    while i < n:
        i += int(torch.argmax(alive[i:].to(torch.uint8)))
        if not alive[i]:
            break
        keep.append(i)
        j = i + 1
        w = (torch.minimum(b[i, 2], b[j:, 2]) - torch.maximum(b[i, 0], b[j:, 0])).clamp(min=0)
        h = (torch.minimum(b[i, 3], b[j:, 3]) - torch.maximum(b[i, 1], b[j:, 1])).clamp(min=0)
        inter = w * h
        alive[j:] &= ~(inter / (area[i] + area[j:] - inter) > thr)
        i = j
    return order[torch.tensor(keep, dtype=torch.long)]


def torch_roi_align(x, rois, scale, P, sr):
    """roi_align (aligned=False, fixed sampling_ratio) in torch ops."""
    B, C, H, W = x.shape
    b = rois[:, 0].long()
    x1, y1, x2, y2 = (rois[:, i] * scale for i in range(1, 5))
    bh, bw = (y2 - y1).clamp(min=1) / P, (x2 - x1).clamp(min=1) / P
    g = (torch.arange(sr, dtype=x.dtype) + .5) / sr
    p = torch.arange(P, dtype=x.dtype)

    def axis(start, size, n):
        v = start[:, None, None] + (p[None, :, None] + g[None, None, :]) * size[:, None, None]
        ok = (v >= -1) & (v <= n)
        v = v.clamp(min=0)
        lo = v.long().clamp(max=n - 1)
        hi = (lo + 1).clamp(max=n - 1)
        v = torch.where(lo >= n - 1, lo.to(v.dtype), v)
        lw = v - lo
        return lo, hi, 1 - lw, lw, ok
    ylo, yhi, yh, yl, yok = axis(y1, bh, H)
    xlo, xhi, xh, xl, xok = axis(x1, bw, W)
    xt = x.permute(0, 2, 3, 1)
    bb = b[:, None, None, None, None]
    out = 0
    for ry, wy in ((ylo, yh), (yhi, yl)):
        for rx, wx in ((xlo, xh), (xhi, xl)):
            v = xt[bb, ry[:, :, :, None, None], rx[:, None, None, :, :]]  # K,P,sr,P,sr,C
            wgt = (wy * yok)[:, :, :, None, None] * (wx * xok)[:, None, None, :, :]
            out = out + v * wgt[..., None]
    return (out.sum((2, 4)) / (sr * sr)).permute(0, 3, 1, 2)


def _boxes(rng, n, size, lo, hi):
    xy = rng.uniform(0, size, (n, 2))
    return np.concatenate([xy, xy + rng.uniform(lo, hi, (n, 2))], 1).astype(np.float32)


def nms_1000():
    rng = np.random.default_rng(0)
    b, s = _boxes(rng, 1000, 500, 10, 100), rng.random(1000).astype(np.float32)
    eb, es, tb, ts = ember.tensor(b), ember.tensor(s), torch.tensor(b), torch.tensor(s)
    assert TV.nms(eb, es, 0.5).tolist() == torch_nms(tb, ts, 0.5).tolist()
    compare('nms 1000 boxes', {'ember': lambda: TV.nms(eb, es, 0.5),
                               'torch': lambda: torch_nms(tb, ts, 0.5)}, number=3, rounds=5)


def _roi_inputs():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 64, 50, 50)).astype(np.float32)
    r = np.concatenate([rng.integers(0, 2, (256, 1)).astype(np.float32),
                        _boxes(rng, 256, 350, 16, 300)], 1)
    return x, r


def roi_align_fwd():
    x, r = _roi_inputs()
    ex, er, tx, tr = ember.tensor(x), ember.tensor(r), torch.tensor(x), torch.tensor(r)
    np.testing.assert_allclose(TV.roi_align(ex, er, 0.125, 7, 7, 2, False).numpy(),
                               torch_roi_align(tx, tr, 0.125, 7, 2).numpy(), atol=1e-4)
    compare('roi_align 256 boxes 64ch 7x7 sr=2 (fwd)',
            {'ember': lambda: TV.roi_align(ex, er, 0.125, 7, 7, 2, False),
             'torch': lambda: torch_roi_align(tx, tr, 0.125, 7, 2)}, number=2, rounds=5)


def roi_align_fwd_bwd():
    x, r = _roi_inputs()
    ex, tx = ember.tensor(x).requires_grad_(), torch.tensor(x).requires_grad_()
    er, tr = ember.tensor(r), torch.tensor(r)

    def e():
        TV.roi_align(ex, er, 0.125, 7, 7, 2, False).sum().backward()

    def t():
        torch_roi_align(tx, tr, 0.125, 7, 2).sum().backward()
    compare('roi_align 256 boxes 64ch 7x7 sr=2 (fwd+bwd)', {'ember': e, 'torch': t},
            number=2, rounds=5)


WORKLOADS = {'nms_1000': nms_1000, 'roi_align_fwd': roi_align_fwd,
             'roi_align_fwd_bwd': roi_align_fwd_bwd}

if __name__ == '__main__':
    for name in (sys.argv[1:] or WORKLOADS):
        WORKLOADS[name]()
