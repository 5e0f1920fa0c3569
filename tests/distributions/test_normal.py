"""ember.distributions.normal.Normal against torch.distributions.Normal."""
import numpy as np
import pytest

import ember
from ._part1_util import (build, check_dist, check_expand, check_sample_equal,
                          check_validate, assert_same, tensors, errors_same)

R = np.random.RandomState(0)


@pytest.mark.parametrize('dt', ['float32', 'float64'])
def test_values_and_grads_batched(dt):
    loc = R.randn(4, 3).astype(dt)
    scale = (R.rand(3) + 0.5).astype(dt)
    x = R.randn(2, 4, 3).astype(dt)
    p = R.rand(4, 3).astype(dt) * 0.98 + 0.01
    check_dist('Normal', [loc, scale], x, probs=p)


def test_scalar_params():
    ed, td = check_dist('Normal', [0.5, 2.0], np.array([0.1, -3.0], np.float32), grad=False)
    assert tuple(ed.batch_shape) == ()
    assert repr(ed) == repr(td)


def test_repr():
    ed, td, _, _ = build('Normal', [np.zeros(3, np.float32), np.ones(3, np.float32)])
    assert repr(ed) == repr(td) == 'Normal(loc: torch.Size([3]), scale: torch.Size([3]))'


@pytest.mark.parametrize('dt', ['float32', 'float64'])
def test_samples_equal_torch(dt):
    check_sample_equal('Normal', [R.randn(2, 3).astype(dt), (R.rand(3) + 0.5).astype(dt)],
                       shape=(4,), rtol=1e-5 if dt == 'float32' else None)


def test_expand():
    check_expand('Normal', [np.zeros(3, np.float32), np.ones(3, np.float32)], (2, 3),
                 values=np.ones((2, 3), np.float32))


def test_validate_args():
    check_validate('Normal', [np.zeros(2, np.float32), np.array([1.0, -1.0], np.float32)])
    check_validate('Normal', [np.zeros(2, np.float32), np.array([1.0, np.nan], np.float32)])


def test_validate_sample_errors():
    ed, td, _, _ = build('Normal', [np.zeros(3, np.float32), np.ones(3, np.float32)],
                         validate_args=True)
    ev, tv = tensors([np.full(3, np.nan, np.float32)])
    em, tm = errors_same(lambda: ed.log_prob(ev[0]), lambda: td.log_prob(tv[0]))
    assert em == tm
    ev, tv = tensors([np.zeros(4, np.float32)])
    em, tm = errors_same(lambda: ed.log_prob(ev[0]), lambda: td.log_prob(tv[0]))
    assert em == tm
    em, tm = errors_same(lambda: ed.log_prob(1.0), lambda: td.log_prob(1.0))
    assert em == tm


def test_exp_family_entropy_matches():
    ed, td, _, _ = build('Normal', [R.randn(3), R.rand(3) + 0.5])
    from ember.distributions.exp_family import ExponentialFamily
    e = ExponentialFamily.entropy(ed)
    assert_same(e.detach(), td.entropy(), rtol=1e-6)


def test_sample_n_warns():
    ed, _, _, _ = build('Normal', [np.zeros(2, np.float32), np.ones(2, np.float32)])
    with pytest.warns(FutureWarning, match="sample_n"):
        assert tuple(ed.sample_n(3).shape) == (3, 2)


def test_perplexity_and_module():
    ed, td, _, _ = build('Normal', [np.zeros(2), np.ones(2)])
    assert_same(ed.perplexity(), td.perplexity())
    assert type(ed).__module__ == 'ember.distributions.normal'
