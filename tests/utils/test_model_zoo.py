"""ember.utils.model_zoo against torch.utils.model_zoo: load_url is the hub's
load_state_dict_from_url (downloads from a file:// URL, cache, hash check), and tqdm."""
import hashlib
import os

import numpy as np
import pytest
import torch
import torch.utils.model_zoo

import ember
import ember.utils.model_zoo as mz


@pytest.fixture
def hubs(tmp_path):
    old = ember.hub._hub_dir, torch.hub._hub_dir
    ember.hub.set_dir(str(tmp_path / 'ember_hub'))
    torch.hub.set_dir(str(tmp_path / 'torch_hub'))
    yield tmp_path
    ember.hub._hub_dir, torch.hub._hub_dir = old


def test_load_url_is_the_hub_function():
    assert mz.load_url is ember.hub.load_state_dict_from_url
    assert torch.utils.model_zoo.load_url is torch.hub.load_state_dict_from_url
    assert sorted(n for n in ('load_url', 'tqdm') if hasattr(mz, n)) == ['load_url', 'tqdm']


def test_load_url_matches_torch(hubs):
    torch.manual_seed(0)
    sd = torch.nn.Linear(3, 2).state_dict()
    raw = hubs / 'raw.pth'
    torch.save(sd, raw)
    digest = hashlib.sha256(raw.read_bytes()).hexdigest()
    named = hubs / f'lin-{digest[:8]}.pth'
    named.write_bytes(raw.read_bytes())
    got = {}
    for m, zoo in ((ember, mz), (torch, torch.utils.model_zoo)):
        got[m.__name__] = zoo.load_url('file://' + str(named), check_hash=True,
                                       progress=False)
        assert os.path.exists(os.path.join(m.hub.get_dir(), 'checkpoints', named.name))
        # a second call is served from the cache: the URL is not read again
        again = zoo.load_url('file:///nonexistent/' + named.name, progress=False)
        assert sorted(again) == ['bias', 'weight']
    assert sorted(got['ember']) == sorted(got['torch'])
    for k in got['torch']:
        np.testing.assert_array_equal(got['ember'][k].numpy(force=True), got['torch'][k].numpy())
    bad = hubs / 'lin-deadbeef.pth'
    bad.write_bytes(raw.read_bytes())
    for zoo in (mz, torch.utils.model_zoo):
        with pytest.raises(RuntimeError, match='invalid hash value'):
            zoo.load_url('file://' + str(bad), check_hash=True, progress=False,
                         model_dir=str(hubs / 'other'))


def test_tqdm_is_the_package_when_installed():
    import tqdm as pkg
    assert mz.tqdm is pkg.tqdm is torch.utils.model_zoo.tqdm


def test_tqdm_is_hubs():
    assert mz.tqdm is ember.hub.tqdm
    assert mz.load_url is ember.hub.load_state_dict_from_url
