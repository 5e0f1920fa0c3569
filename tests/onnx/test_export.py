"""ember.onnx.export: exported models run in onnxruntime and match ember's outputs (and,
for layers with weights, torch's outputs with the same weights)."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

ort = pytest.importorskip('onnxruntime')
pytest.importorskip('onnx')


def host(t):
    return t.detach().numpy(force=True)


def run(prog, *xs):
    s = ort.InferenceSession(prog.model_proto.SerializeToString(),
                             providers=['CPUExecutionProvider'])
    names = [i.name for i in s.get_inputs()]
    return s.run(None, {n: host(x) for n, x in zip(names, flat(xs))})


def flat(o, acc=None):
    acc = [] if acc is None else acc
    if isinstance(o, (list, tuple)):
        for x in o:
            flat(x, acc)
    elif o is not None:
        acc.append(o)
    return acc


def check(m, args, others=(), rtol=1e-4, atol=1e-5, **kw):
    """Export ``m`` on ``args``; run the ONNX model on ``args`` and on each of ``others``
    and compare with ember's outputs. Returns the program."""
    p = ember.onnx.export(m, args, **kw)
    for xs in (args,) + tuple(others):
        got = run(p, *xs)
        with ember.no_grad():
            want = flat(m(*xs))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == tuple(w.shape)
            np.testing.assert_allclose(g, host(w), rtol=rtol, atol=atol)
    return p


def from_torch(em, tm):
    """Copy torch module ``tm``'s state into ember module ``em``."""
    em.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return em


def torch_out(tm, *xs):
    import torch
    with torch.no_grad():
        return [t.numpy() for t in flat(tm(*(torch.tensor(host(x)) for x in xs)))]


def test_mlp_dynamic_batch_and_names():
    ember.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(), nn.Linear(8, 3),
                      nn.LogSoftmax(-1)).eval()
    x = ember.randn(5, 4)
    p = check(m, (x,), [(ember.randn(7, 4),)], input_names=['x'], output_names=['y'],
              dynamic_axes={'x': {0: 'b'}, 'y': {0: 'b'}}, opset_version=17)
    assert [i.name for i in p.model_proto.graph.input] == ['x']
    assert [o.name for o in p.model_proto.graph.output] == ['y']
    assert p.model_proto.opset_import[0].version == 17
    dim = p.model_proto.graph.input[0].type.tensor_type.shape.dim[0]
    assert dim.dim_param == 'b'
    assert sorted(i.name for i in p.model_proto.graph.initializer) == \
        ['0.bias', '0.weight', '3.bias', '3.weight']


class Func(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x):
        y = F.relu(self.fc(x)) * 2 + 1
        y = 1 - y / 3
        z = y.view(x.shape[0], 2, 3).mean(-1)
        return F.softmax(z, -1), ember.tanh(y).sum(1, keepdim=True)


def test_functional_ops_two_outputs():
    ember.manual_seed(1)
    p = check(Func(), (ember.randn(4, 6),), [(ember.randn(3, 6),)],
              dynamic_axes={'input': [0]})
    assert [o.name for o in p.model_proto.graph.output] == ['output_0', 'output_1']


def test_same_as_torch_export():
    torch = pytest.importorskip('torch')
    ember.manual_seed(0)
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 3), nn.Tanh())
    t = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh())
    x = ember.randn(2, 4)
    p = ember.onnx.export(m, (x,))
    np.testing.assert_allclose(run(p, x)[0], torch_out(t, x)[0], rtol=1e-4, atol=1e-6)


def test_capture_is_an_fx_graph_module():
    from ember.onnx import _capture
    ember.manual_seed(0)
    m = Func()
    x = ember.randn(4, 6)
    gm, inputs, _ = _capture.capture(m, (x,), {}, (nn.Linear,), ['inp'])
    assert isinstance(gm, ember.fx.GraphModule)
    ops = [(n.op, _capture.op_key(n)) for n in gm.graph.nodes]
    assert ops[0] == ('placeholder', 'placeholder') and inputs[0].meta['onnx_name'] == 'inp'
    assert ('call_module', 'call_module') in ops and ('call_function', 'softmax') in ops
    assert ('call_method', 'view') in ops and ops[-1][0] == 'output'
    gm.graph.lint()
    for a, b in zip(gm(x), m(x)):
        np.testing.assert_allclose(host(a), host(b))


def test_export_symbolic_traced_graph_module():
    ember.manual_seed(0)
    m = Func()
    gm = ember.fx.symbolic_trace(m)
    check(gm, (ember.randn(4, 6),), [(ember.randn(2, 6),)], dynamic_axes={'input': [0]})


def test_unsupported_raises_naming_it():
    class M(nn.Module):
        def forward(self, x):
            return ember.cummax(x, 0)[0]
    with pytest.raises(ember.onnx.errors.UnsupportedOperatorError, match='cummax'):
        ember.onnx.export(M(), (ember.randn(3),))
    assert issubclass(ember.onnx.errors.UnsupportedOperatorError, RuntimeError)
    assert not ember.onnx.is_in_onnx_export()

    class Cell(nn.Module):
        def __init__(self):
            super().__init__()
            self.cell = nn.GRUCell(2, 3)

        def forward(self, x):
            return self.cell(x)
    with pytest.raises(ember.onnx.errors.UnsupportedOperatorError, match='GRUCell'):
        ember.onnx.export(Cell(), (ember.randn(4, 2),))


def test_untracked_op_is_reported_not_frozen():
    class Double(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):          # computes on host arrays: no op the capture can see
            return ember.from_numpy(host(x) * 2)

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class M(nn.Module):
        def forward(self, x):
            return Double.apply(x) + 1
    with pytest.raises(ember.onnx.errors.UnsupportedOperatorError, match='double'):
        ember.onnx.export(M(), (ember.randn(3),))


def test_dropout_in_training_call_raises():
    class M(nn.Module):
        def forward(self, x):
            return F.dropout(x, 0.5, training=True)
    with pytest.raises(ember.onnx.errors.UnsupportedOperatorError, match='dropout'):
        ember.onnx.export(M(), (ember.randn(3),))


def test_opset_and_name_checks():
    m = nn.Linear(2, 2)
    x = ember.ones(1, 2)
    for bad in (5, 40):
        with pytest.raises(ValueError, match=f'Unsupported ONNX opset version: {bad}'):
            ember.onnx.export(m, (x,), opset_version=bad)
    with pytest.raises(TypeError, match='input_names'):
        ember.onnx.export(m, (x,), input_names='x')
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        ember.onnx.export(m, (x,), dynamic_axes={'nope': [0]})
    assert any('nope' in str(x.message) for x in w)
    with pytest.raises(ember.onnx.errors.UnsupportedOperatorError,
                       match="upsample_nearest' to ONNX opset version 10 .* added in version 11"):
        ember.onnx.export(nn.Upsample(scale_factor=2), (ember.randn(1, 1, 2, 2),),
                          opset_version=10)
    p = ember.onnx.export(m, (x,), opset_version=13, export_params=False)
    assert sorted(i.name for i in p.model_proto.graph.input) == ['bias', 'input', 'weight']
    assert p.model_proto.opset_import[0].version == 13


def test_file_written(tmp_path):
    import onnx
    path = tmp_path / 'm.onnx'
    assert ember.onnx.export(nn.Linear(2, 2), (ember.ones(1, 2),), str(path), dynamo=False) is None
    onnx.checker.check_model(onnx.load(str(path)))


def test_import_without_onnx():
    code = ("import sys; sys.modules['onnx'] = None; import ember, ember.onnx\n"
            "try:\n    ember.onnx.export(ember.nn.Linear(1, 1), (ember.ones(1, 1),))\n"
            "except ImportError as e:\n    assert 'ember[onnx]' in str(e); print('ok')\n")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.strip() == 'ok', out.stderr


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.p = nn.MaxPool2d(2)
        self.c2 = nn.Conv2d(4, 6, 3, stride=2)
        self.ap = nn.AdaptiveAvgPool2d(1)
        self.fl = nn.Flatten()
        self.fc = nn.Linear(6, 5)
        self.ln = nn.LayerNorm(5)

    def forward(self, x):
        x = self.p(F.relu(self.bn(self.c1(x))))
        return self.ln(self.fc(self.fl(self.ap(F.relu(self.c2(x))))))


@pytest.mark.parametrize('opset', [9, 11, 16, 17])
def test_lenet_bn_eval(opset):
    ember.manual_seed(0)
    m = LeNet()
    m.bn.running_mean.normal_()
    m.bn.running_var.uniform_(0.5, 2)
    m.eval()
    check(m, (ember.randn(2, 1, 12, 12),), [(ember.randn(3, 1, 12, 12),)], opset_version=opset,
          dynamic_axes={'input': [0], 'output': [0]})


def test_embedding_gelu():
    ember.manual_seed(0)
    m = nn.Sequential(nn.Embedding(10, 4), nn.GELU())
    check(m, (ember.tensor([[1, 2, 3], [4, 5, 9]]),))
    check(nn.Sequential(nn.Embedding(10, 4), nn.GELU('tanh')),
          (ember.tensor([[1, 2, 3]]),), opset_version=13)


# ------------------------------------------------------------------------ recurrent
@pytest.mark.parametrize('kind,kw', [
    ('LSTM', dict(num_layers=2, bidirectional=True)),
    ('LSTM', dict(batch_first=True)),
    ('GRU', dict(num_layers=2, bidirectional=True, batch_first=True)),
    ('GRU', dict(bias=False)),
    ('RNN', dict(num_layers=2, nonlinearity='relu', bidirectional=True)),
    ('RNN', dict(batch_first=True)),
])
@pytest.mark.parametrize('init', [False, True])
def test_recurrent(kind, kw, init):
    torch = pytest.importorskip('torch')
    torch.manual_seed(0)
    tm = getattr(torch.nn, kind)(3, 4, **kw).eval()
    m = from_torch(getattr(nn, kind)(3, 4, **kw), tm).eval()
    bf = kw.get('batch_first', False)
    nd = 2 if kw.get('bidirectional') else 1
    L = kw.get('num_layers', 1)

    def inputs(batch):
        x = ember.randn(*((batch, 5, 3) if bf else (5, batch, 3)))
        if not init:
            return (x,)
        h = ember.randn(L * nd, batch, 4)
        if kind == 'LSTM':
            return (x, (h, ember.randn(L * nd, batch, 4)))
        return (x, h)
    args = inputs(2)
    dyn = {'input': [0 if bf else 1]}
    if init:
        dyn.update({'input_2': [1]} if kind != 'LSTM' else {'input_2': [1], 'input_3': [1]})
    p = check(m, args, [inputs(3)], dynamic_axes=dyn)
    got = run(p, *flat(args))
    with torch.no_grad():
        xs = [torch.tensor(host(a)) for a in flat(args)]
        if not init:
            want = flat(tm(xs[0]))
        else:
            want = flat(tm(xs[0], (xs[1], xs[2]) if kind == 'LSTM' else xs[1]))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-4, atol=1e-5)


def test_lstm_unbatched():
    ember.manual_seed(0)
    check(nn.LSTM(3, 4, num_layers=2).eval(), (ember.randn(5, 3),))


# ------------------------------------------------------------------------ attention
class Attn(nn.Module):
    def __init__(self, bf, kdim=None):
        super().__init__()
        self.a = nn.MultiheadAttention(8, 2, batch_first=bf, kdim=kdim, vdim=kdim)

    def forward(self, q, k, mask, kpm):
        return self.a(q, k, k, attn_mask=mask, key_padding_mask=kpm)


@pytest.mark.parametrize('bf', [False, True])
@pytest.mark.parametrize('kdim', [None, 6])
def test_multihead_attention(bf, kdim):
    torch = pytest.importorskip('torch')
    torch.manual_seed(0)
    m = Attn(bf, kdim).eval()
    tm = torch.nn.MultiheadAttention(8, 2, batch_first=bf, kdim=kdim, vdim=kdim).eval()
    from_torch(m.a, tm)

    def inputs(n):
        q = ember.randn(*((n, 4, 8) if bf else (4, n, 8)))
        k = ember.randn(*((n, 5, kdim or 8) if bf else (5, n, kdim or 8)))
        mask = ember.randn(4, 5)
        kpm = ember.zeros(n, 5, dtype=ember.bool)
        kpm[0, 1] = True
        return (q, k, mask, kpm)
    args = inputs(2)
    b = 0 if bf else 1
    p = check(m, args, [inputs(3)], dynamic_axes={'input': [b], 'input_2': [b], 'input_4': [0]})
    got = run(p, *args)
    import torch as T
    with T.no_grad():
        q, k, mask, kpm = (T.tensor(host(a)) for a in args)
        want = tm(q, k, k, attn_mask=mask, key_padding_mask=kpm)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-4, atol=1e-5)


def test_scaled_dot_product_attention():
    class M(nn.Module):
        def forward(self, q, k, v):
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    check(M(), (ember.randn(2, 3, 4, 5), ember.randn(2, 3, 4, 5), ember.randn(2, 3, 4, 5)))


@pytest.mark.parametrize('norm_first,act', [(False, 'relu'), (True, 'gelu')])
def test_transformer_encoder(norm_first, act):
    torch = pytest.importorskip('torch')
    torch.manual_seed(0)
    kw = dict(d_model=8, nhead=2, dim_feedforward=16, dropout=0.1, activation=act,
              norm_first=norm_first, batch_first=True)
    tm = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(**kw), 2,
                                     enable_nested_tensor=False).eval()
    m = nn.TransformerEncoder(nn.TransformerEncoderLayer(**kw), 2,
                              enable_nested_tensor=False)
    from_torch(m, tm).eval()
    x = ember.randn(2, 6, 8)
    p = check(m, (x,), [(ember.randn(3, 6, 8),)], dynamic_axes={'input': [0]}, opset_version=17)
    np.testing.assert_allclose(run(p, x)[0], torch_out(tm, x)[0], rtol=1e-4, atol=1e-5)


def test_transformer_with_causal_mask():
    torch = pytest.importorskip('torch')
    torch.manual_seed(0)
    kw = dict(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
              dim_feedforward=16)
    tm = torch.nn.Transformer(**kw).eval()
    m = from_torch(nn.Transformer(**kw), tm).eval()

    class M(nn.Module):
        def __init__(self, t):
            super().__init__()
            self.t = t

        def forward(self, src, tgt):
            mask = nn.Transformer.generate_square_subsequent_mask(tgt.shape[0])
            return self.t(src, tgt, tgt_mask=mask)
    src, tgt = ember.randn(5, 2, 8), ember.randn(4, 2, 8)
    p = check(M(m).eval(), (src, tgt), [(ember.randn(5, 3, 8), ember.randn(4, 3, 8))],
              dynamic_axes={'input': [1], 'input_2': [1]}, opset_version=14)
    import torch as T
    with T.no_grad():
        want = tm(T.tensor(host(src)), T.tensor(host(tgt)),
                  tgt_mask=T.nn.Transformer.generate_square_subsequent_mask(4)).numpy()
    np.testing.assert_allclose(run(p, src, tgt)[0], want, rtol=1e-4, atol=1e-5)


# ------------------------------------------------------------------------ conv / norm
@pytest.mark.parametrize('k,kw', [
    (1, dict(stride=2, padding=1, output_padding=1)),
    (2, dict(stride=2, padding=1, groups=2, dilation=2)),
    (3, dict(stride=(1, 2, 1), padding=0, bias=False)),
])
def test_conv_transpose(k, kw):
    torch = pytest.importorskip('torch')
    torch.manual_seed(0)
    name = f'ConvTranspose{k}d'
    tm = getattr(torch.nn, name)(4, 6, 3, **kw)
    m = from_torch(getattr(nn, name)(4, 6, 3, **kw), tm)
    x = ember.randn(2, 4, *([5] * k))
    p = check(m, (x,), [(ember.randn(3, 4, *([5] * k)),)], dynamic_axes={'input': [0]})
    np.testing.assert_allclose(run(p, x)[0], torch_out(tm, x)[0], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('opset', [13, 17])
def test_normalization_layers(opset):
    torch = pytest.importorskip('torch')
    torch.manual_seed(0)

    def make(nn_):
        return type('M', (nn_.Module,), {'__init__': init, 'forward': forward})(nn_)

    def init(self, nn_):
        nn_.Module.__init__(self)
        self.gn = nn_.GroupNorm(2, 4)
        self.in1 = nn_.InstanceNorm2d(4)
        self.in2 = nn_.InstanceNorm2d(4, affine=True, track_running_stats=True)
        self.bn = nn_.BatchNorm1d(4)
        self.ln = nn_.LayerNorm([5, 5])

    def forward(self, x):
        y = self.in2(self.in1(self.gn(x)))
        z = self.bn(y.flatten(2))
        return self.ln(y), z, self.bn(z.mean(-1))
    tm = make(torch.nn)
    for b in (tm.bn, tm.in2):
        b.running_mean.normal_()
        b.running_var.uniform_(0.5, 2)
    with torch.no_grad():
        for p_ in tm.parameters():
            p_.normal_()
    tm.eval()
    m = from_torch(make(nn), tm).eval()
    x = ember.randn(2, 4, 5, 5)
    p = check(m, (x,), [(ember.randn(3, 4, 5, 5),)], dynamic_axes={'input': [0]},
              opset_version=opset, rtol=1e-4, atol=1e-4)
    for g, w in zip(run(p, x), torch_out(tm, x)):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
    ops = {n.op_type for n in p.model_proto.graph.node}
    assert ('LayerNormalization' in ops) == (opset >= 17)


@pytest.mark.parametrize('mode,kw', [
    ('nearest', dict(scale_factor=2)), ('nearest', dict(size=(7, 9))),
    ('bilinear', dict(scale_factor=2, align_corners=False)),
    ('bilinear', dict(size=(7, 9), align_corners=True)),
])
def test_upsample(mode, kw):
    torch = pytest.importorskip('torch')
    m = nn.Upsample(mode=mode, **kw)
    tm = torch.nn.Upsample(mode=mode, **kw)
    x = ember.randn(2, 3, 4, 5)
    p = check(m, (x,), [(ember.randn(1, 3, 4, 5),)], dynamic_axes={'input': [0]})
    np.testing.assert_allclose(run(p, x)[0], torch_out(tm, x)[0], rtol=1e-4, atol=1e-5)


# ------------------------------------------------------------------------ ops
class Shapes(nn.Module):
    def forward(self, x):                    # x: (N, 4, 6)
        a = x.permute(0, 2, 1).transpose(1, 2)            # (N, 4, 6)
        b, c = a.split([2, 4], dim=2)
        d = ember.cat([c, b], 2)
        e1, e2 = d.chunk(2, 1)
        f = ember.stack([e1, e2], 1)                       # (N, 2, 2, 6)
        g = f[:, 1, :, 1:5:2]                              # (N, 2, 2)
        h = x[..., None, -1]                                # (N, 4, 1)
        i = h.squeeze(-1).unsqueeze(1).expand(-1, 3, -1)   # (N, 3, 4)
        j = i.repeat(1, 2, 1).flatten(1)                  # (N, 24)
        k = x[:, 1:3].reshape(x.shape[0], -1).unflatten(1, (3, 4))
        u = ember.unbind(x, 1)[2]
        idx = x[:, ember.tensor([0, 2])]
        return g, j, k, u + 0, idx, x.narrow(2, 1, 3).select(1, 0), x.flip(-1)


class Maths(nn.Module):
    def forward(self, x, y):                 # (N, 3, 4), (N, 4, 2)
        a = ember.bmm(x, y) + x @ y
        b = ember.where(x > 0, x, x * 0.1).clamp(-0.5, 0.5)
        c = (x.abs() + 1).pow(2).sqrt().exp().log() ** 0.5
        d = x.mean(dim=(1, 2)), x.sum(-1, keepdim=True), x.max(dim=1)[0], x.min(), \
            x.argmax(dim=-1), x.amax(1), x.var(1), x.std(-1, keepdim=True)
        e = x.masked_fill(x < 0, 0.0) / 2 - x.clamp(min=0) + 1 / (x.abs() + 1)
        f = (x >= 0).float() * 2 + (x != 0).to(ember.float32) + x.logsumexp(1).unsqueeze(1)
        g = ember.maximum(x, -x) + x.cumsum(1) + F.normalize(x, dim=-1) + x.square().rsqrt()
        return a, b, c, d, e, f, g


@pytest.mark.parametrize('opset', [10, 11, 13, 18, 20])
def test_shape_ops(opset):
    check(Shapes(), (ember.randn(2, 4, 6),), [(ember.randn(3, 4, 6),)], opset_version=opset,
          dynamic_axes={'input': [0]})


@pytest.mark.parametrize('opset', [11, 13, 18])
def test_math_ops(opset):
    check(Maths(), (ember.randn(2, 3, 4), ember.randn(2, 4, 2)),
          [(ember.randn(3, 3, 4), ember.randn(3, 4, 2))], opset_version=opset,
          dynamic_axes={'input': [0], 'input_2': [0]}, rtol=1e-4, atol=1e-4)


class Acts(nn.Module):
    def __init__(self):
        super().__init__()
        self.acts = nn.ModuleList([
            nn.LeakyReLU(0.2), nn.PReLU(3), nn.PReLU(), nn.Sigmoid(), nn.Tanh(), nn.SiLU(),
            nn.Mish(), nn.Hardtanh(-0.5, 0.7), nn.ReLU6(), nn.Hardsigmoid(), nn.Hardswish(),
            nn.ELU(0.5), nn.SELU(), nn.CELU(1.5), nn.Softplus(beta=2.0), nn.Softsign(),
            nn.LogSoftmax(1), nn.Softmax(-1), nn.Softmin(1), nn.GLU(-1), nn.GELU(),
            nn.Tanhshrink(), nn.LogSigmoid(), nn.Threshold(0.1, -1.0), nn.Dropout(),
            nn.Dropout1d(), nn.AlphaDropout(), nn.Identity(), nn.ReLU(inplace=True)])

    def forward(self, x):
        return [a(x * 3) for a in self.acts] + [F.relu6(x), ember.sigmoid(x)]


@pytest.mark.parametrize('opset', [9, 11, 13, 17, 20])
def test_activations(opset):
    ember.manual_seed(0)
    check(Acts().eval(), (ember.randn(2, 3, 4),), [(ember.randn(5, 3, 4),)],
          opset_version=opset, dynamic_axes={'input': [0]})


def test_activations_match_torch():
    torch = pytest.importorskip('torch')
    ember.manual_seed(0)
    m = Acts().eval()
    tm = torch.nn.ModuleList([getattr(torch.nn, type(a).__name__)() for a in m.acts[:0]])
    x = ember.randn(2, 3, 4)
    p = ember.onnx.export(m, (x,))
    got = run(p, x)
    xt = torch.tensor(host(x)) * 3
    want = [torch.nn.functional.leaky_relu(xt, 0.2), torch.nn.functional.mish(xt),
            torch.nn.functional.hardtanh(xt, -0.5, 0.7), torch.nn.functional.celu(xt, 1.5),
            torch.nn.functional.softplus(xt, beta=2.0), torch.nn.functional.softmin(xt, 1),
            torch.nn.functional.glu(xt, -1)]
    for g, w in zip([got[0], got[6], got[7], got[13], got[14], got[18], got[19]], want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-4, atol=1e-5)
    del tm


def test_pads_pools_pixel_shuffle():
    m = nn.Sequential(nn.ReflectionPad2d(1), nn.ReplicationPad2d((1, 0, 2, 1)),
                      nn.ZeroPad2d(1), nn.AvgPool2d(2, ceil_mode=True),
                      nn.Conv2d(4, 8, 3, padding='same'), nn.PixelShuffle(2),
                      nn.AdaptiveMaxPool2d(1), nn.Flatten(0))
    check(m, (ember.randn(1, 4, 6, 6),))


class More(nn.Module):
    def forward(self, x, i):                 # x: (N, 3, 4) float, i: (N, 3) int64
        a = x.mT.mT + x[0].T.T + x.mT.sum(-1, keepdim=True).mT    # properties
        b = x.where(x > 0, -x) + x.masked_fill(x < 0, x.abs().max())
        c = x.clamp(min=x.mean(), max=1.0) + ember.minimum(x, x.amin(1, keepdim=True))
        d = i.float() / 2 + (i // 2).to(ember.float32) + ember.div(i, 2, rounding_mode='trunc')
        e = ember.div(x, 0.3, rounding_mode='floor') + ember.div(x, 0.3, rounding_mode='trunc')
        f = i.sum(1, dtype=ember.float32) + (i > 1).sum(-1) + x.argmax() + x.max()
        g = x[:, [2, 0], -3:-1] + x[:, 1::2, ::3].sum() + x[1:, None, 0].sum()
        h = x.clone()
        h += 1
        h.mul_(2).relu_()
        k = ember.index_select(x, 2, i[0]) + x[0].t().sum()
        r = ((i + 1) % 2 + ember.remainder(-i, 2)).unsqueeze(-1) + x % 0.7 + ember.fmod(x, 0.4)
        r = r + x.new_ones(4) + x.new_full((3, 1), 2.0) + ember.full_like(x, 0.5)
        return a, b, c, d, e, f, g, h, k, x.double().half().float(), i.long().bool(), r


def test_more_ops_and_properties():
    x = ember.randn(2, 3, 4)
    i = ember.randint(0, 3, (2, 3))
    check(More(), (x, i), [(ember.randn(3, 3, 4), ember.randint(0, 3, (3, 3)))],
          dynamic_axes={'input': [0], 'input_2': [0]}, rtol=1e-4, atol=1e-4)


def test_inplace_on_view_then_base_read_raises():
    class M(nn.Module):
        def forward(self, x):
            y = x * 2
            y[0].mul_(0)
            return y + 1
    with pytest.raises(ember.onnx.errors.UnsupportedOperatorError, match='mul_'):
        ember.onnx.export(M(), (ember.randn(2, 3),))


@pytest.mark.parametrize('opset', [11, 19])
def test_functional_vision_ops(opset):
    torch = pytest.importorskip('torch')
    tf = torch.nn.functional

    def fwd(Fn, x, w):
        y = Fn.conv2d(x, w, padding=1, stride=2)
        a = Fn.avg_pool2d(y, 3, 1, 1, count_include_pad=False)
        y = Fn.max_pool2d(y, 2, ceil_mode=True) + a[..., ::2, ::2]
        z = Fn.interpolate(x, scale_factor=2, mode='bicubic', align_corners=False)
        u = Fn.interpolate(x, size=(5, 7), mode='nearest-exact')
        v = Fn.interpolate(x[:, :, 0], scale_factor=3, mode='linear', align_corners=True)
        p = Fn.pad(x, (1, 2, 0, 1), value=0.5) + 0
        q = Fn.adaptive_avg_pool2d(x, (3, 2))
        return y, z, u, v, p, q, Fn.normalize(x, dim=1), Fn.embedding(
            x.argmax(1), w.flatten(1)[:, :4])
    if opset >= 19:
        def fwd2(Fn, x, w):
            return fwd(Fn, x, w) + (Fn.pad(x, (1, 1, 2, 0), mode='circular'),)
    else:
        fwd2 = fwd

    class M(nn.Module):
        def forward(self, x, w):
            return fwd2(F, x, w)
    x, w = ember.randn(2, 3, 6, 4), ember.randn(5, 3, 3, 3)
    p = check(M(), (x, w), [(ember.randn(1, 3, 6, 4), w)], opset_version=opset,
              dynamic_axes={'input': [0]}, atol=1e-4)
    with torch.no_grad():
        want = flat(fwd2(tf, torch.tensor(host(x)), torch.tensor(host(w))))
    for g, t in zip(run(p, x, w), want):
        np.testing.assert_allclose(g, t.numpy(), rtol=1e-4, atol=1e-4)


def test_program_call_and_kwargs_inputs():
    ember.manual_seed(0)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)

        def forward(self, x, *, scale):
            return {'y': self.fc(x) * scale, 'z': x.sum(-1)}
    m = M()
    x, s = ember.randn(4, 3), ember.tensor(2.0)
    prog = ember.onnx.export(m, (x,), kwargs={'scale': s}, input_names=['x', 'scale'],
                             output_names=['y', 'z'])
    assert [i.name for i in prog.model_proto.graph.input] == ['x', 'scale']
    got = prog(x, scale=s)
    np.testing.assert_allclose(host(got[0]), host(m(x, scale=s)['y']), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(host(got[1]), host(x.sum(-1)), rtol=1e-5, atol=1e-6)


def test_attention_and_recurrent_variants():
    ember.manual_seed(0)

    class A(nn.Module):
        def __init__(self, **kw):
            super().__init__()
            self.a = nn.MultiheadAttention(8, 2, **kw)

        def forward(self, q, m):
            return self.a(q, q, q, attn_mask=m, average_attn_weights=False)
    m = ember.rand(4, 4) > 0.7
    m[:, 0] = False
    check(A().eval(), (ember.randn(4, 8), m))                     # unbatched, bool mask
    check(A(bias=False).eval(), (ember.randn(4, 2, 8), m))

    class B(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.MultiheadAttention(8, 2, batch_first=True)

        def forward(self, q):
            return self.a(q, q, q, need_weights=False)[0]
    check(B().eval(), (ember.randn(2, 4, 8),), [(ember.randn(3, 5, 8),)],
          dynamic_axes={'input': [0, 1]})                          # batch and sequence
    check(nn.GRU(3, 4, num_layers=2, bidirectional=True).eval(),
          (ember.randn(5, 3), ember.randn(4, 4)))                  # unbatched with h0
    check(nn.LSTM(3, 4, batch_first=True).eval(), (ember.randn(2, 5, 3),),
          [(ember.randn(3, 7, 3),)], dynamic_axes={'input': [0, 1]})


def test_more_layers_vs_torch():
    torch = pytest.importorskip('torch')
    torch.manual_seed(0)

    def make(nn_):
        mods = dict(hs=nn_.Hardshrink(0.3), ss=nn_.Softshrink(), rms=nn_.RMSNorm(6),
                    pu=nn_.PixelUnshuffle(2), cs=nn_.ChannelShuffle(2),
                    lrn=nn_.LocalResponseNorm(3), bil=nn_.Bilinear(6, 6, 3),
                    cos=nn_.CosineSimilarity(), pd=nn_.PairwiseDistance(p=3.0),
                    rr=nn_.RReLU(), c1=nn_.Conv2d(4, 2, 3, padding=1, padding_mode='reflect'),
                    c2=nn_.Conv1d(4, 2, 3, padding='same', padding_mode='replicate'))

        def forward(self, x):                # x: (N, 4, 6, 6)
            v = x.flatten(2)[..., :6]         # (N, 4, 6)
            return (self.hs(x), self.ss(x), self.rms(x), self.pu(x), self.cs(x), self.lrn(x),
                    self.bil(v, v * 2), self.cos(v, v + 1), self.pd(v, -v), self.rr(x),
                    self.c1(x), self.c2(v))
        cls = type('M', (nn_.Module,), {'forward': forward})
        m = cls()
        for k, v in mods.items():
            setattr(m, k, v)
        return m.eval()
    tm = make(torch.nn)
    with torch.no_grad():
        tm.rms.weight.normal_()
    m = from_torch(make(nn), tm)
    x = ember.randn(2, 4, 6, 6)
    p = check(m, (x,), [(ember.randn(3, 4, 6, 6),)], dynamic_axes={'input': [0]}, atol=1e-4)
    for g, w in zip(run(p, x), torch_out(tm, x)):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)


def test_transformer_key_padding_mask_is_an_input():
    torch = pytest.importorskip('torch')
    torch.manual_seed(0)
    kw = dict(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
    tm = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(**kw), 2,
                                     enable_nested_tensor=False).eval()
    enc = from_torch(nn.TransformerEncoder(nn.TransformerEncoderLayer(**kw), 2,
                                           enable_nested_tensor=False), tm).eval()

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = enc

        def forward(self, x, kpm):
            return self.enc(x, src_key_padding_mask=kpm)
    k1 = ember.zeros(2, 5, dtype=ember.bool)
    k1[0, 3:] = True
    k2 = ember.zeros(3, 5, dtype=ember.bool)
    k2[1, 1:] = True
    k2[2, 4] = True
    x2 = ember.randn(3, 5, 8)
    p = check(M().eval(), (ember.randn(2, 5, 8), k1), [(x2, k2)], atol=1e-4,
              dynamic_axes={'input': [0], 'input_2': [0]})
    with torch.no_grad():
        want = tm(torch.tensor(host(x2)), src_key_padding_mask=torch.tensor(host(k2))).numpy()
    np.testing.assert_allclose(run(p, x2, k2)[0], want, rtol=1e-4, atol=1e-4)


def test_unused_input_warns():
    class M(nn.Module):
        def forward(self, x, i):
            return x + 1
    with pytest.warns(ember.onnx.errors.OnnxExporterWarning, match="input 'input_2' is not used"):
        ember.onnx.export(M(), (ember.randn(2), ember.tensor([1, 2])))


@pytest.mark.parametrize('opset', [14, 20])
def test_windows_sorting_and_indexing_vs_torch(opset):
    torch = pytest.importorskip('torch')

    def fwd(T, Fn, x, w, i):                 # x: (N, 2, 6, 6), w: (10, 3), i: (N, 4) int
        u = Fn.unfold(x, 3, dilation=1, padding=1, stride=2)
        f = Fn.fold(u, (6, 6), 3, padding=1, stride=2)
        lp = Fn.lp_pool2d(x.abs() + 0.1, 3.0, 2) + Fn.lp_pool1d(x[:, :, 0], 2, 3, 2).sum()
        e = Fn.embedding_bag(i, w, mode='max') + Fn.embedding_bag(i, w, mode='sum')
        oh = Fn.one_hot(i, 10).sum(1)
        v, ix = x.flatten(1).topk(3, dim=1, largest=False)
        sv, si = T.sort(x[:, 0], dim=-1, descending=True)
        g = T.gather(x[:, 0], 1, T.argsort(x[:, 0], dim=1))
        tri = T.triu(x, 1) + T.tril(x, -1)
        ein = T.einsum('nchw,nc->nhw', x, x.mean((2, 3)))
        o = T.outer(x[0, 0, 0], x[0, 0, 1]) + T.mv(x[0, 0], x[0, 0, 0]) + \
            T.dot(x[0, 0, 0], x[0, 1, 0])
        return u, f, lp, e, oh, v, ix, sv, si, g, tri, ein, o

    class M(nn.Module):
        def forward(self, x, w, i):
            return fwd(ember, F, x, w, i)
    x, w, i = ember.randn(2, 2, 6, 6), ember.randn(10, 3), ember.randint(0, 10, (2, 4))
    p = check(M(), (x, w, i), [(ember.randn(3, 2, 6, 6), w, ember.randint(0, 10, (3, 4)))],
              opset_version=opset, dynamic_axes={'input': [0], 'input_3': [0]}, atol=1e-4)
    with torch.no_grad():
        want = flat(fwd(torch, torch.nn.functional, *(torch.tensor(host(a)) for a in (x, w, i))))
    for g_, t_ in zip(run(p, x, w, i), want):
        np.testing.assert_allclose(g_, t_.numpy(), rtol=1e-4, atol=1e-4)


def test_setitem_and_inplace_on_constants():
    class M(nn.Module):
        def forward(self, x, m):             # x: (N, 4, 5), m: (N, 4) bool
            y = x * 1
            y[:, 0] = 0.5
            y[..., 1:3] = x[..., :2] * 10
            y[:, -1, ::2] = -1
            y[m] = 7
            z = x.clone()
            z[:, 2] = x[:, 0] + 1
            buf = ember.zeros(5)
            buf.add_(x[0, 0])                  # a constant changed by an input-dependent op
            return y, z, buf + ember.ones(5)
    ember.manual_seed(0)
    mk = lambda n: ember.rand(n, 4) > 0.5  # noqa: E731
    check(M(), (ember.randn(2, 4, 5), mk(2)), [(ember.randn(3, 4, 5), mk(3))],
          dynamic_axes={'input': [0], 'input_2': [0]})
    check(M(), (ember.randn(2, 4, 5), mk(2)), opset_version=10)


def test_recurrent_and_attention_weights_are_named_parameters():
    ember.manual_seed(0)

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.GRU(4, 4, bidirectional=True)
            self.att = nn.MultiheadAttention(8, 2)

        def forward(self, x):
            y = self.rnn(x)[0]
            return self.att(y, y, y, need_weights=False)[0]
    m = M().eval()
    x = ember.randn(5, 2, 4)
    p = ember.onnx.export(m, (x,), export_params=False)
    names = [i.name for i in p.model_proto.graph.input]
    assert names[0] == 'input' and sorted(names[1:]) == sorted(k for k, _ in m.named_parameters())
    s = ort.InferenceSession(p.model_proto.SerializeToString(),
                             providers=['CPUExecutionProvider'])
    feed = {'input': host(x), **{k: host(v) for k, v in m.named_parameters()}}
    np.testing.assert_allclose(s.run(None, feed)[0], host(m(x)),
                               rtol=1e-4, atol=1e-5)
