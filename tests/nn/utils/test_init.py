"""nn.utils.skip_init vs torch: the module is built (shapes, dtypes, device, class) without
running its initialisation; errors for non-modules and modules without ``device``."""
import pytest
import torch

import ember
from ._common import both


def test_skip_init_builds_module():
    def f(lib):
        m = lib.nn.utils.skip_init(lib.nn.Linear, 5, 1, dtype=lib.float64)
        c = lib.nn.utils.skip_init(lib.nn.Conv2d, 3, 4, kernel_size=2, bias=False)
        return (type(m).__name__, tuple(m.weight.shape), str(m.weight.dtype).split('.')[-1],
                [n for n, _ in c.named_parameters()], tuple(c.weight.shape), str(c.weight.device))
    t, e = both(f)
    assert t == e


def test_skip_init_does_not_draw_from_the_generator():
    for lib in (torch, ember):
        lib.manual_seed(0)
        lib.nn.utils.skip_init(lib.nn.Linear, 50, 50)
        a = lib.rand(3)
        lib.manual_seed(0)
        b = lib.rand(3)
        assert a.tolist() == b.tolist()


def test_skip_init_errors():
    class NoDevice(ember.nn.Module):
        def __init__(self):
            super().__init__()

    class TNoDevice(torch.nn.Module):
        def __init__(self):
            super().__init__()
    for lib, nd in ((torch, TNoDevice), (ember, NoDevice)):
        with pytest.raises(RuntimeError, match='Expected a Module'):
            lib.nn.utils.skip_init(int)
        with pytest.raises(RuntimeError, match="support a 'device' arg"):
            lib.nn.utils.skip_init(nd)
        with pytest.raises(RuntimeError, match="support a 'device' arg"):
            lib.nn.utils.skip_init(lib.nn.LSTM, 3, 4)   # (*args, **kwargs) signature


@pytest.mark.parametrize('build', [
    lambda lib: lib.nn.utils.skip_init(lib.nn.GRUCell, 3, 4),
    lambda lib: lib.nn.utils.skip_init(lib.nn.BatchNorm1d, 3),
    lambda lib: lib.nn.utils.skip_init(lib.nn.Embedding, 10, 3, padding_idx=0),
])
def test_skip_init_names_shapes_devices(build):
    def f(lib):
        m = build(lib)
        return ([(n, tuple(p.shape), str(p.dtype), str(p.device), type(p).__name__)
                 for n, p in m.named_parameters()],
                [(n, tuple(b.shape), str(b.dtype), str(b.device)) for n, b in m.named_buffers()])
    t, e = both(f)
    assert t == e
