"""fuse_modules / fuse_modules_qat and the fuser methods against torch: the fused model's
structure (repr, state_dict keys), BN-folding numbers, hooks moved, errors."""
import numpy as np
import pytest
import torch

import ember
import ember.ao.quantization as eq
from ao._quant_util import keep_rng  # noqa: F401  (autouse fixture)
from ao._quant_util import both, close, e_tensor


def _model(T):
    nn = T.nn

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 4, 3)
            self.bn1 = nn.BatchNorm2d(4)
            self.relu1 = nn.ReLU()
            self.conv2 = nn.Conv2d(4, 4, 3, bias=False)
            self.bn2 = nn.BatchNorm2d(4)
            self.sub = nn.Sequential(nn.Conv1d(2, 2, 1), nn.ReLU())
            self.bn3 = nn.BatchNorm2d(4)
            self.relu3 = nn.ReLU()
            self.fc = nn.Linear(16, 5)
            self.bn4 = nn.BatchNorm1d(5)
            self.fc2 = nn.Linear(5, 3)
            self.relu4 = nn.ReLU()

        def forward(self, x):
            x = self.relu1(self.bn1(self.conv1(x)))
            x = self.relu3(self.bn3(self.bn2(self.conv2(x))))
            x = self.bn4(self.fc(x.reshape(x.shape[0], -1)))
            return self.relu4(self.fc2(x))
    return M()


GROUPS = [['conv1', 'bn1', 'relu1'], ['conv2', 'bn2'], ['bn3', 'relu3'], ['fc', 'bn4'],
          ['fc2', 'relu4'], ['sub.0', 'sub.1']]


def _with_stats(e, t):
    """Give the batch norms non-trivial running statistics (same in both)."""
    rng = np.random.default_rng(0)
    for (n, em), tm in zip(e.named_modules(), t.modules()):
        if isinstance(tm, torch.nn.modules.batchnorm._BatchNorm):
            c = tm.num_features
            for name, v in (('running_mean', rng.standard_normal(c)),
                            ('running_var', rng.uniform(0.5, 2, c)),
                            ('weight', rng.uniform(0.5, 1.5, c)),
                            ('bias', rng.standard_normal(c))):
                with torch.no_grad():
                    getattr(tm, name).copy_(torch.tensor(v, dtype=torch.float32))
                with ember.no_grad():
                    getattr(em, name).copy_(e_tensor(np.asarray(v, np.float32)))


def test_fuse_modules_eval_matches_torch():
    e, t = both(_model)
    _with_stats(e, t)
    e.eval(), t.eval()
    fe = eq.fuse_modules(e, GROUPS)
    ft = torch.ao.quantization.fuse_modules(t, GROUPS)
    assert fe is not e and type(e.conv1) is ember.nn.Conv2d      # a copy by default
    assert repr(fe) == repr(ft)
    assert list(fe.state_dict()) == list(ft.state_dict())
    for k, v in ft.state_dict().items():
        np.testing.assert_allclose(fe.state_dict()[k].numpy(), v.numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=k)
    x = np.random.default_rng(1).standard_normal((2, 3, 6, 6)).astype(np.float32)
    close(fe(e_tensor(x)), ft(torch.from_numpy(x)), atol=1e-5)
    close(fe(e_tensor(x)), e(e_tensor(x)), atol=1e-5)          # folding keeps the numbers


def test_fuse_modules_qat_matches_torch_and_inplace():
    e, t = both(_model)
    e.train(), t.train()
    fe = eq.fuse_modules_qat(e, GROUPS, inplace=True)
    ft = torch.ao.quantization.fuse_modules_qat(t, GROUPS, inplace=True)
    assert fe is e
    assert repr(fe) == repr(ft)
    assert list(fe.state_dict()) == list(ft.state_dict())
    assert fe.bn1.training      # the Identity keeps the first module's mode


def test_single_list_and_hooks_moved():
    def make(T):
        return T.nn.Sequential(T.nn.Conv2d(2, 2, 1), T.nn.ReLU()).eval()
    e, t = both(make)
    calls = []
    for m in (e, t):
        m[0].register_forward_pre_hook(lambda mod, a: calls.append(type(mod).__name__))
        m[1].register_forward_hook(lambda mod, a, o: calls.append('post'))
    fe = eq.fuse_modules(e, ['0', '1'])
    ft = torch.ao.quantization.fuse_modules(t, ['0', '1'])
    assert len(fe[0]._forward_pre_hooks) == len(ft[0]._forward_pre_hooks) == 1
    assert len(fe[0]._forward_hooks) == len(ft[0]._forward_hooks) == 1
    x = np.ones((1, 2, 2, 2), np.float32)
    fe(e_tensor(x)), ft(torch.from_numpy(x))
    assert calls == ['ConvReLU2d', 'post', 'ConvReLU2d', 'post']


def test_custom_fuser_mapping():
    def fuse_linear_sigmoid(is_qat, lin, sig):
        return lin
    for T, q in ((torch, torch.ao.quantization), (ember, eq)):
        m = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.Sigmoid())
        cfg = {'additional_fuser_method_mapping':
               {(T.nn.Linear, T.nn.Sigmoid): fuse_linear_sigmoid}}
        f = q.fuse_modules(m, ['0', '1'], fuse_custom_config_dict=cfg)
        assert type(f[0]) is T.nn.Linear and type(f[1]) is T.nn.Identity


@pytest.mark.parametrize('case', ['unknown', 'modes', 'qat_bn_features', 'convtranspose_qat'])
def test_errors_as_torch(case):
    def run(T, q):
        nn = T.nn
        if case == 'unknown':
            m = nn.Sequential(nn.Linear(2, 2), nn.Sigmoid())
            return q.fuse_modules(m, ['0', '1'])
        if case == 'modes':
            m = nn.Sequential(nn.Conv2d(2, 2, 1), nn.BatchNorm2d(2))
            m[0].eval()
            return q.fuse_modules(m, ['0', '1'])
        if case == 'qat_bn_features':
            return q.fuse_conv_bn(True, nn.Conv2d(2, 3, 1), nn.BatchNorm2d(2))
        m = nn.Sequential(nn.ConvTranspose2d(2, 2, 1), nn.BatchNorm2d(2))
        return q.fuse_modules_qat(m, ['0', '1'])
    with pytest.raises(Exception) as te:
        run(torch, torch.ao.quantization)
    with pytest.raises(Exception) as ee:
        run(ember, eq)
    assert type(ee.value) is type(te.value)
    assert str(ee.value).replace('ember.', 'torch.').replace('torch.nn.modules', '') == \
        str(te.value).replace('torch.nn.modules', '')


def test_get_fuser_method_and_new():
    assert eq.get_fuser_method((ember.nn.Conv2d, ember.nn.BatchNorm2d)) is eq.fuse_conv_bn
    from ember.ao.quantization.utils import MatchAllNode
    f = eq.get_fuser_method_new((ember.nn.ReLU, ember.nn.Conv2d),
                                {(MatchAllNode, ember.nn.Conv2d): 'hit'})
    assert f == 'hit'
    with pytest.raises(AssertionError, match='did not find fuser method for'):
        eq.get_fuser_method_new((ember.nn.ReLU,), {})
