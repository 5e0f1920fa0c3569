import pytest
import torch

import ember


@pytest.mark.parametrize('shape', [(2, 3, 4, 5), (1, 3, 1, 5), (2, 1, 4, 4)])
def test_channels_last_strides(shape):
    e = ember.zeros(*shape).contiguous(memory_format=ember.channels_last)
    t = torch.zeros(*shape).contiguous(memory_format=torch.channels_last)
    assert e.stride() == t.stride()
    assert e.is_contiguous(memory_format=ember.channels_last) == t.is_contiguous(memory_format=torch.channels_last)
    assert e.is_contiguous() == t.is_contiguous()


def test_channels_last_3d_and_to():
    e = ember.arange(2 * 3 * 2 * 2 * 2.).reshape(2, 3, 2, 2, 2).to(memory_format=ember.channels_last_3d)
    t = torch.arange(2 * 3 * 2 * 2 * 2.).reshape(2, 3, 2, 2, 2).to(memory_format=torch.channels_last_3d)
    assert e.stride() == t.stride()
    assert e.tolist() == t.tolist()
    assert e.is_contiguous(memory_format=ember.channels_last_3d)


def test_values_preserved_and_back_to_contiguous():
    t = torch.arange(24.).reshape(1, 2, 3, 4)
    e = ember.arange(24.).reshape(1, 2, 3, 4)
    ec = e.contiguous(memory_format=ember.channels_last)
    assert ec.tolist() == t.tolist()
    back = ec.contiguous()
    assert back.stride() == (24, 12, 4, 1) and back.tolist() == t.tolist()
    assert ec.contiguous(memory_format=ember.channels_last) is ec


def test_preserve_format_clone_and_empty_like():
    e = ember.zeros(2, 3, 4, 5).contiguous(memory_format=ember.channels_last)
    t = torch.zeros(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)
    assert e.clone().stride() == t.clone().stride()
    assert ember.empty_like(e).stride() == torch.empty_like(t).stride()
    assert e.clone(memory_format=ember.contiguous_format).stride() == \
        t.clone(memory_format=torch.contiguous_format).stride()


def test_wrong_rank_error():
    with pytest.raises(RuntimeError):
        torch.zeros(2, 3).contiguous(memory_format=torch.channels_last)
    with pytest.raises(RuntimeError, match='rank 4'):
        ember.zeros(2, 3).contiguous(memory_format=ember.channels_last)


def test_repr():
    assert repr(ember.channels_last) == repr(torch.channels_last)
    assert repr(ember.preserve_format) == repr(torch.preserve_format)


def test_grad_through_format_change():
    x = ember.arange(24.).reshape(1, 2, 3, 4).requires_grad_()
    y = x.contiguous(memory_format=ember.channels_last)
    (y * ember.arange(24.).reshape(1, 2, 3, 4)).sum().backward()
    assert x.grad.tolist() == ember.arange(24.).reshape(1, 2, 3, 4).tolist()
