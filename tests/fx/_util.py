"""Run the same FX program text on ember and on torch."""
import textwrap

import numpy as np


def run_src(src, mod_name):
    """Exec ``src`` with ``torch`` bound to ``mod_name`` ('torch' or 'ember'); return its
    namespace."""
    import importlib
    lib = importlib.import_module(mod_name)
    importlib.import_module(mod_name + '.fx')
    ns = {'torch': lib, 'fx': lib.fx, 'nn': lib.nn, 'F': lib.nn.functional,
          '__name__': f'fxtest_{mod_name}'}
    exec(compile(textwrap.dedent(src), f'<fx-{mod_name}>', 'exec'), ns)
    return ns


def both(src):
    return run_src(src, 'ember'), run_src(src, 'torch')


def close(a, b, tol=1e-5):
    from oracle import to_np
    a, b = to_np(a), to_np(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
