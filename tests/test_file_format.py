"""``ember.PyTorchFileReader`` against ``torch.PyTorchFileReader`` on the same checkpoint."""
import io

import pytest
import torch

import ember


@pytest.fixture
def ckpt(tmp_path):
    path = tmp_path / 'ck.pt'
    torch.save({'a': torch.arange(6.).view(2, 3), 'b': torch.tensor([1, 2], dtype=torch.int16)},
               str(path))
    return str(path)


def test_records_like_torch(ckpt):
    e, t = ember.PyTorchFileReader(ckpt), torch.PyTorchFileReader(ckpt)
    assert e.get_all_records() == t.get_all_records()
    for name in t.get_all_records():
        assert e.get_record(name) == t.get_record(name), name
        assert e.get_record_offset(name) == t.get_record_offset(name), name
        assert e.get_record_size(name) == t.get_record_size(name), name
    assert e.has_record('data.pkl') and not e.has_record('nope') and not t.has_record('nope')
    assert e.serialization_id() == t.serialization_id()
    with open(ckpt, 'rb') as f:
        assert ember.PyTorchFileReader(f).get_all_records() == t.get_all_records()
    ember.PyTorchFileReader(io.BytesIO(open(ckpt, 'rb').read())).get_record('data.pkl')
    for m in (ember, torch):
        with pytest.raises(RuntimeError, match='failed locating file nope'):
            m.PyTorchFileReader(ckpt).get_record('nope')
        with pytest.raises(RuntimeError, match='No such file or directory'):
            m.PyTorchFileReader(ckpt + '.missing')


def test_storage_from_record_like_torch(ckpt):
    e, t = ember.PyTorchFileReader(ckpt), torch.PyTorchFileReader(ckpt)
    for (edt, tdt, n) in ((ember.uint8, torch.uint8, 24), (ember.float32, torch.float32, 6),
                          (ember.UntypedStorage, torch.UntypedStorage, 24)):
        es, ts = e.get_storage_from_record('data/0', n, edt), t.get_storage_from_record(
            'data/0', n, tdt)
        assert es.shape == ts.shape == (0,) and str(es.dtype) == str(ts.dtype)
        assert es.untyped_storage().nbytes() == ts.untyped_storage().nbytes()
        assert list(es.untyped_storage()) == list(ts.untyped_storage())
