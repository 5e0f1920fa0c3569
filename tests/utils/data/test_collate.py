"""default_collate / default_convert against torch's."""
import collections

import numpy as np
import pytest
import torch
import torch.utils.data as TD

import ember
import ember.utils.data as ED

Point = collections.namedtuple('Point', 'x y')


def norm(x):
    """A comparable form: tensors -> ('T', dtype, values)."""
    if isinstance(x, (ember.Tensor, torch.Tensor)):
        return ('T', str(x.dtype).replace('torch.', ''), tuple(x.shape), x.tolist())
    if isinstance(x, dict):
        return (type(x).__name__, {k: norm(v) for k, v in x.items()})
    if isinstance(x, tuple) and hasattr(x, '_fields'):
        return (type(x).__name__, tuple(norm(v) for v in x))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [norm(v) for v in x])
    if isinstance(x, np.ndarray):
        return ('A', x.tolist())
    return x


def batches(m):
    """The same samples built with module ``m``."""
    return {
        'tensors': [m.tensor([1., 2.]), m.tensor([3., 4.])],
        'int_tensors': [m.tensor(1), m.tensor(2)],
        'numpy': [np.arange(3, dtype=np.float32), np.ones(3, dtype=np.float32)],
        'numpy_int': [np.arange(2), np.arange(2)],
        'numpy_scalars': [np.float32(1.5), np.float32(2.5)],
        'numpy_int_scalars': [np.int16(1), np.int16(2)],
        'floats': [1.5, 2.0],
        'ints': [1, 2, 3],
        'bools': [True, False],
        'strings': ['a', 'bc'],
        'bytes': [b'a', b'b'],
        'dicts': [{'a': 1, 'b': m.ones(2)}, {'a': 2, 'b': m.zeros(2)}],
        'namedtuples': [Point(1, 2.0), Point(3, 4.0)],
        'tuples': [(1, 'a', m.ones(1)), (2, 'b', m.zeros(1))],
        'lists': [[1, 2], [3, 4]],
        'nested': [{'p': [Point(1, 2), 'x']}, {'p': [Point(3, 4), 'y']}],
    }


@pytest.mark.parametrize('name', list(batches(ember)))
def test_default_collate_matches_torch(name):
    e = ED.default_collate(batches(ember)[name])
    t = TD.default_collate(batches(torch)[name])
    assert norm(e) == norm(t)


@pytest.mark.parametrize('name', list(batches(ember)))
def test_default_convert_matches_torch(name):
    e = [ED.default_convert(s) for s in batches(ember)[name]]
    t = [TD.default_convert(s) for s in batches(torch)[name]]
    assert norm(e) == norm(t)


def test_convert_keeps_string_arrays():
    a = np.array(['a', 'b'])
    assert ED.default_convert(a) is a
    assert TD.default_convert(a) is a


def test_collate_tensors_is_one_stack():
    x = [ember.randn(3, 4) for _ in range(5)]
    out = ED.default_collate(x)
    assert out.shape == (5, 3, 4)
    assert ember.equal(out, ember.stack(x))


@pytest.mark.parametrize('bad', [[object(), object()], [np.array(['a']), np.array(['b'])],
                                 [[1, 2], [3]], [None, None]])
def test_collate_errors_like_torch(bad):
    with pytest.raises(Exception) as ee:
        ED.default_collate(bad)
    with pytest.raises(Exception) as et:
        TD.default_collate(bad)
    assert type(ee.value) is type(et.value)
    assert str(ee.value) == str(et.value)


def test_tensor_dataset_batch_fast_path_equals_stack():
    x = ember.randn(10, 3)
    y = ember.arange(10)
    ds = ED.TensorDataset(x, y)
    b = ds.__getitems__([3, 1, 4])
    out = ED.default_collate(b)
    assert isinstance(out, list) and len(out) == 2
    assert ember.equal(out[0], ember.stack([x[3], x[1], x[4]]))
    assert out[1].tolist() == [3, 1, 4]
    # other collate functions see the samples
    assert [s[1].item() for s in b] == [3, 1, 4]


def test_collate_fn_map_custom():
    from ember.utils.data._utils.collate import collate
    assert collate([1, 2], collate_fn_map={int: lambda b, **kw: sum(b)}) == 3
