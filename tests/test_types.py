"""``ember.types`` against ``torch.types``: the public aliases accept the same values."""
import os
import typing

import torch

import ember
import ember.types as et


def _accepts(alias, value):
    return any(isinstance(value, typing.get_origin(a) or a)
               for a in typing.get_args(alias) if a is not type(None)) or (
        value is None and type(None) in typing.get_args(alias))


def test_public_aliases_like_torch():
    assert et.__all__ == torch.types.__all__
    for v in (1, 2.5, True, 'x', None, [1]):
        assert _accepts(et.Number, v) == _accepts(torch.types.Number, v)
    for v, tv in ((ember.device('cpu'), torch.device('cpu')), ('cpu', 'cpu'), (0, 0),
                  (None, None), (2.5, 2.5)):
        assert _accepts(et.Device, v) == _accepts(torch.types.Device, tv)
    assert len(typing.get_args(et.FileLike)) == len(typing.get_args(torch.types.FileLike))
    assert _accepts(et.FileLike, 'f.pt') and _accepts(et.FileLike, os.path) is False


def test_private_aliases_used_in_annotations():
    assert et._int is int and et._float is float and et._bool is bool
    assert _accepts(et._size, ember.Size([2, 3])) and _accepts(et._size, (2, 3))
    assert _accepts(et._TensorOrTensors, ember.ones(1))
    assert et.py_sym_types == (ember.SymInt, ember.SymFloat, ember.SymBool)
    assert hasattr(et.Storage, 'nbytes') and hasattr(torch.types.Storage, 'nbytes')
    assert ember.types is et
