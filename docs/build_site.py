"""Build ember's documentation site from its docstrings, with MkDocs.

    python docs/build_site.py [--out DIR] [--src DIR] [--no-build]

Writes one Markdown page per public namespace, laid out as PyTorch's reference is
(``ember`` for ``torch``, ``ember.Tensor``, ``ember.nn``, ``ember.nn.functional``, ...), an
index page carrying the README's promises (what "the same numbers" means, ember as torch
for the libraries that import it, security of ``load``, what is there and what is not), and
a compatibility page that collects every ``NOTE: unlike PyTorch`` of the docstrings, so that
a user sees every known difference in one place. Then ``mkdocs build --strict`` renders the
pages to HTML in ``--out`` (default ``docs/_site``): a broken link or anchor fails the build.

Public means what tests/test_docstrings.py checks: a name in the ``__all__`` of a module
whose dotted path has no component starting with ``_`` (or, for a namespace without
``__all__`` such as ``ember`` itself, a name not starting with ``_``), bound to a class or
callable defined in ember. An object is documented once, on the page of the shortest
namespace that exports it; ``ember.Tensor`` gets its own page for its methods and
properties.
"""
import argparse
import enum
import importlib
import inspect
import os
import pkgutil
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
NOTE = 'NOTE: unlike PyTorch'
README_SECTIONS = ('What "the same numbers" means', 'Ember as torch, for libraries that import torch',
                   'Security', 'What is there, and what is not')
_SECTION = re.compile(r'^(Args|Arguments|Keyword args|Keyword arguments|Returns|Return type|Shape|'
                      r'Attributes|Raises|Yields|Note|Notes|Warning|Examples?|Inputs|Outputs|'
                      r'Parameters|Variables)(::?)\s*$')
_ROLE = re.compile(r':(?:func|class|meth|attr|mod|data|obj|exc|ref):`~?([^`]+)`')


# ------------------------------------------------------------------ what is public

def public_modules(ember):
    """The public module names of ember, sorted (``ember`` first)."""
    names = {'ember'}
    for info in pkgutil.walk_packages(ember.__path__, 'ember.', onerror=lambda name: None):
        if not any(part.startswith('_') for part in info.name.split('.')[1:]):
            names.add(info.name)
    return sorted(names)


def namespace_objects(modname):
    """``[(name, obj)]`` of the public classes and callables ``modname`` exports."""
    try:
        mod = importlib.import_module(modname)
    except Exception:       # a namespace whose extra is missing (onnx, tensorboard...)
        return []
    out = []
    names = getattr(mod, '__all__', None)
    if names is None:       # a namespace without __all__ (ember, ember.nn): its public names
        names = [n for n in dir(mod) if not n.startswith('_')]
    for name in names:
        try:
            obj = getattr(mod, name, None)
        except Exception:
            continue
        if obj is None or not (isinstance(obj, type) or callable(obj)):
            continue
        if not (getattr(obj, '__module__', None) or '').startswith('ember'):
            continue
        out.append((name, obj))
    return out


def tensor_members(ember):
    """``[(name, obj)]`` of ``ember.Tensor``'s public documented methods and properties."""
    out = []
    for name in sorted(dir(ember.Tensor)):
        if name.startswith('_'):
            continue
        obj = inspect.getattr_static(ember.Tensor, name)
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if isinstance(obj, property) or callable(obj):
            if inspect.getdoc(obj):
                out.append((name, obj))
    return out


# ------------------------------------------------------------------ docstring -> Markdown

def _inline(text):
    """RST inline markup to Markdown: ``code`` and :role:`name` become `code`."""
    text = _ROLE.sub(lambda m: f'`{m.group(1)}`', text)
    return text.replace('``', '`')


def docstring_markdown(doc):
    """A PyTorch-style docstring (summary, ``Args:``, ``Shape:``, ``Example::``...) as
    Markdown: sections become bold headings, their entries list items, examples and
    ``::`` literal blocks fenced code."""
    lines = doc.expandtabs().splitlines()
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        m = _SECTION.match(line.strip()) if not line.startswith(' ') else None
        literal = line.rstrip().endswith('::') and not m
        if m or literal:
            block, j = _indented_block(lines, i + 1)
            if m:
                out.append(f'**{m.group(1)}**')
                out.append('')
            else:
                out.append(_inline(line.rstrip()[:-1]))
                out.append('')
            if m and m.group(2) == '::' or literal or m and m.group(1).startswith('Example'):
                out.extend(['```python' if any(b.lstrip().startswith('>>>') for b in block)
                            else '```text'] + block + ['```', ''])
            else:
                out.extend(_items(block))
                out.append('')
            i = j
            continue
        out.append(_inline(line))
        i += 1
    return '\n'.join(out).strip() + '\n'


def _indented_block(lines, i):
    """The lines indented under a header at ``lines[i-1]`` (dedented), and where they end."""
    j = i
    while j < len(lines) and (not lines[j].strip() or lines[j].startswith((' ', '\t'))):
        j += 1
    block = lines[i:j]
    while block and not block[-1].strip():
        block.pop()
    while block and not block[0].strip():
        block.pop(0)
        i += 1
    ind = min((len(b) - len(b.lstrip()) for b in block if b.strip()), default=0)
    return [b[ind:] for b in block], j


def _items(block):
    """A section's entries (one per line at the section's indentation, continued by deeper
    lines) as a Markdown list."""
    items = []
    for b in block:
        if not b.strip():
            continue
        if b.startswith(' ') and items:
            items[-1] += ' ' + b.strip()
        else:
            items.append(b.strip())
    return [f'- {_inline(it)}' for it in items]


def _signature(name, obj):
    target = obj.fget if isinstance(obj, property) else obj
    if isinstance(obj, property):
        return f'{name}'
    try:
        return f'{name}{inspect.signature(target)}'
    except (TypeError, ValueError):
        return f'{name}(...)'


def _anchor(qualname):
    return qualname.replace('.', '-').lower()


def entry_markdown(qualname, name, obj, level=3):
    """One documented object: its heading (with a stable anchor), signature and docstring."""
    doc = inspect.getdoc(obj) or ''
    kind = 'class' if isinstance(obj, type) else 'property' if isinstance(obj, property) else ''
    head = f'{"#" * level} `{qualname}` {{#{_anchor(qualname)}}}'
    sig = _signature(name, obj)
    parts = [head, '', '```python', (f'{kind} ' if kind else '') + sig, '```', '',
             docstring_markdown(doc) if doc else '*No documentation.*', '']
    if isinstance(obj, type) and not issubclass(obj, (BaseException, enum.Enum)):
        for mname, member in sorted(vars(obj).items()):
            if mname.startswith('_') and mname != '__call__':
                continue
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            if not (callable(member) or isinstance(member, property)) or not inspect.getdoc(member):
                continue
            parts.append(entry_markdown(f'{qualname}.{mname}', mname, member, level + 1))
    return '\n'.join(parts)


# ------------------------------------------------------------------ the pages

def notes_of(doc):
    """The ``NOTE: unlike PyTorch`` paragraphs of a docstring."""
    out = []
    for para in re.split(r'\n\s*\n', doc):
        k = para.find(NOTE)
        if k >= 0:
            out.append(' '.join(para[k:].split()))
    return out


def readme_sections(path, titles):
    """The README's sections (``## title`` up to the next ``## ``) with these titles."""
    text = open(path, encoding='utf-8').read()
    out = []
    for block in re.split(r'(?m)^## ', text)[1:]:
        title, _, body = block.partition('\n')
        if title.strip() in titles:
            out.append((title.strip(), body.strip()))
    return out


def write_sources(src):
    """Write the Markdown pages and mkdocs.yml under ``src``; returns the page names."""
    sys.path.insert(0, ROOT)
    import ember
    if os.path.isdir(src):
        shutil.rmtree(src)
    os.makedirs(os.path.join(src, 'pages'))
    pages, notes = [], []

    def page(fname, title, intro, entries):
        body = [f'# {title}', '', intro, '']
        for qual, name, obj in entries:
            body.append(entry_markdown(qual, name, obj))
            for n in notes_of(inspect.getdoc(obj) or ''):
                notes.append((qual, fname, n))
            if isinstance(obj, type):
                for mname, member in sorted(vars(obj).items()):
                    if not mname.startswith('_') and inspect.getdoc(member):
                        for n in notes_of(inspect.getdoc(member)):
                            notes.append((f'{qual}.{mname}', fname, n))
        with open(os.path.join(src, 'pages', fname), 'w', encoding='utf-8') as f:
            f.write('\n'.join(body))
        pages.append((title, 'pages/' + fname))

    tensor = [(f'ember.Tensor.{n}', n, o) for n, o in tensor_members(ember)]
    page('ember.Tensor.md', 'ember.Tensor', 'Methods and properties of `ember.Tensor` '
         '(`torch.Tensor`).', tensor)
    seen = set()        # an object is documented once, in the shortest namespace exporting it
    for modname in sorted(public_modules(ember), key=lambda m: (m.count('.'), m)):
        objs = [(n, o) for n, o in namespace_objects(modname) if id(o) not in seen]
        seen.update(id(o) for _, o in objs)
        if not objs:
            continue
        for n in notes_of(inspect.getdoc(sys.modules[modname]) or ''):
            notes.append((modname, f'{modname}.md', n))
        torch_name = 'torch' + modname[len('ember'):]
        page(f'{modname}.md', modname, f'The public names of `{modname}` (`{torch_name}`).',
             [(f'{modname}.{n}', n, o) for n, o in objs])

    compat = ['# Differences from PyTorch', '',
              'Every `NOTE: unlike PyTorch` written in ember\'s docstrings, in one place. '
              'Each links to the documentation of the object it belongs to.', '']
    for qual, fname, n in sorted(notes):
        link = f'pages/{fname}' + ('' if fname == f'{qual}.md' else f'#{_anchor(qual)}')
        compat.append(f'- [`{qual}`]({link}): {_inline(n)}')
    with open(os.path.join(src, 'compatibility.md'), 'w', encoding='utf-8') as f:
        f.write('\n'.join(compat) + '\n')

    index = ['# Ember', '', 'PyTorch\'s API and semantics, written in Python on NumPy (CPU) '
             'and CuPy (CUDA). A PyTorch program should run after `import ember as torch` '
             'and print the same numbers.', '',
             f'- [Differences from PyTorch](compatibility.md): {len(notes)} documented '
             'differences, collected from the docstrings.',
             '- The reference: one page per namespace, as PyTorch\'s is laid out (see the '
             'navigation).', '']
    for title, body in readme_sections(os.path.join(ROOT, 'README.md'), README_SECTIONS):
        index += [f'## {title}', '', body, '']
    with open(os.path.join(src, 'index.md'), 'w', encoding='utf-8') as f:
        f.write('\n'.join(index) + '\n')

    nav = ['nav:', '  - Home: index.md', '  - Differences from PyTorch: compatibility.md',
           '  - Reference:']
    nav += [f'      - "{title}": {path}' for title, path in pages]
    with open(os.path.join(src, 'mkdocs.yml'), 'w', encoding='utf-8') as f:
        f.write('\n'.join(['site_name: Ember', 'docs_dir: .', 'theme:', '  name: mkdocs',
                           'markdown_extensions:', '  - attr_list', '  - fenced_code',
                           '  - toc:', '      permalink: false',
                           'validation:', '  anchors: warn', '  links:',
                           '    not_found: warn', '    unrecognized_links: warn'] + nav) + '\n')
    return pages, notes


def build(src, out):
    """Run ``mkdocs build --strict`` on the sources in ``src`` into ``out``."""
    # mkdocs refuses a docs_dir that contains its own config: move the pages one level down
    docs = os.path.join(src, 'docs')
    os.makedirs(docs)
    for name in os.listdir(src):
        if name not in ('docs', 'mkdocs.yml'):
            shutil.move(os.path.join(src, name), os.path.join(docs, name))
    cfg = os.path.join(src, 'mkdocs.yml')
    text = open(cfg, encoding='utf-8').read().replace('docs_dir: .', 'docs_dir: docs')
    with open(cfg, 'w', encoding='utf-8') as f:
        f.write(text)
    subprocess.run([sys.executable, '-m', 'mkdocs', 'build', '--strict', '--quiet', '-f', cfg,
                    '-d', os.path.abspath(out)], check=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--out', default=os.path.join(HERE, '_site'), help='where the HTML goes')
    p.add_argument('--src', default=os.path.join(HERE, '_site_src'),
                   help='where the generated Markdown goes')
    p.add_argument('--no-build', action='store_true', help='write the Markdown only')
    a = p.parse_args(argv)
    pages, notes = write_sources(a.src)
    if not a.no_build:
        build(a.src, a.out)
    print(f'{len(pages)} reference pages, {len(notes)} differences from PyTorch'
          + ('' if a.no_build else f'; site in {a.out}'))


if __name__ == '__main__':
    main()
