"""docs/build_site.py builds the documentation site from the docstrings (MkDocs, strict: a
broken link or anchor fails the build), one page per namespace, an index with the README's
promises, and a page of every ``NOTE: unlike PyTorch``. The build runs here so the site
cannot rot."""
import html
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope='module')
def site(tmp_path_factory):
    import mkdocs  # noqa: F401  (the [test] extra installs it: its absence is a failure)
    d = tmp_path_factory.mktemp('site')
    out = subprocess.run([sys.executable, os.path.join(ROOT, 'docs', 'build_site.py'),
                          '--out', str(d / 'html'), '--src', str(d / 'src')],
                         capture_output=True, text=True, timeout=600,
                         env={**os.environ, 'OMP_NUM_THREADS': '1'})
    assert out.returncode == 0, out.stdout + out.stderr
    return d / 'html', d / 'src' / 'docs', out.stdout


def _text(path):
    return html.unescape(re.sub(r'<[^>]+>', '', path.read_text(encoding='utf-8')))


def test_a_page_per_namespace(site):
    out, _, _ = site
    for ns in ('ember', 'ember.Tensor', 'ember.nn', 'ember.nn.functional', 'ember.optim',
               'ember.utils.data', 'ember.autograd', 'ember.linalg', 'ember.fft',
               'ember.distributions', 'ember.func', 'ember.serialization'):
        assert (out / 'pages' / ns / 'index.html').is_file(), ns
    assert (out / 'index.html').is_file() and (out / 'compatibility' / 'index.html').is_file()


def test_pages_carry_signatures_docstrings_and_examples(site):
    out, _, _ = site
    # (conv2d is also torch.conv2d: it is documented once, on the ember page)
    e = _text(out / 'pages' / 'ember' / 'index.html')
    assert 'conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1)' in e
    assert '>>> F.conv2d(' in e
    f = _text(out / 'pages' / 'ember.nn.functional' / 'index.html')
    assert ("interpolate(input, size=None, scale_factor=None, mode='nearest', "
            "align_corners=None, recompute_scale_factor=None, antialias=False)") in f
    assert 'ember.nn.functional.cross_entropy' in f
    t = _text(out / 'pages' / 'ember.Tensor' / 'index.html')
    assert 'ember.Tensor.view' in t and 'ember.Tensor.backward' in t
    n = _text(out / 'pages' / 'ember.nn' / 'index.html')
    assert 'ember.nn.Linear' in n and 'ember.nn.Module.state_dict' in n


def test_every_difference_in_one_place(site):
    out, src, stdout = site
    c = _text(out / 'compatibility' / 'index.html')
    # notes written in the docstrings of a function, a class argument and a module
    assert 'ember.tril_indices' in c and '``device`` is ignored'.replace('``', '') in c
    assert 'ember.optim.SparseAdam' in c
    assert 'ember.nn.Embedding' in c
    count = int(re.search(r'(\d+) differences from PyTorch', stdout).group(1))
    assert count > 150
    assert (src / 'compatibility.md').read_text().count('\n- [') == count


def test_index_carries_the_readme_promises(site):
    out, _, _ = site
    i = _text(out / 'index.html')
    assert 'What "the same numbers" means' in i
    assert 'Random streams are PyTorch' in i
    assert 'install-torch' in i
