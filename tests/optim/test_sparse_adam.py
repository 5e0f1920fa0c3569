"""SparseAdam vs torch: torch's sparse embedding gradients against ember's dense ones
(ember has no sparse tensors; SparseAdam treats the rows with a non-zero gradient as the
present entries), maximize, state, errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import check_error
from _optim_util import one_param, to_np, convert


def _run(m, steps=20, **kw):
    torch.manual_seed(0)
    w = torch.randn(10, 3).numpy()
    emb = m.nn.Embedding(10, 3, **({'sparse': True} if m is torch else {}))
    with m.no_grad():
        emb.weight.copy_(m.from_numpy(w.copy()))
    opt = m.optim.SparseAdam(emb.parameters(), **kw)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        idx = m.from_numpy(rng.integers(0, 6, size=(4,)).astype(np.int64))   # rows 6.. unused
        tgt = m.from_numpy(rng.standard_normal((4, 3)).astype(np.float32))
        opt.zero_grad()
        ((emb(idx) - tgt) ** 2).sum().backward()
        opt.step()
    return emb, opt


@pytest.mark.parametrize('kw', [dict(), dict(lr=0.05), dict(lr=0.05, betas=(0.5, 0.9)),
                                dict(lr=0.05, maximize=True, eps=1e-4)])
def test_matches_torch_sparse_gradients(kw):
    ee, oe = _run(ember, **kw)
    et, ot = _run(torch, **kw)
    np.testing.assert_allclose(to_np(ee.weight), to_np(et.weight), rtol=2e-5, atol=2e-6)
    se, st = oe.state_dict(), ot.state_dict()
    assert se['param_groups'] == st['param_groups']
    assert list(se['state'][0]) == list(st['state'][0]) == ['step', 'exp_avg', 'exp_avg_sq']
    assert se['state'][0]['step'] == st['state'][0]['step'] == 20
    for k in ('exp_avg', 'exp_avg_sq'):
        np.testing.assert_allclose(se['state'][0][k].numpy(), st['state'][0][k].to_dense().numpy()
                                   if st['state'][0][k].is_sparse else st['state'][0][k].numpy(),
                                   rtol=2e-5, atol=2e-6)


def test_unused_rows_untouched_and_state_loads():
    ee, oe = _run(ember, 5, lr=0.1)
    torch.manual_seed(0)
    w0 = torch.randn(10, 3).numpy()
    assert np.array_equal(to_np(ee.weight)[6:], w0[6:])
    et, ot = _run(torch, 5, lr=0.1)
    p = ember.nn.Parameter(ember.from_numpy(to_np(et.weight).copy()))
    o2 = ember.optim.SparseAdam([p], lr=0.1)
    o2.load_state_dict(convert(ot.state_dict(), ember))
    assert o2.state[p]['step'] == 5


def test_defaults_and_repr():
    e = ember.optim.SparseAdam(one_param(ember))
    t = torch.optim.SparseAdam(one_param(torch))
    assert e.defaults == t.defaults and repr(e) == repr(t)


@pytest.mark.parametrize('kw, match', [
    (dict(lr=0.0), 'Invalid learning rate: 0.0'), (dict(eps=0.0), 'Invalid epsilon value: 0.0'),
    (dict(betas=(1.0, 0.9)), 'Invalid beta parameter at index 0: 1.0'),
    (dict(betas=(0.9, 1.0)), 'Invalid beta parameter at index 1: 1.0'),
])
def test_invalid(kw, match):
    check_error(lambda m: m.optim.SparseAdam(one_param(m), **kw), match=match)


def test_complex_refused():
    check_error(lambda m: m.optim.SparseAdam([m.nn.Parameter(m.ones(2, dtype=m.complex64))]),
                match='SparseAdam does not support complex parameters')
