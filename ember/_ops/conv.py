"""Convolutions (1d/2d/3d, grouped, strided, dilated, padded) and transposed
convolutions, by im2col on strided windows + one matrix product per group.

The backward of ``convolution`` is ``convolution`` again (transposed for the input
gradient), so double backward works: grad_input of a convolution is a transposed
convolution of the gradient with the same weight, and grad_weight is a convolution of the
input with the gradient (roles of stride and dilation swapped).

Speed (stride 1, enough channels): the input is zero-padded once into a channel-major flat
buffer, where the inputs of one kernel offset at every output position form one contiguous
slice; columns are built from ``K`` slice copies per block of samples (kept in cache) and
multiplied in one GEMM per block (:func:`_conv_s1`); the transposed convolution is the
same with the flipped weight, or a flat col2im of ``K`` contiguous slice adds; the weight
gradient likewise (:func:`_weight_grad_s1`). Outside ``create_graph`` the backward works on
arrays (sharing padded buffers); under it, it stays in ember ops."""
import functools

from . import _args
import numpy as np

from .._tensor import Tensor, _Mode
from ._util import wrap, Node, register, grad_needed, record
from .._backend import array_module
from .. import _layout
from .padding import pad


def _int_of(x, name, i, fname):
    if x.__class__ is int:
        return x
    if isinstance(x, (bool, float, complex, str)) or not hasattr(x, '__index__') or \
            getattr(x, 'ndim', 0):
        if i is None:
            raise TypeError(f"{fname}(): argument '{name}' must be tuple of ints, not "
                            f"{_args.type_name(x)}")
        raise TypeError(f"{fname}(): argument '{name}' failed to unpack the object at pos "
                        f"{i + 1} with error \"type must be tuple of ints,but got "
                        f"{_args.type_name(x)}\"")
    return x.__index__()


def _tup(v, n, name='value', fname='conv'):
    """``v`` (an int or a sequence of 1 or ``n`` ints) as an ``n``-tuple of ints."""
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            return (_int_of(v[0], name, 0, fname),) * n
        if len(v) != n:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values "
                               f"to match the convolution dimensions, but got {name}={list(v)}")
        return tuple(_int_of(x, name, i, fname) for i, x in enumerate(v))
    return (_int_of(v, name, None, fname),) * n


def _windows(xp, x, k, stride, dilation):
    """Strided view (N, C, *out, *k) of the windows of (already padded) ``x``."""
    nd = len(k)
    sp = x.shape[2:]
    out = tuple((sp[i] - dilation[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(nd))
    st = x.strides
    shape = x.shape[:2] + out + tuple(k)
    strides = st[:2] + tuple(st[2 + i] * stride[i] for i in range(nd)) + \
        tuple(st[2 + i] * dilation[i] for i in range(nd))
    return xp.lib.stride_tricks.as_strided(x, shape, strides), out


def _pad(xp, x, padding):
    if not any(padding):
        return x
    sp = x.shape[2:]
    out = xp.zeros(x.shape[:2] + tuple(sp[i] + 2 * p for i, p in enumerate(padding)), dtype=x.dtype)
    out[(slice(None), slice(None)) + tuple(slice(p, p + sp[i]) for i, p in enumerate(padding))] = x
    return out


def _im2col(xp, x, k, stride, padding, dilation, groups, limit=None):
    """Columns ``(N, G, Cg * K, L)`` of ``x`` ``(N, C, *sp)``: for each group, the input
    channels times kernel offsets against the output positions (the output's own layout,
    so a product with ``(G, O/G, Cg * K)`` weights is ``(N, O, *out)`` with no transpose).
    The copy reads each window row along the input's last axis. Returns ``(cols, out)``."""
    nd = len(k)
    win, out = _windows(xp, _pad(xp, x, padding), k, stride, dilation)
    if limit is not None and tuple(limit) != out:   # only the first ``limit`` positions
        out = tuple(min(out[i], limit[i]) for i in range(nd))
        win = win[(slice(None), slice(None)) + tuple(slice(0, o) for o in out)]
    N, C = x.shape[:2]
    L = int(np.prod(out)) if out else 1
    K = int(np.prod(k)) if k else 1
    perm = (0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd))
    cols = xp.ascontiguousarray(win.transpose(perm)).reshape(N, groups, C // groups * K, L)
    return cols, out


def _col2im(xp, cols, C, k, sp, stride, dilation):
    """The adjoint of :func:`_im2col` without padding: columns ``(N, G, Cg * K, L)`` with
    ``L`` positions of an output of the given size, scatter-added into an ``(N, C, *full)``
    image, ``full`` being the smallest size that holds every window (one strided add per
    kernel offset)."""
    nd = len(k)
    N = cols.shape[0]
    full = tuple((sp[i] - 1) * stride[i] + dilation[i] * (k[i] - 1) + 1 for i in range(nd))
    c = cols.reshape((N, C) + tuple(k) + tuple(sp))
    img = xp.zeros((N, C) + full, dtype=cols.dtype)
    for kidx in np.ndindex(*k):
        sl = tuple(slice(kidx[i] * dilation[i], kidx[i] * dilation[i] + (sp[i] - 1) * stride[i]
                         + 1, stride[i]) for i in range(nd))
        img[(slice(None), slice(None)) + sl] += c[(slice(None), slice(None)) + kidx]
    return img


def _flat_padded(xp, x, lo, hi, slack):
    """``x`` ``(N, C, *sp)`` zero-padded by ``lo``/``hi`` per spatial dim, laid out
    channel-major as a ``(C, N * P + slack)`` buffer (``P`` = padded image size) whose
    last ``slack`` elements are zeros. Returns ``(buf, padded spatial size)``."""
    N, C = x.shape[:2]
    sp = x.shape[2:]
    psp = tuple(sp[i] + lo[i] + hi[i] for i in range(len(sp)))
    NP = N * int(np.prod(psp))
    buf = xp.zeros((C, NP + slack), dtype=x.dtype)
    view = buf[:, :NP].reshape((C, N) + psp)
    view[(slice(None), slice(None)) + tuple(slice(lo[i], lo[i] + sp[i]) for i in range(len(sp)))] = \
        x.swapaxes(0, 1)
    return buf, psp


@functools.lru_cache(maxsize=256)
def _flat_offsets(psp, k, dilation):
    """Flat offsets (in a padded image of size ``psp``) of every kernel offset, in the
    kernel's C order."""
    offs = [0]
    step = 1
    steps = []
    for i in range(len(psp) - 1, -1, -1):
        steps.append(step * dilation[i])
        step *= psp[i]
    steps.reverse()
    for i in range(len(psp)):
        offs = [o + t * steps[i] for o in offs for t in range(k[i])]
    return tuple(offs)


def _fast_ok(x, w, stride):
    """Whether the stride-1 flat fast path applies."""
    return _FAST and all(s == 1 for s in stride) and x.size > 0 and w.size > 0 and len(stride) > 0


_FAST = True   # the stride-1 fast paths (False: the general code, for comparisons)
_PREFER_A = 1.0   # transposed stride-1: the flipped-weight conv unless its columns are larger
_CHUNK_BYTES = 1 << 21   # column block size: the GEMM's right operand stays in cache


def _chunk(N, rowbytes):
    """Samples per block so that a block of columns is about ``_CHUNK_BYTES``."""
    return max(1, min(N, _CHUNK_BYTES // max(1, rowbytes)))


def _fill_cols(cols, buf, offs, start, m):
    """``cols[:, k, :m] = buf[:, start + off_k:][:, :m]`` for every kernel offset."""
    for kk, off in enumerate(offs):
        cols[:, kk, :] = buf[:, start + off:start + off + m]


def _conv_s1(xp, x, w, lo, hi, dilation, groups, keep=None, pre=None):
    """Stride-1 convolution on arrays by the padded-flat trick: in the channel-major flat
    padded buffer of every sample (see :func:`_flat_padded`), the inputs seen by kernel
    offset ``k`` at all output positions form the contiguous slice starting at that
    offset's flat position (outputs computed on the padded grid, the positions past the
    real output discarded). Per block of samples, the columns are ``K`` slice copies, then
    one GEMM ``(O, C*K) @ (C*K, n*P)`` (one per group). ``lo``/``hi`` are the paddings.
    ``keep`` (a list) receives the padded buffer and grid for reuse; ``pre`` is such a
    buffer of ``x`` already made."""
    N, C = x.shape[:2]
    O = w.shape[0]
    k = w.shape[2:]
    K = int(np.prod(k))
    nd = len(k)
    psp0 = tuple(x.shape[2 + i] + lo[i] + hi[i] for i in range(nd))
    offs = _flat_offsets(psp0, tuple(k), tuple(dilation))
    buf, psp = pre if pre is not None else _flat_padded(xp, x, lo, hi, offs[-1])
    if keep is not None:
        keep.append((buf, psp))
    P = int(np.prod(psp))
    out = tuple(psp[i] - dilation[i] * (k[i] - 1) for i in range(nd))
    crop = (slice(None), slice(None)) + tuple(slice(0, o) for o in out)
    G = groups
    wm = w.reshape(O, C * K) if G == 1 else w.reshape(G, O // G, (C // G) * K)
    n = _chunk(N, C * K * P * x.itemsize)
    scratch = xp.empty(C * K * n * P, dtype=x.dtype)
    res = xp.empty((N, O) + out, dtype=xp.result_type(x.dtype, w.dtype))
    for n0 in range(0, N, n):
        n1 = min(N, n0 + n)
        m = (n1 - n0) * P
        cols = scratch[:C * K * m].reshape(C, K, m)
        _fill_cols(cols, buf, offs, n0 * P, m)
        if G == 1:
            r = xp.matmul(wm, cols.reshape(C * K, m))
        else:
            r = xp.matmul(wm, cols.reshape(G, (C // G) * K, m))
        res[n0:n1] = r.reshape((O, n1 - n0) + psp)[crop].swapaxes(0, 1)
    return res


def _conv_blocks(xp, x, w, stride, padding, dilation, groups):
    """Convolution on arrays by im2col in blocks of samples: ``x`` zero-padded once into a
    channel-major ``(C, N, *padded)`` buffer; per block, the columns ``(C, K, n, *out)``
    are ``K`` strided slice copies (one per kernel offset, exact output positions), then
    one GEMM ``(O, C*K) @ (C*K, n*L)`` (one per group) written into the output."""
    N, C = x.shape[:2]
    O = w.shape[0]
    k = tuple(w.shape[2:])
    K = int(np.prod(k))
    nd = len(k)
    buf, psp = _flat_padded(xp, x, padding, padding, 0)
    bufv = buf.reshape((C, N) + psp)
    out = tuple((psp[i] - dilation[i] * (k[i] - 1) - 1) // stride[i] + 1 for i in range(nd))
    L = int(np.prod(out))
    G = groups
    wm = w.reshape(O, C * K) if G == 1 else w.reshape(G, O // G, (C // G) * K)
    n = _chunk(N, C * K * L * x.itemsize)
    scratch = xp.empty(C * K * n * L, dtype=x.dtype)
    res = xp.empty((N, O) + out, dtype=xp.result_type(x.dtype, w.dtype))
    sls = [tuple(slice(ki[i] * dilation[i], ki[i] * dilation[i] + (out[i] - 1) * stride[i] + 1,
                       stride[i]) for i in range(nd)) for ki in np.ndindex(*k)]
    for n0 in range(0, N, n):
        n1 = min(N, n0 + n)
        m = (n1 - n0) * L
        cols = scratch[:C * K * m].reshape((C, K, n1 - n0) + out)
        for kk, sl in enumerate(sls):
            cols[:, kk] = bufv[(slice(None), slice(n0, n1)) + sl]
        if G == 1:
            r = xp.matmul(wm, cols.reshape(C * K, m))
        else:
            r = xp.matmul(wm, cols.reshape(G, (C // G) * K, m))
        res[n0:n1] = r.reshape((O, n1 - n0) + out).swapaxes(0, 1)
    return res


def _conv_transpose_s1(xp, x, w, padding, output_padding, dilation, groups):
    """Stride-1 transposed convolution by the flat col2im: ``x`` sits on the grid of the
    uncropped output (``sp + dilation * (k - 1) + output_padding``), flattened channel-major;
    per block of samples the columns ``W^T @ x`` ``(Cout, K, n*P)`` are added into the flat
    output buffer as ``K`` contiguous slices (at each kernel offset's flat position), and the
    result is the buffer cropped by ``padding``."""
    N, Cin = x.shape[:2]
    G = groups
    Og = w.shape[1]
    Cg = Cin // G
    k = w.shape[2:]
    K = int(np.prod(k))
    nd = len(k)
    sp = x.shape[2:]
    psp = tuple(sp[i] + dilation[i] * (k[i] - 1) + output_padding[i] for i in range(nd))
    offs = _flat_offsets(psp, tuple(k), tuple(dilation))
    xf, _ = _flat_padded(xp, x, (0,) * nd, tuple(psp[i] - sp[i] for i in range(nd)), 0)
    P = int(np.prod(psp))
    dt = xp.result_type(x.dtype, w.dtype)
    img = xp.zeros((G * Og, N * P + offs[-1]), dtype=dt)
    wt = w.reshape(Cin, Og * K).T if G == 1 else w.reshape(G, Cg, Og * K).transpose(0, 2, 1)
    n = _chunk(N, G * Og * K * P * x.itemsize)
    for n0 in range(0, N, n):
        n1 = min(N, n0 + n)
        m = (n1 - n0) * P
        xb = xf[:, n0 * P:n1 * P]
        if G == 1:
            cols = xp.matmul(wt, xb)
        else:
            cols = xp.matmul(wt, xb.reshape(G, Cg, m))
        cols = cols.reshape(G * Og, K, m)
        start = n0 * P
        for kk, off in enumerate(offs):
            img[:, start + off:start + off + m] += cols[:, kk]
    full = img[:, :N * P].reshape((G * Og, N) + psp)
    final = tuple(psp[i] - 2 * padding[i] for i in range(nd))
    crop = (slice(None), slice(None)) + tuple(slice(padding[i], padding[i] + final[i])
                                              for i in range(nd))
    return xp.ascontiguousarray(full[crop].swapaxes(0, 1))


def _weight_grad_s1(xp, a, b, k, padding, dilation, groups, bpre=None, apre=None):
    """Stride-1 form of :func:`_weight_grad_arrays`: ``b`` in the flat padded layout,
    ``a`` placed on the same padded grid (zeros elsewhere), so the gradient for kernel
    offset ``k`` is ``a_flat @ b_flat[:, off_k:][:, :NP]^T``: per block of samples, one
    GEMM over the columns of ``b`` built from ``K`` slice copies, summed over blocks.
    ``bpre`` is ``b``'s padded buffer already made; ``apre`` ``(buffer, shift)`` a flat
    buffer holding ``a`` on that grid from flat position ``shift`` on."""
    N, A = a.shape[:2]
    B = b.shape[1]
    nd = len(k)
    K = int(np.prod(k))
    psp0 = tuple(b.shape[2 + i] + 2 * padding[i] for i in range(nd))
    offs = _flat_offsets(psp0, tuple(k), tuple(dilation))
    buf, psp = bpre if bpre is not None else _flat_padded(xp, b, padding, padding, offs[-1])
    P = int(np.prod(psp))
    out = a.shape[2:]
    if apre is not None:
        af = apre[0][:, apre[1]:apre[1] + N * P]
    else:
        af, _ = _flat_padded(xp, a, (0,) * nd, tuple(psp[i] - out[i] for i in range(nd)), 0)
    G = groups
    n = _chunk(N, B * K * P * b.itemsize)
    scratch = xp.empty(B * K * n * P, dtype=b.dtype)
    acc = None
    for n0 in range(0, N, n):
        n1 = min(N, n0 + n)
        m = (n1 - n0) * P
        cols = scratch[:B * K * m].reshape(B, K, m)
        _fill_cols(cols, buf, offs, n0 * P, m)
        ab = af[:, n0 * P:n1 * P]
        # (B*K, m) @ (m, A): BLAS is faster with the long columns as the left operand
        if G == 1:
            r = xp.matmul(cols.reshape(B * K, m), ab.T)
        else:
            r = xp.matmul(cols.reshape(G, (B // G) * K, m), ab.reshape(G, A // G, m).transpose(0, 2, 1))
        if acc is None:
            acc = r
        else:
            acc += r
    return xp.ascontiguousarray(acc.reshape(G, (B // G) * K, A // G).transpose(0, 2, 1))


def _flip_swap(w, G):
    """Transposed-conv weight ``(Cin, Cout/G, *k)`` as the plain-conv weight
    ``(Cout, Cin/G, *k)`` of the same map (in/out swapped per group, kernel flipped)."""
    nd = w.ndim - 2
    k = tuple(w.shape[2:])
    Cin, Og = w.shape[:2]
    wc = w.reshape((G, Cin // G, Og) + k).swapaxes(1, 2).reshape((G * Og, Cin // G) + k)
    return wc[(slice(None), slice(None)) + (slice(None, None, -1),) * nd]


def _conv_fwd(x, w, stride, padding, dilation, groups, keep=None):
    """Plain convolution on arrays: x (N, C, *sp), w (O, C/g, *k) -> (N, O, *out)."""
    xp = array_module(x)
    if _fast_ok(x, w, stride) and x.shape[1] * int(np.prod(w.shape[2:])) >= 200:
        # many columns: blocked GEMMs; on the padded flat grid unless it wastes too much
        sp, k = x.shape[2:], w.shape[2:]
        grid = int(np.prod([sp[i] + 2 * padding[i] for i in range(len(sp))]))
        outs = int(np.prod([sp[i] + 2 * padding[i] - dilation[i] * (k[i] - 1)
                            for i in range(len(sp))]))
        if grid <= 1.5 * outs:
            return _conv_s1(xp, x, w, padding, padding, dilation, groups, keep)
        return _conv_blocks(xp, x, w, stride, padding, dilation, groups)
    k = w.shape[2:]
    cols, out = _im2col(xp, x, k, stride, padding, dilation, groups)
    wm = w.reshape(groups, w.shape[0] // groups, -1)
    res = xp.matmul(wm, cols)                    # (N, G, Og, L)
    return res.reshape((x.shape[0], w.shape[0]) + out)


def _conv_transpose_fwd(x, w, stride, padding, output_padding, dilation, groups):
    """Transposed convolution on arrays: x (N, Cin, *sp), w (Cin, Cout/g, *k): the columns
    ``w^T @ x`` scattered back into the image (col2im), cropped by ``padding``."""
    xp = array_module(x)
    nd = w.ndim - 2
    k = w.shape[2:]
    N, Cin = x.shape[:2]
    G = groups
    Cg, Og = Cin // G, w.shape[1]
    sp = x.shape[2:]
    if _fast_ok(x, w, stride) and min(Cin, G * Og) * int(np.prod(k)) >= 64:
        K = int(np.prod(k))
        # stride 1, two ways: a plain convolution of x with the flipped, in/out-swapped
        # weight (columns of x's Cin channels on x padded by lo/hi), or the flat col2im
        # (columns of the Cout output channels on the uncropped output grid); the one with
        # fewer columns
        lo = tuple(dilation[i] * (k[i] - 1) - padding[i] for i in range(nd))
        hi = tuple(lo[i] + output_padding[i] for i in range(nd))
        grid = [sp[i] + dilation[i] * (k[i] - 1) + output_padding[i] for i in range(nd)]
        size_b = G * Og * int(np.prod(grid))
        size_a = Cin * int(np.prod([sp[i] + lo[i] + hi[i] for i in range(nd)]))
        if min(lo) >= 0 and size_a <= size_b * _PREFER_A:
            return _conv_s1(xp, x, _flip_swap(w, G), lo, hi, dilation, G)
        return _conv_transpose_s1(xp, x, w, padding, output_padding, dilation, G)
    L = int(np.prod(sp)) if sp else 1
    wm = w.reshape(G, Cg, Og * int(np.prod(k)))
    cols = xp.matmul(wm.transpose(0, 2, 1), x.reshape(N, G, Cg, L))     # (N, G, Og*K, L)
    img = _col2im(xp, cols, G * Og, k, sp, stride, dilation)
    full = img.shape[2:]
    crop = tuple(slice(padding[i], full[i] + output_padding[i] - padding[i]) for i in range(nd))
    if any(output_padding):   # output_padding extends the far side past the last window
        img = xp.pad(img, [(0, 0), (0, 0)] + [(0, p) for p in output_padding])
    return xp.ascontiguousarray(img[(slice(None), slice(None)) + crop])


def _weight_grad_arrays(a, b, k, stride, padding, dilation, groups, bpre=None):
    """``sum_n a[n] @ im2col(b)[n]^T`` per group, on arrays: the weight gradient of a
    convolution (``a`` = output gradient, ``b`` = input) and of a transposed convolution
    (``a`` = input, ``b`` = output gradient). Returns ``(G, A/G, Bg * K)``."""
    xp = array_module(a)
    if _FAST and all(s == 1 for s in stride) and a.size > 0 and b.size > 0 and len(k) > 0 \
            and b.shape[1] * int(np.prod(k)) >= 64:
        return _weight_grad_s1(xp, a, b, k, padding, dilation, groups, bpre)
    cols, _ = _im2col(xp, b, k, stride, padding, dilation, groups, a.shape[2:])
    N, G = cols.shape[:2]
    am = a.reshape(N, G, a.shape[1] // G, -1)
    return xp.matmul(am, cols.transpose(0, 1, 3, 2)).sum(0)


class ConvolutionBackward0(Node):
    def backward(self, g):
        x, w = self.saved_tensors
        stride, padding, dilation, transposed, output_padding, groups = self.params
        gx = gw = gb = None
        needs = self.needs
        xbuf, self.xbuf = getattr(self, 'xbuf', None), None
        if x.is_complex() or w.is_complex():
            # bilinear in (x, w): each gradient takes the other operand conjugated
            x, w, xbuf = x.conj().resolve_conj(), w.conj().resolve_conj(), None
        if not transposed and not _Mode.grad and needs[0] and needs[1]:
            r = _backward_s1(x, g, w, padding, dilation, groups, stride, xbuf)
            if r is not None:
                gx, gw = r
                xbuf = None
                needs = (False, False) + tuple(needs[2:])
        if not transposed:
            if needs[0]:
                # output_padding makes the transposed conv hit the input size exactly
                sp = x.shape[2:]
                k = w.shape[2:]
                op = tuple(sp[i] - ((g.shape[2 + i] - 1) * stride[i] - 2 * padding[i]
                                    + dilation[i] * (k[i] - 1) + 1) for i in range(len(k)))
                gx = convolution(g, w, None, stride, padding, dilation, True, op, groups)
            if needs[1]:
                gw = _weight_grad(x, g, w, stride, padding, dilation, groups, False, xbuf)
        else:
            if needs[0]:
                gx = convolution(g, w, None, stride, padding, dilation, False, (0,) * len(stride), groups)
                for d in range(len(stride)):   # output_padding: the far rows saw no input
                    if gx.shape[2 + d] != x.shape[2 + d]:
                        gx = gx.narrow(2 + d, 0, x.shape[2 + d])
            if needs[1]:
                gw = _weight_grad(x, g, w, stride, padding, dilation, groups, True)
        if needs[2]:
            gb = g.sum((0,) + tuple(range(2, g.dim())))
        return gx, gw, gb


def _backward_s1(x, g, w, padding, dilation, groups, stride, xbuf):
    """Both gradients of a stride-1 'same'-padded convolution on arrays (outside
    ``create_graph``), sharing one padded buffer of ``g``: the input gradient is the
    convolution of ``g`` (padded by ``d*(k-1) - p``) with the flipped weight, and the same
    buffer, shifted, is ``g`` on the input's padded grid for the weight gradient. Returns
    ``(gx, gw)`` Tensors, or None where this does not apply."""
    xa, ga, wa = x._data, g._data, w._data
    k = tuple(wa.shape[2:])
    nd = len(k)
    K = int(np.prod(k))
    C, O = xa.shape[1], ga.shape[1]
    if not (_fast_ok(xa, wa, stride) and ga.size > 0 and xa.shape[2:] == ga.shape[2:]
            and all(2 * padding[i] == dilation[i] * (k[i] - 1) for i in range(nd))
            and O * K >= 64 and C * K >= 64 and O <= C * _PREFER_A):
        return None
    xp = array_module(ga)
    keep = []
    gx = _conv_s1(xp, ga, _flip_swap(wa, groups), padding, padding, dilation, groups, keep)
    gbuf, psp = keep[0]
    st = [int(np.prod(psp[i + 1:])) for i in range(nd)]
    shift = sum(padding[i] * st[i] for i in range(nd))
    if xbuf is not None and xbuf[1] != psp:
        xbuf = None
    gw = _weight_grad_s1(xp, ga, xa, k, padding, dilation, groups, xbuf, (gbuf, shift))
    gw = gw.reshape(wa.shape)
    if gw.dtype != wa.dtype:
        gw = gw.astype(wa.dtype)
    if gx.dtype != ga.dtype:
        gx = gx.astype(ga.dtype)
    if gx.ndim >= 4 and gx.__class__ is np.ndarray:
        gx = _layout.channels_last_like(gx, ga, wa)
    return wrap(gx), wrap(gw)


def _weight_grad(x, g, w, stride, padding, dilation, groups, transposed, xbuf=None):
    """dL/dW of ``y = conv(x, W)`` (or of the transposed conv). Outside ``create_graph``
    (grad mode off in backward) one batched product on arrays (:func:`_weight_grad_arrays`);
    under it, the differentiable form: a convolution of the input with the gradient (batch
    and channel roles swapped, stride and dilation exchanged), cropped to the kernel."""
    if not _Mode.grad:
        a, b = (x, g) if transposed else (g, x)
        r = _weight_grad_arrays(a._data, b._data, tuple(w.shape[2:]), stride, padding,
                                dilation, groups, None if transposed else xbuf)
        if r.dtype != w._data.dtype:
            r = r.astype(w._data.dtype)
        return wrap(r.reshape(w.shape))
    if transposed:   # y = conv^T(x, W)  =>  dW = weight-grad of conv(g -> x)
        x, g = g, x
    wshape = w.shape
    nd = len(wshape) - 2
    C = x.shape[1]
    O = g.shape[1]
    G = groups
    outs = []
    Cg, Og = C // G, O // G
    for gi in range(G):
        xg = x.narrow(1, gi * Cg, Cg).transpose(0, 1)           # (Cg, N, *sp)
        gg = g.narrow(1, gi * Og, Og).transpose(0, 1)           # (Og, N, *out)
        r = convolution(xg, gg, None, dilation, padding, stride, False, (0,) * nd, 1)  # (Cg, Og, *k')
        k = wshape[2:]
        for d in range(nd):
            if r.shape[2 + d] != k[d]:
                r = r.narrow(2 + d, 0, k[d])
        outs.append(r.transpose(0, 1))                            # (Og, Cg, *k)
    return outs[0] if G == 1 else _cat0(outs)


def _cat0(ts):
    from .shape import cat
    return cat(ts, 0)


@register(method=False)
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """The general N-d (transposed) convolution all conv functions use.

    Args:
        input (Tensor): ``(N, C_in, *spatial)``.
        weight (Tensor): ``(C_out, C_in/groups, *k)`` (``(C_in, C_out/groups, *k)`` when
            ``transposed``).
        bias (Tensor or None): ``(C_out,)``.
        stride, padding, dilation, output_padding (tuples of ints), transposed (bool),
        groups (int): as the conv functions (no string paddings here).

    Example::

        >>> ember.convolution(ember.randn(1, 2, 5), ember.randn(3, 2, 3), None, (1,), (0,),
        ...                   (1,), False, (0,), 1).shape
        torch.Size([1, 3, 3])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'convolution')
    if any(st <= 0 for st in stride):
        raise RuntimeError("non-positive stride is not supported")
    if not isinstance(padding, str) and any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if transposed and any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(d <= 0 for d in dilation):
        msg = "dilation should be greater than zero"
        if all(d >= 0 for d in dilation):      # torch names the values of a zero dilation
            msg += (f", but got dilation_height: {dilation[0]}, dilation_width: {dilation[1]}"
                    if transposed and len(dilation) == 2 else
                    f", but got {[1] * (len(dilation) == 1) + list(dilation)}")   # 1-d runs as 2-d
        raise RuntimeError(msg)
    x, w = input._data, weight._data
    if bias is not None and bias._data.dtype != x.dtype:
        raise RuntimeError(f"Input type ({_tn(input).lower()}) and bias type "
                           f"({_tn(bias).lower()}) should be the same")
    if x.dtype != w.dtype:
        raise RuntimeError(f"expected scalar type {_tn(input)} but found {_tn(weight)}")
    if transposed:
        r = _conv_transpose_fwd(x, w, stride, padding, output_padding, dilation, groups)
    else:
        keep = [] if weight.requires_grad and _Mode.grad else None
        r = _conv_fwd(x, w, stride, padding, dilation, groups, keep)
    if r.dtype != x.dtype:   # NumPy computes bfloat16 products in float32
        r = r.astype(x.dtype)
    if bias is not None:
        r += bias._data.reshape((1, -1) + (1,) * (r.ndim - 2))
    if r.ndim >= 4 and r.__class__ is np.ndarray:
        r = _layout.channels_last_like(r, x, w)
    out = wrap(r)
    if grad_needed(input, weight, bias):
        node = ConvolutionBackward0()
        node.params = (tuple(stride), tuple(padding), tuple(dilation), transposed,
                       tuple(output_padding), groups)
        node.xbuf = keep[0] if not transposed and keep else None   # x padded, for dW
        record(out, node, (input, weight, bias), save=(input, weight))
    return out


def _tn(t):
    from .._tensor import _legacy_name
    return _legacy_name(t.dtype)


def _check(input, weight, nd, groups, name, transposed=False):
    if input.dim() not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"{name}, but got input of size: {list(input.shape)}")
    if weight.dim() != nd + 2:
        raise RuntimeError(f"weight should have at least three dimensions")
    C = input.shape[-nd - 1]
    if not transposed:
        if C != weight.shape[1] * groups:
            unb = input.dim() == nd + 1
            shp = list(input.shape if not unb else (1,) + tuple(input.shape))
            raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
                               f"input{shp} to have {weight.shape[1] * groups} channels, but got "
                               f"{C} channels instead")
    elif C != weight.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected "
                           f"input{list(input.shape)} to have {weight.shape[0]} channels, but got "
                           f"{C} channels instead")


def _same_padding(input, weight, stride, dilation, nd):
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    k = weight.shape[2:]
    total = [dilation[i] * (k[i] - 1) for i in range(nd)]
    left = [t // 2 for t in total]
    extra = [t - 2 * l for t, l in zip(total, left)]
    if any(extra):
        pads = []
        for i in reversed(range(nd)):
            pads += [0, extra[i]]
        input = pad(input, pads)
    return input, tuple(left)


def _convnd(input, weight, bias, stride, padding, dilation, groups, nd, name):
    if not isinstance(weight, Tensor):
        _args.tensor(weight, name, 'weight', 2)
    if bias is not None and not isinstance(bias, Tensor):
        _args.tensor(bias, name, 'bias', 3)
    _check(input, weight, nd, groups, name)
    unbatched = input.dim() == nd + 1
    if unbatched:
        input = input.unsqueeze(0)
    stride = _tup(stride, nd, 'stride', name)
    dilation = _tup(dilation, nd, 'dilation', name)
    if isinstance(padding, str):
        if padding == 'valid':
            padding = (0,) * nd
        elif padding == 'same':
            input, padding = _same_padding(input, weight, stride, dilation, nd)
        else:
            raise ValueError(f"Invalid padding string '{padding}', should be one of ['valid', 'same']")
    padding = _tup(padding, nd, 'padding', name)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    sp = input.shape[2:]
    k = weight.shape[2:]
    for i in range(nd):
        if sp[i] + 2 * padding[i] < dilation[i] * (k[i] - 1) + 1:
            raise RuntimeError(f"Calculated padded input size per channel: "
                               f"({' x '.join(str(sp[j] + 2 * padding[j]) for j in range(nd))}). "
                               f"Kernel size: ({' x '.join(str(dilation[j] * (k[j] - 1) + 1) for j in range(nd))}). "
                               "Kernel size can't be greater than actual input size")
    out = convolution(input, weight, bias, stride, padding, dilation, False, (0,) * nd, groups)
    return out.squeeze(0) if unbatched else out


@register(method=False)
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution over ``(N, C_in, L)`` (or unbatched ``(C_in, L)``) input.

    Example::

        >>> F.conv1d(ember.randn(1, 2, 5), ember.randn(3, 2, 3)).shape
        torch.Size([1, 3, 3])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'conv1d')
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 1, 'conv1d')


@register(method=False)
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution over ``(N, C_in, H, W)`` (or unbatched) input.

    Args:
        input: ``(N, C_in, H, W)``.
        weight: ``(C_out, C_in/groups, kH, kW)``.
        bias: optional ``(C_out,)``.
        stride, padding (int, tuple, 'valid' or 'same'), dilation, groups: as PyTorch.

    Example::

        >>> F.conv2d(ember.randn(1, 3, 5, 5), ember.randn(4, 3, 3, 3), padding=1).shape
        torch.Size([1, 4, 5, 5])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'conv2d')
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 2, 'conv2d')


@register(method=False)
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution over ``(N, C_in, D, H, W)`` (or unbatched) input.

    Example::

        >>> F.conv3d(ember.randn(1, 2, 4, 4, 4), ember.randn(3, 2, 3, 3, 3)).shape
        torch.Size([1, 3, 2, 2, 2])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'conv3d')
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 3, 'conv3d')


def _conv_transposend(input, weight, bias, stride, padding, output_padding, groups, dilation, nd, name):
    _check(input, weight, nd, groups, name, transposed=True)
    unbatched = input.dim() == nd + 1
    if unbatched:
        input = input.unsqueeze(0)
    stride = _tup(stride, nd, 'stride')
    padding = _tup(padding, nd, 'padding')
    dilation = _tup(dilation, nd, 'dilation')
    output_padding = _tup(output_padding, nd, 'output_padding')
    for i in range(nd):
        if output_padding[i] >= stride[i] and output_padding[i] >= dilation[i]:
            raise RuntimeError("output padding must be smaller than either stride or dilation, but "
                               f"got output_padding_height: {output_padding[0]} output_padding_width: "
                               f"{output_padding[-1]} stride_height: {stride[0]} stride_width: "
                               f"{stride[-1]} dilation_height: {dilation[0]} dilation_width: {dilation[-1]}")
    out = convolution(input, weight, bias, stride, padding, dilation, True, output_padding, groups)
    return out.squeeze(0) if unbatched else out


@register(method=False)
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """1-D transposed convolution ("deconvolution"); weight ``(C_in, C_out/groups, k)``.

    Example::

        >>> F.conv_transpose1d(ember.randn(1, 2, 5), ember.randn(2, 3, 3), stride=2).shape
        torch.Size([1, 3, 11])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'conv_transpose1d')
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 1, 'conv_transpose1d')


@register(method=False)
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """2-D transposed convolution; weight ``(C_in, C_out/groups, kH, kW)``.

    Example::

        >>> F.conv_transpose2d(ember.randn(1, 2, 4, 4), ember.randn(2, 3, 3, 3)).shape
        torch.Size([1, 3, 6, 6])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'conv_transpose2d')
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 2, 'conv_transpose2d')


@register(method=False)
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """3-D transposed convolution; weight ``(C_in, C_out/groups, kD, kH, kW)``.

    Example::

        >>> F.conv_transpose3d(ember.randn(1, 2, 2, 2, 2), ember.randn(2, 1, 2, 2, 2)).shape
        torch.Size([1, 1, 3, 3, 3])
    """
    if not isinstance(input, Tensor):
        _args.tensor(input, 'conv_transpose3d')
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 3, 'conv_transpose3d')
