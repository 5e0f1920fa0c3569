"""Docstring rules shared by tests/test_api_coverage.py and tests/test_docstrings.py.

A public function or class documents itself in PyTorch's style: a summary, ``Args:``,
``Shape:`` where relevant, and an ``Example::`` section of ``>>>`` lines. The one exception
is a one-line note that points at the documented object instead (``Alias of ...``,
``In-place version of ...``).
"""
import inspect
import re

ONE_LINE_PREFIXES = ('In-place version of', 'Alias of', 'Alias for')

_EXAMPLE_HEADER = re.compile(r'^\s*Examples?::?\s*$', re.MULTILINE)


def doc_of(obj, inherited=True):
    """The cleaned docstring of ``obj`` ('' if none); unwraps static/class methods.

    With ``inherited=False`` a class must carry its own docstring: the one of a base class
    (``Exception``'s, say) does not count.
    """
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if not inherited and isinstance(obj, type):
        return inspect.cleandoc(obj.__doc__) if isinstance(obj.__doc__, str) else ''
    return inspect.getdoc(obj) or ''


def is_one_line_note(doc):
    """Whether ``doc`` is a single line starting with one of :data:`ONE_LINE_PREFIXES`."""
    lines = [l for l in doc.strip().splitlines() if l.strip()]
    return len(lines) == 1 and lines[0].startswith(ONE_LINE_PREFIXES)


def has_example_section(doc):
    """Whether ``doc`` has an ``Example::`` (or ``Examples:``) header followed by a ``>>>``
    line."""
    m = _EXAMPLE_HEADER.search(doc)
    return m is not None and '>>>' in doc[m.end():]
