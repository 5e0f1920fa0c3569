"""``ember.hub``: load models and weights published as a ``hubconf.py`` (a GitHub repository
or a local directory) and checkpoints addressed by URL, with PyTorch's cache layout, so
weights that torch already downloaded (``~/.cache/torch/hub/checkpoints``) are found.

Everything read here is treated as hostile where it can be: archives are extracted only
inside the hub directory, a downloaded file replaces its target only once complete (and, with
a hash prefix, only if its SHA-256 matches). Running a repository's ``hubconf.py`` runs its
code: repositories are checked against the trusted list first, as in PyTorch.
"""
import contextlib
import errno
import hashlib
import os
import re
import shutil
import sys
import tempfile
import uuid
import warnings
import zipfile
from urllib.parse import urlparse
from urllib.request import Request, urlopen

__all__ = ['download_url_to_file', 'get_dir', 'help', 'list', 'load',
           'load_state_dict_from_url', 'set_dir']

_hub_dir = None
MODULE_HUBCONF = 'hubconf.py'
_TRUSTED_OWNERS = ('facebookresearch', 'facebookincubator', 'pytorch', 'fairinternal')
HASH_REGEX = re.compile(r'-([a-f0-9]*)\.')       # file-<sha256 prefix>.ext
READ_DATA_CHUNK = 128 * 1024


ENV_TORCH_HOME = 'TORCH_HOME'
ENV_XDG_CACHE_HOME = 'XDG_CACHE_HOME'
ENV_GITHUB_TOKEN = 'GITHUB_TOKEN'
DEFAULT_CACHE_DIR = '~/.cache'
VAR_DEPENDENCY = 'dependencies'


def _get_torch_home():
    """``$TORCH_HOME``, else ``$XDG_CACHE_HOME/torch``, else ``~/.cache/torch`` (expanded):
    the root of PyTorch's caches (torchvision keeps its files there too)."""
    default = os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), 'torch')
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, default))


def get_dir():
    """The hub cache directory: the one given to :func:`set_dir`, else ``$TORCH_HOME/hub``
    (``$TORCH_HOME`` defaults to ``$XDG_CACHE_HOME/torch``, and that to ``~/.cache/torch``:
    the same place PyTorch uses).

    Example::

        >>> ember.hub.get_dir().endswith('hub')
        True
    """
    if os.getenv('TORCH_HUB'):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead",
                      stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), 'hub')


def set_dir(d):
    """Set the hub cache directory (``~`` is expanded).

    Args:
        d (str or PathLike): the directory for downloaded repositories and weights.

    Example::

        >>> ember.hub.set_dir('/tmp/hub')
    """
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


# ------------------------------------------------------------------ downloads
class _ProgressBar:
    """A minimal stand-in for ``tqdm.tqdm`` when the package is not installed: prints the
    progress on stderr (a percentage, or a count when ``total`` is unknown).

    Args:
        total (int, optional): the expected count.
        disable (bool, optional): print nothing. Default: ``False``
        unit (str, optional): ignored (accepted for compatibility), like any other argument.

    Example::

        >>> with _ProgressBar(total=4, disable=True) as bar:
        ...     bar.update(2)
        >>> bar.n
        0
    """

    def __init__(self, total=None, disable=False, unit=None, *args, **kwargs):
        self.total = total
        self.disable = disable
        self.n = 0

    def update(self, n=1):
        """Advance by ``n`` and redraw (nothing at all once disabled)."""
        if self.disable:
            return
        self.n += n
        if self.total is None:
            sys.stderr.write(f"\r{self.n:.1f} bytes")
        else:
            sys.stderr.write(f"\r{100 * self.n / float(self.total):.1f}%")
        sys.stderr.flush()

    def set_description(self, *args, **kwargs):
        """Accepted and ignored."""

    def write(self, s):
        """Print a line on stderr."""
        sys.stderr.write(f"{s}\n")

    def close(self):
        """Stop drawing."""
        self.disable = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self.disable:
            sys.stderr.write("\n")


try:
    from tqdm import tqdm
except ImportError:
    tqdm = _ProgressBar


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Download ``url`` to the file ``dst``. The data goes to a temporary file beside
    ``dst`` first, which replaces ``dst`` only when the download is complete (and its
    SHA-256 starts with ``hash_prefix``, if given): a failed download leaves ``dst`` as it
    was.

    Args:
        url (str): what to download (``http(s)://``, ``file://``, ...).
        dst (str): the file to write.
        hash_prefix (str, optional): the expected start of the SHA-256 hex digest.
        progress (bool): show a progress bar on stderr (when tqdm is installed).

    Raises:
        RuntimeError: when the digest does not match ``hash_prefix``.

    Example::

        >>> ember.hub.download_url_to_file('https://example.com/w.pth', '/tmp/w.pth')
    """
    dst = os.path.expanduser(os.fspath(dst))
    for _ in range(tempfile.TMP_MAX):
        tmp = f"{dst}.{uuid.uuid4().hex}.partial"
        try:
            f = open(tmp, 'xb')
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(errno.EEXIST, "No usable temporary file name found")
    try:
        with f, urlopen(Request(url, headers={'User-Agent': 'torch.hub'})) as u:
            size = u.info().get('Content-Length')
            digest = hashlib.sha256() if hash_prefix is not None else None
            with tqdm(total=int(size) if size else None, disable=not progress, unit='B',
                      unit_scale=True, unit_divisor=1024) as bar:
                while True:
                    buf = u.read(READ_DATA_CHUNK)
                    if not buf:
                        break
                    f.write(buf)
                    if digest is not None:
                        digest.update(buf)
                    bar.update(len(buf))
        if digest is not None:
            got = digest.hexdigest()
            if got[:len(hash_prefix)] != hash_prefix:
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", '
                                   f'got "{got}")')
        shutil.move(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _single_member_zip(path):
    """The one file of a zip that holds exactly one file (the legacy way of publishing
    a checkpoint), or None (PyTorch's own checkpoint format is a zip of many records)."""
    if not zipfile.is_zipfile(path):
        return None
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
    return infos[0] if len(infos) == 1 and not infos[0].is_dir() else None


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                             check_hash=False, file_name=None, weights_only=False):
    """Load the checkpoint at ``url``, downloading it into ``model_dir`` unless a file of
    that name is already there (so checkpoints that torch downloaded are reused).

    Args:
        url (str): the checkpoint's URL.
        model_dir (str, optional): the cache folder. Default: ``<hub_dir>/checkpoints``.
        map_location: as in :func:`ember.load`.
        progress (bool): show a progress bar while downloading.
        check_hash (bool): the file name is ``name-<sha256 prefix>.ext``; check a download
            against that prefix.
        file_name (str, optional): the cached file's name. Default: the URL's.
        weights_only (bool): as in :func:`ember.load` (``True`` for untrusted sources).

    Returns:
        what :func:`ember.load` returns for the file (usually a state_dict).

    Example::

        >>> sd = ember.hub.load_state_dict_from_url(
        ...     'https://download.pytorch.org/models/resnet18-f37072fd.pth')
    """
    from .serialization import load as _load
    if os.getenv('TORCH_MODEL_ZOO'):
        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead",
                      stacklevel=2)
    if model_dir is None:
        model_dir = os.path.join(get_dir(), 'checkpoints')
    os.makedirs(model_dir, exist_ok=True)
    name = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached = os.path.join(model_dir, name)
    if not os.path.exists(cached):
        sys.stdout.write(f'Downloading: "{url}" to {cached}\n')
        prefix = None
        if check_hash:
            m = HASH_REGEX.search(name)
            prefix = m.group(1) if m else None
        download_url_to_file(url, cached, prefix, progress=progress)
    member = _single_member_zip(cached)
    if member is not None:
        inner = os.path.basename(member.filename)
        if not inner or inner in ('.', '..') or inner != member.filename:
            raise RuntimeError(f"refusing the zip member {member.filename!r} of {cached}: "
                               f"not a plain file name")
        with zipfile.ZipFile(cached) as z:
            z.extract(member, model_dir)
        cached = os.path.join(model_dir, inner)
    return _load(cached, map_location=map_location, weights_only=weights_only)


# ------------------------------------------------------------------ repositories
def _parse_repo(github):
    if ':' in github:
        info, ref = github.split(':')
    else:
        info, ref = github, None
    owner, name = info.split('/')
    if ref is None:
        # the default branch: main if it exists, else master; offline, whichever is cached
        from urllib.error import HTTPError, URLError
        try:
            with urlopen(f"https://github.com/{owner}/{name}/tree/main/"):
                ref = 'main'
        except HTTPError as e:
            if e.code != 404:
                raise
            ref = 'master'
        except URLError as e:
            for cand in ('main', 'master'):
                if os.path.exists(os.path.join(get_dir(), f"{owner}_{name}_{cand}")):
                    ref = cand
                    break
            else:
                raise RuntimeError("It looks like there is no internet connection and the "
                                   f"repo could not be found in the cache ({get_dir()})"
                                   ) from e
    return owner, name, ref


def _check_trusted(owner, name, owner_name_ref, trust_repo):
    hub_dir = get_dir()
    path = os.path.join(hub_dir, 'trusted_list')
    if not os.path.exists(path):
        open(path, 'a').close()
    with open(path) as f:
        trusted = tuple(line.strip() for line in f)
    cached_dirs = next(os.walk(hub_dir))[1]    # repositories downloaded earlier are trusted
    owner_name = f"{owner}_{name}"
    ok = owner_name in trusted or owner_name_ref in cached_dirs or owner in _TRUSTED_OWNERS
    if trust_repo is False or (trust_repo == 'check' and not ok):
        answer = input(f"The repository {owner_name} does not belong to the list of trusted "
                       "repositories and as such cannot be downloaded. Do you trust this "
                       "repository and wish to add it to the trusted list of repositories "
                       "(y/N)?")
        if answer.lower() in ('y', 'yes'):
            if ok:
                print("The repository is already trusted.")
        elif answer.lower() in ('n', 'no', ''):
            raise Exception("Untrusted repository.")  # noqa: TRY002 - PyTorch's type
        else:
            raise ValueError(f"Unrecognized response {answer}.")
    if not ok:
        with open(path, 'a') as f:
            f.write(owner_name + '\n')


def _archive_url(owner, name, ref):
    return f"https://github.com/{owner}/{name}/zipball/{ref}"


def _extract_inside(zf, root):
    """Extract every member of ``zf`` under ``root``, refusing any that would land
    outside it (absolute names, ``..``)."""
    base = os.path.realpath(root)
    for info in zf.infolist():
        target = os.path.realpath(os.path.join(base, info.filename))
        if os.path.commonpath([base, target]) != base:
            raise ValueError(f"The zip file member {info.filename!r} would be extracted "
                             f"outside {root}")
    zf.extractall(base)


def _repo_dir(github, force_reload, trust_repo, verbose=True, skip_validation=False):
    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    owner, name, ref = _parse_repo(github)
    ref_dir = ref.replace('/', '_')
    owner_name_ref = f"{owner}_{name}_{ref_dir}"
    repo_dir = os.path.join(hub_dir, owner_name_ref)
    _check_trusted(owner, name, owner_name_ref, trust_repo)
    if not force_reload and os.path.exists(repo_dir):
        if verbose:
            sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir
    archive = os.path.join(hub_dir, ref_dir + '.zip')
    if os.path.exists(archive):
        os.remove(archive)
    url = _archive_url(owner, name, ref)
    sys.stdout.write(f'Downloading: "{url}" to {archive}\n')
    download_url_to_file(url, archive, progress=False)
    try:
        with zipfile.ZipFile(archive) as z:
            top = z.infolist()[0].filename
            extracted = os.path.join(hub_dir, top)
            if os.path.exists(extracted):
                shutil.rmtree(extracted)
            _extract_inside(z, hub_dir)
    finally:
        os.remove(archive)
    if os.path.exists(repo_dir):
        shutil.rmtree(repo_dir)
    shutil.move(extracted, repo_dir)
    return repo_dir


@contextlib.contextmanager
def _on_sys_path(path):
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)


def _import_hubconf(repo_dir):
    import importlib.util
    path = os.path.join(repo_dir, MODULE_HUBCONF)
    spec = importlib.util.spec_from_file_location('hubconf', path)
    if spec is None:
        raise AssertionError(f"failed to load spec from {path}")
    module = importlib.util.module_from_spec(spec)
    with _on_sys_path(repo_dir):
        spec.loader.exec_module(module)
    return module


def _entry(module, model):
    import importlib.util
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    deps = getattr(module, VAR_DEPENDENCY, None)
    if deps is not None:
        missing = [d for d in deps if importlib.util.find_spec(d) is None]
        if missing:
            raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    fn = getattr(module, model, None)
    if fn is None or not callable(fn):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return fn


def list(github, force_reload=False, skip_validation=False, trust_repo='check', verbose=True):
    """The entrypoints (public callables) of a repository's ``hubconf.py``.

    Args:
        github (str): ``"owner/name[:ref]"``; without ``ref``: ``main`` if it exists, else
            ``master``.
        force_reload (bool): download again even if cached.
        skip_validation (bool): accepted (NOTE: unlike PyTorch, ember never asks GitHub's
            API whether the ref belongs to a fork).
        trust_repo (bool or str): ``"check"`` (ask unless trusted), ``True`` (trust and
            remember), ``False`` (always ask).
        verbose (bool): report when the cache is used.

    Returns:
        list of str

    Example::

        >>> ember.hub.list('pytorch/vision:v0.20.0')
    """
    repo_dir = _repo_dir(github, force_reload, trust_repo, verbose, skip_validation)
    module = _import_hubconf(repo_dir)
    return [n for n in dir(module) if callable(getattr(module, n)) and not n.startswith('_')]


def help(github, model, force_reload=False, skip_validation=False, trust_repo='check'):
    """The docstring of entrypoint ``model`` of a repository's ``hubconf.py`` (arguments as
    in :func:`list`).

    Example::

        >>> print(ember.hub.help('pytorch/vision:v0.20.0', 'resnet18'))
    """
    repo_dir = _repo_dir(github, force_reload, trust_repo, True, skip_validation)
    return _entry(_import_hubconf(repo_dir), model).__doc__


def load(repo_or_dir, model, *args, source='github', trust_repo='check', force_reload=False,
         verbose=True, skip_validation=False, **kwargs):
    """Call entrypoint ``model`` of a ``hubconf.py`` with ``*args, **kwargs`` and return its
    result (usually a model).

    Args:
        repo_or_dir (str): ``"owner/name[:ref]"`` (``source='github'``) or a directory
            (``source='local'``).
        model (str): the entrypoint's name.
        source (str): ``'github'`` or ``'local'``.
        trust_repo, force_reload, verbose, skip_validation: as in :func:`list` (GitHub
            only).

    Example::

        >>> net = ember.hub.load('/path/to/repo', 'tiny_net', source='local')
    """
    source = source.lower()
    if source not in ('github', 'local'):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == 'github':
        repo_or_dir = _repo_dir(repo_or_dir, force_reload, trust_repo, verbose,
                                skip_validation)
    module = _import_hubconf(repo_or_dir)
    with _on_sys_path(repo_or_dir):
        return _entry(module, model)(*args, **kwargs)

