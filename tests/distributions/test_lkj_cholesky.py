"""ember.distributions.LKJCholesky against torch.distributions.LKJCholesky."""
import numpy as np
import pytest
import torch

import ember
from oracle import to_np
from ._part2_util import (build, check_bad_value, check_common, check_expand,
                          check_sample_equal, check_validation, errors_like_torch, same)

CONC = np.array([0.5, 1.0, 3.0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("dim", [2, 4])
def test_values_and_grads(dtype, dim):
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-9, atol=1e-10)
    ed, td, ep, tp = build("lkj_cholesky", "LKJCholesky", (dim, CONC), dtype=dtype,
                           requires_grad=True)
    # values: samples of torch's own
    torch.manual_seed(0)
    v = td.sample((2,)).detach().numpy()
    check_common(ed, td, ep, tp, [v], attrs=(), **tol)
    check_expand(ed, td, (2, 3), [v[0]], **tol)
    check_sample_equal(ed, td, shapes=((), (2,)), **tol)


def test_scalar_concentration():
    ed, td, _, _ = build("lkj_cholesky", "LKJCholesky", (3, 2.0))
    assert tuple(ed.batch_shape) == () == tuple(td.batch_shape)
    check_sample_equal(ed, td, rtol=1e-5, atol=1e-6)
    ember.manual_seed(0)
    L = ed.sample((50,))
    M = L @ L.mT
    assert np.allclose(to_np(M.diagonal(dim1=-2, dim2=-1)), 1, atol=1e-5)


def test_errors():
    errors_like_torch(lambda: ember.distributions.LKJCholesky(1),
                      lambda: torch.distributions.LKJCholesky(1), "Found dim=1")
    check_validation("lkj_cholesky", "LKJCholesky", (3, np.array([1., -1.])))
    ed, td, _, _ = build("lkj_cholesky", "LKJCholesky", (2, 1.0), validate_args=True)
    check_bad_value(ed, td, np.array([[1., 0.], [0.5, 1.]]))
