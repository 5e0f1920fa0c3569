"""Sharding propagation: how each op runs on DTensors.

``dispatch(func, args, kwargs)`` is ``DTensor.__torch_function__``. A rule looks at the
inputs' placements (per mesh dimension), picks the placements the inputs must have (the
cheapest valid choice: redistributing a sharded input costs its size, chunking a replicated
one is free) and the output's, and runs the op on the local pieces through :class:`_LocalOp`,
an autograd Function whose backward runs the local op's backward: the output gradient is laid
out as the adjoint of the output's placement (``Shard`` stays, ``Replicate`` becomes a
``Partial`` sum, ``Partial`` becomes ``Replicate``) and the input gradients come out in the
adjoint of the inputs' placements, then are redistributed to the inputs' own placements.
Along a mesh dimension where every input and output is replicated, gradients stay replicated
(no communication).

Rules: pointwise ops (with broadcasting; sums of partials stay partial, as do products of a
partial with replicated factors), ``*_like`` factories, ``sum``/``mean``/``amax``/``amin``/``vector_norm``,
``mm``/``matmul``/``bmm``/``linear``/``addmm``, views (``view``/``reshape``/``flatten``/
``unflatten``/``transpose``/``permute``/``unsqueeze``/``squeeze``/``expand``/indexing by
slices and ints/``split``/``chunk``/``narrow``/``select``/``unbind``), ``cat``/``stack``,
``embedding`` (including a vocabulary-sharded table: masked lookup, partial sum),
``layer_norm``/``rms_norm``, ``softmax``/``log_softmax``, ``scaled_dot_product_attention``,
``cross_entropy``/``nll_loss`` and the element-wise losses. Any other op runs on the full
tensor on every rank (inputs replicated), with a warning.
"""
import inspect
import math
import warnings

from ... import _tensor as _T
from ...autograd.function import Function
from .placement_types import Shard, Replicate, Partial
from . import _api
from ._api import DTensor, _make, _plain, _Spec, _relaxed, _redistribute_nograd, \
    _as_dtensor_grad, _norm_dim

_R = Replicate()
_PSUM = Partial('sum')


# ----------------------------------------------------------------------------- the local op
class _Plan:
    __slots__ = ('fn', 'mesh', 'outs', 'rep_dims')

    def __init__(self, fn, mesh, outs, rep_dims=()):
        self.fn = fn            # fn(*local_inputs) -> local output(s)
        self.mesh = mesh
        self.outs = outs        # per output: (placements, shape) ; shape: tuple or dict patch
        self.rep_dims = rep_dims


def _dual(p):
    if isinstance(p, Shard):
        return p
    if isinstance(p, Replicate):
        return _PSUM
    return _R


def _out_shape(local, shape):
    if isinstance(shape, dict):
        s = list(local.shape)
        for d, v in shape.items():
            s[d] = v
        return tuple(s)
    return tuple(shape) if shape is not None else tuple(local.shape)


class _LocalOp(Function):
    @staticmethod
    def forward(ctx, plan, *dts):
        from ...autograd.grad_mode import enable_grad
        needs = ctx.needs_input_grad[1:]
        locs = [_plain(d) for d in dts]
        if any(needs):
            for l, nd in zip(locs, needs):
                if nd:
                    l.requires_grad_(True)
            with enable_grad():
                out = plan.fn(*locs)
        else:
            out = plan.fn(*locs)
        single = not isinstance(out, (tuple, list))
        outs = [out] if single else list(out)
        res, specs = [], []
        for k, o in enumerate(outs):
            if isinstance(o, _T.Tensor):
                if any(o is l for l in locs):
                    o = outs[k] = o.view(o.shape)
                pl, shp = plan.outs[min(k, len(plan.outs) - 1)]
                shape = _out_shape(o, shp)
                res.append(_make(o.detach(), plan.mesh, pl, shape))
                specs.append(_Spec(plan.mesh, pl, shape))
            else:
                res.append(o)
                specs.append(None)
        ctx.plan = plan
        ctx.locs = locs
        ctx.needs = needs
        ctx.outs = outs
        ctx.in_specs = [d._spec for d in dts]
        ctx.out_specs = specs
        ctx.struct = None if single else type(out)
        return res[0] if single else tuple(res)

    @staticmethod
    def backward(ctx, *gs):
        from ...autograd import grad as _grad
        plan = ctx.plan
        rep = plan.rep_dims
        outs, gl = [], []
        for o, g, spec in zip(ctx.outs, gs, ctx.out_specs):
            if g is None or spec is None or not isinstance(o, _T.Tensor) or not o.requires_grad:
                continue
            g = _as_dtensor_grad(g, spec)
            tgt = tuple(_R if i in rep else _dual(p) for i, p in enumerate(spec.placements))
            if g._spec.placements != tgt:
                g = _redistribute_nograd(g, tgt)
            outs.append(o)
            gl.append(_plain(g))
        ins = [l for l, nd in zip(ctx.locs, ctx.needs) if nd]
        res = [None]
        if not outs or not ins:
            return tuple(res + [None] * len(ctx.locs))
        grads = iter(_grad(outs, ins, gl, allow_unused=True))
        for l, nd, spec in zip(ctx.locs, ctx.needs, ctx.in_specs):
            if not nd:
                res.append(None)
                continue
            gx = next(grads)
            if gx is None:
                gx = l.detach().new_zeros(l.shape)
            elif not gx.is_contiguous():
                gx = gx.contiguous()
            pl = tuple(_R if i in rep else _dual(p) for i, p in enumerate(spec.placements))
            d = _make(gx, plan.mesh, pl, spec.shape)
            tgt = _relaxed(spec.placements)
            res.append(_redistribute_nograd(d, tgt) if pl != tgt else d)
        return tuple(res)


def _run(fn, mesh, dts, targets, outs):
    """Redistribute ``dts`` to ``targets`` (differentiably), then run ``fn`` on the local
    pieces; ``outs``: per output (placements, global shape or {dim: size} patch)."""
    xs = []
    for d, t in zip(dts, targets):
        t = tuple(t)
        xs.append(d if d._spec.placements == t else _api._Redistribute.apply(d, t))
    rep = tuple(i for i in range(mesh.ndim)
                if all(t[i] == _R for t in targets) and all(o[0][i] == _R for o in outs))
    plan = _Plan(fn, mesh, outs, rep)
    if not xs:
        return plan.fn()
    return _LocalOp.apply(plan, *xs)


# ----------------------------------------------------------------------------- arguments
class _Slot:
    __slots__ = ('i',)

    def __init__(self, i):
        self.i = i


def _mixed(name):
    return RuntimeError(f"aten.{name}: got mixed torch.Tensor and DTensor, need to convert all "
                        "torch.Tensor to DTensor before calling distributed operators!")


def _collect(name, args, kwargs):
    """(DTensors, rebuild(locals) -> (args, kwargs)); plain 0-dim tensors pass as scalars."""
    dts = []

    def walk(a, depth):
        if isinstance(a, DTensor):
            dts.append(a)
            return _Slot(len(dts) - 1)
        if isinstance(a, _T.Tensor):
            if a.dim() == 0:
                return a
            raise _mixed(name)
        if depth == 0 and type(a) in (list, tuple):
            return type(a)(walk(b, 1) for b in a)
        return a
    sargs = [walk(a, 0) for a in args]
    skw = {k: walk(v, 0) for k, v in kwargs.items()}
    mesh = dts[0]._spec.mesh if dts else None
    for d in dts[1:]:
        if d._spec.mesh != mesh:
            raise NotImplementedError(f"{name}: DTensor does not support cross-mesh operation "
                                      "yet!")

    def fill(a, locs):
        if isinstance(a, _Slot):
            return locs[a.i]
        if type(a) in (list, tuple):
            return type(a)(fill(b, locs) for b in a)
        return a

    def rebuild(locs):
        return [fill(a, locs) for a in sargs], {k: fill(v, locs) for k, v in skw.items()}
    return dts, rebuild, mesh


def _local_fn(func, rebuild, **override):
    def fn(*locs):
        a, k = rebuild(locs)
        k.update(override)
        return func(*a, **k)
    return fn


def _bind(func, args, kwargs):
    sig = inspect.signature(func)
    ba = sig.bind(*args, **kwargs)
    ba.apply_defaults()
    return ba.arguments


def _cost(d, p, t):
    """Communication cost of moving DTensor ``d`` from placement ``p`` to ``t`` on one mesh
    dim (in elements)."""
    if p == t or (isinstance(p, Replicate) and not isinstance(t, Replicate) and
                  not (isinstance(t, Partial) and t.reduce_op != 'sum')):
        return 0
    n = d.numel()
    if isinstance(p, Partial):
        return 2 * n if not isinstance(t, Shard) else n
    return n if not isinstance(t, Partial) else 2 * n


# ----------------------------------------------------------------------------- pointwise
POINTWISE = frozenset('''
add sub mul div true_divide floor_divide remainder fmod pow float_power rsub neg negative
positive abs absolute sign sgn exp exp2 expm1 log log2 log10 log1p sqrt rsqrt square
reciprocal sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh atan2 arctan2 erf erfc
erfinv sigmoid logit relu relu6 gelu silu mish elu selu celu leaky_relu hardtanh hardsigmoid
hardswish softplus softsign logsigmoid tanhshrink softshrink hardshrink threshold clamp clip
clamp_min clamp_max maximum minimum fmax fmin where masked_fill lerp addcmul addcdiv eq ne lt
le gt ge equal_ logical_and logical_or logical_xor logical_not bitwise_and bitwise_or
bitwise_xor bitwise_not isnan isinf isfinite nan_to_num floor ceil round trunc frac clone
contiguous to float double half bfloat16 long int bool byte short char type_as detach_copy
dropout alpha_dropout feature_alpha_dropout dropout1d dropout2d dropout3d hypot copysign
xlogy real imag conj angle deg2rad rad2deg heaviside nextafter sinc _radd _rsub _rmul _rdiv
_rtruediv _rfloordiv _rpow _rmod _rand _ror _rxor
'''.split())

# pointwise ops through which sums of partials stay partial
_LINEAR_ALL = frozenset('add sub neg negative positive clone contiguous to float double half '
                        'bfloat16 type_as real imag conj'.split())
_LIKE = frozenset('zeros_like ones_like empty_like full_like rand_like randn_like '
                  'randint_like'.split())


def _broadcast(shapes):
    nd = max((len(s) for s in shapes), default=0)
    out = [1] * nd
    for s in shapes:
        for i, v in enumerate(s):
            j = nd - len(s) + i
            if v != 1:
                out[j] = v
    return tuple(out)


def _pointwise_plan(name, dts):
    """Targets and output placements of a pointwise op over ``dts``."""
    mesh = dts[0]._spec.mesh
    out_shape = _broadcast([d._spec.shape for d in dts])
    ond = len(out_shape)
    targets = [list(d._spec.placements) for d in dts]
    out_pl = []
    for i in range(mesh.ndim):
        ps = [t[i] for t in targets]
        res = None
        parts = [k for k, p in enumerate(ps) if isinstance(p, Partial)]
        if parts:
            allsum = all(ps[k] == _PSUM for k in parts)
            if allsum and name in _LINEAR_ALL and len(parts) == len(ps):
                res = _PSUM
            elif allsum and name in ('add', 'sub') and all(
                    isinstance(p, (Partial, Replicate)) for p in ps):
                res = _PSUM
                for k in range(len(ps)):
                    targets[k][i] = _PSUM
            elif allsum and len(parts) == 1 and name in ('mul', '_rmul', 'div', 'true_divide') and \
                    all(isinstance(p, Replicate) for k, p in enumerate(ps) if k != parts[0]) \
                    and (name in ('mul', '_rmul') or parts[0] == 0):
                res = _PSUM
            if res is None:
                for k in parts:
                    targets[k][i] = _R
        if res is None:
            sh = None
            for k, d in enumerate(dts):
                p = targets[k][i]
                if isinstance(p, Shard):
                    od = p.dim + ond - d.dim()
                    if d._spec.shape[p.dim] == out_shape[od]:
                        sh = od
                        break
            if sh is None:
                res = _R
                for k in range(len(dts)):
                    targets[k][i] = _R
            else:
                res = Shard(sh)
                for k, d in enumerate(dts):
                    ld = sh - (ond - d.dim())
                    targets[k][i] = Shard(ld) if ld >= 0 and d._spec.shape[ld] == out_shape[sh] \
                        else _R
        out_pl.append(res)
    return targets, tuple(out_pl), out_shape


def _pointwise(func, name, args, kwargs):
    dts, rebuild, mesh = _collect(name, args, kwargs)
    targets, out_pl, out_shape = _pointwise_plan(name, dts)
    return _run(_local_fn(func, rebuild), mesh, dts, targets, [(out_pl, out_shape)])


def _like(func, name, args, kwargs):
    dts, rebuild, mesh = _collect(name, args, kwargs)
    x = dts[0]
    keep = name == 'zeros_like'
    pl = tuple(p if keep or not isinstance(p, Partial) else _R for p in x._spec.placements)
    a, k = rebuild([_plain(d) for d in dts])
    out = func(*a, **k)
    t = _make(out.detach(), mesh, pl, x._spec.shape)
    if out.requires_grad:
        t._rg = True
    return t


_LINEAR_INPLACE = frozenset('add sub mul div copy zero neg'.split())


def _inplace(func, name, args, kwargs):
    """In-place ops (optimizers, initialisation, grad accumulation): ``self`` keeps its
    placements, the other DTensors are laid out like it."""
    from ...autograd.grad_mode import no_grad
    dts, rebuild, mesh = _collect(name, args, kwargs)
    self = args[0]
    if not isinstance(self, DTensor):
        raise _mixed(name)
    from ...autograd.grad_mode import _Mode
    if _Mode.grad and any(d.requires_grad for d in dts):
        raise RuntimeError(f"DTensor: in-place '{name}' with autograd is not supported; use "
                           "the out-of-place op")
    base = name[:-1]
    sp = self._spec.placements
    if any(isinstance(p, Partial) for p in sp) and base not in _LINEAR_INPLACE:
        raise RuntimeError(f"DTensor: in-place '{name}' on a Partial DTensor would change its "
                           "value; redistribute it to Replicate() first")
    locs = [_plain(self)]
    for d in dts[1:]:
        tgt = []
        for i, p in enumerate(sp):
            if isinstance(p, Shard):
                ld = p.dim - (self.dim() - d.dim())
                tgt.append(Shard(ld) if ld >= 0 and d._spec.shape[ld] == self._spec.shape[p.dim]
                           else _R)
            elif isinstance(p, Partial) and base in ('add', 'sub', 'copy'):
                tgt.append(p)
            else:
                tgt.append(_R)
        with no_grad():
            locs.append(_plain(_redistribute_nograd(d, tuple(tgt))
                               if d._spec.placements != tuple(tgt) else d))
    a, k = rebuild(locs)
    func(*a, **k)
    return self


# ----------------------------------------------------------------------------- reductions
def _dims_of(dim, nd):
    if not isinstance(dim, (int, tuple, list)):    # None or an 'omitted' sentinel
        dim = None
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(nd))
    if isinstance(dim, int):
        dim = (dim,)
    return tuple(sorted(_norm_dim(d, nd) for d in dim))


def _reduction(func, name, args, kwargs):
    dts, rebuild, mesh = _collect(name, args, kwargs)
    x = args[0]
    if len(dts) != 1 or x is not dts[0]:
        return _fallback(func, name, args, kwargs)
    if name in ('max', 'min'):
        if len(args) > 1 or kwargs:
            return _fallback(func, name, args, kwargs)
        name = 'amax' if name == 'max' else 'amin'
    b = _bind(func, args, kwargs)
    nd = x.dim()
    dims = _dims_of(b.get('dim'), nd)
    keep = b.get('keepdim', False)
    if name == 'mean' and any(isinstance(p, Shard) and p.dim in dims for p in x._spec.placements):
        count = math.prod(x._spec.shape[d] for d in dims)
        kw = {'dtype': b['dtype']} if b.get('dtype') is not None else {}
        s = x.sum(dims, keepdim=keep, **kw)
        return s / count
    tgt, out = [], []
    for p in x._spec.placements:
        if isinstance(p, Shard):
            if p.dim in dims:
                if name in ('sum', 'nansum', 'mean'):
                    tgt.append(p)
                    out.append(_PSUM)
                elif name in ('amax', 'amin') and not x.requires_grad:
                    tgt.append(p)
                    out.append(Partial('max' if name == 'amax' else 'min'))
                else:
                    tgt.append(_R)
                    out.append(_R)
            else:
                tgt.append(p)
                out.append(Shard(p.dim if keep else p.dim - sum(1 for d in dims if d < p.dim)))
        elif isinstance(p, Partial):
            if p == _PSUM and name in ('sum', 'nansum', 'mean'):
                tgt.append(p)
                out.append(p)
            else:
                tgt.append(_R)
                out.append(_R)
        else:
            tgt.append(_R)
            out.append(_R)
    shape = tuple(1 if d in dims else s for d, s in enumerate(x._spec.shape)) if keep else \
        tuple(s for d, s in enumerate(x._spec.shape) if d not in dims)
    return _run(_local_fn(func, rebuild), mesh, dts, [tgt], [(tuple(out), shape)])


def _vector_norm(func, name, args, kwargs):
    """vector_norm: local when no sharded or partial dimension is reduced; otherwise composed
    of DTensor ops (sum of ``|x|^p`` over the shards, then the root)."""
    b = _bind(func, args, kwargs)
    x = b['x'] if 'x' in b else b['input']
    if not isinstance(x, DTensor):
        raise _mixed(name)
    ordv = float(b.get('ord', 2))
    nd = x.dim()
    dims = _dims_of(b.get('dim'), nd)
    keep = b.get('keepdim', False)
    if b.get('dtype') is not None:
        x = x.to(b['dtype'])
    spread = any((isinstance(p, Shard) and p.dim in dims) or isinstance(p, Partial)
                 for p in x._spec.placements)
    if not spread:
        dts, rebuild, mesh = _collect(name, args, kwargs)
        out = tuple(Shard(p.dim if keep else p.dim - sum(1 for d in dims if d < p.dim))
                    if isinstance(p, Shard) else p for p in x._spec.placements)
        shape = tuple(1 if d in dims else s for d, s in enumerate(x._spec.shape)) if keep \
            else tuple(s for d, s in enumerate(x._spec.shape) if d not in dims)
        return _run(_local_fn(func, rebuild), mesh, dts, [x._spec.placements],
                    [(out, shape)])
    if any(isinstance(p, Partial) for p in x._spec.placements):
        x = x.redistribute(x._spec.mesh, _relaxed(x._spec.placements))
    a = x.abs()
    if ordv == math.inf:
        return a.amax(dims, keepdim=keep)
    if ordv == -math.inf:
        return a.amin(dims, keepdim=keep)
    if ordv == 0:
        return (a != 0).to(x.dtype).sum(dims, keepdim=keep)
    if ordv == 2:
        return (x * x).sum(dims, keepdim=keep).sqrt()
    return a.pow(ordv).sum(dims, keepdim=keep).pow(1.0 / ordv)


# ----------------------------------------------------------------------------- matmul
def _matmul_shape(a, b):
    if len(a) == 1 and len(b) == 1:
        return ()
    if len(b) == 1:
        return tuple(a[:-1])
    if len(a) == 1:
        return tuple(b[:-2]) + (b[-1],)
    batch = _broadcast([a[:-2], b[:-2]])
    return batch + (a[-2], b[-1])


def _matmul(func, name, args, kwargs):
    dts, rebuild, mesh = _collect(name, args, kwargs)
    if len(dts) != 2 or args[0] is not dts[0] or args[1] is not dts[1]:
        return _fallback(func, name, args, kwargs)
    A, B = dts
    sa, sb = A._spec.shape, B._spec.shape
    na, nb = len(sa), len(sb)
    out = _matmul_shape(sa, sb)
    no = len(out)
    nbatch = max(na - 2, nb - 2, 0)
    ka = na - 1
    kb = 0 if nb == 1 else nb - 2
    cands = [((_R, _R), _R)]
    if na >= 2:
        cands.append(((Shard(na - 2), _R), Shard(no - (2 if nb >= 2 else 1))))
    if nb >= 2:
        cands.append(((_R, Shard(nb - 1)), Shard(no - 1)))
    cands.append(((Shard(ka), Shard(kb)), _PSUM))
    cands.append(((_PSUM, _R), _PSUM))
    cands.append(((_R, _PSUM), _PSUM))
    for ob in range(nbatch):
        da = ob - (nbatch - (na - 2)) if na > 2 else -1
        db = ob - (nbatch - (nb - 2)) if nb > 2 else -1
        pa = Shard(da) if da >= 0 and sa[da] == out[ob] else _R
        pb = Shard(db) if db >= 0 and sb[db] == out[ob] else _R
        if pa != _R or pb != _R:
            cands.append(((pa, pb), Shard(ob)))
    ta, tb, op = [], [], []
    for i in range(mesh.ndim):
        best = None
        for (pa, pb), po in cands:
            c = _cost(A, A._spec.placements[i], pa) + _cost(B, B._spec.placements[i], pb)
            if isinstance(po, Partial) and not (isinstance(pa, Partial) or
                                                 isinstance(pb, Partial)):
                c += math.prod(out)       # the reduction a new partial result will need
            if best is None or c < best[0]:
                best = (c, pa, pb, po)
        ta.append(best[1])
        tb.append(best[2])
        op.append(best[3])
    return _run(_local_fn(func, rebuild), mesh, dts, [ta, tb], [(tuple(op), out)])


def _linear(func, name, args, kwargs):
    b = _bind(func, args, kwargs)
    x, w, bias = b['input'], b['weight'], b.get('bias')
    if not isinstance(x, DTensor) or not isinstance(w, DTensor):
        raise _mixed(name)
    y = x.matmul(w.t())
    return y if bias is None else y + bias


def _addmm(func, name, args, kwargs):
    b = _bind(func, args, kwargs)
    y = b['mat1'].matmul(b['mat2']) if 'mat1' in b else b['batch1'].matmul(b['batch2'])
    alpha, beta = b.get('alpha', 1), b.get('beta', 1)
    if alpha != 1:
        y = y * alpha
    inp = b['input']
    if beta == 0:
        return y
    return y + (inp if beta == 1 else inp * beta)


# ----------------------------------------------------------------------------- views
def _perm_rule(func, name, args, kwargs):
    dts, rebuild, mesh = _collect(name, args, kwargs)
    x = dts[0]
    nd = x.dim()
    if name in ('t',):
        perm = list(range(nd))[::-1]
    elif name in ('transpose', 'swapaxes', 'swapdims'):
        b = [a for a in args[1:]] + [kwargs[k] for k in kwargs]
        d0, d1 = _norm_dim(b[0], nd), _norm_dim(b[1], nd)
        perm = list(range(nd))
        perm[d0], perm[d1] = perm[d1], perm[d0]
    elif name == 'permute':
        dims = args[1:] if len(args) > 2 or not isinstance(args[1], (tuple, list)) else args[1]
        if 'dims' in kwargs:
            dims = kwargs['dims']
        perm = [_norm_dim(d, nd) for d in dims]
    else:   # movedim / moveaxis
        b = _bind(func, args, kwargs)
        src, dst = b['source'], b['destination']
        src = [src] if isinstance(src, int) else list(src)
        dst = [dst] if isinstance(dst, int) else list(dst)
        src = [_norm_dim(s, nd) for s in src]
        dst = [_norm_dim(s, nd) for s in dst]
        perm = [None] * nd
        for s, d in zip(src, dst):
            perm[d] = s
        rest = iter([i for i in range(nd) if i not in src])
        perm = [p if p is not None else next(rest) for p in perm]
    out = tuple(Shard(perm.index(p.dim)) if isinstance(p, Shard) else p
                for p in x._spec.placements)
    shape = tuple(x._spec.shape[p] for p in perm)
    return _run(_local_fn(func, rebuild), mesh, dts, [x._spec.placements], [(out, shape)])


def _shape_arg(args, kwargs, key='shape'):
    if key in kwargs:
        s = kwargs[key]
    elif len(args) == 2 and isinstance(args[1], (tuple, list)):
        s = args[1]
    else:
        s = args[1:]
    return [int(v) for v in s]


def _resolve(shape, numel):
    shape = list(shape)
    if -1 in shape:
        k = shape.index(-1)
        rest = math.prod(s for i, s in enumerate(shape) if i != k)
        shape[k] = numel // rest if rest else 0
    return tuple(shape)


def _groups(src, dst):
    """Pair runs of dims of ``src`` and ``dst`` with equal products."""
    out = []
    i = j = 0
    while i < len(src) or j < len(dst):
        gi, gj = [], []
        pi = pj = 1
        if i < len(src):
            gi.append(i)
            pi = src[i]
            i += 1
        if j < len(dst):
            gj.append(j)
            pj = dst[j]
            j += 1
        while pi != pj:
            if pi < pj and i < len(src):
                gi.append(i)
                pi *= src[i]
                i += 1
            elif j < len(dst):
                gj.append(j)
                pj *= dst[j]
                j += 1
            else:
                break
        while i < len(src) and src[i] == 1 and (j >= len(dst) or dst[j] != 1):
            gi.append(i)
            i += 1
        while j < len(dst) and dst[j] == 1 and (i >= len(src) or src[i] != 1):
            gj.append(j)
            j += 1
        out.append((gi, gj))
    return out


def _reshape_to(x, name, target, view=False):
    """``x`` (DTensor) reshaped to the global ``target`` shape."""
    mesh = x._spec.mesh
    src = x._spec.shape
    target = _resolve(target, math.prod(src))
    if math.prod(target) != math.prod(src):
        raise RuntimeError(f"shape '{list(target)}' is invalid for input of size "
                           f"{math.prod(src)}")
    groups = _groups(list(src), list(target))
    tgt, out = [], []
    for i, p in enumerate(x._spec.placements):
        if isinstance(p, Shard):
            g = next((g for g in groups if p.dim in g[0]), None)
            ok = False
            if g is not None:
                first = next((d for d in g[0] if src[d] != 1), None)
                o0 = next((d for d in g[1] if target[d] != 1), None)
                n = mesh.size(i)
                ok = first == p.dim and o0 is not None and src[p.dim] % n == 0 and \
                    target[o0] % n == 0
            if ok:
                tgt.append(p)
                out.append(Shard(o0))
            else:
                tgt.append(_R)
                out.append(_R)
        else:
            tgt.append(p)
            out.append(p)
    lshape = list(target)
    loc_src = _Spec(mesh, tgt, src).local_shape()
    for i, p in enumerate(out):
        if isinstance(p, Shard):
            srcd = tgt[i].dim
            lshape[p.dim] = target[p.dim] * loc_src[srcd] // src[srcd] if src[srcd] else 0
    lshape = tuple(lshape)

    def fn(loc):
        return loc.view(lshape) if view else loc.reshape(lshape)
    return _run(fn, mesh, [x], [tgt], [(tuple(out), target)])


def _view_rule(func, name, args, kwargs):
    dts, rebuild, mesh = _collect(name, args, kwargs)
    x = args[0]
    if not isinstance(x, DTensor):
        raise _mixed(name)
    nd = x.dim()
    if name in ('view', 'reshape'):
        if name == 'view' and len(args) == 2 and not isinstance(args[1], (tuple, list, int)):
            return _fallback(func, name, args, kwargs)     # view(dtype)
        target = _shape_arg(args, kwargs)
    elif name in ('view_as', 'reshape_as'):
        target = list(args[1].shape)
    elif name == 'flatten':
        b = _bind(func, args, kwargs)
        s, e = _norm_dim(b.get('start_dim', 0), max(nd, 1)), _norm_dim(b.get('end_dim', -1),
                                                                      max(nd, 1))
        shp = list(x._spec.shape)
        target = shp[:s] + [math.prod(shp[s:e + 1])] + shp[e + 1:] if nd else [1]
    elif name == 'unflatten':
        b = _bind(func, args, kwargs)
        d = _norm_dim(b['dim'], nd)
        sizes = list(b['sizes'])
        shp = list(x._spec.shape)
        if -1 in sizes:
            k = sizes.index(-1)
            sizes[k] = shp[d] // math.prod(s for j, s in enumerate(sizes) if j != k)
        target = shp[:d] + sizes + shp[d + 1:]
    else:
        return _fallback(func, name, args, kwargs)
    return _reshape_to(x, name, target, view=name in ('view', 'view_as'))


def _unsqueeze(func, name, args, kwargs):
    dts, rebuild, mesh = _collect(name, args, kwargs)
    x = dts[0]
    b = _bind(func, args, kwargs)
    d = _norm_dim(b['dim'], x.dim() + 1)
    out = tuple(Shard(p.dim + 1 if p.dim >= d else p.dim) if isinstance(p, Shard) else p
                for p in x._spec.placements)
    shape = list(x._spec.shape)
    shape.insert(d, 1)
    return _run(_local_fn(func, rebuild), mesh, dts, [x._spec.placements], [(out, shape)])


def _squeeze(func, name, args, kwargs):
    dts, rebuild, mesh = _collect(name, args, kwargs)
    x = dts[0]
    b = _bind(func, args, kwargs)
    nd = x.dim()
    shp = x._spec.shape
    dim = b.get('dim')
    dims = range(nd) if dim is None else [_norm_dim(d, nd) for d in (
        dim if isinstance(dim, (tuple, list)) else (dim,))]
    gone = sorted(d for d in dims if shp[d] == 1)
    tgt, out = [], []
    for p in x._spec.placements:
        if isinstance(p, Shard) and p.dim in gone:
            tgt.append(_R)
            out.append(_R)
        elif isinstance(p, Shard):
            tgt.append(p)
            out.append(Shard(p.dim - sum(1 for g in gone if g < p.dim)))
        else:
            tgt.append(p)
            out.append(p)
    shape = tuple(s for d, s in enumerate(shp) if d not in gone)
    return _run(lambda loc: loc.squeeze(tuple(gone)) if gone else loc.view(loc.shape),
                mesh, [x], [tgt], [(tuple(out), shape)])


def _expand(func, name, args, kwargs):
    dts, rebuild, mesh = _collect(name, args, kwargs)
    x = args[0]
    if name == 'expand_as':
        sizes = list(args[1].shape)
    else:
        sizes = _shape_arg(args, kwargs, 'size')
    nd, ond = x.dim(), len(sizes)
    lead = ond - nd
    full = [s if s != -1 else x._spec.shape[i - lead] for i, s in enumerate(sizes)]
    tgt, out = [], []
    for p in x._spec.placements:
        if isinstance(p, Shard) and x._spec.shape[p.dim] == full[p.dim + lead]:
            tgt.append(p)
            out.append(Shard(p.dim + lead))
        elif isinstance(p, Partial):
            tgt.append(p)
            out.append(p)
        else:
            tgt.append(_R)
            out.append(_R)
    lsz = [full[i] if i < lead or x._spec.shape[i - lead] != full[i] else -1
           for i in range(ond)]
    return _run(lambda loc: loc.expand(*lsz), mesh, [x], [tgt], [(tuple(out), tuple(full))])


def _getitem(func, name, args, kwargs):
    x, idx = args[0], args[1]
    if not isinstance(x, DTensor):
        return _fallback(func, name, args, kwargs)
    items = idx if isinstance(idx, tuple) else (idx,)
    if any(not (i is None or i is Ellipsis or isinstance(i, (int, slice))) or
           isinstance(i, bool) for i in items):
        return _fallback(func, name, args, kwargs)
    nd = x.dim()
    used = sum(1 for i in items if i is not None and i is not Ellipsis)
    exp = []
    for i in items:
        if i is Ellipsis:
            exp.extend([slice(None)] * (nd - used))
        else:
            exp.append(i)
    exp.extend([slice(None)] * (nd - sum(1 for i in exp if i is not None)))
    dmap, shape = {}, []
    d = 0
    for i in exp:
        if i is None:
            shape.append(1)
        elif isinstance(i, int):
            d += 1
        else:
            dmap[d] = len(shape)
            shape.append(len(range(*i.indices(x._spec.shape[d]))))
            d += 1
    tgt, out = [], []
    for p in x._spec.placements:
        if isinstance(p, Shard):
            k = 0
            item = None
            for i in exp:
                if i is None:
                    continue
                if k == p.dim:
                    item = i
                    break
                k += 1
            if isinstance(item, slice) and item == slice(None):
                tgt.append(p)
                out.append(Shard(dmap[p.dim]))
                continue
            tgt.append(_R)
            out.append(_R)
        else:
            tgt.append(p)
            out.append(p)
    return _run(lambda loc: loc[idx], x._spec.mesh, [x], [tgt], [(tuple(out), tuple(shape))])


def _split_like(func, name, args, kwargs):
    """split/chunk/tensor_split/unbind/narrow/select along ``dim``: local when ``dim`` is
    not sharded."""
    dts, rebuild, mesh = _collect(name, args, kwargs)
    x = args[0]
    if len(dts) != 1 or x is not dts[0]:
        return _fallback(func, name, args, kwargs)
    b = _bind(func, args, kwargs)
    nd = x.dim()
    d = _norm_dim(b.get('dim', 0), nd)
    removes = name in ('unbind', 'select')
    tgt, out, patch = [], [], {}
    for p in x._spec.placements:
        if isinstance(p, Shard) and p.dim == d:
            tgt.append(_R)
            out.append(_R)
        elif isinstance(p, Shard):
            nd_ = p.dim - 1 if removes and p.dim > d else p.dim
            tgt.append(p)
            out.append(Shard(nd_))
            patch[nd_] = x._spec.shape[p.dim]
        else:
            tgt.append(p)
            out.append(p)
    return _run(_local_fn(func, rebuild), mesh, dts, [tgt], [(tuple(out), patch)])


def _cat(func, name, args, kwargs):
    b = _bind(func, args, kwargs)
    ts = list(b['tensors'])
    if not ts or not all(isinstance(t, DTensor) for t in ts):
        raise _mixed(name)
    mesh = ts[0]._spec.mesh
    nd = ts[0].dim()
    stack = name in ('stack',)
    d = _norm_dim(b.get('dim', 0), nd + (1 if stack else 0))
    tgt, out = [], []
    for i in range(mesh.ndim):
        p = ts[0]._spec.placements[i]
        same = all(t._spec.placements[i] == p for t in ts)
        if same and isinstance(p, Shard) and (p.dim != d or stack) and all(
                t._spec.shape[p.dim] == ts[0]._spec.shape[p.dim] for t in ts):
            tgt.append(p)
            out.append(Shard(p.dim + 1 if stack and p.dim >= d else p.dim))
        elif same and p == _PSUM:
            tgt.append(p)
            out.append(p)
        else:
            tgt.append(_R)
            out.append(_R)
    shapes = [t._spec.shape for t in ts]
    if stack:
        shape = list(shapes[0])
        shape.insert(d, len(ts))
    else:
        shape = list(shapes[0])
        shape[d] = sum(s[d] for s in shapes)
    rest = {k: v for k, v in b.items() if k not in ('tensors', 'out')}
    return _run(lambda *locs: func(list(locs), **rest), mesh, ts, [tgt] * len(ts),
                [(tuple(out), tuple(shape))])


# ----------------------------------------------------------------------------- nn ops
def _embedding(func, name, args, kwargs):
    b = _bind(func, args, kwargs)
    idx, w = b['input'], b['weight']
    if not isinstance(idx, DTensor) or not isinstance(w, DTensor):
        raise _mixed(name)
    mesh = w._spec.mesh
    ni = idx.dim()
    ti, tw, out = [], [], []
    masked = None
    for i in range(mesh.ndim):
        pi, pw = idx._spec.placements[i], w._spec.placements[i]
        if isinstance(pi, Partial):
            pi = _R
        if isinstance(pw, Shard) and pw.dim == 1 and not isinstance(pi, Shard):
            ti.append(_R)
            tw.append(pw)
            out.append(Shard(ni))
        elif isinstance(pw, Shard) and pw.dim == 0 and not isinstance(pi, Shard) and \
                masked is None:
            ti.append(_R)
            tw.append(pw)
            out.append(_PSUM)
            masked = i
        elif isinstance(pi, Shard):
            ti.append(pi)
            tw.append(_R)
            out.append(Shard(pi.dim))
        else:
            ti.append(_R)
            tw.append(_R)
            out.append(_R)
    rest = {k: v for k, v in b.items() if k not in ('input', 'weight')}
    shape = tuple(idx._spec.shape) + (w._spec.shape[1],)
    if masked is None:
        fn = (lambda li, lw: func(li, lw, **rest))
    else:
        lo = _api._local_shape_offset(w._spec.shape, mesh, tw)[1][0]
        pad = rest.get('padding_idx')

        def fn(li, lw):
            hi = lo + lw.shape[0]
            outside = (li < lo) | (li >= hi)
            loc = (li - lo).masked_fill(outside, 0)
            r = dict(rest)
            if pad is not None:
                p = pad if pad >= 0 else pad + w._spec.shape[0]
                r['padding_idx'] = p - lo if lo <= p < hi else None
            y = func(loc, lw, **r)
            return y.masked_fill(outside.unsqueeze(-1), 0)
    return _run(fn, mesh, [idx, w], [ti, tw], [(tuple(out), shape)])


def _norm_rule(func, name, args, kwargs):
    """layer_norm / rms_norm: sharded along the leading (not normalized) dims."""
    b = _bind(func, args, kwargs)
    x = b['input']
    if not isinstance(x, DTensor):
        raise _mixed(name)
    mesh = x._spec.mesh
    k = len(tuple(b['normalized_shape']) if not isinstance(b['normalized_shape'], int) else
            (b['normalized_shape'],))
    lead = x.dim() - k
    params = [(key, b[key]) for key in ('weight', 'bias') if isinstance(b.get(key), DTensor)]
    for key, v in (('weight', b.get('weight')), ('bias', b.get('bias'))):
        if isinstance(v, _T.Tensor) and not isinstance(v, DTensor):
            raise _mixed(name)
    tx = [p if isinstance(p, Shard) and p.dim < lead else _R for p in x._spec.placements]
    rest = {key: v for key, v in b.items() if key not in ('input',) + tuple(
        k_ for k_, _ in params)}
    keys = [k_ for k_, _ in params]

    def fn(lx, *lp):
        return func(lx, **rest, **dict(zip(keys, lp)))
    return _run(fn, mesh, [x] + [v for _, v in params],
                [tx] + [[_R] * mesh.ndim] * len(params), [(tuple(tx), x._spec.shape)])


def _softmax(func, name, args, kwargs):
    dts, rebuild, mesh = _collect(name, args, kwargs)
    x = args[0]
    b = _bind(func, args, kwargs)
    d = b.get('dim')
    nd = x.dim()
    d = _norm_dim(d, nd) if d is not None else (0 if nd in (0, 1, 3) else 1)
    tx = [p if isinstance(p, Shard) and p.dim != d else _R for p in x._spec.placements]
    return _run(_local_fn(func, rebuild), mesh, dts, [tx], [(tuple(tx), x._spec.shape)])


def _sdpa(func, name, args, kwargs):
    b = _bind(func, args, kwargs)
    q, k, v = b['query'], b['key'], b['value']
    mask = b.get('attn_mask')
    ts = [q, k, v] + ([mask] if isinstance(mask, DTensor) else [])
    if not all(isinstance(t, DTensor) for t in (q, k, v)):
        raise _mixed(name)
    mesh = q._spec.mesh
    nd = q.dim()
    tq = []
    for i in range(mesh.ndim):
        p = q._spec.placements[i]
        if isinstance(p, Shard) and p.dim < nd - 2 and all(
                t._spec.placements[i] == p or (t is mask and t._spec.shape[p.dim] == 1)
                for t in ts[1:]):
            tq.append(p)
        else:
            tq.append(_R)
    tmask = None
    if isinstance(mask, DTensor):     # a broadcast (size-1) mask dim stays replicated
        tmask = [p if isinstance(p, Shard) and mask._spec.shape[p.dim] != 1 else _R
                 for p in tq]
    rest = {key: val for key, val in b.items() if key not in ('query', 'key', 'value') and
            not (key == 'attn_mask' and isinstance(val, DTensor))}

    def fn(lq, lk, lv, *lm):
        if lm:
            return func(lq, lk, lv, attn_mask=lm[0], **rest)
        return func(lq, lk, lv, **rest)
    targets = [tq, tq, tq] + ([tmask] if tmask is not None else [])
    oshape = tuple(q._spec.shape[:-1]) + (v._spec.shape[-1],)
    return _run(fn, mesh, ts, targets, [(tuple(tq), oshape)])


def _reduce_loss(per, reduction):
    if reduction == 'none':
        return per
    if reduction == 'sum':
        return per.sum()
    return per.sum() / per.numel()      # 'mean' (an empty input gives nan, as torch)


def _nll_like(func, name, args, kwargs):
    b = _bind(func, args, kwargs)
    x, t = b['input'], b['target']
    if not isinstance(x, DTensor) or not isinstance(t, DTensor):
        raise _mixed(name)
    if b.get('size_average') is not None or b.get('reduce') is not None:
        return _fallback(func, name, args, kwargs)
    mesh = x._spec.mesh
    nd = x.dim()
    red = b.get('reduction', 'mean')
    w = b.get('weight')
    if isinstance(w, DTensor):
        w = w.full_tensor()

    def x2t(d):
        return None if nd >= 2 and d == 1 else (d if d == 0 or nd < 2 else d - 1)

    tx, tt = [], []
    for i in range(mesh.ndim):
        px, pt = x._spec.placements[i], t._spec.placements[i]
        cand = None
        if isinstance(px, Shard) and x2t(px.dim) is not None:
            cand = (px, Shard(x2t(px.dim)))
        elif isinstance(pt, Shard):
            dx = pt.dim if pt.dim == 0 or nd < 2 else pt.dim + 1
            cand = (Shard(dx), pt)
        tx.append(cand[0] if cand else _R)
        tt.append(cand[1] if cand else _R)
    rest = {k: v for k, v in b.items() if k not in ('input', 'target', 'weight', 'reduction')}
    wl = w

    def fn(lx, lt):
        return func(lx, lt, weight=wl, reduction='none', **rest)
    per = _run(fn, mesh, [x, t], [tx, tt], [(tuple(tt), t._spec.shape)])
    if red in ('none', 'sum'):
        return _reduce_loss(per, red)
    ii = b.get('ignore_index', -100)
    tl = t.redistribute(mesh, tt) if t._spec.placements != tuple(tt) else t

    def den(lt):
        valid = (lt != ii)
        if wl is None:
            return valid.to(x.dtype)
        return wl[lt.masked_fill(~valid, 0)] * valid.to(wl.dtype)
    dn = _run(den, mesh, [tl], [tt], [(tuple(tt), t._spec.shape)])
    total = dn.sum().full_tensor()
    if b.get('label_smoothing', 0.0) and wl is not None:
        return _fallback(func, name, args, kwargs)
    return per.sum() / total


_ELEMENTWISE_LOSSES = frozenset('mse_loss l1_loss smooth_l1_loss huber_loss soft_margin_loss '
                                'binary_cross_entropy binary_cross_entropy_with_logits kl_div '
                                'poisson_nll_loss'.split())


def _elementwise_loss(func, name, args, kwargs):
    b = _bind(func, args, kwargs)
    if b.get('size_average') is not None or b.get('reduce') is not None:
        return _fallback(func, name, args, kwargs)
    red = b.get('reduction', 'mean')
    b['reduction'] = 'none'
    dts, rebuild, mesh = _collect(name, (), b)
    targets, out_pl, out_shape = _pointwise_plan(name, dts)

    def fn(*locs):
        _, k = rebuild(locs)
        return func(**k)
    per = _run(fn, mesh, dts, targets, [(out_pl, out_shape)])
    if red == 'batchmean':
        return per.sum() / (per.size(0) if per.dim() else 1)
    return _reduce_loss(per, red)


# ----------------------------------------------------------------------------- the rest
_NOWARN = frozenset('item tolist numpy __bool__ __float__ __int__ __index__ __len__ equal '
                    'allclose'.split())


def _fallback(func, name, args, kwargs):
    dts, rebuild, mesh = _collect(name, args, kwargs)
    if name not in _NOWARN:
        warnings.warn(f"DTensor: no sharding rule for '{name}': its inputs are replicated and "
                      "every rank computes the full result", UserWarning, stacklevel=4)
    rep = [(_R,) * mesh.ndim] * len(dts)
    xs = [d if d._spec.placements == r else _api._Redistribute.apply(d, r)
          for d, r in zip(dts, rep)]
    if not any(d.requires_grad for d in xs):
        a, k = rebuild([_plain(d) for d in xs])
        out = func(*a, **k)
        return _wrap_all(out, mesh)
    return _run(_local_fn(func, rebuild), mesh, xs, rep, [((_R,) * mesh.ndim, None)])


def _wrap_all(out, mesh):
    if isinstance(out, DTensor):
        return out
    if isinstance(out, _T.Tensor):
        return _make(out, mesh, (_R,) * mesh.ndim, out.shape)
    if isinstance(out, (tuple, list)) and any(isinstance(o, _T.Tensor) for o in out):
        items = [_wrap_all(o, mesh) for o in out]
        rt = type(out)
        if rt in (tuple, list) or hasattr(rt, 'n_fields'):
            return rt(items)
        return rt(*items) if hasattr(rt, '_fields') else rt(items)
    return out


def _raw_self(func, name, args, kwargs):
    from ..._ops._dispatch import _tls
    _tls.no_subclass += 1
    try:
        return func(*args, **kwargs)
    finally:
        _tls.no_subclass -= 1


def _detach(func, name, args, kwargs):
    x = args[0]
    return _make(_plain(x), x._spec.mesh, x._spec.placements, x._spec.shape)


_RAW = frozenset('requires_grad_ retain_grad detach_ register_hook is_floating_point '
                 'is_complex element_size get_device is_contiguous data_ptr storage_offset '
                 'untyped_storage is_signed register_post_accumulate_grad_hook'.split())

_RULES = {'detach': _detach, 'alias': _detach,
          'sum': _reduction, 'nansum': _reduction, 'mean': _reduction, 'amax': _reduction,
          'amin': _reduction, 'max': _reduction, 'min': _reduction,
          'vector_norm': _vector_norm, 'mm': _matmul, 'matmul': _matmul, 'bmm': _matmul, 'linear': _linear,
          'addmm': _addmm, 'baddbmm': _addmm,
          't': _perm_rule, 'transpose': _perm_rule, 'swapaxes': _perm_rule,
          'swapdims': _perm_rule, 'permute': _perm_rule, 'movedim': _perm_rule,
          'moveaxis': _perm_rule,
          'view': _view_rule, 'reshape': _view_rule, 'view_as': _view_rule,
          'reshape_as': _view_rule, 'flatten': _view_rule, 'unflatten': _view_rule,
          'unsqueeze': _unsqueeze, 'squeeze': _squeeze, 'expand': _expand,
          'expand_as': _expand, 'getitem': _getitem, '__getitem__': _getitem,
          'split': _split_like, 'chunk': _split_like, 'tensor_split': _split_like,
          'unbind': _split_like, 'narrow': _split_like, 'select': _split_like,
          'cat': _cat, 'concat': _cat, 'concatenate': _cat, 'stack': _cat,
          'embedding': _embedding, 'layer_norm': _norm_rule, 'rms_norm': _norm_rule,
          'softmax': _softmax, 'log_softmax': _softmax,
          'scaled_dot_product_attention': _sdpa,
          'cross_entropy': _nll_like, 'nll_loss': _nll_like}


def dispatch(func, args, kwargs):
    """Run ``func`` on DTensor arguments (``DTensor.__torch_function__``)."""
    name = getattr(func, '_ember_op', None) or getattr(func, '__name__', '?')
    rule = _RULES.get(name)
    if rule is not None:
        return rule(func, name, args, kwargs)
    if name in _RAW:
        return _raw_self(func, name, args, kwargs)
    if name in POINTWISE:
        return _pointwise(func, name, args, kwargs)
    if name in _LIKE:
        return _like(func, name, args, kwargs)
    if name in _ELEMENTWISE_LOSSES:
        return _elementwise_loss(func, name, args, kwargs)
    if name.endswith('_') and not name.startswith('_'):
        return _inplace(func, name, args, kwargs)
    return _fallback(func, name, args, kwargs)
