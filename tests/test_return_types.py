import pickle

import torch

import ember


def test_return_types_repr_fields_and_pickle():
    x = [[3., 1., 2.], [0., 5., 4.]]
    e, t = ember.tensor(x).max(1), torch.tensor(x).max(1)
    assert repr(e) == repr(t)
    assert e.values.tolist() == t.values.tolist() and e.indices.tolist() == t.indices.tolist()
    v, i = e
    assert v.tolist() == [3.0, 5.0] and i.tolist() == [0, 1]
    assert type(e).__name__ == type(t).__name__ == 'max'
    r = pickle.loads(pickle.dumps(e))
    assert r.values.tolist() == [3.0, 5.0]
    s = ember.tensor(x).sort(1)
    assert repr(s) == repr(torch.tensor(x).sort(1))
