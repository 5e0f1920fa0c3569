"""RelaxedOneHotCategorical and ExpRelaxedCategorical against torch's."""
import numpy as np
import pytest

import ember
from ._part2_util import (build, check_bad_value, check_common, check_expand,
                          check_rsample_grad, check_sample_equal, check_validation)

P = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
T = np.array(0.7)


@pytest.mark.parametrize("name", ["RelaxedOneHotCategorical", "ExpRelaxedCategorical"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("param", ["probs", "logits"])
def test_values_and_grads(name, dtype, param):
    a = P if param == "probs" else np.log(P) + 0.4
    v = np.array([[0.2, 0.3, 0.5], [0.05, 0.05, 0.9]])
    vals = [v] if name == "RelaxedOneHotCategorical" else [np.log(v)]
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-14)
    ed, td, ep, tp = build("relaxed_categorical", name, (T,), {param: a}, dtype=dtype,
                           requires_grad=True)
    check_common(ed, td, ep, tp, vals, attrs=(), **tol)
    check_expand(ed, td, (4, 2), vals, **tol)
    check_rsample_grad(ed, td, ep, tp, shape=(3,), **tol)
    check_sample_equal(ed, td, **tol)


def test_errors():
    check_validation("relaxed_categorical", "RelaxedOneHotCategorical",
                     (T, np.array([0.5, -0.5])))
    ed, td, _, _ = build("relaxed_categorical", "RelaxedOneHotCategorical", (T, P),
                         validate_args=True)
    check_bad_value(ed, td, np.array([0.5, 0.6, 0.1]))
