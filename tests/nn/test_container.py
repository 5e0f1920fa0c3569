"""Containers vs torch: indexing, slicing, mutation, naming and repr."""
import pytest
import torch

import ember


def ops(m):
    nn = m.nn
    s = nn.Sequential(nn.ReLU(), nn.Identity(), nn.LeakyReLU(0.3))
    out = [type(s[-1]).__name__, len(s[:2]), [k for k, _ in s.named_children()]]
    del s[0]
    out.append([k for k, _ in s.named_children()])
    ml = nn.ModuleList([nn.ReLU(), nn.ReLU()]) + nn.ModuleList([nn.Identity()])
    out.append([type(x).__name__ for x in ml])
    md = nn.ModuleDict([('b', nn.ReLU()), ('a', nn.Identity())])
    out.append(list(md.keys()))
    pd = nn.ParameterDict({'z': m.zeros(1), 'a': m.ones(2)})
    out.append(list(pd.keys()))
    out.append(repr(s))
    return out


def test_container_ops_match_torch():
    assert ops(ember) == ops(torch)


def test_index_errors_match_torch():
    for m in (ember, torch):
        with pytest.raises(IndexError):
            m.nn.Sequential(m.nn.ReLU())[3]
        with pytest.raises(IndexError):
            m.nn.ModuleList([m.nn.ReLU()])[-2]
