"""ember.fx.immutable_collections against torch's: mutation refused, hashing, pickling, and
the pytree registration (flatten/unflatten keep the immutable types, key paths)."""
import pickle

import pytest
import torch
import torch.fx.immutable_collections as TI
import torch.utils._pytree as TP

import ember.fx.immutable_collections as EI
import ember.utils._pytree as EP


@pytest.mark.parametrize('kind', ['list', 'dict'])
def test_pytree_like_torch(kind):
    res = []
    for I, P in ((EI, EP), (TI, TP)):
        obj = I.immutable_list([1, [2, 3]]) if kind == 'list' else \
            I.immutable_dict({'a': 1, 'b': (2, 3)})
        leaves, spec = P.tree_flatten(obj)
        back = P.tree_unflatten([x * 10 for x in leaves], spec)
        paths = [(P.keystr(k), v) for k, v in P.tree_flatten_with_path(obj)[0]]
        res.append((leaves, repr(spec).replace('ember', 'torch'), type(back).__name__,
                    list(back.items()) if kind == 'dict' else list(back), paths,
                    P.tree_map(lambda x: x + 1, obj) == obj.__class__(
                        [2, [3, 4]] if kind == 'list' else {'a': 2, 'b': (3, 4)})))
    assert res[0] == res[1]


def test_immutability_hash_and_pickle_like_torch():
    for I in (EI, TI):
        lst, dct = I.immutable_list([1, 2]), I.immutable_dict({'k': 1})
        with pytest.raises(TypeError, match='does not support mutation'):
            lst.append(3)
        with pytest.raises(TypeError, match='does not support mutation'):
            dct['x'] = 2
        assert hash(lst) == hash((1, 2))
        assert pickle.loads(pickle.dumps(lst)) == lst and type(
            pickle.loads(pickle.dumps(dct))) is I.immutable_dict
