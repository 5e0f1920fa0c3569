"""ember.utils.data.dataset against torch.utils.data.dataset."""
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as TD

import ember
import ember.utils.data as ED


def errors_same(fe, ft):
    with pytest.raises(Exception) as ee:
        fe()
    with pytest.raises(Exception) as et:
        ft()
    assert type(ee.value) is type(et.value)
    assert str(ee.value) == str(et.value)


def lists(x):
    if isinstance(x, (ember.Tensor, torch.Tensor)):
        return x.tolist()
    if isinstance(x, dict):
        return {k: lists(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [lists(v) for v in x]
    return x


def test_tensor_dataset_items_len_and_mismatch():
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    b = np.arange(4)
    de = ED.TensorDataset(ember.tensor(a), ember.tensor(b))
    dt = TD.TensorDataset(torch.tensor(a), torch.tensor(b))
    assert len(de) == len(dt) == 4
    for i in (0, 3, -1, slice(1, 3)):
        assert lists(de[i]) == lists(dt[i])
    errors_same(lambda: ED.TensorDataset(ember.zeros(2), ember.zeros(3)),
                lambda: TD.TensorDataset(torch.zeros(2), torch.zeros(3)))


def test_tensor_dataset_batch_fetch_matches_items():
    x = ember.arange(10.).reshape(5, 2)
    ds = ED.TensorDataset(x, ember.arange(5))
    got = ds.__getitems__([4, 0, 2])
    assert len(got) == 3
    assert lists(list(got)) == lists([ds[4], ds[0], ds[2]])
    assert lists(got[1]) == lists(ds[0])


def test_concat_dataset_indexing_and_errors():
    e = ED.ConcatDataset([list(range(3)), list(range(10, 15))])
    t = TD.ConcatDataset([list(range(3)), list(range(10, 15))])
    assert len(e) == len(t) == 8
    assert [e[i] for i in range(-8, 8)] == [t[i] for i in range(-8, 8)]
    assert e.cumulative_sizes == t.cumulative_sizes
    errors_same(lambda: e[-9], lambda: t[-9])
    errors_same(lambda: ED.ConcatDataset([]), lambda: TD.ConcatDataset([]))

    class It(ED.IterableDataset):
        def __iter__(self):
            return iter([])

    class ItT(TD.IterableDataset):
        def __iter__(self):
            return iter([])
    errors_same(lambda: ED.ConcatDataset([It()]), lambda: TD.ConcatDataset([ItT()]))
    with pytest.warns(FutureWarning, match='cumulative_sizes'):
        assert e.cummulative_sizes == [3, 8]


class _RangeE(ED.IterableDataset):
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __iter__(self):
        return iter(range(self.a, self.b))

    def __len__(self):
        return self.b - self.a


class _RangeT(TD.IterableDataset):
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __iter__(self):
        return iter(range(self.a, self.b))

    def __len__(self):
        return self.b - self.a


def test_chain_and_add():
    ce = _RangeE(0, 3) + _RangeE(5, 7)
    ct = _RangeT(0, 3) + _RangeT(5, 7)
    assert type(ce).__name__ == type(ct).__name__ == 'ChainDataset'
    assert list(ce) == list(ct) and len(ce) == len(ct)
    errors_same(lambda: list(ED.ChainDataset([[1]])), lambda: list(TD.ChainDataset([[1]])))
    errors_same(lambda: len(ED.ChainDataset([[1]])), lambda: len(TD.ChainDataset([[1]])))

    class M(ED.Dataset):
        def __getitem__(self, i):
            return i

        def __len__(self):
            return 2
    cat = M() + M()
    assert isinstance(cat, ED.ConcatDataset) and [cat[i] for i in range(4)] == [0, 1, 0, 1]
    errors_same(lambda: ED.Dataset()[0], lambda: TD.Dataset()[0])


def test_subset_and_subclass_rule():
    data = list(range(10, 20))
    se, st = ED.Subset(data, [3, 1, 7]), TD.Subset(data, [3, 1, 7])
    assert len(se) == len(st) == 3
    assert [se[i] for i in range(3)] == [st[i] for i in range(3)]
    assert se.__getitems__([0, 2]) == st.__getitems__([0, 2])

    def bad(mod):
        class S(mod.Subset):
            def __getitem__(self, i):
                return 0
        return S(data, [0])
    errors_same(lambda: bad(ED), lambda: bad(TD))


def test_stack_dataset_tuple_dict_and_errors():
    a, b = list(range(4)), list('abcd')
    for kw in (False, True):
        e = ED.StackDataset(x=a, y=b) if kw else ED.StackDataset(a, b)
        t = TD.StackDataset(x=a, y=b) if kw else TD.StackDataset(a, b)
        assert len(e) == len(t)
        assert [e[i] for i in range(4)] == [t[i] for i in range(4)]
        assert e.__getitems__([2, 0]) == t.__getitems__([2, 0])
    errors_same(lambda: ED.StackDataset(a, y=b), lambda: TD.StackDataset(a, y=b))
    errors_same(lambda: ED.StackDataset(), lambda: TD.StackDataset())
    errors_same(lambda: ED.StackDataset(a, [1]), lambda: TD.StackDataset(a, [1]))
    errors_same(lambda: ED.StackDataset(x=a, y=[1]), lambda: TD.StackDataset(x=a, y=[1]))


@pytest.mark.parametrize('lengths', [[3, 7], [0.3, 0.7], [0.33, 0.33, 0.34], [0.5, 0.5],
                                     [1 / 3] * 3, [10]])
def test_random_split_matches_torch_global_seed(lengths):
    for seed in (0, 7):
        ember.manual_seed(seed)
        torch.manual_seed(seed)
        e = ED.random_split(list(range(10)), lengths)
        t = TD.random_split(list(range(10)), lengths)
        assert [s.indices for s in e] == [s.indices for s in t]
        assert ember.rand(3).tolist() == torch.rand(3).tolist()   # same draws consumed


def test_random_split_generator_and_remainder():
    ge, gt = ember.Generator().manual_seed(42), torch.Generator().manual_seed(42)
    e = ED.random_split(range(11), [0.25, 0.25, 0.5], generator=ge)
    t = TD.random_split(range(11), [0.25, 0.25, 0.5], generator=gt)
    assert [len(s) for s in e] == [len(s) for s in t] == [3, 3, 5]
    assert [s.indices for s in e] == [s.indices for s in t]
    assert [list(s) for s in e] == [list(s) for s in t]


def test_random_split_errors_and_warning():
    errors_same(lambda: ED.random_split(range(5), [2, 2]), lambda: TD.random_split(range(5), [2, 2]))
    errors_same(lambda: ED.random_split(range(5), [1.5, -0.5]),
                lambda: TD.random_split(range(5), [1.5, -0.5]))
    for mod in (ED, TD):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            mod.random_split(range(2), [0.1, 0.1, 0.8])
        msgs = [str(x.message) for x in w]
        assert "Length of split at index 1 is 0. This might result in an empty dataset." in msgs
