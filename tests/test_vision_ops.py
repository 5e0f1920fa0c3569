"""``ember._vision_ops``: torchvision's operators (``ember.ops.torchvision.*``) against
reference implementations written here from torchvision's documented formulas (PyPI's
torchvision wheel cannot load its compiled operators beside the CPU torch either).

The references are plain loops over boxes, bins and samples (positions computed in the
boxes' dtype, as torchvision's CPU kernels do); for the linear operators they build the
dense matrix ``A`` of the map, so the forward is ``A @ x`` and torchvision's gradient is
``A_bwd.T @ g``. deform_conv2d's reference is written in torch ops, so torch's autograd
gives the reference gradients of all five tensors."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import ember
from ember import _vision_ops

torch.set_num_threads(1)
TV = ember.ops.torchvision
F32MAX = float(np.finfo(np.float32).max)


def E(a):
    return ember.tensor(np.asarray(a))


# ------------------------------------------------------------------ references
def ref_nms(boxes, scores, thr):
    """Greedy suppression: visit by score descending (stable), drop IoU > thr."""
    T = boxes.dtype.type
    order = sorted(range(len(scores)), key=lambda i: -float(scores[i]))
    area = [(b[2] - b[0]) * (b[3] - b[1]) for b in boxes]
    dead, keep = set(), []
    for a, i in enumerate(order):
        if i in dead:
            continue
        keep.append(i)
        for j in order[a + 1:]:
            if j in dead:
                continue
            w = max(T(0), min(boxes[i][2], boxes[j][2]) - max(boxes[i][0], boxes[j][0]))
            h = max(T(0), min(boxes[i][3], boxes[j][3]) - max(boxes[i][1], boxes[j][1]))
            inter = w * h
            if float(inter / (area[i] + area[j] - inter)) > thr:
                dead.add(j)
    return keep


def ref_batched_nms(boxes, scores, idxs, thr):
    """Per class nms, the kept indices sorted by score descending."""
    keep = []
    for c in sorted(set(idxs.tolist())):
        sel = [i for i in range(len(idxs)) if idxs[i] == c]
        k = ref_nms(boxes[sel], scores[sel], thr)
        keep += [sel[i] for i in k]
    return sorted(keep, key=lambda i: -float(scores[i]))


def _corners(H, W, y, x):
    """roi_align's bilinear sample at (y, x): [(row, col, weight)]; [] when > 1 pixel out."""
    T = type(y)
    if y < -1.0 or y > H or x < -1.0 or x > W or y != y or x != x:
        return []
    y = T(0) if y <= 0 else y
    x = T(0) if x <= 0 else x
    yl, xl = int(y), int(x)
    if yl >= H - 1:
        yl = yh = H - 1
        y = T(yl)
    else:
        yh = yl + 1
    if xl >= W - 1:
        xl = xh = W - 1
        x = T(xl)
    else:
        xh = xl + 1
    ly, lx = y - T(yl), x - T(xl)
    hy, hx = T(1) - ly, T(1) - lx
    return [(yl, xl, hy * hx), (yl, xh, hy * lx), (yh, xl, ly * hx), (yh, xh, ly * lx)]


def ref_align_matrix(shape, rois, scale, PH, PW, sr, aligned, ps=False):
    """Dense matrix of roi_align (``ps``: ps_roi_align) over flat (B, C, H, W) input."""
    B, C, H, W = shape
    T = rois.dtype.type
    K = len(rois)
    Cout = C // (PH * PW) if ps else C
    A = np.zeros((K * Cout * PH * PW, B * C * H * W))
    for k, r in enumerate(rois):
        b = int(r[0])
        off = T(0.5) if (aligned or ps) else T(0)
        sc = T(scale)
        sw, sh, ew, eh = r[1] * sc - off, r[2] * sc - off, r[3] * sc - off, r[4] * sc - off
        rw, rh = ew - sw, eh - sh
        if not (aligned or ps):
            rw, rh = max(rw, T(1)), max(rh, T(1))
        bh, bw = rh / T(PH), rw / T(PW)
        gh = sr if sr > 0 else int(math.ceil(bh))
        gw = sr if sr > 0 else int(math.ceil(bw))
        count = gh * gw if ps else max(gh * gw, 1)
        for co in range(Cout):
            for ph in range(PH):
                for pw in range(PW):
                    cs = [(co * PH + ph) * PW + pw] if ps else range(C)
                    for c in cs:
                        row = ((k * Cout + (co if ps else c)) * PH + ph) * PW + pw
                        for iy in range(gh):
                            y = sh + T(ph) * bh + T(iy + .5) * bh / T(gh)
                            for ix in range(gw):
                                x = sw + T(pw) * bw + T(ix + .5) * bw / T(gw)
                                for yy, xx, w in _corners(H, W, y, x):
                                    A[row, ((b * C + c) * H + yy) * W + xx] += w / count
            if not ps:
                break
    return A


def _c_round(v):
    v = float(v)
    return int(math.copysign(math.floor(abs(v) + 0.5), v))


def ref_pool_windows(r, scale, PH, PW, H, W, plus_one, lim_h, lim_w):
    T = type(r[1])
    sc = T(scale)
    sw, sh = _c_round(r[1] * sc), _c_round(r[2] * sc)
    ew, eh = _c_round(r[3] * sc), _c_round(r[4] * sc)
    rw = max(ew - sw + plus_one, 1)
    rh = max(eh - sh + plus_one, 1)
    bh, bw = T(rh) / T(PH), T(rw) / T(PW)
    for ph in range(PH):
        for pw in range(PW):
            hs = min(max(int(math.floor(T(ph) * bh)) + sh, 0), lim_h)
            he = min(max(int(math.ceil(T(ph + 1) * bh)) + sh, 0), lim_h)
            ws = min(max(int(math.floor(T(pw) * bw)) + sw, 0), lim_w)
            we = min(max(int(math.ceil(T(pw + 1) * bw)) + sw, 0), lim_w)
            yield ph, pw, hs, he, ws, we


def ref_roi_pool(x, rois, scale, PH, PW):
    B, C, H, W = x.shape
    out = np.zeros((len(rois), C, PH, PW), x.dtype)
    arg = np.full((len(rois), C, PH, PW), -1, np.int32)
    for k, r in enumerate(rois):
        b = int(r[0])
        for ph, pw, hs, he, ws, we in ref_pool_windows(r, scale, PH, PW, H, W, 1, H, W):
            empty = he <= hs or we <= ws
            for c in range(C):
                best, where = (0.0 if empty else -F32MAX), -1
                for h in range(hs, he):
                    for w in range(ws, we):
                        if x[b, c, h, w] > best:
                            best, where = x[b, c, h, w], h * W + w
                out[k, c, ph, pw], arg[k, c, ph, pw] = best, where
    return out, arg


def ref_ps_pool_matrix(shape, rois, scale, PH, PW, lim_off):
    """ps_roi_pool's window means; ``lim_off`` 1 clips windows to H-1 (torchvision's
    forward), 0 to H (its backward)."""
    B, C, H, W = shape
    Cout = C // (PH * PW)
    A = np.zeros((len(rois) * Cout * PH * PW, B * C * H * W))
    for k, r in enumerate(rois):
        b = int(r[0])
        for ph, pw, hs, he, ws, we in ref_pool_windows(r, scale, PH, PW, H, W, 0,
                                                       H - lim_off, W - lim_off):
            if he <= hs or we <= ws:
                continue
            area = (he - hs) * (we - ws)
            for co in range(Cout):
                c = (co * PH + ph) * PW + pw
                row = ((k * Cout + co) * PH + ph) * PW + pw
                for h in range(hs, he):
                    for w in range(ws, we):
                        A[row, ((b * C + c) * H + h) * W + w] += 1.0 / area
    return A


def ref_deform(x, w, off, mask, bias, stride, pad, dil, groups, og, use_mask):
    """deform_conv2d in torch ops, tap by tap, from the DCN formula: bilinear samples
    (corners outside the map are 0, a sample 1 pixel or more outside is 0)."""
    B, C, H, W = x.shape
    Cout, _, KH, KW = w.shape
    OH = (H + 2 * pad[0] - dil[0] * (KH - 1) - 1) // stride[0] + 1
    OW = (W + 2 * pad[1] - dil[1] * (KW - 1) - 1) // stride[1] + 1
    Cg = C // og
    taps = []
    for i in range(KH):
        for j in range(KW):
            per_group = []
            for g in range(og):
                t = g * KH * KW + i * KW + j
                y = (torch.arange(OH) * stride[0] - pad[0] + i * dil[0]).to(x.dtype)[:, None] \
                    + off[:, 2 * t]
                xx = (torch.arange(OW) * stride[1] - pad[1] + j * dil[1]).to(x.dtype)[None, :] \
                    + off[:, 2 * t + 1]
                img = x[:, g * Cg:(g + 1) * Cg].reshape(B, Cg, H * W)
                inside = (y > -1) & (y < H) & (xx > -1) & (xx < W)
                y0, x0 = torch.floor(y.detach()), torch.floor(xx.detach())
                val = 0
                for cy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
                    for cx, wx in ((x0, 1 - (xx - x0)), (x0 + 1, xx - x0)):
                        ok = inside & (cy >= 0) & (cy < H) & (cx >= 0) & (cx < W)
                        pos = torch.where(ok, cy * W + cx, 0).long().reshape(B, 1, -1)
                        v = img.gather(2, pos.expand(B, Cg, OH * OW)).reshape(B, Cg, OH, OW)
                        val = val + v * (wy * wx * ok)[:, None]
                if use_mask:
                    val = val * mask[:, t][:, None]
                per_group.append(val)
            taps.append(torch.cat(per_group, 1))              # (B, C, OH, OW)
    cols = torch.stack(taps, 2)                               # (B, C, KH*KW, OH, OW)
    cols = cols.reshape(B, groups, (C // groups) * KH * KW, OH * OW)
    wg = w.reshape(groups, Cout // groups, (C // groups) * KH * KW)
    out = torch.einsum('gok,bgkl->bgol', wg, cols).reshape(B, Cout, OH, OW)
    return out + bias[None, :, None, None]


# ------------------------------------------------------------------ nms
def test_nms_hand_checked():
    # box 1 is box 0 with its bottom at 1.9: IoU = 3.8 / 4 = 0.95 > 0.5, dropped; box 2 is
    # disjoint from both, kept. Scores order them 0, 1, 2.
    boxes = E(np.array([[0, 0, 2, 2], [0, 0, 2, 1.9], [3, 3, 4, 4]], np.float32))
    assert TV.nms(boxes, E(np.array([.9, .8, .7], np.float32)), 0.5).tolist() == [0, 2]
    # at threshold 0.96 the 0.95 overlap stays
    assert TV.nms(boxes, E(np.array([.9, .8, .7], np.float32)), 0.96).tolist() == [0, 1, 2]
    # IoU 3 / 10 is float32(0.3) = 0.30000001, compared with the threshold as a double
    # (the kernel's float > double): 0.30000001 > 0.3, so box 1 is dropped
    inner = E(np.array([[0, 0, 10, 1], [0, 0, 3, 1]], np.float32))
    assert TV.nms(inner, E(np.array([.9, .8], np.float32)), 0.3).tolist() == [0]
    # equal scores: the lower index wins (stable descending sort)
    same = E(np.array([[0, 0, 1, 1], [0, 0, 1, 1]], np.float64))
    assert TV.nms(same, E(np.array([.5, .5])), 0.5).tolist() == [0]
    assert TV.nms(E(np.zeros((0, 4), np.float32)), E(np.zeros(0, np.float32)), .5).dtype \
        == ember.int64


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('thr', [0.0, 0.3, 0.5, 0.7, 1.0])
def test_nms_vs_reference(dtype, thr):
    rng = np.random.default_rng(int(thr * 10))
    xy = rng.uniform(0, 20, (60, 2))
    wh = rng.uniform(1, 10, (60, 2))
    boxes = np.concatenate([xy, xy + wh], 1).astype(dtype)
    boxes[5] = boxes[4]                           # duplicates
    scores = rng.choice([.1, .2, .3, .5, .9], 60).astype(dtype)   # many ties
    got = TV.nms(E(boxes), E(scores), thr)
    assert got.dtype == ember.int64
    assert got.tolist() == ref_nms(boxes, scores, thr)


def test_nms_errors():
    b, s = E(np.zeros((3, 4), np.float32)), E(np.zeros(3, np.float32))
    cases = [((E(np.zeros(4, np.float32)), s), "boxes should be a 2d tensor, got 1D"),
             ((E(np.zeros((3, 5), np.float32)), s),
              "boxes should have 4 elements in dimension 1, got 5"),
             ((b, E(np.zeros((3, 1), np.float32))), "scores should be a 1d tensor, got 2D"),
             ((b, E(np.zeros(2, np.float32))), "boxes and scores should have same number of "
                                              "elements in dimension 0, got 3 and 2"),
             ((b, E(np.zeros(3))), "dets should have the same type as scores")]
    for args, msg in cases:
        with pytest.raises(RuntimeError, match=msg):
            TV.nms(*args, 0.5)
    with pytest.raises(NotImplementedError, match="\"nms_kernel\" not implemented for 'Half'"):
        TV.nms(b.half(), s.half(), 0.5)


def _batched_nms_trick(boxes, scores, idxs, thr):
    """torchvision's batched_nms (coordinate trick): boxes of each class offset apart."""
    offsets = idxs.to(boxes) * (boxes.max() + 1)
    return TV.nms(boxes + offsets[:, None], scores, thr)


def _batched_nms_vanilla(boxes, scores, idxs, thr):
    """torchvision's batched_nms (per class loop), results ordered by score."""
    keep = ember.zeros_like(scores, dtype=ember.bool)
    for c in ember.unique(idxs):
        cur = ember.where(idxs == c)[0]
        keep[cur[TV.nms(boxes[cur], scores[cur], thr)]] = True
    kept = ember.where(keep)[0]
    return kept[scores[kept].sort(descending=True)[1]]


@pytest.mark.parametrize('impl', [_batched_nms_trick, _batched_nms_vanilla])
def test_batched_nms(impl):
    rng = np.random.default_rng(3)
    xy = rng.uniform(0, 10, (80, 2))
    boxes = np.concatenate([xy, xy + rng.uniform(1, 6, (80, 2))], 1).astype(np.float32)
    scores = rng.permutation(80).astype(np.float32) / 80     # distinct: one order
    idxs = rng.integers(0, 4, 80)
    got = impl(E(boxes), E(scores), E(idxs), 0.4)
    assert got.tolist() == ref_batched_nms(boxes, scores, idxs, 0.4)


# ------------------------------------------------------------------ roi_align
def _rois(rng, K, B, H, W, dtype, spread=1.5):
    """Boxes over (and partly beyond) an H x W map, plus a degenerate one."""
    x1 = rng.uniform(-2, W * spread - 2, K)
    y1 = rng.uniform(-2, H * spread - 2, K)
    r = np.stack([rng.integers(0, B, K), x1, y1, x1 + rng.uniform(0.2, W, K),
                  y1 + rng.uniform(0.2, H, K)], 1)
    r[0, 3] = r[0, 1] - 0.3          # negative width (aligned: no samples at adaptive)
    return r.astype(dtype)


def test_roi_align_hand_checked():
    # x[y, x] = 4y + x is bilinear-exact, so a bin's mean is 4 * mean(y) + mean(x).
    # Box (0, 0)-(2, 2), 1 bin, 2x2 samples at 0.5 and 1.5: 4 * 1 + 1 = 5.
    x = ember.arange(16.).reshape(1, 1, 4, 4)
    box = ember.tensor([[0., 0., 0., 2., 2.]])
    assert TV.roi_align(x, box, 1.0, 1, 1, 2, False).item() == 5.0
    # aligned shifts by -0.5: samples at 0 and 1 -> 4 * 0.5 + 0.5 = 2.5
    assert TV.roi_align(x, box, 1.0, 1, 1, 2, True).item() == 2.5
    # spatial_scale 0.5 halves the box to (0, 0)-(1, 1): samples at .25, .75 -> 4*.5+.5
    assert TV.roi_align(x, box, 0.5, 1, 1, 2, False).item() == 2.5
    # a sample beyond the map's edge (x = 4.5 > W) counts 0 but still divides:
    # box (3, 0)-(5, 1) not aligned, 1 bin, 1 sample at (0.5, 4.0): x clamps to 3, y .5
    # -> 4 * 0.5 + 3 = 5; at 2 samples per side, x = 3.5 (clamped to 3) and 4.5 (out):
    # columns give (5 + 0) for each of y = .25, .75 -> (4*.25+3 + 4*.75+3) / 4 = 2.5
    b2 = ember.tensor([[0., 3., 0., 5., 1.]])
    assert TV.roi_align(x, b2, 1.0, 1, 1, 1, False).item() == 5.0
    assert TV.roi_align(x, b2, 1.0, 1, 1, 2, False).item() == 2.5


@pytest.mark.parametrize('aligned', [False, True])
@pytest.mark.parametrize('sr,scale,dtype', [(2, 1.0, np.float64), (-1, 0.5, np.float32),
                                            (0, 1.0, np.float32), (3, 0.75, np.float64)])
def test_roi_align_vs_reference(aligned, sr, scale, dtype):
    rng = np.random.default_rng(sr + 2 + 7 * aligned)
    B, C, H, W, PH, PW = 2, 3, 7, 6, 3, 2
    x = rng.standard_normal((B, C, H, W)).astype(dtype)
    rois = _rois(rng, 5, B, H / scale, W / scale, dtype)
    A = ref_align_matrix(x.shape, rois, scale, PH, PW, sr, aligned)
    xe = E(x).requires_grad_()
    out = TV.roi_align(xe, E(rois), scale, PH, PW, sr, aligned)
    assert out.shape == (5, C, PH, PW) and out.dtype == xe.dtype and out.is_contiguous()
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out.detach().numpy().reshape(-1), A @ x.reshape(-1),
                               rtol=tol, atol=tol)
    g = rng.standard_normal(out.shape).astype(dtype)
    out.backward(E(g))
    np.testing.assert_allclose(xe.grad.numpy().reshape(-1), A.T @ g.reshape(-1),
                               rtol=tol, atol=tol)
    # the gradient operator, called as torchvision's autograd calls it
    gi = TV._roi_align_backward(E(g), E(rois), scale, PH, PW, B, C, H, W, sr, aligned)
    np.testing.assert_allclose(gi.numpy(), xe.grad.numpy(), rtol=tol, atol=tol)


def test_roi_align_gradcheck_and_double_backward():
    rng = np.random.default_rng(0)
    x = E(rng.standard_normal((2, 2, 5, 5))).requires_grad_()
    rois = E(_rois(rng, 3, 2, 5, 5, np.float64))
    for aligned in (False, True):
        f = lambda t: TV.roi_align(t, rois, 1.0, 2, 2, -1, aligned)  # noqa: E731
        assert ember.autograd.gradcheck(f, (x,))
        assert ember.autograd.gradgradcheck(f, (x,))


def test_roi_align_chunked_matches_whole(monkeypatch):
    """Many boxes are gathered in chunks of similar sampling cost; same result."""
    from ember import _vision_ops
    rng = np.random.default_rng(1)
    x = E(rng.standard_normal((2, 4, 9, 9)).astype(np.float32)).requires_grad_()
    rois = E(_rois(rng, 30, 2, 9, 9, np.float32, spread=1.0))
    whole = TV.roi_align(x, rois, 1.0, 3, 3, -1, False)
    whole.sum().backward()
    gw = x.grad.clone()
    x.grad = None
    monkeypatch.setattr(_vision_ops, '_BUDGET', 2000)
    assert len(_vision_ops._chunks(np, _vision_ops._align_cost(
        rois.numpy(), 1.0, 3, 3, -1, True, 4))) > 3
    part = TV.roi_align(x, rois, 1.0, 3, 3, -1, False)
    part.sum().backward()
    np.testing.assert_allclose(part.detach().numpy(), whole.detach().numpy(), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), gw.numpy(), rtol=1e-5, atol=1e-6)


def test_roi_align_errors():
    x = E(np.zeros((1, 1, 4, 4), np.float32))
    with pytest.raises(RuntimeError, match=r"rois must have shape as Tensor\[K, 5\]"):
        TV.roi_align(x, E(np.zeros((1, 4), np.float32)), 1.0, 1, 1, 1, False)
    with pytest.raises(RuntimeError, match="input should have the same type as rois"):
        TV.roi_align(x, E(np.zeros((1, 5))), 1.0, 1, 1, 1, False)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        TV.roi_align(x.long(), E(np.zeros((1, 5))).long(), 1.0, 1, 1, 1, False)
    with pytest.raises(RuntimeError, match="missing value for argument 'aligned'"):
        TV.roi_align(x, E(np.zeros((1, 5), np.float32)), 1.0, 1, 1, 1)


# ------------------------------------------------------------------ roi_pool
def test_roi_pool_hand_checked():
    # box (0, 0)-(1, 1) rounds to rows/cols 0..1 (+1: inclusive): one 2x2 bin, max of
    # 0, 1, 4, 5 is 5 at flat index 5.  A box fully outside the map: empty bin, 0, -1.
    x = ember.arange(16.).reshape(1, 1, 4, 4)
    out, arg = TV.roi_pool(x, ember.tensor([[0., 0., 0., 1., 1.], [0., 9., 9., 10., 10.]]),
                           1.0, 1, 1)
    assert out.flatten().tolist() == [5.0, 0.0] and arg.flatten().tolist() == [5, -1]
    assert arg.dtype == ember.int32
    # 0.5 rounds away from zero: x1 = 0.5 -> column 1, so the bin is columns 1..1 -> 5
    out, _ = TV.roi_pool(x, ember.tensor([[0., .5, 0., 1.4, 1.]]), 1.0, 1, 1)
    assert out.item() == 5.0


@pytest.mark.parametrize('scale,dtype', [(1.0, np.float64), (0.5, np.float32)])
def test_roi_pool_vs_reference(scale, dtype):
    rng = np.random.default_rng(11)
    B, C, H, W, PH, PW = 2, 3, 6, 7, 2, 3
    x = rng.standard_normal((B, C, H, W)).astype(dtype)
    x[0, 0, 1, 1] = x[0, 0, 1, 2] = 5.0            # a tie: the first in scan order wins
    x[1, 2] = -np.inf                              # nothing above -FLT_MAX: -FLT_MAX, -1
    rois = _rois(rng, 6, B, H / scale, W / scale, dtype)
    ro, ra = ref_roi_pool(x, rois, scale, PH, PW)
    xe = E(x).requires_grad_()
    out, arg = TV.roi_pool(xe, E(rois), scale, PH, PW)
    np.testing.assert_array_equal(out.detach().numpy(), ro)
    np.testing.assert_array_equal(arg.numpy(), ra)
    g = rng.standard_normal(out.shape).astype(dtype)
    out.backward(E(g))
    ref = np.zeros_like(x)
    for k, r in enumerate(rois):
        for c in range(C):
            for ph in range(PH):
                for pw in range(PW):
                    if ra[k, c, ph, pw] >= 0:
                        ref[int(r[0]), c].reshape(-1)[ra[k, c, ph, pw]] += g[k, c, ph, pw]
    np.testing.assert_allclose(xe.grad.numpy(), ref, rtol=1e-6)
    gi = TV._roi_pool_backward(E(g), E(rois), arg, scale, PH, PW, B, C, H, W)
    np.testing.assert_allclose(gi.numpy(), ref, rtol=1e-6)


def test_roi_pool_gradcheck_and_errors():
    rng = np.random.default_rng(2)
    x = E(rng.standard_normal((1, 2, 5, 5))).requires_grad_()
    rois = E(np.array([[0, 0, 0, 3, 3], [0, 1.2, 0.4, 4.1, 2.6]]))
    assert ember.autograd.gradcheck(lambda t: TV.roi_pool(t, rois, 1.0, 2, 2)[0], (x,))
    with pytest.raises(RuntimeError, match="input and rois must have the same dtype"):
        TV.roi_pool(x, rois.float(), 1.0, 2, 2)
    with pytest.raises(RuntimeError, match="roi_pool only supports float and double types"):
        TV.roi_pool(x.half(), rois.half(), 1.0, 2, 2)
    with pytest.raises(RuntimeError, match=r"Tensor rois should have shape as Tensor\[K, 5\]"):
        TV.roi_pool(x, rois[:, :4], 1.0, 2, 2)


# ------------------------------------------------------------------ position-sensitive
@pytest.mark.parametrize('sr,scale,dtype', [(2, 1.0, np.float64), (-1, 0.5, np.float32)])
def test_ps_roi_align_vs_reference(sr, scale, dtype):
    rng = np.random.default_rng(5)
    B, PH, PW, H, W = 2, 2, 3, 6, 5
    C = 2 * PH * PW
    x = rng.standard_normal((B, C, H, W)).astype(dtype)
    rois = _rois(rng, 4, B, H / scale, W / scale, dtype)
    rois[0, 3] = rois[0, 1] + 0.8          # a positive box (ps has no min size)
    A = ref_align_matrix(x.shape, rois, scale, PH, PW, sr, True, ps=True)
    xe = E(x).requires_grad_()
    out, cm = TV.ps_roi_align(xe, E(rois), scale, PH, PW, sr)
    assert out.shape == (4, 2, PH, PW) and cm.dtype == ember.int32
    np.testing.assert_array_equal(cm.numpy()[1], np.arange(C).reshape(2, PH, PW))
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out.detach().numpy().reshape(-1), A @ x.reshape(-1),
                               rtol=tol, atol=tol)
    g = rng.standard_normal(out.shape).astype(dtype)
    out.backward(E(g))
    np.testing.assert_allclose(xe.grad.numpy().reshape(-1), A.T @ g.reshape(-1),
                               rtol=tol, atol=tol)
    gi = TV._ps_roi_align_backward(E(g), E(rois), cm, scale, PH, PW, sr, B, C, H, W)
    np.testing.assert_allclose(gi.numpy(), xe.grad.numpy(), rtol=tol, atol=tol)


def test_ps_roi_align_empty_grid_is_nan():
    # adaptive sampling of a zero-height box: 0 samples, 0 / 0 as torchvision's kernel
    x = ember.ones(1, 1, 4, 4)
    out, _ = TV.ps_roi_align(x, ember.tensor([[0., 0., 1., 2., 1.]]), 1.0, 1, 1, -1)
    assert math.isnan(out.item())


@pytest.mark.parametrize('scale', [1.0, 0.5])
def test_ps_roi_pool_vs_reference(scale):
    rng = np.random.default_rng(8)
    B, PH, PW, H, W = 2, 2, 2, 6, 6
    C = 3 * PH * PW
    x = rng.standard_normal((B, C, H, W))
    rois = _rois(rng, 5, B, H / scale, W / scale, np.float64)
    Af = ref_ps_pool_matrix(x.shape, rois, scale, PH, PW, 1)     # forward clips at H-1
    Ab = ref_ps_pool_matrix(x.shape, rois, scale, PH, PW, 0)     # backward clips at H
    xe = E(x).requires_grad_()
    out, cm = TV.ps_roi_pool(xe, E(rois), scale, PH, PW)
    np.testing.assert_allclose(out.detach().numpy().reshape(-1), Af @ x.reshape(-1),
                               rtol=1e-12, atol=1e-12)
    g = rng.standard_normal(out.shape)
    out.backward(E(g))
    np.testing.assert_allclose(xe.grad.numpy().reshape(-1), Ab.T @ g.reshape(-1),
                               rtol=1e-12, atol=1e-12)


def test_ps_ops_gradcheck_and_errors():
    rng = np.random.default_rng(4)
    x = E(rng.standard_normal((1, 4, 6, 6))).requires_grad_()
    rois = E(np.array([[0, 0.3, 0.6, 3.1, 4.2], [0, 1, 1, 4, 3]]))   # inside rows/cols < 5
    assert ember.autograd.gradcheck(lambda t: TV.ps_roi_align(t, rois, 1.0, 2, 2, 2)[0], (x,))
    assert ember.autograd.gradcheck(lambda t: TV.ps_roi_pool(t, rois, 1.0, 2, 2)[0], (x,))
    msg = "input channels must be a multiple of pooling height \\* pooling width"
    with pytest.raises(RuntimeError, match=msg):
        TV.ps_roi_align(x, rois, 1.0, 3, 1, 2)
    with pytest.raises(RuntimeError, match=msg):
        TV.ps_roi_pool(x, rois, 1.0, 3, 1)
    with pytest.raises(RuntimeError, match="input should have the same type as rois"):
        TV.ps_roi_align(x, rois.float(), 1.0, 2, 2, 2)


# ------------------------------------------------------------------ deform_conv2d
DEFORM_CASES = [  # B, C, Cout, H, W, k, stride, pad, dil, groups, og, use_mask
    (2, 2, 3, 5, 6, (3, 3), (1, 1), (1, 1), (1, 1), 1, 1, True),
    (1, 4, 2, 6, 5, (2, 3), (2, 1), (0, 1), (1, 2), 2, 2, False),
    (2, 4, 4, 5, 5, (3, 2), (1, 2), (2, 0), (2, 1), 1, 4, True),
]


@pytest.mark.parametrize('case', DEFORM_CASES)
def test_deform_conv2d_vs_reference(case):
    B, C, Cout, H, W, k, st, pd, dl, groups, og, use_mask = case
    rng = np.random.default_rng(sum(k) + groups)
    OH = (H + 2 * pd[0] - dl[0] * (k[0] - 1) - 1) // st[0] + 1
    OW = (W + 2 * pd[1] - dl[1] * (k[1] - 1) - 1) // st[1] + 1
    arrs = [rng.standard_normal((B, C, H, W)), rng.standard_normal((Cout, C // groups) + k),
            rng.uniform(-2.5, 2.5, (B, 2 * og * k[0] * k[1], OH, OW)),
            rng.uniform(0, 1, (B, og * k[0] * k[1], OH, OW)) if use_mask
            else np.zeros((B, 1)), rng.standard_normal(Cout)]
    ts = [torch.tensor(a, requires_grad=True) for a in arrs]
    es = [E(a).requires_grad_() for a in arrs]
    ref = ref_deform(*ts, st, pd, dl, groups, og, use_mask)
    out = TV.deform_conv2d(*es, *st, *pd, *dl, groups, og, use_mask)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-10,
                               atol=1e-10)
    g = rng.standard_normal(out.shape)
    ref.backward(torch.tensor(g))
    out.backward(E(g))
    for t, e in zip(ts, es):
        if t.grad is None:               # the mask without use_mask: unused
            assert e.grad is None
            continue
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-10)
    grads = TV._deform_conv2d_backward(E(g), *[e.detach() for e in es], *st, *pd, *dl,
                                       groups, og, use_mask)
    assert len(grads) == 5
    for gg, e in zip(grads, es):
        want = e.grad.numpy() if e.grad is not None else np.zeros(e.shape)
        np.testing.assert_allclose(gg.numpy(), want, rtol=1e-9, atol=1e-10)


def test_deform_conv2d_hand_checked_and_gradcheck():
    # zero offsets: an ordinary convolution. 3x3 ones, 2x2 ones kernel: every output 4.
    x, w = ember.ones(1, 1, 3, 3), ember.ones(1, 1, 2, 2)
    out = TV.deform_conv2d(x, w, ember.zeros(1, 8, 2, 2), ember.zeros(1, 1), ember.zeros(1),
                           1, 1, 0, 0, 1, 1, 1, 1, False)
    assert out.flatten().tolist() == [4.0] * 4
    # every tap moved down by 0.5 on arange(9) (rows 0 1 2 / 3 4 5 / 6 7 8): the top-left
    # output's taps sample (0.5, 0) = (0+3)/2, (0.5, 1) = (1+4)/2, (1.5, 0) = (3+6)/2 and
    # (1.5, 1) = (4+7)/2: 1.5 + 2.5 + 4.5 + 5.5 = 14
    x = ember.arange(9.).reshape(1, 1, 3, 3)
    off = ember.zeros(1, 8, 2, 2)
    off[:, 0::2] = 0.5
    out = TV.deform_conv2d(x, w, off, ember.zeros(1, 1), ember.zeros(1), 1, 1, 0, 0, 1, 1,
                           1, 1, False)
    assert out[0, 0, 0, 0].item() == 14.0
    rng = np.random.default_rng(9)
    ins = [E(rng.standard_normal((1, 2, 4, 4))).requires_grad_(),
           E(rng.standard_normal((2, 2, 2, 2))).requires_grad_(),
           E(rng.uniform(-1.3, 1.3, (1, 8, 3, 3))).requires_grad_(),
           E(rng.uniform(0, 1, (1, 4, 3, 3))).requires_grad_(),
           E(rng.standard_normal(2)).requires_grad_()]
    f = lambda *t: TV.deform_conv2d(*t, 1, 1, 0, 0, 1, 1, 1, 1, True)  # noqa: E731
    assert ember.autograd.gradcheck(f, ins)


def test_deform_conv2d_errors():
    x, w = ember.ones(1, 2, 4, 4), ember.ones(2, 2, 3, 3)
    off, m, b = ember.zeros(1, 18, 2, 2), ember.zeros(1, 9, 2, 2), ember.zeros(2)
    with pytest.raises(RuntimeError, match="offset.shape\\[1\\] is not valid: got: 18 "
                                           "expected: 36"):
        TV.deform_conv2d(x, w, off, m, b, 1, 1, 0, 0, 1, 1, 1, 2, False)
    with pytest.raises(RuntimeError, match=r"offset output dims: \(2, 2\) - computed output "
                                           r"dims: \(4, 4\)"):
        TV.deform_conv2d(x, w, off, m, b, 1, 1, 1, 1, 1, 1, 1, 1, False)
    with pytest.raises(RuntimeError, match="stride_h: 0 stride_w: 1"):
        TV.deform_conv2d(x, w, off, m, b, 0, 1, 0, 0, 1, 1, 1, 1, False)
    with pytest.raises(RuntimeError, match="invalid batch size of mask"):
        TV.deform_conv2d(x, w, off, ember.zeros(2, 1), b, 1, 1, 0, 0, 1, 1, 1, 1, False)
    with pytest.raises(RuntimeError, match="mask.shape\\[1\\] is not valid: got: 1"):
        TV.deform_conv2d(x, w, off, ember.zeros(1, 1, 2, 2), b, 1, 1, 0, 0, 1, 1, 1, 1, True)


# ------------------------------------------------------------------ registration
SCHEMAS = {   # torchvision's operator schemas (csrc/ops/*.cpp), as torchvision declares them
    'nms': "(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    'roi_align': "(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
                 "SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor",
    '_roi_align_backward': "(Tensor grad, Tensor rois, float spatial_scale, SymInt "
                           "pooled_height, SymInt pooled_width, SymInt batch_size, SymInt "
                           "channels, SymInt height, SymInt width, int sampling_ratio, bool "
                           "aligned) -> Tensor",
    'roi_pool': "(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
                "SymInt pooled_width) -> (Tensor, Tensor)",
    'ps_roi_align': "(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
                    "SymInt pooled_width, int sampling_ratio) -> (Tensor, Tensor)",
    'ps_roi_pool': "(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, "
                   "SymInt pooled_width) -> (Tensor, Tensor)",
    'deform_conv2d': "(Tensor input, Tensor weight, Tensor offset, Tensor mask, Tensor bias, "
                     "SymInt stride_h, SymInt stride_w, SymInt pad_h, SymInt pad_w, SymInt "
                     "dilation_h, SymInt dilation_w, SymInt groups, SymInt offset_groups, "
                     "bool use_mask) -> Tensor",
}


def test_schemas_and_keywords():
    from ember import library
    for name, schema in SCHEMAS.items():
        op = library._OPS['torchvision::' + name]
        _, args, rets = library._parse_schema(name + schema)
        assert [(a[0], a[1]) for a in op.args] == [(a[0], a[1]) for a in args], name
        assert op.returns == rets
    x = ember.arange(16.).reshape(1, 1, 4, 4)
    out = TV.roi_align(input=x, rois=ember.tensor([[0., 0., 0., 2., 2.]]), spatial_scale=1.0,
                       pooled_height=1, pooled_width=1, sampling_ratio=2, aligned=False)
    assert out.item() == 5.0
    assert TV.roi_align.default(x, ember.tensor([[0., 0., 0., 2., 2.]]), 1.0, 1, 1, 2,
                                False).item() == 5.0
    assert TV._cuda_version() == -1


def test_lazy_registration_and_torchaudio():
    code = ("import sys, ember\n"
            "assert 'ember._vision_ops' not in sys.modules\n"
            "assert 'torchvision::nms' not in ember.library._OPS\n"
            "ember.library.register_fake('torchvision::roi_align', lambda *a: None)\n"
            "assert 'ember._vision_ops' in sys.modules\n"
            "try:\n"
            "    ember.ops.torchaudio.forced_align\n"
            "except AttributeError as e:\n"
            "    print(e)\n")
    res = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert "torchaudio::forced_align is not available on ember" in res.stdout
    assert "C++ runtime" in res.stdout


# ------------------------------------------------------------------ nms (first tests), and
# registration when torchvision asks load_library for its compiled library

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
    lib = pkg / '_C_stable.so'      # torchvision 0.29's name (earlier: _C.so)
    lib.write_bytes(b'\x7fELF not really libc10.so')
    # torchvision's operator library: ember's Python operators stand in for it, the call
    # succeeds (torchvision then reports _has_ops() and its ops run on them); its other
    # compiled libraries (image.so) are refused as any libtorch library
    before = set(ember.ops.loaded_libraries)
    try:
        ember.ops.load_library(str(lib))
        assert str(os.path.realpath(lib)) in ember.ops.loaded_libraries
    finally:
        ember.ops.loaded_libraries.clear()
        ember.ops.loaded_libraries.update(before)
    image = pkg / 'image.so'
    image.write_bytes(b'\x7fELF ... libc10.so')
    with pytest.raises(OSError, match='Could not load this library'):
        ember.ops.load_library(str(image))
    boxes = ember.tensor([[0., 0., 2., 2.], [0., 0., 2., 1.9], [3., 3., 4., 4.]])
    keep = ember.ops.torchvision.nms(boxes, ember.tensor([.9, .8, .7]), 0.5)
    assert keep.tolist() == [0, 2]
    with pytest.raises(NotImplementedError, match='quantized'):
        ember.ops.torchvision.qnms(boxes, ember.tensor([.9, .8, .7]), 0.5)


def test_ops_stay_on_the_inputs_array_module():
    """On the strict check backend (a stand-in for a device's array module) every op and
    its gradient computes with the inputs' module: results and gradients stay strict."""
    code = '''
import numpy as np, ember
from ember._backend import strict_backend as sb
TV = ember.ops.torchvision
rng = np.random.default_rng(0)
x = rng.standard_normal((2, 4, 6, 6))
rois = np.array([[0, 0.3, 0.6, 3.1, 4.2], [1, 1, 1, 4, 3]])
T = lambda a: ember.tensor(np.asarray(a))
keep = TV.nms(T([[0, 0, 2, 2], [0, 0, 2, 1.9], [3, 3, 4, 4.]]), T([.9, .8, .7]), 0.5)
assert type(keep._data) is sb.StrictArray and keep.tolist() == [0, 2]
calls = [lambda t: TV.roi_align(t, T(rois), 1.0, 2, 2, -1, False),
         lambda t: TV.roi_pool(t, T(rois), 1.0, 2, 2)[0],
         lambda t: TV.ps_roi_align(t, T(rois), 1.0, 2, 2, 2)[0],
         lambda t: TV.ps_roi_pool(t, T(rois), 1.0, 2, 2)[0],
         lambda t: TV.deform_conv2d(t[:, :2], T(np.ones((2, 2, 2, 2))),
                                    T(rng.uniform(-1, 1, (2, 8, 5, 5))),
                                    T(np.ones((2, 4, 5, 5))), T(np.zeros(2)),
                                    1, 1, 0, 0, 1, 1, 1, 1, True)]
for f in calls:
    t = T(x).requires_grad_()
    out = f(t)
    out.sum().backward()
    assert type(out._data) is sb.StrictArray and type(t.grad._data) is sb.StrictArray
print('ok')
'''
    env = dict(os.environ, EMBER_STRICT_BACKEND='1')
    res = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         timeout=120, env=env)
    assert res.returncode == 0 and res.stdout.strip() == 'ok', res.stderr[-2000:]


def test_torchaudio_library_is_refused_with_the_reason(tmp_path):
    lib = tmp_path / 'torchaudio' / 'lib'
    lib.mkdir(parents=True)
    so = lib / 'libtorchaudio.so'
    so.write_bytes(b'\x7fELF ... NEEDED libtorch.so libc10.so')
    with pytest.raises(OSError, match="Could not load this library: .*libtorchaudio.so "
                                      r"\(torchaudio's compiled library is built against "
                                      "PyTorch's C\\+\\+ runtime.*torchaudio is not supported"):
        ember.ops.load_library(str(so))
    assert str(os.path.realpath(so)) not in ember.ops.loaded_libraries


def test_no_boxes_and_meta_shapes():
    x = ember.randn(2, 8, 5, 5, requires_grad=True)
    none = ember.zeros(0, 5)
    for f, shape in [(lambda t, r: TV.roi_align(t, r, 1.0, 3, 2, -1, False), (8, 3, 2)),
                     (lambda t, r: TV.roi_pool(t, r, 1.0, 3, 2)[0], (8, 3, 2)),
                     (lambda t, r: TV.ps_roi_align(t, r, 1.0, 2, 2, -1)[0], (2, 2, 2)),
                     (lambda t, r: TV.ps_roi_pool(t, r, 1.0, 2, 2)[0], (2, 2, 2))]:
        out = f(x, none)
        assert out.shape == (0,) + shape
        x.grad = None
        out.sum().backward()
        assert x.grad.abs().sum().item() == 0
        meta = f(ember.empty(2, 8, 5, 5, device='meta'), ember.empty(4, 5, device='meta'))
        assert meta.device.type == 'meta' and meta.shape == (4,) + shape
    m = dict(device='meta')
    out = TV.deform_conv2d(ember.empty(2, 8, 10, 10, **m), ember.empty(4, 8, 3, 3, **m),
                           ember.empty(2, 18, 8, 8, **m), ember.empty(2, 1, **m),
                           ember.empty(4, **m), 1, 1, 0, 0, 1, 1, 1, 1, False)
    assert out.shape == (2, 4, 8, 8) and out.device.type == 'meta'


def test_ps_ops_hand_checked():
    # ps_roi_pool, box (0, 0)-(4, 4) on a 4x4 map, 2x2 bins: the box rounds to 4 pixels a
    # side, bins 2 wide; bin (1, 1) reads input channel (0*2 + 1)*2 + 1 = 3 over rows and
    # columns [2, 4), which torchvision's forward clips to [2, 3): the single value
    # x[3, 2, 2] = 10.  Its gradient operator clips to [2, 4): a unit gradient spreads 1/4
    # over rows/cols 2..3 of channel 3, although the forward never read row or column 3.
    x = ember.arange(64.).reshape(1, 4, 4, 4) % 16
    x.requires_grad_()
    out, cm = TV.ps_roi_pool(x, ember.tensor([[0., 0., 0., 4., 4.]]), 1.0, 2, 2)
    assert out[0, 0, 1, 1].item() == 10.0 and cm.flatten().tolist() == [0, 1, 2, 3]
    g = ember.zeros(1, 1, 2, 2)
    g[0, 0, 1, 1] = 1.0
    out.backward(g)
    want = np.zeros((4, 4, 4))
    want[3, 2:, 2:] = 0.25
    np.testing.assert_array_equal(x.grad[0].numpy(), want)
    # ps_roi_align, box (0, 0)-(2, 2) shifted by -0.5 -> (-0.5, -0.5)-(1.5, 1.5), 1x1 bin,
    # 1 sample at its centre (0.5, 0.5) of channel 0: bilinear mean of x[0, :2, :2]
    x = ember.arange(16.).reshape(1, 1, 4, 4)
    out, _ = TV.ps_roi_align(x, ember.tensor([[0., 0., 0., 2., 2.]]), 1.0, 1, 1, 1)
    assert out.item() == (0 + 1 + 4 + 5) / 4


def test_autocast_computes_in_float32():
    """As torchvision's autocast kernels: under autocast, low-precision inputs are cast to
    float32, and floating results back to the input's dtype; outside it bfloat16 is refused."""
    rng = np.random.default_rng(12)
    x = E(rng.standard_normal((1, 4, 6, 6)).astype(np.float32)).bfloat16()
    rois = E(np.array([[0, 0.5, 0.5, 4.2, 3.9]], np.float32)).bfloat16()
    with pytest.raises(NotImplementedError, match="not implemented for 'BFloat16'"):
        TV.roi_align(x, rois, 1.0, 2, 2, 2, False)
    with ember.autocast('cpu', dtype=ember.bfloat16):
        out = TV.roi_align(x, rois, 1.0, 2, 2, 2, False)
        pooled, arg = TV.roi_pool(x, rois, 1.0, 2, 2)
        keep = TV.nms(rois[:, 1:], ember.ones(1).bfloat16(), 0.5)
    assert out.dtype == ember.bfloat16 and pooled.dtype == ember.bfloat16
    assert arg.dtype == ember.int32 and keep.tolist() == [0]
    want = TV.roi_align(x.float(), rois.float(), 1.0, 2, 2, 2, False).bfloat16()
    assert ember.equal(out, want)
