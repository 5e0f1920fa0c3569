import os
import sys

os.environ.setdefault('OMP_NUM_THREADS', '1')
sys.path.insert(0, os.path.dirname(__file__))

import pytest  # noqa: E402


def pytest_addoption(parser):
    parser.addoption('--strict-backend', action='store_true',
                     help="run ember on the strict check backend (ember/_backend/"
                          "strict_backend.py): an op body that calls numpy directly on tensor "
                          "data instead of its inputs' array module fails; same as "
                          "EMBER_STRICT_BACKEND=1")
    parser.addoption('--opdb-full', action='store_true',
                     help="tests/test_torch_opdb.py walks every op, module and dtype of "
                          "torch's op_db/module_db, not the CI slice; same as EMBER_OPDB_FULL=1")


def pytest_configure(config):
    if config.getoption('--strict-backend'):
        os.environ['EMBER_STRICT_BACKEND'] = '1'
        if 'ember' in sys.modules:
            from ember._backend import strict_backend
            strict_backend.enable()


@pytest.hookimpl(hookwrapper=True)
def pytest_collection(session):
    """Keep the cyclic garbage collector's full passes short. Collecting the suite builds
    about a million objects that live to the end of the run (the test modules, torch, ember,
    the test items), and the run adds about as many (the reports it keeps); every full pass
    (a test's ``gc.collect()``, the observer fixture below, the automatic ones) walked them
    all: seconds each, dozens of times. So the automatic passes pause while the suite is
    collected; then, after one full collection, the survivors move to the collector's
    permanent generation (``gc.freeze()``), and so does, after each test file, what outlives
    the file (``pytest_runtest_protocol``). Nothing a test sees changes: reference counting
    still frees those objects (only a cycle among them that dies later stays, a little
    memory), and everything a test makes is collected as before."""
    import gc
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
    gc.collect()
    gc.freeze()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    yield
    if nextitem is None or nextitem.path != item.path:   # the file's last test is done
        import gc
        gc.collect()
        gc.freeze()


@pytest.fixture(autouse=True)
def _torch_one_thread():
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        pass
    yield


@pytest.fixture(autouse=True)
def _no_lingering_observers():
    """A Tensor subclass with ``__torch_function__`` switches ember's bindings to the
    observing wrappers while it lives (ember/_ops/_dispatch.py); a class defined inside a
    test lives until the garbage collector breaks its reference cycles. Collect after such
    a test, so that the next test starts with the plain bindings (as a fresh program does)."""
    d = sys.modules.get('ember._ops._dispatch')
    before = d is not None and d.observing()
    yield
    d = sys.modules.get('ember._ops._dispatch')
    if not before and d is not None and d.observing():   # this test switched them on
        import gc
        gc.collect(1)   # such a class is nearly always still young: a cheap collection
        d.sync_released()
        if d.observing():   # it was not (or something else still observes): collect all
            gc.collect()
            d.sync_released()


@pytest.fixture(autouse=True, scope='module')
def _restore_process_state():
    """Give back, after each test module, the process-wide state that some of torch's
    machinery changes behind a test's back, so that results do not depend on the order
    the modules run in: running dynamo (``torch.compile``, ``torch.cond``,
    ``torch._dynamo`` calls) switches torch's default Distribution ``validate_args`` off,
    and torch's test utilities add warning filters."""
    import warnings
    saved = []
    for name in ('torch', 'ember'):
        mod = sys.modules.get(f'{name}.distributions')
        if mod is not None:
            saved.append((mod.Distribution, mod.Distribution._validate_args))
    with warnings.catch_warnings():
        yield
    for cls, value in saved:
        cls._validate_args = value
    for name in ('torch', 'ember'):     # imported during the module: their defaults
        mod = sys.modules.get(f'{name}.distributions')
        if mod is not None and all(c is not mod.Distribution for c, _ in saved):
            mod.Distribution._validate_args = __debug__
