"""Factory arguments as real programs pass them, vs torch: the ``size=`` keyword, and
Python's number types (``float``, ``int``, ``bool``, ``complex``) wherever a dtype is
taken (factories, ``to``, ``view``, reductions, ``can_cast``/``promote_types``/``finfo``)."""
import warnings

import pytest

from oracle import run_both, errors_both

PY_TYPES = [float, int, bool, complex]
warnings.filterwarnings('ignore', message='.*range.*deprecated.*')


@pytest.mark.parametrize('call', [
    lambda m: m.empty(size=(2, 3)).shape,
    lambda m: m.zeros(size=(2, 3)),
    lambda m: m.ones(size=[2]),
    lambda m: m.ones(size=(2,), dtype=m.int32),
    lambda m: m.zeros(size=()),
    lambda m: m.zeros(size=m.Size([1, 2])),
    lambda m: m.full(size=(2,), fill_value=3),
    lambda m: m.rand(size=(2, 3)).shape,
    lambda m: m.randn(size=(4,)).shape,
    lambda m: m.randint(5, size=(2, 3)).shape,
    lambda m: m.randint(low=0, high=5, size=(2,)).shape,
    lambda m: m.ones(1).new_zeros(size=(2,)),
    lambda m: m.ones(1).new_ones(size=(2, 1)),
    lambda m: m.ones(1).new_empty(size=(2,)).shape,
    lambda m: m.ones(1).new_full(size=(2,), fill_value=2),
])
def test_size_keyword(call):
    run_both(call)


def test_size_keyword_values_seeded():
    def f(m):
        m.manual_seed(3)
        return m.rand(size=(3,)), m.randn(size=(2,))
    run_both(f)


@pytest.mark.parametrize('call, match', [
    (lambda m: m.zeros(2, size=(3,)), "multiple values for argument 'size'"),
    (lambda m: m.ones(1).new_empty(2, size=(2,)), "multiple values for argument 'size'"),
    (lambda m: m.zeros(size=3), "must be tuple of ints, not int"),
    (lambda m: m.randn(size=2), "must be tuple of ints, not int"),
    (lambda m: m.empty(size=None), "must be tuple of ints, not NoneType"),
])
def test_size_keyword_errors(call, match):
    errors_both(call, match)


DT_CALLS = {
    'tensor': lambda m, d: m.tensor([1, 2], dtype=d),
    'as_tensor': lambda m, d: m.as_tensor([1, 0], dtype=d),
    'asarray': lambda m, d: m.asarray([1, 2], dtype=d),
    'zeros': lambda m, d: m.zeros(2, dtype=d),
    'ones': lambda m, d: m.ones(2, dtype=d),
    'empty': lambda m, d: m.empty(2, dtype=d).fill_(1),
    'full': lambda m, d: m.full((2,), 1, dtype=d),
    'scalar_tensor': lambda m, d: m.scalar_tensor(1, dtype=d),
    'empty_strided': lambda m, d: m.empty_strided((2,), (1,), dtype=d).fill_(1),
    'eye': lambda m, d: m.eye(2, dtype=d),
    'zeros_like': lambda m, d: m.zeros_like(m.ones(2, 3), dtype=d),
    'ones_like': lambda m, d: m.ones_like(m.ones(2, 3), dtype=d),
    'empty_like': lambda m, d: m.empty_like(m.ones(2), dtype=d).fill_(1),
    'full_like': lambda m, d: m.full_like(m.ones(2), 1, dtype=d),
    'rand_like': lambda m, d: (m.rand_like(m.ones(2), dtype=d).dtype
                               if d in (float, complex) else 0),
    'randint_like': lambda m, d: (m.randint_like(m.ones(2), 2, dtype=d).dtype
                                  if d is not complex else 0),
    'rand': lambda m, d: m.rand(2, dtype=d).dtype if d in (float, complex) else 0,
    'new_ones': lambda m, d: m.ones(1).new_ones(2, dtype=d),
    'new_zeros': lambda m, d: m.ones(1).new_zeros(2, dtype=d),
    'new_full': lambda m, d: m.ones(1).new_full((2,), 1, dtype=d),
    'new_tensor': lambda m, d: m.ones(1).new_tensor([1], dtype=d),
    'to': lambda m, d: m.ones(2).to(d),
    'to_kw': lambda m, d: m.ones(2).to(dtype=d),
    'to_device': lambda m, d: m.ones(2).to('cpu', d),
    'to_copy': lambda m, d: m.ones(2).to(d, copy=True),
    'view': lambda m, d: m.zeros(2, dtype=m.int64).view(d),
    'sum': lambda m, d: m.ones(2, 3).sum(1, dtype=d) if d is not bool else 0,
    'mean': lambda m, d: m.ones(2, 3).mean(dtype=d) if d in (float, complex) else 0,
    'prod': lambda m, d: m.ones(2, 3).prod(dtype=d),
    'cumsum': lambda m, d: m.ones(2, 3).cumsum(0, dtype=d) if d is not bool else 0,
    'softmax': lambda m, d: m.ones(2, 3).softmax(0, dtype=d) if d is float else 0,
    'log_softmax': lambda m, d: (m.nn.functional.log_softmax(m.ones(3), 0, dtype=d)
                                 if d is float else 0),
    'vector_norm': lambda m, d: m.linalg.vector_norm(m.ones(3), dtype=d) if d is float else 0,
    'linspace': lambda m, d: m.linspace(0, 2, 3, dtype=d) if d is not bool else 0,
    'arange': lambda m, d: m.arange(3, dtype=d) if d in (int, float) else 0,
    'randint': lambda m, d: m.randint(2, (2,), dtype=d).dtype if d is not complex else 0,
    'hann_window': lambda m, d: m.hann_window(3, dtype=d) if d is float else 0,
    'tril_indices': lambda m, d: m.tril_indices(3, 3, dtype=d) if d is int else 0,
    'can_cast': lambda m, d: m.can_cast(d, m.float32),
    'promote_types': lambda m, d: m.promote_types(d, m.float32),
    'finfo': lambda m, d: m.finfo(d).eps if d in (float, complex) else 0,
    'iinfo': lambda m, d: m.iinfo(d).max if d is int else 0,
    'linear': lambda m, d: m.nn.Linear(2, 2, dtype=d).weight.dtype if d is float else 0,
    'module_to': lambda m, d: m.nn.Linear(2, 2).to(d).weight.dtype if d in (float, complex) else 0,
    'module_to_kw': lambda m, d: (m.nn.Linear(2, 2).to('cpu', dtype=d).weight.dtype
                                  if d is float else 0),
    'view_dtype_kw': lambda m, d: m.zeros(2, dtype=m.int64).view(dtype=d),
    'frombuffer': lambda m, d: m.frombuffer(bytearray(16), dtype=d),
    'range': lambda m, d: m.range(0, 2, dtype=d) if d in (int, float) else 0,
    'special_softmax': lambda m, d: m.special.softmax(m.ones(3), 0, dtype=d) if d is float else 0,
    'matrix_norm': lambda m, d: m.linalg.matrix_norm(m.ones(2, 2), dtype=d) if d is float else 0,
}


@pytest.mark.parametrize('name', sorted(DT_CALLS))
@pytest.mark.parametrize('pytype', PY_TYPES, ids=lambda t: t.__name__)
def test_python_type_as_dtype(name, pytype):
    run_both(lambda m: DT_CALLS[name](m, pytype))


@pytest.mark.parametrize('call, match', [
    (lambda m: m.ones(1, dtype=object), "argument 'dtype' must be torch.dtype, not type"),
    (lambda m: m.ones(1).cumsum(0, dtype=str), "argument 'dtype' must be torch.dtype, not type"),
    (lambda m: m.ones(1).to(object), "invalid combination of arguments"),
    (lambda m: m.ones(1).type(float), "invalid type: 'float'"),
    (lambda m: m.ones(1).type(object), "invalid type: 'object'"),
    (lambda m: m.can_cast(object, int), "argument 'from_' (position 1) must be torch.dtype"),
    (lambda m: m.promote_types(float, 1), "argument 'type2' (position 2) must be torch.dtype"),
    (lambda m: m.finfo(object), "argument 'type' (position 1) must be torch.dtype, not type"),
    (lambda m: m.iinfo(bool), "torch.bool is not supported by torch.iinfo"),
    (lambda m: m.set_default_dtype(float), "invalid dtype object"),
    (lambda m: m.frombuffer(bytearray(8), dtype=object), "must be torch.dtype, not type"),
])
def test_python_type_dtype_errors(call, match):
    errors_both(call, match)


@pytest.mark.parametrize('name', ['int8', 'int32', 'int64', 'uint8'])
def test_iinfo_repr(name):
    run_both(lambda m: repr(m.iinfo(getattr(m, name))))


@pytest.mark.parametrize('call', [
    lambda m: m.zeros(6).view(size=(2, 3)).shape,
    lambda m: m.zeros(6).view(dtype=m.int32).shape,
])
def test_view_keywords(call):
    run_both(call)


@pytest.mark.parametrize('call', [
    lambda m: m.zeros(6).view(2, size=(3,)), lambda m: m.zeros(6).view(shape=(6,)),
    lambda m: m.zeros(6).view(dtype=3),
])
def test_view_bad_keywords(call):
    errors_both(call, 'invalid combination of arguments')


@pytest.mark.parametrize('call', [
    lambda m: m.ones(3).expand(size=(2, 3)).shape,
    lambda m: m.ones(2, 3).reshape(shape=(3, 2)).shape,
    lambda m: m.reshape(m.ones(2, 3), shape=(6,)).shape,
    lambda m: m.ones(2, 3).permute(dims=(1, 0)).shape,
    lambda m: m.permute(m.ones(2, 3), dims=[1, 0]).shape,
    lambda m: m.ones(2, 3).sum_to_size(size=(1, 3)),
    lambda m: m.normal(2., 3., size=(1, 2)).shape,
])
def test_varargs_methods_keyword_form(call):
    run_both(call)


@pytest.mark.parametrize('call, match', [
    (lambda m: m.ones(2, 3).reshape(2, shape=(3,)), "got multiple values for argument 'shape'"),
    (lambda m: m.ones(2, 3).reshape(shap=(6,)), 'missing 1 required positional arguments'),
    (lambda m: m.ones(2, 3).permute(dims=3), "argument 'dims' must be tuple of ints, not int"),
    (lambda m: m.ones(2, 3).expand(sizes=(2, 3)), 'missing 1 required positional arguments'),
    (lambda m: m.ones(2, 3).sum_to_size(size=3), "argument 'size' must be tuple of ints"),
])
def test_varargs_methods_keyword_errors(call, match):
    errors_both(call, match)
