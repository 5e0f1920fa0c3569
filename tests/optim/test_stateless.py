"""swap_in_optimizer_params_and_state vs torch: a step on swapped-in parameters and state
equals the step of an optimizer built over them; the live optimizer is restored."""
import numpy as np
import torch

import ember
from oracle import check_error
from _optim_util import to_np, convert


def _setup(m):
    live = [m.nn.Parameter(m.ones(3)), m.nn.Parameter(m.ones(2) * 2)]
    opt = m.optim.Adam(live, lr=0.1)
    for p in live:
        p.grad = m.ones(p.shape)
    opt.step()
    other = {'a': m.nn.Parameter(m.ones(3) * 5), 'b': m.nn.Parameter(m.ones(2) * -1)}
    ref = m.optim.Adam(list(other.values()), lr=0.3)
    for i, p in enumerate(other.values()):
        p.grad = m.ones(p.shape) * (i + 1)
    ref.step()
    return live, opt, other, ref.state_dict()


def test_swap_in_step_and_restore():
    out = []
    for m in (ember, torch):
        live, opt, other, sd = _setup(m)
        own_state = opt.state
        with m.optim.swap_in_optimizer_params_and_state(opt, other, sd):
            assert opt.param_groups[0]['lr'] == 0.3
            opt.step()
        assert opt.state is own_state and opt.param_groups[0]['lr'] == 0.1
        assert opt.param_groups[0]['params'][0] is live[0]
        out.append([to_np(p).copy() for p in other.values()])
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_errors():
    def fresh(m):
        opt = m.optim.Adam([m.nn.Parameter(m.ones(1))])
        with m.optim.swap_in_optimizer_params_and_state(opt, {}, {}):
            pass
    check_error(fresh, match='swap_in_optimizer_params_and_state requires initialized optimizer state.')

    def bad_groups(m):
        live, opt, other, sd = _setup(m)
        sd = dict(sd, param_groups=sd['param_groups'] * 2)
        with m.optim.swap_in_optimizer_params_and_state(opt, other, sd):
            pass
    check_error(bad_groups, match='swapin_optim_state has a different number of parameter groups')

    def extra_key(m):
        live, opt, other, sd = _setup(m)
        sd = dict(sd, state={**sd['state'], 5: {}})
        with m.optim.swap_in_optimizer_params_and_state(opt, other, sd):
            pass
    check_error(extra_key, match='got extra keys [5]')
