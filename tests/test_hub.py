"""``ember.hub`` against ``torch.hub``, offline: the cache directory, local and cached
GitHub ``hubconf.py`` repositories, the trusted list, downloads from ``file://`` URLs with
hash checks, checkpoints by URL (also legacy single-file zips), and the errors."""
import hashlib
import io
import os
import zipfile

import numpy as np
import pytest
import torch

import ember

torch.set_num_threads(1)

HUBCONF = '''
dependencies = ['os']


def tiny(n=2, scale=1.0):
    """A tiny entrypoint: returns a list."""
    return [scale * i for i in range(n)]


def _private():
    return 0


CONSTANT = 3
'''


@pytest.fixture
def hubs(tmp_path, monkeypatch):
    """Fresh hub directories for both libraries (restored afterwards)."""
    old = ember.hub._hub_dir, torch.hub._hub_dir
    ember.hub.set_dir(str(tmp_path / 'ember_hub'))
    torch.hub.set_dir(str(tmp_path / 'torch_hub'))
    yield tmp_path
    ember.hub._hub_dir, torch.hub._hub_dir = old


def _repo(path, text=HUBCONF):
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, 'hubconf.py'), 'w') as f:
        f.write(text)
    return str(path)


def test_get_dir_follows_the_environment(monkeypatch, tmp_path):
    old = ember.hub._hub_dir, torch.hub._hub_dir
    try:
        ember.hub._hub_dir = torch.hub._hub_dir = None
        for env in ({'TORCH_HOME': str(tmp_path / 'th')}, {'XDG_CACHE_HOME': str(tmp_path)}, {}):
            for k in ('TORCH_HOME', 'XDG_CACHE_HOME'):
                monkeypatch.delenv(k, raising=False)
            for k, v in env.items():
                monkeypatch.setenv(k, v)
            assert ember.hub.get_dir() == torch.hub.get_dir()
        ember.hub.set_dir('~/somewhere')
        torch.hub.set_dir('~/somewhere')
        assert ember.hub.get_dir() == torch.hub.get_dir() == os.path.expanduser('~/somewhere')
    finally:
        ember.hub._hub_dir, torch.hub._hub_dir = old


def test_local_repository_like_torch(hubs):
    d = _repo(hubs / 'repo')
    for m in (ember, torch):
        assert m.hub.load(d, 'tiny', 3, source='local', scale=2.0) == [0.0, 2.0, 4.0]
        assert m.hub.load(d, 'tiny', source='LOCAL') == [0.0, 1.0]
    errs = []
    for m in (ember, torch):
        e = []
        for call in (lambda: m.hub.load(d, 'nope', source='local'),
                     lambda: m.hub.load(d, 'CONSTANT', source='local'),
                     lambda: m.hub.load(d, 3, source='local'),
                     lambda: m.hub.load(d, 'tiny', source='ftp')):
            with pytest.raises((RuntimeError, ValueError)) as ex:
                call()
            e.append((type(ex.value).__name__, str(ex.value)))
        errs.append(e)
    assert errs[0] == errs[1]


def test_missing_dependencies(hubs):
    d = _repo(hubs / 'deps', "dependencies = ['os', 'no_such_pkg_x', 'nor_this_one']\n"
                             "def f():\n    return 1\n")
    msgs = []
    for m in (ember, torch):
        with pytest.raises(RuntimeError) as e:
            m.hub.load(d, 'f', source='local')
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1] == "Missing dependencies: no_such_pkg_x, nor_this_one"


def test_cached_github_repository_and_trust(hubs, capsys):
    for m in (ember, torch):
        hub = m.hub.get_dir()
        _repo(os.path.join(hub, 'someone_proj_main'))
        # a repository already in the cache counts as trusted; nothing is downloaded
        assert m.hub.list('someone/proj:main') == ['tiny']
        assert m.hub.help('someone/proj:main', 'tiny') == "A tiny entrypoint: returns a list."
        assert m.hub.load('someone/proj:main', 'tiny', n=1) == [0.0]
        with open(os.path.join(hub, 'trusted_list')) as f:
            assert f.read() == ''
        # trust_repo=True on an unknown (but cached under another ref) repo records it
        _repo(os.path.join(hub, 'other_lib_dev'))
        assert m.hub.load('other/lib:dev', 'tiny', trust_repo=True, verbose=False) == [0.0, 1.0]
        with open(os.path.join(hub, 'trusted_list')) as f:
            assert f.read() == ''            # cached -> already trusted, nothing appended
    err = capsys.readouterr().err
    assert err.count("Using cache found in") == 6


def test_untrusted_repository_asks(hubs, monkeypatch):
    for m in (ember, torch):
        answers = iter(['n', 'maybe'])
        monkeypatch.setattr('builtins.input', lambda prompt='': next(answers))
        with pytest.raises(Exception, match="Untrusted repository"):
            m.hub.list('stranger/thing:main', skip_validation=True)
        with pytest.raises(ValueError, match="Unrecognized response maybe"):
            m.hub.list('stranger/thing:main', skip_validation=True)


def _zip_of_repo(path, top='proj-abc123'):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as z:
        z.writestr(f'{top}/', '')
        z.writestr(f'{top}/hubconf.py', HUBCONF)
    with open(path, 'wb') as f:
        f.write(buf.getvalue())
    return path


def test_download_of_a_repository(hubs, monkeypatch):
    archive = _zip_of_repo(str(hubs / 'archive.zip'))
    monkeypatch.setattr(ember.hub, '_archive_url', lambda o, n, r: 'file://' + archive)
    assert ember.hub.load('acme/proj:v1', 'tiny', trust_repo=True) == [0.0, 1.0]
    hub = ember.hub.get_dir()
    assert os.path.isfile(os.path.join(hub, 'acme_proj_v1', 'hubconf.py'))
    assert not os.path.exists(os.path.join(hub, 'v1.zip'))
    with open(os.path.join(hub, 'trusted_list')) as f:
        assert f.read() == 'acme_proj\n'
    # an archive whose members escape the hub directory is refused
    evil = str(hubs / 'evil.zip')
    with zipfile.ZipFile(evil, 'w') as z:
        z.writestr('top/hubconf.py', HUBCONF)
        z.writestr('../../escaped.py', 'x = 1')
    monkeypatch.setattr(ember.hub, '_archive_url', lambda o, n, r: 'file://' + evil)
    with pytest.raises(ValueError, match="outside"):
        ember.hub.load('acme/evil:v1', 'tiny', trust_repo=True)
    assert not os.path.exists(hubs / 'escaped.py')
    assert not os.path.exists(os.path.join(hub, 'acme_evil_v1'))


def test_download_url_to_file(hubs):
    src = hubs / 'blob.bin'
    data = os.urandom(300_000)
    src.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    for m in (ember, torch):
        dst = hubs / f'out_{m.__name__}.bin'
        m.hub.download_url_to_file('file://' + str(src), str(dst), hash_prefix=digest[:10],
                                   progress=False)
        assert dst.read_bytes() == data
        dst.write_bytes(b'old')
        with pytest.raises(RuntimeError, match='invalid hash value'):
            m.hub.download_url_to_file('file://' + str(src), str(dst), hash_prefix='0000x',
                                       progress=False)
        assert dst.read_bytes() == b'old'          # a failed download leaves dst alone
        assert [p for p in os.listdir(hubs) if p.endswith('.partial')] == []


def test_load_state_dict_from_url(hubs, capsys):
    sd = ember.nn.Linear(3, 2).state_dict()
    raw = hubs / 'weights.pth'
    ember.save(sd, raw)
    digest = hashlib.sha256(raw.read_bytes()).hexdigest()
    named = hubs / f'lin-{digest[:8]}.pth'
    named.write_bytes(raw.read_bytes())
    out = {}
    for m in (ember, torch):
        got = m.hub.load_state_dict_from_url('file://' + str(named), check_hash=True,
                                             progress=False, weights_only=True)
        cached = os.path.join(m.hub.get_dir(), 'checkpoints', named.name)
        assert os.path.exists(cached)
        again = m.hub.load_state_dict_from_url('file:///nonexistent/' + named.name,
                                               progress=False)     # served from the cache
        out[m.__name__] = (got, again)
    for k in ('weight', 'bias'):
        for i in (0, 1):
            np.testing.assert_array_equal(out['ember'][i][k].numpy(), out['torch'][i][k].numpy())
    assert capsys.readouterr().out.count('Downloading:') == 2
    bad = hubs / 'lin-deadbeef.pth'
    bad.write_bytes(raw.read_bytes())
    for m in (ember, torch):
        with pytest.raises(RuntimeError, match='invalid hash value'):
            m.hub.load_state_dict_from_url('file://' + str(bad), check_hash=True,
                                           progress=False)
        assert not os.path.exists(os.path.join(m.hub.get_dir(), 'checkpoints', bad.name))


def test_legacy_single_file_zip(hubs):
    sd = {'w': ember.arange(4.)}
    inner = hubs / 'model.pth'
    ember.save(sd, inner, _use_new_zipfile_serialization=False)
    z = hubs / 'model.zip'
    with zipfile.ZipFile(z, 'w') as zf:
        zf.write(inner, 'model.pth')
    for m in (ember, torch):
        got = m.hub.load_state_dict_from_url('file://' + str(z), progress=False,
                                             file_name='legacy.zip')
        assert got['w'].tolist() == [0., 1., 2., 3.]
    evil = hubs / 'evil.zip'
    with zipfile.ZipFile(evil, 'w') as zf:
        zf.write(inner, '../model.pth')
    with pytest.raises(RuntimeError, match='not a plain file name'):
        ember.hub.load_state_dict_from_url('file://' + str(evil), progress=False)


def test_progress_bar_stand_in_like_torch(capsys):
    """Without the tqdm package, hub's progress bar prints what torch's stand-in prints."""
    outs = []
    for cls in (ember.hub._ProgressBar, torch.hub._Faketqdm):
        with cls(total=200, unit='B') as bar:
            bar.update(50)
            bar.update(150)
        with cls() as bar2:
            bar2.update(3)
        with cls(total=5, disable=True) as quiet:
            quiet.update(1)
        outs.append(capsys.readouterr().err)
        assert bar.n == 200 and quiet.n == 0
    assert outs[0] == outs[1] == '\r25.0%\r100.0%\n\r3.0 bytes\n'


def test_tqdm_is_the_package_or_the_stand_in():
    import subprocess
    import sys
    import tqdm as pkg
    assert ember.hub.tqdm is pkg.tqdm is torch.hub.tqdm
    code = ("import sys; sys.modules['tqdm'] = None; import ember.hub as h; "
            "assert h.tqdm is h._ProgressBar; print('ok')")
    r = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=120)
    assert r.stdout.strip() == 'ok', r.stderr


def test_module_constants_and_torch_home_like_torch(monkeypatch, tmp_path):
    """The names torchvision and timm import from torch.hub: ``_get_torch_home`` (read from
    the environment as torch reads it), ``HASH_REGEX``, ``urlparse``, the constants."""
    import torch.hub as th
    import ember.hub as eh
    for n in ('ENV_TORCH_HOME', 'ENV_XDG_CACHE_HOME', 'ENV_GITHUB_TOKEN', 'DEFAULT_CACHE_DIR',
              'VAR_DEPENDENCY', 'MODULE_HUBCONF', 'READ_DATA_CHUNK'):
        assert getattr(eh, n) == getattr(th, n), n
    assert eh.HASH_REGEX.pattern == th.HASH_REGEX.pattern and eh.urlparse is th.urlparse
    name = 'resnet18-f37072fd.pth'
    assert eh.HASH_REGEX.search(name).group(1) == th.HASH_REGEX.search(name).group(1)
    monkeypatch.delenv('TORCH_HOME', raising=False)
    for env in ({}, {'XDG_CACHE_HOME': str(tmp_path / 'x')}, {'TORCH_HOME': str(tmp_path / 't')},
                {'TORCH_HOME': '~/th'}):
        for k in ('TORCH_HOME', 'XDG_CACHE_HOME'):
            monkeypatch.delenv(k, raising=False)
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        assert eh._get_torch_home() == th._get_torch_home(), env
