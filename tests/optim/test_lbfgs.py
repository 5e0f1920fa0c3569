"""LBFGS vs torch: trajectories with a closure (plain and strong-Wolfe line search,
history sizes, tolerances), state dict contents and resumption, errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import check_error
from _optim_util import (check_against_torch, check_defaults_and_repr, one_param, train,
                         model, to_np, convert, assert_params_close, assert_state_close)

OPTIONS = [
    dict(lr=1, max_iter=5), dict(lr=0.5, max_iter=5, history_size=2),
    dict(lr=1, max_iter=5, line_search_fn='strong_wolfe'),
    dict(lr=1, max_iter=6, history_size=3, line_search_fn='strong_wolfe', max_eval=9),
    dict(lr=1, max_iter=5, tolerance_grad=1e-2), dict(lr=1, max_iter=5, tolerance_change=1e-3),
]


@pytest.mark.parametrize('kw', OPTIONS)
def test_matches_torch_float64(kw):
    # float64: the algorithm's logic (branches, line search, history) agrees exactly
    check_against_torch('LBFGS', kw, steps=3, dtype='float64', closure=True, rtol=1e-9,
                        atol=1e-11)


@pytest.mark.parametrize('kw', OPTIONS[::2])
def test_matches_torch_float32(kw):
    # quasi-Newton iterations amplify float32 round-off (the curvature scalars come from
    # differences of dot products): parameters compared with a looser tolerance
    ne, _ = train(ember, 'LBFGS', 2, None, kw, closure=True)
    nt, _ = train(torch, 'LBFGS', 2, None, kw, closure=True)
    assert_params_close(ne, nt, 1e-4, 1e-5)


def test_tensor_lr():
    kw = dict(lr=('tensor', 0.5), max_iter=4)
    ne, _ = train(ember, 'LBFGS', 2, None, kw, closure=True, dtype='float64')
    nt, _ = train(torch, 'LBFGS', 2, None, kw, closure=True, dtype='float64')
    assert_params_close(ne, nt, 1e-9, 1e-11)


def test_state_dict_loads_either_way():
    kw = dict(lr=1, max_iter=4, history_size=3, line_search_fn='strong_wolfe')
    nt, ot = train(torch, 'LBFGS', 2, None, kw, closure=True, dtype='float64')
    ntf, otf = train(torch, 'LBFGS', 2, None, kw, net=nt, opt=ot, start=2, closure=True,
                     dtype='float64')
    for src, dst in ((torch, ember), (ember, torch)):
        n0, o0 = train(src, 'LBFGS', 2, None, kw, closure=True, dtype='float64')
        n1 = model(dst, 'float64')
        with dst.no_grad():
            for p1, p0 in zip(n1.parameters(), n0.parameters()):
                p1.copy_(dst.from_numpy(to_np(p0).copy()))
        o1 = dst.optim.LBFGS(n1.parameters(), **kw)
        o1.load_state_dict(convert(o0.state_dict(), dst))
        train(dst, 'LBFGS', 2, None, kw, net=n1, opt=o1, start=2, closure=True, dtype='float64')
        assert_params_close(n1, ntf, 1e-9, 1e-11)


def test_state_contents():
    kw = dict(lr=1, max_iter=4, history_size=3)
    _, oe = train(ember, 'LBFGS', 2, None, kw, closure=True, dtype='float64')
    _, ot = train(torch, 'LBFGS', 2, None, kw, closure=True, dtype='float64')
    assert_state_close(oe.state_dict(), ot.state_dict(), 1e-9, 1e-11)


def test_quadratic_converges_like_torch():
    a = np.array([[3.0, 0.5], [0.5, 1.0]])
    b = np.array([1.0, -2.0])
    res = []
    for m in (ember, torch):
        x = m.nn.Parameter(m.zeros(2, dtype=m.float64))
        A, B = m.from_numpy(a.copy()), m.from_numpy(b.copy())
        opt = m.optim.LBFGS([x], line_search_fn='strong_wolfe')

        def closure():
            opt.zero_grad()
            loss = 0.5 * (x @ (A @ x)) - (B * x).sum()
            loss.backward()
            return loss
        loss = opt.step(closure)
        res.append((to_np(x).copy(), float(loss.detach()), opt.state[x]['func_evals'], opt.state[x]['n_iter']))
    np.testing.assert_allclose(res[0][0], np.linalg.solve(a, b), rtol=1e-4)
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-10)
    assert res[0][1:] == res[1][1:]


def test_defaults_and_repr():
    check_defaults_and_repr('LBFGS')
    check_defaults_and_repr('LBFGS', lr=0.5, max_iter=7, history_size=4,
                            line_search_fn='strong_wolfe')


def test_errors():
    check_error(lambda m: m.optim.LBFGS(one_param(m), lr=-1.0), match='Invalid learning rate: -1.0')
    check_error(lambda m: m.optim.LBFGS([{'params': one_param(m)}, {'params': one_param(m)}]),
                match="LBFGS doesn't support per-parameter options")

    def bad_ls(m):
        p = one_param(m)
        opt = m.optim.LBFGS(p, line_search_fn='armijo')

        def closure():
            opt.zero_grad()
            loss = (p[0] ** 2).sum()
            loss.backward()
            return loss
        opt.step(closure)
    check_error(bad_ls, match="only 'strong_wolfe' is supported")
