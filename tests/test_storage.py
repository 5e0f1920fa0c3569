import numpy as np
import torch

import ember


def test_untyped_storage_bytes_and_sharing():
    e = ember.tensor([1.0, 2.0], dtype=ember.float32)
    t = torch.tensor([1.0, 2.0], dtype=torch.float32)
    es, ts = e.untyped_storage(), t.untyped_storage()
    assert es.nbytes() == ts.nbytes() == 8
    assert es.tolist() == ts.tolist()
    v = e.view(2, 1)
    assert v.untyped_storage().data_ptr() == es.data_ptr()
    es[0] = 0
    ts[0] = 0
    assert e.tolist() == t.tolist()


def test_typed_storage():
    e = ember.arange(4, dtype=ember.int32)
    st = e.storage()
    assert st.size() == 4 and st.dtype is ember.int32 and st.tolist() == [0, 1, 2, 3]
    st[1] = 10
    assert e.tolist() == [0, 10, 2, 3]
    assert e[1:].storage().data_ptr() == st.data_ptr()


def test_storage_of_view_is_whole_block():
    e = ember.arange(10.)
    s = e[2:5]
    assert s.untyped_storage().nbytes() == 40 and s.storage_offset() == 2


def test_version_counter_shared_by_views():
    x = ember.zeros(3)
    v = x[1:]
    assert x._version == 0
    v.add_(1)
    assert x._version == v._version == 1
    x.mul_(2)
    assert v._version == 2


def test_from_numpy_storage_and_strides():
    a = np.zeros((3, 4), dtype=np.float64)[:, ::2]
    e = ember.from_numpy(a)
    t = torch.from_numpy(a)
    assert e.stride() == t.stride() and e.storage_offset() == t.storage_offset()


def test_storage_module_like_torch():
    import ember.storage
    import torch.storage
    assert ember.storage.__all__ == torch.storage.__all__
    assert ember.storage.UntypedStorage is ember.UntypedStorage
    assert ember.storage.TypedStorage is ember.TypedStorage
    assert isinstance(ember.ones(2).untyped_storage(), ember.storage.UntypedStorage)


def test_untyped_storage_untyped_is_itself_as_torch(tmp_path):
    """safetensors' torch path: ``UntypedStorage.from_file(...).untyped()`` is the storage."""
    path = tmp_path / 'b.bin'
    path.write_bytes(bytes(range(16)))
    for m in (ember, torch):
        s = m.UntypedStorage.from_file(str(path), shared=False, nbytes=16)
        assert s.untyped() is s
        assert m.ones(2).untyped_storage().untyped().nbytes() == 8
