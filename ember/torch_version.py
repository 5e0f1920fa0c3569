"""``ember.torch_version``: the version string type, as ``torch.torch_version``.

``TorchVersion`` is a ``str`` that compares as a PEP 440 version, so that libraries can write
``torch.__version__ >= "2.6"`` or ``torch.__version__ < (2, 14)``. Outside ``python -m ember
run`` (and an ``install-torch`` venv) ``ember.__version__`` is ember's own plain string; in
that mode it is a ``TorchVersion`` of the PyTorch release ember reproduces, with ember's
version as the local tag (``"2.13.0+ember0.1.0"``).
"""
import re
from collections.abc import Iterable

__all__ = ['TorchVersion']

_VERSION = re.compile(r"""^\s*v?
    (?:(?P<epoch>[0-9]+)!)?
    (?P<release>[0-9]+(?:\.[0-9]+)*)
    (?:[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>[0-9]+)?)?
    (?:-(?P<post_n1>[0-9]+)|[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?)?
    (?:[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
    \s*$""", re.VERBOSE | re.IGNORECASE)
_PRE_RANK = {'a': 1, 'alpha': 1, 'b': 2, 'beta': 2, 'c': 3, 'rc': 3, 'pre': 3, 'preview': 3}


class _InvalidVersion(ValueError):
    pass


def _sort_key(text):
    """PEP 440 ordering key of ``text`` (raises ``_InvalidVersion`` when it is not one)."""
    m = _VERSION.match(text)
    if m is None:
        raise _InvalidVersion(text)
    release = [int(p) for p in m['release'].split('.')]
    while len(release) > 1 and release[-1] == 0:      # 1.0.0 == 1.0 == 1
        release.pop()
    has_post = m['post_l'] is not None or m['post_n1'] is not None
    if m['pre_l'] is not None:
        pre = (_PRE_RANK[m['pre_l'].lower()], int(m['pre_n'] or 0))
    elif m['dev_l'] is not None and not has_post:
        pre = (0,)                                      # 1.0.dev1 sorts before 1.0a1
    else:
        pre = (4,)
    post = (1, int(m['post_n1'] or m['post_n2'] or 0)) if has_post else (0,)
    dev = (0, int(m['dev_n'] or 0)) if m['dev_l'] is not None else (1,)
    local = ()
    if m['local']:
        local = tuple((1, int(s), '') if s.isdigit() else (0, 0, s.lower())
                      for s in re.split(r'[-_.]', m['local']))
    return (int(m['epoch'] or 0), tuple(release), pre, post, dev, local)


class TorchVersion(str):
    """A version string that compares as a version.

    ``TorchVersion`` is a ``str`` (it prints, splits and hashes as one); its comparison
    operators parse both sides as PEP 440 versions, so ``"2.13.0+ember0.1.0" >= "2.6"`` and
    ``< (2, 14)`` hold. A tuple or list on the other side is read as its parts joined by
    dots. When either side is not a valid version, the plain string comparison is used.
    ``!=`` is ``str``'s, as in PyTorch (``TorchVersion("2.13.0") != "2.13"`` is True).

    Args:
        version (str): the version text.

    Example::

        >>> v = ember.torch_version.TorchVersion("2.13.0+ember0.1.0")
        >>> v >= "2.6", v < (2, 14), v == "2.13.0"
        (True, True, False)
    """

    def _compare(self, other, method):
        if isinstance(other, str):
            text = str(other)
        elif isinstance(other, Iterable):
            text = '.'.join(str(p) for p in other)
        else:
            return NotImplemented
        try:
            a, b = _sort_key(str(self)), _sort_key(text)
        except _InvalidVersion:
            return getattr(str, method)(self, other)
        return getattr(a, method)(b)

    def __lt__(self, other):
        return self._compare(other, '__lt__')

    def __le__(self, other):
        return self._compare(other, '__le__')

    def __gt__(self, other):
        return self._compare(other, '__gt__')

    def __ge__(self, other):
        return self._compare(other, '__ge__')

    def __eq__(self, other):
        return self._compare(other, '__eq__')

    __hash__ = str.__hash__
