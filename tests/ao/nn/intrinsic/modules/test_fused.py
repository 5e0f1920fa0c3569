"""ember.ao.nn.intrinsic's fused float modules against torch.ao.nn.intrinsic."""
import numpy as np
import pytest
import torch

import ember
import ember.ao.nn.intrinsic.modules as e_nni
from ao._quant_util import keep_rng  # noqa: F401  (autouse fixture)
from ao._quant_util import both, close, e_tensor



def _nni(T):
    return torch.ao.nn.intrinsic if T is torch else e_nni


CASES = [
    ('ConvReLU1d', lambda nn: (nn.Conv1d(2, 3, 3), nn.ReLU()), (2, 2, 7)),
    ('ConvReLU2d', lambda nn: (nn.Conv2d(2, 3, 3), nn.ReLU()), (2, 2, 6, 6)),
    ('ConvReLU3d', lambda nn: (nn.Conv3d(2, 3, 3), nn.ReLU()), (2, 2, 4, 4, 4)),
    ('LinearReLU', lambda nn: (nn.Linear(4, 3), nn.ReLU()), (5, 4)),
    ('ConvBn1d', lambda nn: (nn.Conv1d(2, 3, 3), nn.BatchNorm1d(3)), (2, 2, 7)),
    ('ConvBn2d', lambda nn: (nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3)), (2, 2, 6, 6)),
    ('ConvBn3d', lambda nn: (nn.Conv3d(2, 3, 3), nn.BatchNorm3d(3)), (2, 2, 4, 4, 4)),
    ('ConvBnReLU1d', lambda nn: (nn.Conv1d(2, 3, 3), nn.BatchNorm1d(3), nn.ReLU()), (2, 2, 7)),
    ('ConvBnReLU2d', lambda nn: (nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU()),
     (2, 2, 6, 6)),
    ('ConvBnReLU3d', lambda nn: (nn.Conv3d(2, 3, 3), nn.BatchNorm3d(3), nn.ReLU()),
     (2, 2, 4, 4, 4)),
    ('BNReLU2d', lambda nn: (nn.BatchNorm2d(3), nn.ReLU()), (2, 3, 4, 4)),
    ('BNReLU3d', lambda nn: (nn.BatchNorm3d(3), nn.ReLU()), (2, 3, 3, 3, 3)),
    ('LinearBn1d', lambda nn: (nn.Linear(4, 3), nn.BatchNorm1d(3)), (5, 4)),
    ('LinearLeakyReLU', lambda nn: (nn.Linear(4, 3), nn.LeakyReLU(0.2)), (5, 4)),
    ('LinearTanh', lambda nn: (nn.Linear(4, 3), nn.Tanh()), (5, 4)),
]


@pytest.mark.parametrize('name,mods,shape', CASES, ids=[c[0] for c in CASES])
def test_fused_module_matches_torch(name, mods, shape):
    e, t = both(lambda T: getattr(_nni(T), name)(*mods(T.nn)))
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())
    assert isinstance(e, e_nni._FusedModule)
    assert isinstance(e, ember.nn.Sequential)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    close(e(e_tensor(x)), t(torch.from_numpy(x)))
    assert type(e).__module__ == 'ember.ao.nn.intrinsic.modules.fused'


@pytest.mark.parametrize('name,args', [
    ('ConvReLU2d', lambda nn: (nn.Conv1d(1, 1, 1), nn.ReLU())),
    ('LinearReLU', lambda nn: (nn.Linear(1, 1), nn.ReLU6())),
    ('ConvBnReLU2d', lambda nn: (nn.Conv2d(1, 1, 1), nn.BatchNorm3d(1), nn.ReLU())),
    ('BNReLU2d', lambda nn: (nn.BatchNorm1d(1), nn.ReLU())),
    ('LinearTanh', lambda nn: (nn.Linear(1, 1), nn.Sigmoid())),
])
def test_wrong_types_raise_as_torch(name, args):
    with pytest.raises(AssertionError) as te:
        getattr(torch.ao.nn.intrinsic, name)(*args(torch.nn))
    with pytest.raises(AssertionError) as ee:
        getattr(e_nni, name)(*args(ember.nn))
    assert str(ee.value) == str(te.value)


def test_conv_add_fused_forms():
    for name in ('ConvAdd2d', 'ConvAddReLU2d'):
        def make(T):
            extra = (T.nn.ReLU(),) if name == 'ConvAddReLU2d' else ()
            return getattr(_nni(T), name)(T.nn.Conv2d(2, 2, 1), T.add, *extra)
        e, t = both(make)
        assert list(e.state_dict()) == list(t.state_dict())
        rng = np.random.default_rng(1)
        a, b = (rng.standard_normal((1, 2, 3, 3)).astype(np.float32) for _ in range(2))
        close(e(e_tensor(a), e_tensor(b)), t(torch.from_numpy(a), torch.from_numpy(b)))
