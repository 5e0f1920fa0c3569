"""The composable activation checkpoint (``distributed._composable.checkpoint``) against
torch's: the module keeps its class and names, its forward runs again in backward (its
hooks included), the gradients equal the uncheckpointed ones (dropout replayed), and
torch's registry, double-application and argument errors."""
import pytest
import torch

import ember
from ember.distributed._composable import _get_registry, checkpoint, contract


def _run(lib, ckpt):
    calls, pre = [], []

    class Block(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(4, 4, dtype=lib.float64)
            self.drop = lib.nn.Dropout(0.3)

        def forward(self, x, scale=1.0):
            calls.append(1)
            return self.drop(self.lin(x).tanh()) * scale

    lib.manual_seed(0)
    m = lib.nn.Sequential(Block(), lib.nn.Linear(4, 2, dtype=lib.float64))
    assert ckpt(m[0]) is m[0] and type(m[0]) is Block
    m[0].register_forward_pre_hook(lambda mod, a: pre.append(1))
    x = lib.tensor([[0.1, -0.2, 0.3, 0.4], [0.5, 0.6, -0.7, 0.8], [0.9, 1.0, 1.1, -1.2]],
                   dtype=lib.float64, requires_grad=True)
    y = m[1](m[0](x, scale=2.0)).square().sum()
    counts = [len(calls), len(pre)]
    y.backward()
    counts += [len(calls), len(pre)]
    with lib.no_grad():
        m(x)
    counts.append(len(calls))
    grads = [x.grad.tolist()] + [p.grad.tolist() for p in m.parameters()]
    return counts, y.item(), grads, [n for n, _ in m.named_parameters()]


@pytest.mark.parametrize('apply', [True, False])
def test_checkpoint_matches_torch(apply):
    from torch.distributed._composable import checkpoint as tckpt
    t = _run(torch, tckpt if apply else (lambda mod: mod))
    e = _run(ember, checkpoint if apply else (lambda mod: mod))
    assert t[0] == e[0] == ([1, 1, 2, 2, 3] if apply else [1, 1, 1, 1, 2])
    assert t[1] == pytest.approx(e[1], rel=1e-12)
    for a, b in zip(t[2], e[2]):
        assert torch.allclose(torch.tensor(a), torch.tensor(b), rtol=1e-12, atol=1e-14)
    assert t[3] == e[3]


def test_registry_and_errors():
    from torch.distributed._composable import _get_registry as treg
    from torch.distributed._composable import checkpoint as tckpt
    for lib, ck, reg in ((torch, tckpt, treg), (ember, checkpoint, _get_registry)):
        m = lib.nn.Linear(2, 2)
        assert reg(m) is None and ck.state(m) is None
        ck(m)
        assert list(reg(m)) == ['checkpoint'] and ck.state(m).enable_hook is True
        with pytest.raises(AssertionError, match='can only be applied to a module once. '
                           'checkpoint has already been applied'):
            ck(m)
        with pytest.raises(NotImplementedError, match='use_reentrant=True is not supported'):
            ck(lib.nn.Linear(1, 1), use_reentrant=True)
        with pytest.raises(ValueError, match='Unexpected keyword arguments: foo'):
            ck(lib.nn.Linear(1, 1), foo=True)


def test_contract_state():
    class S:
        pass

    @contract(S)
    def tag(module, value):
        tag.state(module).value = value
        return module

    m = ember.nn.Linear(1, 1)
    assert tag(m, 3) is m and tag.state(m).value == 3 and isinstance(tag.state(m), S)
    assert list(_get_registry(m)) == ['tag']
