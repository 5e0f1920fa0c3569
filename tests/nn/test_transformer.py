"""Transformer layers (ember/nn/modules/transformer.py) against torch, with torch's weights
copied in: encoder/decoder layers, the stacks and the full Transformer, in training (dropout
0, or with the same seed) and evaluation, with every mask; state dicts, default init after
the same seed, repr, errors."""
import copy
import warnings

import numpy as np
import pytest
import torch

import ember
from nn._util import pair

TOL = {'float32': 3e-5, 'float64': 1e-10}


def _close(a, b, dt, what):
    assert (a is None) == (b is None), what
    if b is None:
        return
    a, b = a.detach().numpy(), b.detach().numpy()
    assert a.shape == b.shape, (what, a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=TOL[dt], atol=TOL[dt], err_msg=what)


def _m(nn):
    return torch if nn is torch.nn else ember


def compare(ctor, inputs, masks=None, mode='train', dtype='float32', seed=None, grad=True,
            **fwd):
    """``ctor(nn)`` in both libraries (torch's weights copied into ember); forward on
    ``inputs`` (numpy arrays, requiring grad) with ``masks`` (numpy, by keyword) and ``fwd``;
    compare outputs, then input and parameter gradients under a random upstream gradient."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        e, t = pair(lambda nn: ctor(nn).to(getattr(_m(nn), dtype)))
    e.train(mode == 'train')
    t.train(mode == 'train')
    outs, ins = {}, {}
    for m, mod in ((torch, t), (ember, e)):
        xs = [m.from_numpy(a.astype(dtype)).requires_grad_(grad) for a in inputs]
        kw = dict(fwd)
        for k, a in (masks or {}).items():
            kw[k] = None if a is None else \
                m.from_numpy(a.astype(dtype) if a.dtype.kind == 'f' else a.copy())
        if seed is not None:
            m.manual_seed(seed)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            outs[m] = mod(*xs, **kw)
        ins[m] = xs
    _close(outs[ember], outs[torch], dtype, 'output')
    if not grad:
        return e, t
    g = np.random.default_rng(0).standard_normal(tuple(outs[torch].shape)).astype(dtype)
    for m in (torch, ember):
        outs[m].backward(m.from_numpy(g.copy()))
    for i, (a, b) in enumerate(zip(ins[ember], ins[torch])):
        _close(a.grad, b.grad, dtype, f'input {i} grad')
    for (n, pe), (_, pt) in zip(e.named_parameters(), t.named_parameters()):
        _close(pe.grad, pt.grad, dtype, f'{n}.grad')
    return e, t


R = np.random.default_rng(3)
SRC = R.standard_normal((6, 3, 16))       # (S, N, E)
TGT = R.standard_normal((5, 3, 16))       # (T, N, E)


def _bf(a, batch_first):
    return a.transpose(1, 0, 2) if batch_first and a.ndim == 3 else a


def _enc_layer(**kw):
    kw.setdefault('dropout', 0.)
    return lambda nn: nn.TransformerEncoderLayer(16, 4, dim_feedforward=24, **kw)


def _dec_layer(**kw):
    kw.setdefault('dropout', 0.)
    return lambda nn: nn.TransformerDecoderLayer(16, 4, dim_feedforward=24, **kw)


def _pad_mask(n, s, seed=0):
    m = np.zeros((n, s), bool)
    rng = np.random.default_rng(seed)
    for i in range(n):
        k = rng.integers(0, s - 1)
        m[i, s - k:] = True if k else False
    return m


LAYER_CFGS = [{}, {'norm_first': True}, {'batch_first': True}, {'bias': False},
              {'layer_norm_eps': 1e-3, 'norm_first': True, 'batch_first': True}]


@pytest.mark.parametrize('cfg', LAYER_CFGS, ids=str)
def test_encoder_layer_configs(cfg):
    bf = cfg.get('batch_first', False)
    compare(_enc_layer(**cfg), [_bf(SRC, bf)])
    compare(_enc_layer(**cfg), [_bf(SRC, bf)], mode='eval')


@pytest.mark.parametrize('activation', ['relu', 'gelu', 'callable', 'module', 'F.relu'])
def test_encoder_layer_activations(activation):
    def act(nn):
        return {'relu': 'relu', 'gelu': 'gelu', 'callable': _m(nn).tanh,
                'module': nn.ReLU() if activation == 'module' else None,
                'F.relu': nn.functional.relu}[activation]
    compare(lambda nn: _enc_layer(activation=act(nn))(nn), [SRC])
    compare(lambda nn: _dec_layer(activation=act(nn))(nn), [TGT, SRC])


def test_activation_codes():
    for act, code in (('relu', 1), ('gelu', 2), (lambda x: x, 0)):
        for m in (torch, ember):
            assert m.nn.TransformerEncoderLayer(8, 2, activation=act).activation_relu_or_gelu \
                == code
    with pytest.raises(RuntimeError, match='activation should be relu/gelu, not tanh'):
        ember.nn.TransformerEncoderLayer(8, 2, activation='tanh')
    with pytest.raises(RuntimeError, match='activation should be relu/gelu, not tanh'):
        torch.nn.TransformerEncoderLayer(8, 2, activation='tanh')


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('kind', ['bool', 'float'])
def test_encoder_layer_masks(dtype, kind):
    causal = np.triu(np.ones((6, 6), bool), 1)
    kpm = _pad_mask(3, 6)
    if kind == 'float':
        causal = np.where(causal, -np.inf, 0.)
        kpm = np.where(kpm, -np.inf, 0.)
    for cfg in ({}, {'norm_first': True, 'batch_first': True}):
        bf = cfg.get('batch_first', False)
        lay = _enc_layer(**cfg)
        compare(lay, [_bf(SRC, bf)], {'src_mask': causal}, dtype=dtype)
        compare(lay, [_bf(SRC, bf)], {'src_key_padding_mask': kpm}, dtype=dtype)
        compare(lay, [_bf(SRC, bf)], {'src_mask': causal, 'src_key_padding_mask': kpm},
                dtype=dtype, mode='eval')
        compare(lay, [_bf(SRC, bf)], {'src_mask': causal}, is_causal=True, dtype=dtype)


def test_unbatched_layers():
    compare(_enc_layer(), [SRC[:, 0]])
    compare(_enc_layer(batch_first=True), [SRC[:, 0]],
            {'src_key_padding_mask': np.array([False] * 4 + [True] * 2)})
    compare(_dec_layer(norm_first=True), [TGT[:, 0], SRC[:, 0]],
            {'tgt_mask': np.triu(np.full((5, 5), -np.inf), 1)})


@pytest.mark.parametrize('cfg', LAYER_CFGS, ids=str)
def test_decoder_layer_configs(cfg):
    bf = cfg.get('batch_first', False)
    compare(_dec_layer(**cfg), [_bf(TGT, bf), _bf(SRC, bf)])
    compare(_dec_layer(**cfg), [_bf(TGT, bf), _bf(SRC, bf)], mode='eval', dtype='float64')


def test_decoder_layer_masks():
    tgt_mask = np.triu(np.full((5, 5), -np.inf), 1)
    mem_mask = np.random.default_rng(1).uniform(size=(5, 6)) < 0.3
    mem_mask[:, 0] = False
    masks = {'tgt_mask': tgt_mask, 'memory_mask': mem_mask.astype(float) * -1e9,
             'tgt_key_padding_mask': _pad_mask(3, 5, 1),
             'memory_key_padding_mask': _pad_mask(3, 6, 2).astype(float) * -1e9}
    compare(_dec_layer(), [TGT, SRC], masks, tgt_is_causal=True)
    compare(_dec_layer(norm_first=True, batch_first=True), [_bf(TGT, True), _bf(SRC, True)],
            {'tgt_mask': tgt_mask, 'memory_mask': mem_mask})
    compare(_dec_layer(), [TGT, SRC], {'memory_mask': mem_mask,
                                       'tgt_key_padding_mask': _pad_mask(3, 5, 1)},
            mode='eval')


def _encoder(num_layers=2, norm=True, nested=False, **kw):
    def f(nn):
        layer = _enc_layer(**kw)(nn)
        return nn.TransformerEncoder(layer, num_layers,
                                     nn.LayerNorm(16) if norm else None,
                                     enable_nested_tensor=nested)
    return f


def _decoder(num_layers=2, norm=True, **kw):
    def f(nn):
        return nn.TransformerDecoder(_dec_layer(**kw)(nn), num_layers,
                                     nn.LayerNorm(16) if norm else None)
    return f


def test_encoder_and_decoder_stacks():
    causal = np.triu(np.full((6, 6), -np.inf), 1)
    compare(_encoder(), [SRC])
    compare(_encoder(norm=False, norm_first=True), [SRC], {'mask': causal})
    compare(_encoder(3), [SRC], {'mask': causal, 'src_key_padding_mask': _pad_mask(3, 6)},
            mode='eval')
    compare(_encoder(), [SRC], {'mask': causal}, is_causal=True)
    compare(_decoder(), [TGT, SRC])
    compare(_decoder(norm=False, batch_first=True), [_bf(TGT, True), _bf(SRC, True)],
            {'tgt_mask': np.triu(np.full((5, 5), -np.inf), 1)})
    compare(_decoder(3), [TGT, SRC], {'memory_key_padding_mask': _pad_mask(3, 6, 4)},
            mode='eval', dtype='float64')


def test_clones_are_deep_copies():
    layer = ember.nn.TransformerEncoderLayer(8, 2, dim_feedforward=4)
    enc = ember.nn.TransformerEncoder(layer, 3, enable_nested_tensor=False)
    ws = [lay.linear1.weight for lay in enc.layers]
    assert len({id(w) for w in ws}) == 3 and all(w is not layer.linear1.weight for w in ws)
    for w in ws[1:]:
        np.testing.assert_array_equal(w.detach().numpy(), ws[0].detach().numpy())
    assert len(list(enc.parameters())) == 3 * len(list(layer.parameters()))
    dec = ember.nn.TransformerDecoder(ember.nn.TransformerDecoderLayer(8, 2, 4), 2)
    assert dec.layers[0].self_attn is not dec.layers[1].self_attn


def test_nested_tensor_path_in_eval():
    """Evaluation without grad, batch_first, left-aligned padding: PyTorch computes on nested
    tensors and the padded outputs are zeros (before the final norm)."""
    src = _bf(SRC, True)
    kpm = _pad_mask(3, 6, 5)
    kpm[0, 2:] = True
    for norm in (False, True):
        def ctor(nn, norm=norm):
            return nn.TransformerEncoder(_enc_layer(batch_first=True)(nn), 2,
                                         nn.LayerNorm(16) if norm else None)
        for masks in ({'src_key_padding_mask': kpm},
                      {'src_key_padding_mask': np.where(kpm, -np.inf, 0.)}):
            with torch.no_grad(), ember.no_grad():
                compare(ctor, [src], masks, mode='eval', grad=False)
    # not left aligned: the ordinary path
    bad = np.zeros((3, 6), bool)
    bad[1, 1] = True
    with torch.no_grad(), ember.no_grad():
        compare(lambda nn: nn.TransformerEncoder(_enc_layer(batch_first=True)(nn), 2),
                [src], {'src_key_padding_mask': bad}, mode='eval', grad=False)


def test_nested_tensor_warning_and_flags():
    for kw, why in (({}, 'batch_first was not True'), ({'norm_first': True}, 'norm_first'),
                    ({'batch_first': True, 'activation': lambda x: x}, 'activation_relu')):
        for m in (torch, ember):
            layer = m.nn.TransformerEncoderLayer(8, 2, 16, **kw)
            with pytest.warns(UserWarning, match=why):
                enc = m.nn.TransformerEncoder(layer, 1)
            assert enc.use_nested_tensor is False and enc.enable_nested_tensor is True
    for m in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter('error')
            enc = m.nn.TransformerEncoder(m.nn.TransformerEncoderLayer(8, 2, 16,
                                                                       batch_first=True), 1)
        assert enc.use_nested_tensor is True and enc.mask_check is True


def _transformer(**kw):
    base = dict(d_model=16, nhead=4, num_encoder_layers=2, num_decoder_layers=2,
                dim_feedforward=24, dropout=0.)
    base.update(kw)
    return lambda nn: nn.Transformer(**base)


def test_transformer_full():
    sm = np.triu(np.full((6, 6), -np.inf), 1)
    tm = ember.nn.Transformer.generate_square_subsequent_mask(5).numpy()
    masks = {'src_mask': sm, 'tgt_mask': tm, 'memory_mask': np.zeros((5, 6)),
             'src_key_padding_mask': _pad_mask(3, 6), 'tgt_key_padding_mask': _pad_mask(3, 5, 1),
             'memory_key_padding_mask': _pad_mask(3, 6)}
    compare(_transformer(), [SRC, TGT])
    compare(_transformer(), [SRC, TGT], masks)
    compare(_transformer(norm_first=True, batch_first=True), [_bf(SRC, True), _bf(TGT, True)],
            {'tgt_mask': tm}, tgt_is_causal=True, mode='eval')
    compare(_transformer(bias=False, activation='gelu'), [SRC[:, 0], TGT[:, 0]],
            {'tgt_mask': tm}, dtype='float64')


def test_dropout_streams_match_with_seed():
    compare(lambda nn: nn.TransformerEncoderLayer(16, 4, 24, dropout=0.3), [SRC], seed=3)
    compare(lambda nn: nn.TransformerDecoderLayer(16, 4, 24, dropout=0.2, batch_first=True),
            [_bf(TGT, True), _bf(SRC, True)], seed=4)


def test_generate_square_subsequent_mask():
    for kw in ({}, {'dtype': 'float64'}, {'device': 'cpu'}):
        e = ember.nn.Transformer.generate_square_subsequent_mask(
            4, **{k: getattr(ember, v) if k == 'dtype' else v for k, v in kw.items()})
        t = torch.nn.Transformer.generate_square_subsequent_mask(
            4, **{k: getattr(torch, v) if k == 'dtype' else v for k, v in kw.items()})
        assert str(e.dtype) == str(t.dtype)
        np.testing.assert_array_equal(e.numpy(), t.numpy())


def _same_init(make):
    torch.manual_seed(7)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        t = make(torch.nn)
        ember.manual_seed(7)
        e = make(ember.nn)
    assert list(e.state_dict()) == list(t.state_dict())
    for (n, a), b in zip(e.state_dict().items(), t.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=n)
    assert repr(e) == repr(t)
    return e, t


def test_state_dict_init_and_repr():
    _same_init(lambda nn: nn.TransformerEncoderLayer(16, 4, 24))
    _same_init(lambda nn: nn.TransformerDecoderLayer(16, 4, 24, bias=False, norm_first=True))
    _same_init(lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, 24), 2,
                                                nn.LayerNorm(16)))
    _same_init(lambda nn: nn.TransformerDecoder(nn.TransformerDecoderLayer(16, 4, 24), 2))
    e, t = _same_init(_transformer(dropout=0.1))
    _same_init(lambda nn: nn.Transformer(16, 2, 1, 1, 8, batch_first=True, activation='gelu'))
    # a torch state dict loads into ember, and the modules then agree
    e2 = _transformer(dropout=0.1)(ember.nn)
    e2.load_state_dict({k: ember.from_numpy(v.numpy()) for k, v in t.state_dict().items()})
    for attr in ('d_model', 'nhead', 'batch_first'):
        assert getattr(e, attr) == getattr(t, attr)
    assert e.encoder.layers[0].norm_first == t.encoder.layers[0].norm_first


def test_default_transformer_sizes_and_custom_parts():
    e = ember.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=3,
                             dim_feedforward=4)
    assert len(e.encoder.layers) == 1 and len(e.decoder.layers) == 3
    enc = ember.nn.TransformerEncoder(ember.nn.TransformerEncoderLayer(8, 2, 4), 1,
                                      enable_nested_tensor=False)
    e2 = ember.nn.Transformer(d_model=8, nhead=2, custom_encoder=enc, num_decoder_layers=1,
                              dim_feedforward=4)
    assert e2.encoder is enc and len(list(e2.parameters())) == len(list(enc.parameters())) + \
        len(list(e2.decoder.parameters()))
    x = ember.randn(3, 2, 8)
    assert e2(x, x).shape == (3, 2, 8)


def test_copy_and_setstate_default_activation():
    layer = ember.nn.TransformerEncoderLayer(8, 2, 16)
    c = copy.deepcopy(layer)
    assert c.activation is layer.activation
    state = dict(layer.__dict__)
    del state['activation']
    new = ember.nn.TransformerEncoderLayer.__new__(ember.nn.TransformerEncoderLayer)
    new.__setstate__(state)
    assert new.activation is ember.nn.functional.relu


def _raises_both(fn, match):
    errs = []
    for m in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with pytest.raises(Exception) as ei:
                fn(m)
        errs.append(ei.value)
    assert type(errs[0]) is type(errs[1]), errs
    assert match in str(errs[0]) and match in str(errs[1]), errs


def test_errors():
    def tr(m, **kw):
        return m.nn.Transformer(8, 2, 1, 1, 16, **kw)
    _raises_both(lambda m: tr(m)(m.zeros(4, 3, 8), m.zeros(5, 2, 8)),
                 'the batch number of src and tgt must be equal')
    _raises_both(lambda m: tr(m, batch_first=True)(m.zeros(3, 4, 8), m.zeros(2, 5, 8)),
                 'the batch number of src and tgt must be equal')
    _raises_both(lambda m: tr(m)(m.zeros(4, 3, 8), m.zeros(5, 3, 6)),
                 'the feature number of src and tgt must be equal to d_model')
    _raises_both(lambda m: m.nn.TransformerEncoderLayer(8, 3), 'divisible')
    _raises_both(lambda m: m.nn.TransformerEncoderLayer(8, 2, 16)(
        m.zeros(4, 3, 8), src_mask=m.zeros(4, 4, dtype=m.int64)), 'only bool and floating')


def test_encoder_layer_inference_kernel_semantics():
    """Where PyTorch runs its fused inference kernel (eval, no grad, batch_first): a sequence
    with every key padded gives NaN, and the is_causal hint without a mask is ignored."""
    e, t = pair(_enc_layer(batch_first=True))
    e.eval()
    t.eval()
    x = _bf(SRC, True).astype('float32')
    kpm = _pad_mask(3, 6)
    kpm[2] = True
    for kw in ({'src_key_padding_mask': kpm}, {'is_causal': True},
               {'src_mask': np.where(np.triu(np.ones((6, 6), bool), 1), -np.inf, 0.)
                .astype('float32'), 'is_causal': True}):
        with torch.no_grad(), ember.no_grad():
            ot = t(torch.from_numpy(x), **{k: torch.from_numpy(v) if isinstance(v, np.ndarray)
                                           else v for k, v in kw.items()})
            oe = e(ember.from_numpy(x), **{k: ember.from_numpy(v) if isinstance(v, np.ndarray)
                                           else v for k, v in kw.items()})
        np.testing.assert_allclose(oe.numpy(), ot.numpy(), rtol=3e-5, atol=3e-5)
    # with grad: the ordinary path, where is_causal needs a mask
    _raises_both(lambda m: m.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)(
        m.zeros(2, 4, 8), is_causal=True), 'Need attn_mask')


def test_torch_pickled_model_loads():
    """A whole model pickled by torch names torch.nn.modules.{transformer,activation,linear}
    classes (MultiheadAttention, NonDynamicallyQuantizableLinear): ember finds its own."""
    import io
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        t = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.),
                                        2, torch.nn.LayerNorm(8))
    buf = io.BytesIO()
    torch.save(t, buf)
    buf.seek(0)
    e = ember.load(buf, weights_only=False)
    assert type(e) is ember.nn.TransformerEncoder
    assert type(e.layers[1].self_attn) is ember.nn.MultiheadAttention
    assert type(e.layers[0].self_attn.out_proj).__name__ == 'NonDynamicallyQuantizableLinear'
    x = np.random.default_rng(0).standard_normal((4, 2, 8)).astype('float32')
    np.testing.assert_allclose(e(ember.from_numpy(x)).detach().numpy(),
                               t(torch.from_numpy(x)).detach().numpy(), rtol=3e-5, atol=3e-5)
