"""Op-database entries of ember/_ops/rnn.py: the recurrent layer functions (``rnn_tanh``,
``rnn_relu``, ``lstm``, ``gru``, dense and packed overloads) and the cells.

The layer functions of torch do not validate their arguments (a wrong ``params`` list or
hidden size can crash the process), so only valid samples are given for them; their
errors are tested through the modules in tests/nn/test_rnn.py. The cells validate, and their
error samples are here."""
import numpy as np

from _ops.opdb import OpInfo, S, FLOAT

_NG = {'rnn_tanh': 1, 'rnn_relu': 1, 'lstm': 4, 'gru': 3}

# (num_layers, bidirectional, has_biases, proj_size, batch_first)
_CONFIGS = [(1, False, True, 0, False), (2, True, True, 0, True), (2, False, False, 0, False),
            (1, True, True, 0, False)]
_LSTM_CONFIGS = _CONFIGS + [(2, True, True, 2, False), (1, False, False, 1, True)]


def _params(mk, fn, I, H, L, bid, bias, proj, dom='small'):
    g = _NG[fn] * H
    Hr = proj or H
    D = 2 if bid else 1
    ps = []
    for layer in range(L):
        for _ in range(D):
            inp = I if layer == 0 else Hr * D
            ps += [mk((g, inp), dom), mk((g, Hr), dom)]
            if bias:
                ps += [mk((g,), dom), mk((g,), dom)]
            if proj:
                ps.append(mk((Hr, H), dom))
    return ps


def _layer_fn(fn, L, bid, bias, bf, packed):
    lstm = fn == 'lstm'

    def f(m, x, *rest):
        if packed:
            bsz, rest = rest[0], rest[1:]
        if lstm:
            hx, rest = (rest[0], rest[1]), rest[2:]
        else:
            hx, rest = rest[0], rest[1:]
        op = getattr(m, fn)
        if packed:
            return op(x, bsz, hx, list(rest), bias, L, 0.0, False, bid)
        return op(x, hx, list(rest), bias, L, 0.0, False, bid, bf)
    return f


def _layer_entries(fn):
    out = []
    lstm = fn == 'lstm'
    for L, bid, bias, proj, bf in (_LSTM_CONFIGS if lstm else _CONFIGS):

        def gen(mk, L=L, bid=bid, bias=bias, proj=proj, bf=bf):
            D = 2 if bid else 1
            for (T, B, I, H) in ((3, 2, 3, 4), (1, 1, 2, 3), (2, 1, 1, 2)):
                Hr = proj or H
                if proj and proj >= H:
                    continue
                x = mk((B, T, I) if bf else (T, B, I))
                hs = [mk((L * D, B, Hr))] + ([mk((L * D, B, H))] if lstm else [])
                yield S(x, *hs, *_params(mk, fn, I, H, L, bid, bias, proj))
        name = f'{fn}:L{L}{"_bi" if bid else ""}{"" if bias else "_nobias"}' \
               f'{f"_proj{proj}" if proj else ""}{"_bf" if bf else ""}'
        out.append(OpInfo(name, _layer_fn(fn, L, bid, bias, bf, False), gen, dtypes=FLOAT,
                          rtol=1e-4, atol=1e-5, gc_max=1))
    # the packed overload: (data, batch_sizes, hx, params, ...)
    for L, bid, proj in ((1, False, 0), (2, True, 0)) + (((2, True, 1),) if lstm else ()):

        def gen(mk, L=L, bid=bid, proj=proj):
            D = 2 if bid else 1
            for bs, I, H in (([3, 2, 2, 1], 2, 3), ([1, 1], 1, 2), ([2], 2, 2)):
                Hr = proj or H
                B = bs[0]
                x = mk((sum(bs), I))
                hs = [mk((L * D, B, Hr))] + ([mk((L * D, B, H))] if lstm else [])
                yield S(x, np.array(bs, np.int64), *hs,
                        *_params(mk, fn, I, H, L, bid, True, proj))
        name = f'{fn}:packed_L{L}{"_bi" if bid else ""}{f"_proj{proj}" if proj else ""}'
        out.append(OpInfo(name, _layer_fn(fn, L, bid, True, False, True), gen, dtypes=FLOAT,
                          rtol=1e-4, atol=1e-5, gc_max=1))
    return out


def _cell_entry(fn):
    g = _NG[fn.replace('_cell', '')]
    lstm = fn == 'lstm_cell'

    def call(m, x, *rest, **kw):
        if lstm:
            return getattr(m, fn)(x, (rest[0], rest[1]), *rest[2:], **kw)
        return getattr(m, fn)(x, *rest, **kw)

    def gen(mk):
        for B, I, H in ((3, 4, 2), (1, 1, 1), (2, 3, 5)):
            hs = [mk((B, H))] * (2 if lstm else 1)
            hs = [mk((B, H)) for _ in hs]
            w = [mk((g * H, I)), mk((g * H, H))]
            b = [mk((g * H,)), mk((g * H,))]
            yield S(mk((B, I)), *hs, *w, *b)
            yield S(mk((B, I)), *hs, *w)
        # torch's errors: input size, batch size, hidden size
        B, I, H = 2, 3, 2
        nh = 2 if lstm else 1
        w = [mk((g * H, I)), mk((g * H, H))]
        yield S(mk((B, I + 1)), *[mk((B, H)) for _ in range(nh)], *w)
        yield S(mk((B, I)), *[mk((B + 1, H)) for _ in range(nh)], *w)
        yield S(mk((B, I)), *[mk((B, H + 1)) for _ in range(nh)], *w)
        if lstm:
            yield S(mk((B, I)), mk((B, H)), mk((B, H + 1)), *w)
        yield S(mk((I,)), *[mk((H,)) for _ in range(nh)], *w)
    return OpInfo(fn, call, gen, dtypes=FLOAT, rtol=1e-4, atol=1e-5)


OPS = []
for _fn in ('rnn_tanh', 'rnn_relu', 'lstm', 'gru'):
    OPS += _layer_entries(_fn)
for _fn in ('rnn_tanh_cell', 'rnn_relu_cell', 'lstm_cell', 'gru_cell'):
    OPS.append(_cell_entry(_fn))
