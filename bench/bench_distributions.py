"""torch.distributions speed (issue 7): `python bench/bench_distributions.py [workload ...]`.

- Normal(loc, scale).log_prob(x) over 1M float32 elements: <= 1.5x torch
  (part 1's workloads: normal_log_prob, normal_rsample, transformed_log_prob;
   part 2 may add one workload below)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
os.environ.setdefault('OMP_NUM_THREADS', '1')

import numpy as np  # noqa: E402
import torch  # noqa: E402

import ember  # noqa: E402
from _runner import compare  # noqa: E402

torch.set_num_threads(1)
N = 1 << 20


def _arrays():
    r = np.random.RandomState(0)
    return (r.randn(N).astype(np.float32), (r.rand(N) + 0.5).astype(np.float32),
            r.randn(N).astype(np.float32))


def normal_log_prob():
    loc, scale, x = _arrays()
    de = ember.distributions.Normal(ember.tensor(loc), ember.tensor(scale), validate_args=False)
    dt = torch.distributions.Normal(torch.tensor(loc), torch.tensor(scale), validate_args=False)
    xe, xt = ember.tensor(x), torch.tensor(x)
    compare('Normal.log_prob, 1M float32', {'ember': lambda: de.log_prob(xe),
                                            'torch': lambda: dt.log_prob(xt)},
            number=10, target=1.5)
    de = ember.distributions.Normal(ember.tensor(loc), ember.tensor(scale))
    dt = torch.distributions.Normal(torch.tensor(loc), torch.tensor(scale))
    compare('Normal.log_prob, 1M float32, validate_args', {'ember': lambda: de.log_prob(xe),
                                                          'torch': lambda: dt.log_prob(xt)},
            number=10, target=1.5)


def normal_rsample():
    loc, scale, _ = _arrays()
    de = ember.distributions.Normal(ember.tensor(loc), ember.tensor(scale))
    dt = torch.distributions.Normal(torch.tensor(loc), torch.tensor(scale))
    compare('Normal.rsample, 1M float32', {'ember': lambda: de.rsample(),
                                           'torch': lambda: dt.rsample()}, number=5)


def transformed_log_prob():
    loc, scale, x = _arrays()
    de = ember.distributions.LogNormal(ember.tensor(loc), ember.tensor(scale), validate_args=False)
    dt = torch.distributions.LogNormal(torch.tensor(loc), torch.tensor(scale), validate_args=False)
    xe, xt = ember.tensor(np.abs(x) + 0.1), torch.tensor(np.abs(x) + 0.1)
    compare('LogNormal.log_prob, 1M float32', {'ember': lambda: de.log_prob(xe),
                                               'torch': lambda: dt.log_prob(xt)}, number=10)


PART1 = ['normal_log_prob', 'normal_rsample', 'transformed_log_prob']

if __name__ == '__main__':
    for w in (sys.argv[1:] or PART1):
        globals()[w]()
