"""nn.utils.spectral_norm / remove_spectral_norm vs torch: the u/v buffers drawn as torch
draws them, power iteration in train mode only, weight_orig, gradients, state_dict keys
and metadata, loading, removal, errors."""
import numpy as np
import pytest
import torch

import ember
from ._common import both, close


@pytest.mark.parametrize('factory,kw,xshape', [
    (lambda nn: nn.Linear(20, 40), {}, (3, 20)),
    (lambda nn: nn.Linear(6, 4), {'n_power_iterations': 3}, (2, 6)),
    (lambda nn: nn.Conv2d(3, 5, 3), {'eps': 1e-6}, (2, 3, 5, 5)),
    (lambda nn: nn.ConvTranspose2d(3, 4, 2), {}, (1, 3, 3, 3)),
    (lambda nn: nn.Linear(6, 4), {'dim': 1}, (2, 6)),
])
def test_spectral_norm_train_eval(factory, kw, xshape):
    x = np.random.default_rng(0).standard_normal(xshape).astype(np.float32)
    up = None

    def f(lib):
        nonlocal up
        m = lib.nn.utils.spectral_norm(factory(lib.nn), **kw)
        u0, v0 = m.weight_u.clone(), m.weight_v.clone()
        xs = lib.from_numpy(x)
        y1 = m(xs)
        y2 = m(xs)
        if up is None:
            up = np.random.default_rng(1).standard_normal(tuple(y2.shape)).astype(np.float32)
        y2.backward(lib.from_numpy(up))
        m.eval()
        u_before = m.weight_u.clone()
        y3 = m(xs)
        assert (m.weight_u == u_before).all()
        sd = m.state_dict()
        return (u0, v0, y1, y2, y3, m.weight_u, m.weight_v, m.weight_orig.grad, m.bias.grad,
                list(sd), dict(sd._metadata['']), [n for n, _ in m.named_buffers()])
    t, e = both(f)
    close(t, e, rtol=1e-4, atol=1e-5)


def test_spectral_norm_remove_and_load():
    def f(lib):
        m = lib.nn.utils.spectral_norm(lib.nn.Linear(5, 3))
        m(lib.ones(1, 5))
        sd = {k: v.clone() for k, v in m.state_dict().items()}
        m2 = lib.nn.utils.spectral_norm(lib.nn.Linear(5, 3))
        m2.load_state_dict(sd)
        m2.eval()
        y = m2(lib.ones(1, 5))
        lib.nn.utils.remove_spectral_norm(m2)
        return (y, m2.weight, list(m2.state_dict()), isinstance(m2.weight, lib.nn.Parameter),
                len(m2._forward_pre_hooks), len(m2._state_dict_hooks))
    t, e = both(f)
    close(t, e, rtol=1e-5, atol=1e-6)


def test_remove_spectral_norm_removes_load_hook():
    # NOTE: PyTorch 2.13 leaves this hook behind (and then refuses a plain state dict)
    m = ember.nn.utils.spectral_norm(ember.nn.Linear(3, 2))
    ember.nn.utils.remove_spectral_norm(m)
    assert len(m._load_state_dict_pre_hooks) == 0
    m.load_state_dict(ember.nn.Linear(3, 2).state_dict())


def test_spectral_norm_state_dict_loads_in_torch():
    ember.manual_seed(0)
    m = ember.nn.utils.spectral_norm(ember.nn.Linear(4, 3))
    m(ember.ones(2, 4))
    sd = {k: torch.from_numpy(v.numpy().copy()) for k, v in m.state_dict().items()}
    tm = torch.nn.utils.spectral_norm(torch.nn.Linear(4, 3))
    tm.load_state_dict(sd)
    tm.eval(), m.eval()
    close(tm(torch.ones(2, 4)), m(ember.ones(2, 4)), rtol=1e-6, atol=1e-6)


def test_spectral_norm_errors():
    msgs = []
    for lib in (torch, ember):
        with pytest.raises(ValueError) as a:
            lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)
        m = lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2))
        with pytest.raises(RuntimeError) as b:
            lib.nn.utils.spectral_norm(m)
        with pytest.raises(ValueError) as c:
            lib.nn.utils.remove_spectral_norm(lib.nn.Linear(2, 2))
        with pytest.raises(ValueError) as d:
            lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2, bias=False), name='bias')
        msgs.append((str(a.value), str(b.value), str(c.value).split(' not found')[0],
                     str(d.value)))
    assert msgs[0] == msgs[1]


def test_loads_version0_state_dict():
    """A state dict saved before the format had ``weight_v`` (no version in the metadata,
    ``weight`` present): the load pre-hook solves for ``v``."""
    g = np.random.default_rng(9)
    # (a tall weight, so that W^T W is invertible and v is well defined)
    w_orig = g.standard_normal((4, 3)).astype(np.float32)
    u = g.standard_normal(4).astype(np.float32)
    u /= np.linalg.norm(u)
    w = (w_orig / 2.5).astype(np.float32)

    def f(lib):
        m = lib.nn.utils.spectral_norm(lib.nn.Linear(3, 4))
        sd = {'bias': lib.zeros(4), 'weight_orig': lib.from_numpy(w_orig.copy()),
              'weight': lib.from_numpy(w.copy()), 'weight_u': lib.from_numpy(u.copy())}
        m.load_state_dict(sd)
        m.eval()
        return m.weight_v, m(lib.ones(1, 3)), sorted(m.state_dict())
    t, e = both(f)
    close(t, e, rtol=1e-4, atol=1e-5)
