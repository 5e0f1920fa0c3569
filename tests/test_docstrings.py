"""Every public function and class of ember documents itself in PyTorch's style.

Public means: a name listed in the ``__all__`` of a public module (every module found by
``pkgutil.walk_packages(ember.__path__, 'ember.')`` with no dotted component starting with
``_``), bound to a class or a callable defined in ember (its ``__module__`` starts with
``'ember'``). An object exported under several names is checked once, under the first
name found.

The rule (shared with tests/test_api_coverage.py through tests/_docstring_rules.py):

* every such object has a non-empty docstring (a class its own, not one inherited from
  a base class);
* the docstring has an ``Example::`` section holding ``>>>`` lines, unless it is a single
  line that starts with one of ``ONE_LINE_PREFIXES`` (``Alias of ...``, ``Alias for ...``,
  ``In-place version of ...``): such a note points at an object that is documented;
* exception classes (subclasses of ``BaseException``) and enumerations (subclasses of
  ``enum.Enum``) need a docstring but no Example: what they are is the whole story, and
  their members are listed by the class itself.

Differences from PyTorch are written ``NOTE: unlike PyTorch, ...`` in the docstrings; that
wording is a convention this test cannot check.
"""
import enum
import importlib
import pkgutil

import pytest

import ember
from _docstring_rules import doc_of, has_example_section, is_one_line_note

# Modules left out of the walk (none today; a module being written may be listed here until
# it lands).
SKIPPED_MODULES = ()


def _skipped(modname):
    if any(part.startswith('_') for part in modname.split('.')[1:]):
        return True
    return any(modname == s or modname.startswith(s + '.') for s in SKIPPED_MODULES)


WALK_ERRORS = []   # public packages the walk could not import (a failure of its own)


def _walk_error(name):
    if not _skipped(name):
        WALK_ERRORS.append(name)


def _public_modules():
    names = ['ember']
    for info in pkgutil.walk_packages(ember.__path__, 'ember.', onerror=_walk_error):
        if not _skipped(info.name):
            names.append(info.name)
    return sorted(set(names))


def _public_objects():
    seen = set()
    cases, objs = [], {}
    for modname in _public_modules():
        mod = importlib.import_module(modname)
        for name in getattr(mod, '__all__', ()):
            obj = getattr(mod, name, None)
            if obj is None or not (isinstance(obj, type) or callable(obj)):
                continue
            if not (getattr(obj, '__module__', None) or '').startswith('ember'):
                continue
            if isinstance(obj, ember.dtype) or id(obj) in seen:
                continue
            seen.add(id(obj))
            qualname = f'{modname}.{name}'
            cases.append(qualname)
            objs[qualname] = obj
    return cases, objs


CASES, OBJECTS = _public_objects()


def _needs_example(obj):
    if isinstance(obj, type) and issubclass(obj, (BaseException, enum.Enum)):
        return False
    return True


def test_walk_found_the_namespaces():
    assert not WALK_ERRORS, f"public packages that fail to import: {WALK_ERRORS}"
    # guard against a walk that silently finds nothing (a broken import path, say)
    assert len(CASES) > 1000
    found = {id(o) for o in OBJECTS.values()}
    for obj in (ember.nn.Linear, ember.optim.SGD, ember.cuda.memory_allocated,
                ember.utils.data.DataLoader, ember.distributions.Normal):
        assert id(obj) in found, obj


def test_rule_rejects_bad_docstrings():
    assert not has_example_section('Add two tensors.\n\nArgs:\n    x: a tensor.')
    assert not has_example_section('Example::\n\n    nothing to run here')
    assert has_example_section('Add.\n\nExample::\n\n    >>> ember.add(1, 2)')
    assert is_one_line_note('Alias of :func:`ember.add`.')
    assert not is_one_line_note('See :func:`ember.add`.')
    assert not is_one_line_note('Alias of :func:`ember.add`.\n\nMore text.')

    class Base:
        """A documented base.

        Example::

            >>> Base()
        """

    class Child(Base):
        pass

    class Oops(ValueError):
        pass

    assert doc_of(Child, inherited=False) == ''      # a base's docstring does not count
    assert doc_of(Oops, inherited=False) == ''       # nor does ValueError's
    assert not _needs_example(Oops) and _needs_example(Child)


@pytest.mark.parametrize('qualname', CASES)
def test_docstring(qualname):
    obj = OBJECTS[qualname]
    where = getattr(obj, '__module__', '?')
    doc = doc_of(obj, inherited=False)
    assert doc.strip(), f"{qualname} (defined in {where}) has no docstring"
    if not _needs_example(obj) or is_one_line_note(doc):
        return
    assert has_example_section(doc), \
        f"{qualname} (defined in {where}): docstring has no 'Example::' section with '>>>' lines"
