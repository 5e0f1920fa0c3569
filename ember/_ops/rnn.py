"""Recurrent kernels: Elman RNN (tanh/relu), LSTM (with projections) and GRU, as whole
layers over a sequence and as single cells, plus the packing kernels of
``nn.utils.rnn``.

How a layer is computed. One layer in one direction is one autograd node
(:class:`MkldnnRnnLayerBackward0` for the LSTM, ``RnnTanhLayerBackward0``,
``RnnReluLayerBackward0``, ``GruLayerBackward0``). Every sequence is held in *packed* row
order: a ``(N, features)`` matrix whose step ``t`` occupies rows ``offs[t] : offs[t] +
batch_sizes[t]`` (a dense ``(T, B, *)`` input is the packed case with every batch size
``B``). The forward computes the input projection of all steps with one GEMM, then per step
one hidden GEMM and the gates in place (NumPy/CuPy calls through ``xp``, no graph). It keeps
the activations the backward needs as ``(N, *)`` arrays.

The backward (back-propagation through time) is written in ember ops: per step a handful of
elementwise ops and one GEMM with ``W_hh``; the weight and input gradients of all steps are
then a few large GEMMs. Under ``create_graph=True`` the node first recomputes the
activations from its saved inputs with differentiable ember ops, so the same backward code
builds a graph and double backward is exact.

NOTE: unlike PyTorch, whose CPU GRU and RNN layers are composed of small ops, the grad_fn of
a one-direction GRU/RNN layer output is ember's own node (``GruLayerBackward0``,
``RnnTanhLayerBackward0``, ``RnnReluLayerBackward0``); the cells' results come from the same
nodes (PyTorch composes them: ``MulBackward0``, ``AddBackward0``, ``TanhBackward0``). The
LSTM's names are PyTorch's CPU names. float16/bfloat16 inputs are computed in float32 and
the results cast back.

``__all__`` lists the names ``ember.nn.functional`` re-exports (none: the recurrent
functions are ``ember.*`` ops, as in PyTorch)."""
from .._tensor import Tensor, _Mode
from .._backend import array_module
from ._util import wrap, Node, register, record

__all__ = []

_NGATES = {'RNN_TANH': 1, 'RNN_RELU': 1, 'LSTM': 4, 'GRU': 3}


# ----------------------------------------------------------------------------- helpers

def _sig_(a, xp):
    """In-place logistic sigmoid through tanh (one transcendental, no overflow)."""
    a *= 0.5
    xp.tanh(a, out=a)
    a *= 0.5
    a += 0.5
    return a


def _cat(ts, dim):
    from .shape import cat
    return ts[0] if len(ts) == 1 else cat(ts, dim)


_SCALAR_NAMES = {'float32': 'Float', 'float64': 'Double', 'float16': 'Half',
                 'bfloat16': 'BFloat16', 'int64': 'Long', 'int32': 'Int'}


def _scalar_name(t):
    return _SCALAR_NAMES.get(str(t._data.dtype), str(t._data.dtype))


def _offsets(bs):
    offs = []
    o = 0
    for b in bs:
        offs.append(o)
        o += b
    return tuple(offs), o


# ----------------------------------------------------------------------------- forward kernel

def _layer_arrays(mode, xa, h0a, c0a, wih, whh, bih, bhh, whr, bs, offs, reverse, keep):
    """One layer, one direction, on arrays. Returns ``(out, hT, cT, saved)``; ``saved``
    (only with ``keep``) holds the ``(N, *)`` arrays the backward reads."""
    xp = array_module(xa)
    dt = xa.dtype
    N = xa.shape[0]
    G = wih.shape[0]
    H = G // _NGATES[mode]
    Hr = whh.shape[1]
    T = len(bs)
    xw = xa @ wih.T
    if bih is not None:
        xw += bih
        if mode != 'GRU':
            xw += bhh
    h = h0a.copy()
    whhT = whh.T
    steps = range(T - 1, -1, -1) if reverse else range(T)
    hp = xp.empty((N, Hr), dt) if keep else None
    saved = None
    if mode == 'RNN_TANH' or mode == 'RNN_RELU':
        relu = mode == 'RNN_RELU'
        for t in steps:
            o, b = offs[t], bs[t]
            hb = h[:b]
            if keep:
                hp[o:o + b] = hb
            y = xw[o:o + b]
            y += hb @ whhT
            if relu:
                xp.maximum(y, 0, out=y)
            else:
                xp.tanh(y, out=y)
            h[:b] = y
        out = xw
        if keep:
            d = (out > 0).astype(dt) if relu else 1 - out * out
            saved = (hp, d)
        return out, h, None, saved
    out = xp.empty((N, Hr), dt)
    if mode == 'LSTM':
        c = c0a.copy()
        whrT = whr.T if whr is not None else None
        if keep:
            cp = xp.empty((N, H), dt)
            tc = xp.empty((N, H), dt)
            hf = xp.empty((N, H), dt) if whr is not None else None
        for t in steps:
            o, b = offs[t], bs[t]
            hb, cb = h[:b], c[:b]
            if keep:
                hp[o:o + b] = hb
                cp[o:o + b] = cb
            g = xw[o:o + b]
            g += hb @ whhT
            _sig_(g[:, :2 * H], xp)
            xp.tanh(g[:, 2 * H:3 * H], out=g[:, 2 * H:3 * H])
            _sig_(g[:, 3 * H:], xp)
            cn = g[:, H:2 * H] * cb
            cn += g[:, :H] * g[:, 2 * H:3 * H]
            c[:b] = cn
            if keep:
                tcn = tc[o:o + b]
                xp.tanh(cn, out=tcn)
            else:
                tcn = xp.tanh(cn)
            hn = g[:, 3 * H:] * tcn
            if whrT is not None:
                if keep:
                    hf[o:o + b] = hn
                hn = hn @ whrT
            h[:b] = hn
            out[o:o + b] = hn
        if keep:
            i, f, gg, og = xw[:, :H], xw[:, H:2 * H], xw[:, 2 * H:3 * H], xw[:, 3 * H:]
            m = xp.empty((N, 4 * H), dt)
            m[:, :H] = gg * i * (1 - i)
            m[:, H:2 * H] = cp * f * (1 - f)
            m[:, 2 * H:3 * H] = i * (1 - gg * gg)
            m[:, 3 * H:] = tc * og * (1 - og)
            k = og * (1 - tc * tc)
            saved = (hp, m, k, xp.ascontiguousarray(f), hf)
        return out, h, c, saved
    # GRU
    ghn_all = xp.empty((N, H), dt) if keep else None
    for t in steps:
        o, b = offs[t], bs[t]
        hb = h[:b]
        if keep:
            hp[o:o + b] = hb
        gh = hb @ whhT
        if bhh is not None:
            gh += bhh
        g = xw[o:o + b]
        rz = g[:, :2 * H]
        rz += gh[:, :2 * H]
        _sig_(rz, xp)
        ghn = gh[:, 2 * H:]
        if keep:
            ghn_all[o:o + b] = ghn
        n = g[:, 2 * H:]
        n += rz[:, :H] * ghn
        xp.tanh(n, out=n)
        hn = hb - n
        hn *= rz[:, H:]
        hn += n
        h[:b] = hn
        out[o:o + b] = hn
    if keep:
        r, z, n = xw[:, :H], xw[:, H:2 * H], xw[:, 2 * H:]
        p = (1 - z) * (1 - n * n)
        q = (hp - n) * z * (1 - z)
        rr = ghn_all * r * (1 - r)
        saved = (hp, p, q, rr, xp.ascontiguousarray(z), xp.ascontiguousarray(r))
    return out, h, None, saved


# ----------------------------------------------------------------------------- recompute

def _layer_graph(mode, x, h0, c0, wih, whh, bih, bhh, whr, bs, offs, reverse):
    """The tensors :func:`_layer_arrays` keeps, recomputed from the inputs with
    differentiable ember ops (used by the backward under ``create_graph=True``)."""
    H = wih.shape[0] // _NGATES[mode]
    T = len(bs)
    xw = x @ wih.t()
    if bih is not None:
        xw = xw + bih
        if mode != 'GRU':
            xw = xw + bhh
    whhT = whh.t()
    steps = range(T - 1, -1, -1) if reverse else range(T)
    h, c = h0, c0
    B0 = h0.shape[0]
    cols = {}

    def keep(**kw):
        for k, v in kw.items():
            cols.setdefault(k, []).append(v)

    for t in steps:
        o, b = offs[t], bs[t]
        hb = h if b == B0 else h.narrow(0, 0, b)
        g = xw.narrow(0, o, b)
        if mode == 'RNN_TANH' or mode == 'RNN_RELU':
            y = g + hb @ whhT
            y = y.tanh() if mode == 'RNN_TANH' else y.relu()
            keep(hp=hb, y=y)
            hn = y
        elif mode == 'LSTM':
            cb = c if b == B0 else c.narrow(0, 0, b)
            g = g + hb @ whhT
            i = g.narrow(1, 0, H).sigmoid()
            f = g.narrow(1, H, H).sigmoid()
            gg = g.narrow(1, 2 * H, H).tanh()
            og = g.narrow(1, 3 * H, H).sigmoid()
            cn = f * cb + i * gg
            tc = cn.tanh()
            hf = og * tc
            hn = hf @ whr.t() if whr is not None else hf
            keep(hp=hb, cp=cb, i=i, f=f, g=gg, o=og, tc=tc, hf=hf)
            c = cn if b == B0 else _cat([cn, c.narrow(0, b, B0 - b)], 0)
        else:
            gh = hb @ whhT
            if bhh is not None:
                gh = gh + bhh
            r = (g.narrow(1, 0, H) + gh.narrow(1, 0, H)).sigmoid()
            z = (g.narrow(1, H, H) + gh.narrow(1, H, H)).sigmoid()
            ghn = gh.narrow(1, 2 * H, H)
            n = (g.narrow(1, 2 * H, H) + r * ghn).tanh()
            hn = n + z * (hb - n)
            keep(hp=hb, r=r, z=z, n=n, ghn=ghn)
        h = hn if b == B0 else _cat([hn, h.narrow(0, b, B0 - b)], 0)
    C = {k: _cat(v[::-1] if reverse else v, 0) for k, v in cols.items()}
    if mode == 'RNN_TANH':
        y = C['y']
        return (C['hp'], 1 - y * y)
    if mode == 'RNN_RELU':
        return (C['hp'], (C['y'] > 0).to(x.dtype))
    if mode == 'LSTM':
        i, f, gg, og, tc = C['i'], C['f'], C['g'], C['o'], C['tc']
        m = _cat([gg * i * (1 - i), C['cp'] * f * (1 - f), i * (1 - gg * gg),
                  tc * og * (1 - og)], 1)
        return (C['hp'], m, og * (1 - tc * tc), f, C['hf'] if whr is not None else None)
    r, z, n = C['r'], C['z'], C['n']
    return (C['hp'], (1 - z) * (1 - n * n), (C['hp'] - n) * z * (1 - z),
            C['ghn'] * r * (1 - r), z, r)


# ----------------------------------------------------------------------------- backward (BPTT)

def _bptt(mode, S, x, h0, c0, wih, whh, whr, bs, offs, reverse, gout, gh, gc, needs):
    """Gradients of one layer/direction in ember ops. ``S``: the kept tensors."""
    from .creation import zeros_like
    H = wih.shape[0] // _NGATES[mode]
    T = len(bs)
    B0 = h0.shape[0]
    lstm = mode == 'LSTM'
    dh_state = gh if gh is not None else zeros_like(h0)
    dc_state = None
    if lstm:
        dc_state = gc if gc is not None else zeros_like(c0)
    steps = range(T) if reverse else range(T - 1, -1, -1)
    pieces, pieces2, h0p, c0p = [], [], [], []
    hp = S[0]
    for t in steps:
        o, b = offs[t], bs[t]
        rows = dh_state.shape[0]
        dh = dh_state if rows == b else dh_state.narrow(0, 0, b)
        if gout is not None:
            dh = dh + gout.narrow(0, o, b)
        if lstm:
            _, m, k, f, _hf = S
            dc = dc_state if rows == b else dc_state.narrow(0, 0, b)
            if whr is not None:
                pieces2.append(dh)
                dhf = dh @ whr
            else:
                dhf = dh
            dc = dc + dhf * k.narrow(0, o, b)
            dg = _cat([dc, dc, dc, dhf], 1) * m.narrow(0, o, b)
            dcp = dc * f.narrow(0, o, b)
            dhp = dg @ whh
            pieces.append(dg)
        elif mode == 'GRU':
            _, p, q, rr, z, r = S
            dn = dh * p.narrow(0, o, b)
            dz = dh * q.narrow(0, o, b)
            dgh = _cat([dn * rr.narrow(0, o, b), dz, dn * r.narrow(0, o, b)], 1)
            dhp = dh * z.narrow(0, o, b) + dgh @ whh
            pieces.append(dgh)
            pieces2.append(dn)
        else:
            dpre = dh * S[1].narrow(0, o, b)
            dhp = dpre @ whh
            pieces.append(dpre)
        if reverse:
            nb = bs[t + 1] if t + 1 < T else 0
            if nb < b:
                h0p.append(dhp.narrow(0, nb, b - nb))
                if lstm:
                    c0p.append(dcp.narrow(0, nb, b - nb))
            dh_state = dhp.narrow(0, 0, nb) if nb < b else dhp
            if lstm:
                dc_state = dcp.narrow(0, 0, nb) if nb < b else dcp
        else:
            dh_state = dhp if b == B0 else _cat([dhp, dh_state.narrow(0, b, B0 - b)], 0)
            if lstm:
                dc_state = dcp if b == B0 else _cat([dcp, dc_state.narrow(0, b, B0 - b)], 0)
    if reverse and h0p:
        dh_state = _cat(h0p[::-1], 0)
        if lstm:
            dc_state = _cat(c0p[::-1], 0)
    gx = gwih = gwhh = gbih = gbhh = gwhr = None
    if T == 0:
        return (x.new_zeros(x.shape) if needs[0] else None, dh_state, dc_state,
                zeros_like(wih), zeros_like(whh), None, None,
                zeros_like(whr) if whr is not None else None)
    if not reverse:
        pieces.reverse()
        pieces2.reverse()
    DG = _cat(pieces, 0)
    if mode == 'GRU':
        DX = _cat([DG.narrow(1, 0, 2 * H), _cat(pieces2, 0)], 1)
    else:
        DX = DG
    if needs[0]:
        gx = DX @ wih
    if needs[3]:
        gwih = DX.t() @ x
    if needs[4]:
        gwhh = DG.t() @ hp
    if needs[5]:
        gbih = DX.sum(0)
    if needs[6]:
        gbhh = DG.sum(0) if mode == 'GRU' or not needs[5] else gbih.clone()
    if whr is not None and needs[7]:
        gwhr = _cat(pieces2, 0).t() @ S[4]
    return (gx, dh_state if needs[1] else None, dc_state if lstm and needs[2] else None,
            gwih, gwhh, gbih, gbhh, gwhr)


class _RnnLayerNode(Node):
    """One recurrent layer in one direction over a (packed) sequence."""
    _materialize = False
    mode = None

    def backward(self, gout, gh, gc=None):
        saved = self.saved_tensors
        x, h0, c0, wih, whh, bih, bhh, whr = saved[:8]
        bs, offs, reverse = self.cfg
        mode = self.mode
        xshape = None
        if x.dim() == 3:   # a dense (T, B, I) layer input: rows are its (T*B) positions
            xshape = x.shape
            x = x.reshape(-1, xshape[2])
            if gout is not None:
                gout = gout.reshape(-1, gout.shape[2])
        if _Mode.grad:   # create_graph: activations as functions of the inputs
            S = _layer_graph(mode, x, h0, c0, wih, whh, bih, bhh, whr, bs, offs, reverse)
        else:
            S = saved[8:]
        if gout is not None and gout.dtype != x.dtype:
            gout = gout.to(x.dtype)
        grads = _bptt(mode, S, x, h0, c0, wih, whh, whr, bs, offs, reverse, gout, gh, gc,
                      self.needs)
        if xshape is not None and grads[0] is not None:
            grads = (grads[0].view(xshape),) + grads[1:]
        return grads



class MkldnnRnnLayerBackward0(_RnnLayerNode):
    """Backward of one LSTM layer/direction (PyTorch's CPU name for it)."""
    mode = 'LSTM'


class RnnTanhLayerBackward0(_RnnLayerNode):
    """Backward of one tanh RNN layer/direction (ember's own node name)."""
    mode = 'RNN_TANH'


class RnnReluLayerBackward0(_RnnLayerNode):
    """Backward of one ReLU RNN layer/direction (ember's own node name)."""
    mode = 'RNN_RELU'


class GruLayerBackward0(_RnnLayerNode):
    """Backward of one GRU layer/direction (ember's own node name)."""
    mode = 'GRU'


_NODES = {'LSTM': MkldnnRnnLayerBackward0, 'RNN_TANH': RnnTanhLayerBackward0,
          'RNN_RELU': RnnReluLayerBackward0, 'GRU': GruLayerBackward0}


def _layer(mode, x, h0, c0, wih, whh, bih, bhh, whr, bs, offs, reverse):
    """One layer/direction: ``(out (N, Hr), h_T, c_T or None)``, recorded as one node.
    ``x`` is ``(N, I)`` in packed row order, or a dense ``(T, B, I)`` (then ``out`` is
    ``(T, B, Hr)``)."""
    ins = (x, h0, c0, wih, whh, bih, bhh, whr)
    need = False
    if _Mode.grad:
        for t in ins:
            if t is not None and t._rg:
                need = True
                break
    xa = x._data
    lead = None
    if xa.ndim == 3:
        lead = xa.shape[:2]
        xa = xa.reshape(-1, xa.shape[2])
    out, h, c, kept = _layer_arrays(
        mode, xa, h0._data, None if c0 is None else c0._data, wih._data, whh._data,
        None if bih is None else bih._data, None if bhh is None else bhh._data,
        None if whr is None else whr._data, bs, offs, reverse, need)
    if lead is not None:
        out = out.reshape(lead + (out.shape[1],))
    o, hT = wrap(out), wrap(h)
    cT = None if c is None else wrap(c)
    if need:
        node = _NODES[mode]()
        node.cfg = (bs, offs, reverse)
        # the inputs, then the activations the backward reads (saved alike: version
        # checked, seen by saved-tensor hooks, freed after backward)
        record((o, hT) if cT is None else (o, hT, cT), node, ins,
               save=ins + tuple(None if a is None else wrap(a) for a in kept))
    return o, hT, cT


# ----------------------------------------------------------------------------- multi-layer driver

def _dropout(x, p):
    """PyTorch's CPU dropout between layers: a Bernoulli(1 - p) mask scaled by 1/(1 - p),
    drawn from the default generator as torch draws it."""
    from .creation import empty_like, zeros
    if x.numel() == 0:
        return x
    if p == 1:
        return x * zeros((), dtype=x.dtype, device=x.device)
    noise = empty_like(x).bernoulli_(1 - p)
    noise.div_(1 - p)
    return x * noise


def _check_params(name, params, has_biases, num_layers, bidirectional, lstm):
    if not isinstance(params, (list, tuple)) or not all(isinstance(p, Tensor) for p in params):
        raise TypeError(f"{name}(): argument 'params' must be tuple of Tensors")
    D = 2 if bidirectional else 1
    n = len(params)
    groups = num_layers * D
    per = n // groups if groups > 0 and n % groups == 0 else -1
    ok = (2 + 2 * bool(has_biases),)
    if lstm:
        ok += (3 + 2 * bool(has_biases),)
    if per not in ok:
        raise RuntimeError(f"{name}: expected {groups * ok[0]} parameter tensors for "
                           f"num_layers={num_layers}, bidirectional={bool(bidirectional)}, "
                           f"has_biases={bool(has_biases)}, got {n}")
    return per, per == 3 + 2 * bool(has_biases) and lstm


def _check_layer(name, x, hs, params, per, has_biases, proj):
    w0 = params[0]
    for t in (w0,) + tuple(hs):
        if t._data.dtype != x._data.dtype:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                               f"{_scalar_name(x)} and {_scalar_name(t)}")
    if x._data.dtype.kind != 'f' and x._data.dtype.kind != 'V':
        raise RuntimeError(f"\"{name}\" not implemented for '{_scalar_name(x)}'")
    if x.shape[-1] != w0.shape[1]:
        raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                           f"{w0.shape[1]}, got {x.shape[-1]}")


def _run(mode, data, bs, hx, cx, params, has_biases, num_layers, dropout, train,
         bidirectional, per, proj):
    """All layers over packed ``data`` (N, I), or dense (T, B, I): ``(out (N or T, B,
    D*Hr), h_n, c_n or None)``."""
    from .shape import stack
    dt = data._data.dtype
    if dt.itemsize < 4 or dt.kind == 'V':
        # half precision: computed in float32 (NOTE: unlike PyTorch, which has its own kernels)
        from .. import _dtype as D_
        f32 = D_.float32
        r = _run(mode, data.to(f32), bs, hx.to(f32), None if cx is None else cx.to(f32),
                 [p.to(f32) for p in params], has_biases, num_layers, dropout, train,
                 bidirectional, per, proj)
        tdt = data.dtype
        return tuple(None if t is None else t.to(tdt) for t in r)
    D = 2 if bidirectional else 1
    offs, N = _offsets(bs)
    hs = hx.unbind(0)
    cs = cx.unbind(0) if cx is not None else None
    layer_in = data
    hn, cn = [], []
    for layer in range(num_layers):
        outs = []
        for d in range(D):
            k = layer * D + d
            p = params[k * per:(k + 1) * per]
            wih, whh = p[0], p[1]
            bih, bhh = (p[2], p[3]) if has_biases else (None, None)
            whr = p[-1] if proj else None
            if layer_in.shape[-1] != wih.shape[1]:
                raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                                   f"{wih.shape[1]}, got {layer_in.shape[-1]}")
            o, h, c = _layer(mode, layer_in, hs[k], None if cs is None else cs[k], wih, whh,
                             bih, bhh, whr, bs, offs, d == 1)
            outs.append(o)
            hn.append(h)
            cn.append(c)
        layer_out = _cat(outs, -1)
        if dropout and train and layer < num_layers - 1:
            layer_out = _dropout(layer_out, dropout)
        layer_in = layer_out
    return layer_in, stack(hn, 0), (stack(cn, 0) if cx is not None else None)


_NAMES = ('has_biases', 'num_layers', 'dropout', 'train', 'bidirectional')


def _entry(mode, name, args, kwargs):
    lstm = mode == 'LSTM'
    args = list(args)
    # the packed overload: (data, batch_sizes, hx, params, ...); the dense one:
    # (input, hx, params, ..., batch_first)
    packed = (len(args) > 1 and isinstance(args[1], Tensor) and
              (lstm or (len(args) > 2 and isinstance(args[2], Tensor))))
    if not packed and 'batch_sizes' in kwargs:
        packed = True
    names = (('data', 'batch_sizes', 'hx', 'params') + _NAMES if packed else
             ('input', 'hx', 'params') + _NAMES + ('batch_first',))
    if len(args) > len(names):
        raise TypeError(f"{name}() takes {len(names)} positional arguments but {len(args)} "
                        "were given")
    vals = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in vals:
            raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
        vals[k] = v
    missing = [n for n in names if n not in vals]
    if missing:
        raise TypeError(f"{name}() missing required argument '{missing[0]}'")
    x = vals['data' if packed else 'input']
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{'data' if packed else 'input'}' must be "
                        f"Tensor, not {type(x).__name__}")
    hx = vals['hx']
    if lstm:
        if not isinstance(hx, (list, tuple)) or len(hx) != 2:
            raise RuntimeError("lstm expects two hidden states")
        hx, cx = hx
    else:
        cx = None
    params = vals['params']
    has_biases, num_layers = bool(vals['has_biases']), int(vals['num_layers'])
    dropout, train = float(vals['dropout']), bool(vals['train'])
    bidirectional = bool(vals['bidirectional'])
    per, proj = _check_params(name, params, has_biases, num_layers, bidirectional, lstm)
    hs = (hx,) if cx is None else (hx, cx)
    D = 2 if bidirectional else 1
    if packed:
        bsz = vals['batch_sizes']
        bs = tuple(int(b) for b in bsz.tolist())
        if x.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {x.dim()}")
        _check_layer(name, x, hs, params, per, has_biases, proj)
        B0 = bs[0] if bs else 0
        if sum(bs) != x.shape[0] or any(bs[i] < bs[i + 1] for i in range(len(bs) - 1)):
            raise RuntimeError(f"{name}: batch_sizes {list(bs)} do not describe the "
                               f"{x.shape[0]} rows of the packed data")
        _check_hidden(hs, num_layers * D, B0, params, per, proj)
        out, h, c = _run(mode, x, bs, hx, cx, params, has_biases, num_layers, dropout, train,
                         bidirectional, per, proj)
    else:
        batch_first = bool(vals['batch_first'])
        nd = x.dim()
        if nd != 3:
            if nd < 3:
                raise IndexError(f"Dimension out of range (expected to be in range of "
                                 f"[{-max(nd, 1)}, {max(nd, 1) - 1}], but got 2)")
            raise RuntimeError(f"input must have 3 dimensions, got {nd}")
        _check_layer(name, x, hs, params, per, has_biases, proj)
        xt = x.transpose(0, 1) if batch_first else x
        T, B = xt.shape[0], xt.shape[1]
        if T == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        _check_hidden(hs, num_layers * D, B, params, per, proj)
        out, h, c = _run(mode, xt, (B,) * T, hx, cx, params, has_biases, num_layers,
                         dropout, train, bidirectional, per, proj)
        if batch_first:
            out = out.transpose(0, 1)
    return (out, h) if cx is None else (out, h, c)


def _check_hidden(hs, LD, B, params, per, proj):
    Hr = params[1].shape[1]
    H = params[per - 1].shape[1] if proj else Hr
    for k, (t, size) in enumerate(zip(hs, (Hr, H))):
        want = (LD, B, size)
        if tuple(t.shape) != want:
            what = 'hidden size' if len(hs) == 1 else f'hidden[{k}] size'
            raise RuntimeError(f"Expected {what} {want}, got {list(t.shape)}")


_OVERLOADS = """
    Two overloads, as PyTorch's:

    * ``(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
      batch_first)``: ``input`` is ``(L, N, H_in)`` (``(N, L, H_in)`` with ``batch_first``);
    * ``(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
      bidirectional)``: the packed form (``data`` ``(sum(batch_sizes), H_in)``).

    ``params`` holds, per layer and direction, ``w_ih, w_hh[, b_ih, b_hh]{proj}`` in
    ``nn.{cls}``'s ``_flat_weights`` order; ``dropout`` is applied to the outputs of every
    layer but the last when ``train``."""


@register(method=False)
def rnn_tanh(*args, **kwargs):
    """Multi-layer Elman RNN with tanh, the function behind ``nn.RNN``.
    {}

    Returns:
        ``(output, h_n)``.

    Example::

        >>> out, h = ember.rnn_tanh(ember.randn(5, 3, 4), ember.zeros(1, 3, 2),
        ...                         [ember.randn(2, 4), ember.randn(2, 2)], False, 1, 0.,
        ...                         False, False, False)
        >>> out.shape, h.shape
        (torch.Size([5, 3, 2]), torch.Size([1, 3, 2]))
    """
    return _entry('RNN_TANH', 'rnn_tanh', args, kwargs)


@register(method=False)
def rnn_relu(*args, **kwargs):
    """Multi-layer Elman RNN with ReLU, the function behind ``nn.RNN(nonlinearity='relu')``.
    {}

    Returns:
        ``(output, h_n)``.

    Example::

        >>> out, h = ember.rnn_relu(ember.randn(5, 3, 4), ember.zeros(1, 3, 2),
        ...                         [ember.randn(2, 4), ember.randn(2, 2)], False, 1, 0.,
        ...                         False, False, False)
        >>> out.shape
        torch.Size([5, 3, 2])
    """
    return _entry('RNN_RELU', 'rnn_relu', args, kwargs)


@register(method=False)
def lstm(*args, **kwargs):
    """Multi-layer LSTM, the function behind ``nn.LSTM``; ``hx`` is ``(h_0, c_0)``.
    {}

    Returns:
        ``(output, h_n, c_n)``.

    Example::

        >>> w = [ember.randn(8, 4), ember.randn(8, 2)]
        >>> out, h, c = ember.lstm(ember.randn(5, 3, 4), (ember.zeros(1, 3, 2),
        ...                        ember.zeros(1, 3, 2)), w, False, 1, 0., False, False, False)
        >>> out.shape, c.shape
        (torch.Size([5, 3, 2]), torch.Size([1, 3, 2]))
    """
    return _entry('LSTM', 'lstm', args, kwargs)


@register(method=False)
def gru(*args, **kwargs):
    """Multi-layer GRU, the function behind ``nn.GRU``.
    {}

    Returns:
        ``(output, h_n)``.

    Example::

        >>> w = [ember.randn(6, 4), ember.randn(6, 2)]
        >>> out, h = ember.gru(ember.randn(5, 3, 4), ember.zeros(1, 3, 2), w, False, 1, 0.,
        ...                    False, False, False)
        >>> out.shape
        torch.Size([5, 3, 2])
    """
    return _entry('GRU', 'gru', args, kwargs)


for _f, _c, _p in ((rnn_tanh, 'RNN', ''), (rnn_relu, 'RNN', ''), (lstm, 'LSTM', '[, w_hr]'),
                   (gru, 'GRU', '')):
    _f.__doc__ = _f.__doc__.replace('{}', _OVERLOADS.replace('{cls}', _c).replace('{proj}', _p))


# ----------------------------------------------------------------------------- cells

def _cell(mode, name, input, hx, w_ih, w_hh, b_ih, b_hh):
    lstm = mode == 'LSTM'
    for a, nm in ((input, 'input'), (w_ih, 'w_ih'), (w_hh, 'w_hh')):
        if not isinstance(a, Tensor):
            raise TypeError(f"{name}(): argument '{nm}' must be Tensor, not {type(a).__name__}")
    if lstm:
        if not isinstance(hx, (list, tuple)) or not all(isinstance(h, Tensor) for h in hx):
            raise TypeError(f"{name}(): argument 'hx' must be tuple of Tensors")
        if len(hx) != 2:
            raise RuntimeError("lstm_cell expects two hidden states")
        hs = tuple(hx)
    else:
        if not isinstance(hx, Tensor):
            raise TypeError(f"{name}(): argument 'hx' must be Tensor, not {type(hx).__name__}")
        hs = (hx,)
    if input.dim() < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(input.dim(), 1)}, {max(input.dim(), 1) - 1}], but got 1)")
    if input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected "
                           f"{w_ih.shape[1]}")
    H = w_hh.shape[1]
    for k, h in enumerate(hs):
        if h.dim() < 2:
            raise IndexError("Dimension out of range (expected to be in range of [-1, 0], "
                             "but got 1)")
        if h.shape[0] != input.shape[0]:
            raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{k} "
                               f"batch size {h.shape[0]}")
        if h.shape[1] != H:
            raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {h.shape[1]}, "
                               f"expected {H}")
    for t in (w_ih, w_hh) + hs + tuple(b for b in (b_ih, b_hh) if b is not None):
        if t._data.dtype != input._data.dtype:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                               f"{_scalar_name(input)} and {_scalar_name(t)}")
    dt = input._data.dtype
    if dt.itemsize < 4 or dt.kind == 'V':
        from .. import _dtype as D_
        f32 = D_.float32
        r = _cell(mode, name, input.to(f32), tuple(h.to(f32) for h in hs) if lstm
                  else hs[0].to(f32), w_ih.to(f32), w_hh.to(f32),
                  None if b_ih is None else b_ih.to(f32), None if b_hh is None else b_hh.to(f32))
        return tuple(t.to(input.dtype) for t in r) if lstm else r.to(input.dtype)
    if (b_ih is None) != (b_hh is None):   # one bias only: PyTorch adds what it is given
        from .creation import zeros_like
        b_ih = zeros_like(b_hh) if b_ih is None else b_ih
        b_hh = zeros_like(b_ih) if b_hh is None else b_hh
    B = input.shape[0]
    o, h, c = _layer(mode, input, hs[0], hs[1] if lstm else None, w_ih, w_hh, b_ih, b_hh,
                     None, (B,), (0,), False)
    return (h, c) if lstm else h


@register(method=False)
def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One step of an Elman RNN: ``tanh(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)``.

    Args:
        input (Tensor): ``(N, H_in)``.
        hx (Tensor): ``(N, H)``.
        w_ih, w_hh (Tensor): ``(H, H_in)``, ``(H, H)``.
        b_ih, b_hh (Tensor, optional): ``(H,)``.

    Example::

        >>> ember.rnn_tanh_cell(ember.randn(3, 4), ember.zeros(3, 2), ember.randn(2, 4),
        ...                     ember.randn(2, 2)).shape
        torch.Size([3, 2])
    """
    return _cell('RNN_TANH', 'rnn_tanh_cell', input, hx, w_ih, w_hh, b_ih, b_hh)


@register(method=False)
def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One step of an Elman RNN with ReLU (arguments as :func:`rnn_tanh_cell`).

    Example::

        >>> ember.rnn_relu_cell(ember.randn(3, 4), ember.zeros(3, 2), ember.randn(2, 4),
        ...                     ember.randn(2, 2)).shape
        torch.Size([3, 2])
    """
    return _cell('RNN_RELU', 'rnn_relu_cell', input, hx, w_ih, w_hh, b_ih, b_hh)


@register(method=False)
def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step (gates in PyTorch's order ``i, f, g, o``).

    Args:
        input (Tensor): ``(N, H_in)``.
        hx (tuple of Tensors): ``(h, c)``, each ``(N, H)``.
        w_ih, w_hh (Tensor): ``(4H, H_in)``, ``(4H, H)``.
        b_ih, b_hh (Tensor, optional): ``(4H,)``.

    Returns:
        ``(h', c')``.

    Example::

        >>> h, c = ember.lstm_cell(ember.randn(3, 4), (ember.zeros(3, 2), ember.zeros(3, 2)),
        ...                        ember.randn(8, 4), ember.randn(8, 2))
        >>> h.shape
        torch.Size([3, 2])
    """
    return _cell('LSTM', 'lstm_cell', input, hx, w_ih, w_hh, b_ih, b_hh)


@register(method=False)
def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step (gates ``r, z, n``; the reset gate multiplies ``W_hn h + b_hn``).

    Args:
        input (Tensor): ``(N, H_in)``.
        hx (Tensor): ``(N, H)``.
        w_ih, w_hh (Tensor): ``(3H, H_in)``, ``(3H, H)``.
        b_ih, b_hh (Tensor, optional): ``(3H,)``.

    Example::

        >>> ember.gru_cell(ember.randn(3, 4), ember.zeros(3, 2), ember.randn(6, 4),
        ...                ember.randn(6, 2)).shape
        torch.Size([3, 2])
    """
    return _cell('GRU', 'gru_cell', input, hx, w_ih, w_hh, b_ih, b_hh)


# ----------------------------------------------------------------------------- packing kernels

def _pack_rows(bs, B, xp):
    """Row indices, into a ``(T*B, *)`` matrix, of the packed rows (step-major)."""
    if not bs:
        return xp.zeros(0, xp.int64)
    return xp.concatenate([xp.arange(t * B, t * B + b, dtype=xp.int64)
                           for t, b in enumerate(bs)])


class PackPaddedSequenceBackward0(Node):
    def backward(self, g, *_):
        from .creation import zeros
        from .indexing import index_copy
        shape, idx, batch_first = self.shape, self.idx, self.batch_first
        T, B = shape[0], shape[1]
        z = zeros((T * B,) + tuple(shape[2:]), dtype=g.dtype, device=g.device)
        r = index_copy(z, 0, wrap(idx), g).view(shape)
        return r.transpose(0, 1) if batch_first else r


@register(method=False)
def _pack_padded_sequence(input, lengths, batch_first):
    """Pack a padded ``(T, B, *)`` batch (``(B, T, *)`` with ``batch_first``) whose
    sequences have ``lengths`` (decreasing) into ``(data, batch_sizes)``.

    Example::

        >>> d, bs = ember._pack_padded_sequence(ember.ones(3, 2), ember.tensor([3, 1]), False)
        >>> bs
        tensor([2, 1, 1])
    """
    from .creation import tensor as _tensor
    if lengths.dim() != 1 or lengths._data.dtype.kind not in 'iu':
        from .. import _dtype as D_
        tn = D_._NP2DT[lengths._data.dtype]._name
        kind = {'int64': 'Long', 'int32': 'Int', 'float32': 'Float',
                'float64': 'Double'}.get(tn, tn)
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lengths.dim()}D cpu {kind} tensor")
    x = input.transpose(0, 1) if batch_first else input
    if x.dim() < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-max(x.dim(), 1)}, {max(x.dim(), 1) - 1}], but got 1)")
    T, B = x.shape[0], x.shape[1]
    ls = [int(v) for v in lengths.tolist()]
    if len(ls) != B:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(ls)} (batch_size={B})")
    if ls[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if any(ls[i] < ls[i + 1] for i in range(B - 1)):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                           "pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    if ls[0] > T:
        # NOTE: unlike PyTorch, which reads past the end of the input here
        raise RuntimeError(f"pack_padded_sequence: a length ({ls[0]}) exceeds the sequence "
                           f"length of the input ({T})")
    bs = [sum(1 for v in ls if v > t) for t in range(ls[0])]
    a = x._data
    xp = array_module(a)
    idx = _pack_rows(bs, B, xp)
    data = wrap(xp.ascontiguousarray(a.reshape((T * B,) + a.shape[2:])[idx]))
    batch_sizes = _tensor(bs)
    if _Mode.grad and input._rg:
        node = PackPaddedSequenceBackward0()
        node.shape, node.idx, node.batch_first = tuple(x.shape), idx, bool(batch_first)
        record(data, node, (input,))
    return data, batch_sizes


@register(method=False)
def _pad_packed_sequence(data, batch_sizes, batch_first, padding_value, total_length):
    """Unpack ``(data, batch_sizes)`` into a ``(total_length, B, *)`` batch (``(B,
    total_length, *)`` with ``batch_first``) filled with ``padding_value``; returns it and
    the lengths (int64).

    Example::

        >>> p, l = ember._pad_packed_sequence(ember.ones(3), ember.tensor([2, 1]), False, 0., 2)
        >>> p, l
        (tensor([[1., 1.],
                [1., 0.]]), tensor([2, 1]))
    """
    from .creation import full, tensor as _tensor
    from .indexing import index_copy
    bs = [int(b) for b in batch_sizes.tolist()]
    B = bs[0] if bs else 0
    T = int(total_length)
    xp = array_module(data._data)
    idx = _pack_rows(bs, B, xp)
    rest = tuple(data.shape[1:])
    base = full((T * B,) + rest, padding_value, dtype=data.dtype, device=data.device)
    out = index_copy(base, 0, wrap(idx), data).view((T, B) + rest)
    if batch_first:
        out = out.transpose(0, 1)
    lengths = _tensor([sum(1 for b in bs if b > i) for i in range(B)])
    return out, lengths
