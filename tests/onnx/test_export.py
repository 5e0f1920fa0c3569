"""ember.onnx.export: exported models run in onnxruntime and match ember's outputs."""
import subprocess
import sys

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F

ort = pytest.importorskip('onnxruntime')


def run(prog, *xs):
    s = ort.InferenceSession(prog.model_proto.SerializeToString(),
                             providers=['CPUExecutionProvider'])
    names = [i.name for i in s.get_inputs()]
    return s.run(None, {n: x.numpy() for n, x in zip(names, xs)})


def test_mlp_dynamic_batch_and_names():
    ember.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(), nn.Linear(8, 3),
                      nn.LogSoftmax(-1)).eval()
    x = ember.randn(5, 4)
    p = ember.onnx.export(m, (x,), input_names=['x'], output_names=['y'],
                          dynamic_axes={'x': {0: 'b'}, 'y': {0: 'b'}}, opset_version=17)
    assert [i.name for i in p.model_proto.graph.input] == ['x']
    assert [o.name for o in p.model_proto.graph.output] == ['y']
    assert p.model_proto.opset_import[0].version == 17
    x2 = ember.randn(7, 4)
    np.testing.assert_allclose(run(p, x2)[0], m(x2).detach().numpy(), rtol=1e-4, atol=1e-5)


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
    m = Func()
    x = ember.randn(4, 6)
    p = ember.onnx.export(m, (x,), dynamic_axes={'input': [0]})
    x2 = ember.randn(3, 6)
    got = run(p, x2)
    want = m(x2)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_same_as_torch_export():
    torch = pytest.importorskip('torch')
    ember.manual_seed(0)
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 3), nn.Tanh())
    t = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh())
    x = ember.randn(2, 4)
    want = t(torch.tensor(x.numpy())).detach().numpy()
    p = ember.onnx.export(m, (x,))
    np.testing.assert_allclose(run(p, x)[0], want, rtol=1e-4, atol=1e-6)


def test_unsupported_raises_naming_it():
    class M(nn.Module):
        def forward(self, x):
            return ember.cumsum(x, 0)
    with pytest.raises(ember.onnx.errors.UnsupportedOperatorError, match='cumsum'):
        ember.onnx.export(M(), (ember.randn(3),))
    assert issubclass(ember.onnx.errors.UnsupportedOperatorError, RuntimeError)
    assert not ember.onnx.is_in_onnx_export()


def test_file_written(tmp_path):
    import onnx
    path = tmp_path / 'm.onnx'
    assert ember.onnx.export(nn.Linear(2, 2), (ember.ones(1, 2),), str(path), dynamo=False) is None
    onnx.checker.check_model(onnx.load(str(path)))


def test_import_without_onnx():
    code = ("import sys; sys.modules['onnx'] = None; import ember, ember.onnx\n"
            "try:\n    ember.onnx.export(ember.nn.Linear(1, 1), (ember.ones(1, 1),))\n"
            "except ImportError as e:\n    assert 'ember[onnx]' in str(e); print('ok')\n")
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)
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


def test_lenet_bn_eval():
    ember.manual_seed(0)
    m = LeNet()
    m.bn.running_mean.normal_()
    m.bn.running_var.uniform_(0.5, 2)
    m.eval()
    x = ember.randn(2, 1, 12, 12)
    p = ember.onnx.export(m, (x,), dynamic_axes={'input': [0], 'output': [0]})
    x2 = ember.randn(3, 1, 12, 12)
    np.testing.assert_allclose(run(p, x2)[0], m(x2).detach().numpy(), rtol=1e-4, atol=1e-5)


def test_embedding_mean():
    ember.manual_seed(0)
    m = nn.Sequential(nn.Embedding(10, 4), nn.GELU())
    x = ember.tensor([[1, 2, 3], [4, 5, 9]])
    p = ember.onnx.export(m, (x,))
    np.testing.assert_allclose(run(p, x)[0], m(x).detach().numpy(), rtol=1e-4, atol=1e-5)
    with pytest.raises(ember.onnx.errors.UnsupportedOperatorError, match='version 17'):
        ember.onnx.export(nn.LayerNorm(3), (ember.randn(2, 3),), opset_version=16)
