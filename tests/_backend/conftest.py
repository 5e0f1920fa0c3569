"""Tests that need process-wide state from the start of the process run in a child process
that a test of the same file starts, and are left out (deselected, not skipped) of a
process without that state: ember on the fake CUDA device (``@pytest.mark.fake_cuda_device``,
test_fake_cuda.py, ``EMBER_FAKE_CUDA=1``) and the op database on the strict check backend
(``@pytest.mark.strict_backend_only``, test_strict_backend.py, ``--strict-backend``)."""
import os


def pytest_configure(config):
    config.addinivalue_line('markers', 'fake_cuda_device: runs on the fake CUDA device, in '
                                       'the child process with EMBER_FAKE_CUDA=1')
    config.addinivalue_line('markers', 'strict_backend_only: runs on the strict check '
                                       'backend, in the child process with --strict-backend')


def pytest_collection_modifyitems(config, items):
    from ember._backend import strict_backend
    drop = set()
    if os.environ.get('EMBER_FAKE_CUDA') != '1':
        drop.add('fake_cuda_device')
    if not strict_backend.enabled():
        drop.add('strict_backend_only')
    keep, out = [], []
    for item in items:
        (out if any(item.get_closest_marker(m) for m in drop) else keep).append(item)
    if out:
        config.hook.pytest_deselected(items=out)
        items[:] = keep
