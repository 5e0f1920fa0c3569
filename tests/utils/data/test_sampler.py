"""ember.utils.data.sampler against torch.utils.data.sampler: the same indices after the
same seed, the same errors."""
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


def seeded(seed=0):
    ember.manual_seed(seed)
    torch.manual_seed(seed)


def test_sequential():
    assert list(ED.SequentialSampler(range(5))) == list(TD.SequentialSampler(range(5)))
    assert len(ED.SequentialSampler(range(5))) == 5


@pytest.mark.parametrize('replacement,num_samples', [(False, None), (False, 3), (False, 23),
                                                     (True, None), (True, 5), (True, 70)])
def test_random_sampler_global_seed(replacement, num_samples):
    for seed in (0, 3):
        seeded(seed)
        e = ED.RandomSampler(range(10), replacement, num_samples)
        t = TD.RandomSampler(range(10), replacement, num_samples)
        assert len(e) == len(t)
        for _ in range(2):   # each epoch draws a fresh seed from the global generator
            assert list(e) == list(t)
        assert ember.rand(2).tolist() == torch.rand(2).tolist()


def test_random_sampler_generator():
    ge, gt = ember.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    e = ED.RandomSampler(range(9), generator=ge)
    t = TD.RandomSampler(range(9), generator=gt)
    assert [list(e) for _ in range(3)] == [list(t) for _ in range(3)]
    e = ED.RandomSampler(range(9), True, 40, generator=ge)
    t = TD.RandomSampler(range(9), True, 40, generator=gt)
    assert list(e) == list(t)


def test_random_sampler_errors():
    errors_same(lambda: ED.RandomSampler(range(3), replacement=1),
                lambda: TD.RandomSampler(range(3), replacement=1))
    errors_same(lambda: ED.RandomSampler(range(3), num_samples=0),
                lambda: TD.RandomSampler(range(3), num_samples=0))
    errors_same(lambda: ED.RandomSampler([]), lambda: TD.RandomSampler([]))


def test_subset_random_sampler():
    seeded(1)
    idx = [10, 20, 30, 40, 50]
    e, t = ED.SubsetRandomSampler(idx), TD.SubsetRandomSampler(idx)
    assert list(e) == list(t) and list(e) == list(t)
    assert len(e) == 5
    ge, gt = ember.Generator().manual_seed(2), torch.Generator().manual_seed(2)
    assert list(ED.SubsetRandomSampler(idx, ge)) == list(TD.SubsetRandomSampler(idx, gt))


@pytest.mark.parametrize('replacement', [True, False])
def test_weighted_random_sampler(replacement):
    w = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
    seeded(4)
    e = ED.WeightedRandomSampler(w, 5, replacement)
    t = TD.WeightedRandomSampler(w, 5, replacement)
    assert list(e) == list(t) and list(e) == list(t)
    assert len(e) == 5 and e.weights.dtype is ember.float64
    ge, gt = ember.Generator().manual_seed(9), torch.Generator().manual_seed(9)
    assert list(ED.WeightedRandomSampler(w, 4, replacement, ge)) == \
        list(TD.WeightedRandomSampler(w, 4, replacement, gt))


def test_weighted_random_sampler_errors():
    for args in [([1., 2.], 0), ([1., 2.], True), ([1., 2.], 2, 'yes'), ([[1., 2.]], 2)]:
        errors_same(lambda: ED.WeightedRandomSampler(*args),
                    lambda: TD.WeightedRandomSampler(*args))


@pytest.mark.parametrize('bs,drop', [(1, False), (3, False), (3, True), (4, True), (20, False),
                                     (20, True)])
def test_batch_sampler(bs, drop):
    e = ED.BatchSampler(ED.SequentialSampler(range(10)), bs, drop)
    t = TD.BatchSampler(TD.SequentialSampler(range(10)), bs, drop)
    assert list(e) == list(t) and len(e) == len(t)


def test_batch_sampler_errors():
    for args in [(0, False), (True, False), (2.0, False), (2, 1)]:
        errors_same(lambda: ED.BatchSampler(range(4), *args), lambda: TD.BatchSampler(range(4), *args))


def test_sampler_base():
    with pytest.raises(NotImplementedError):
        iter(ED.Sampler())
