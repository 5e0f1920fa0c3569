"""Random number generators: ``ember.Generator``, the default generator and the global
seeding functions (``manual_seed``, ``seed``, ``initial_seed``, ``get_rng_state``,
``set_rng_state``, ``fork_rng``).

A Generator wraps NumPy's ``Generator(PCG64)``. ``manual_seed`` makes ember reproducible
with itself; NOTE: unlike PyTorch, the streams are not PyTorch's (Mersenne Twister /
Philox), so the same seed gives different numbers than in PyTorch.
"""
import contextlib
import secrets

import numpy as np

from ._device import device as _device
from ._backend import numpy_backend as _npb

__all__ = ['Generator', 'default_generator', 'manual_seed', 'seed', 'initial_seed',
           'get_rng_state', 'set_rng_state', 'fork_rng']

_DEFAULT_SEED = 67280421310721
_STATE_BYTES = 48   # pcg state (16) + increment (16) + has_uint32 (4) + uinteger (4) + seed (8)
_U64 = 1 << 64


def _seed_value(seed, strict=False):
    """PyTorch's seed conversion: any int in [-2**63, 2**64) (negative values wrap).
    ``ember.manual_seed`` first applies ``int()``; ``Generator.manual_seed`` (strict)
    accepts only integers."""
    if strict:
        if isinstance(seed, bool) or not hasattr(seed, '__index__'):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        s = seed.__index__()
    else:
        s = int(seed)
    if s < -(1 << 63) or s >= _U64:
        raise ValueError("Overflow when unpacking long long")
    return s % _U64


class Generator:
    """A pseudo-random number generator (NumPy PCG64) whose state can be saved and
    restored; pass it as ``generator=`` to sampling functions.

    Args:
        device: the device it generates for (``'cpu'`` by default). CUDA generators
            draw on the host and the values are copied to the device.

    Example::

        >>> g = ember.Generator().manual_seed(42)
        >>> a = ember.rand(3, generator=g)
        >>> _ = g.manual_seed(42)
        >>> bool((ember.rand(3, generator=g) == a).all())
        True
    """

    def __init__(self, device='cpu'):
        self.device = _device(device) if not isinstance(device, _device) else device
        if self.device.type == 'cuda' and self.device.index is None:
            self.device = _device('cuda', 0)
        self._seed = _DEFAULT_SEED
        self._rng = _npb.new_rng(_DEFAULT_SEED)

    def manual_seed(self, seed):
        """Seed the generator with an int (negative values wrap modulo 2**64); returns
        self."""
        s = _seed_value(seed, strict=True)
        self._seed = s
        self._rng = _npb.new_rng(s)
        return self

    def seed(self):
        """Seed from a non-deterministic source; returns the seed used."""
        s = secrets.randbits(63)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        """The seed last set by ``manual_seed``/``seed`` (or the default one)."""
        return self._seed

    def get_state(self):
        """The generator state as a ``uint8`` tensor (restore it with :meth:`set_state`)."""
        from ._ops._util import wrap
        st = self._rng.bit_generator.state
        buf = bytearray()
        buf += int(st['state']['state']).to_bytes(16, 'little')
        buf += int(st['state']['inc']).to_bytes(16, 'little')
        buf += int(st['has_uint32']).to_bytes(4, 'little')
        buf += int(st['uinteger']).to_bytes(4, 'little')
        buf += int(self._seed).to_bytes(8, 'little')
        return wrap(np.frombuffer(bytes(buf), dtype=np.uint8).copy())

    def set_state(self, new_state):
        """Restore a state from :meth:`get_state`; returns self."""
        from ._tensor import Tensor
        from . import _dtype as D
        if not isinstance(new_state, Tensor) or new_state.dtype is not D.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        b = bytes(np.asarray(new_state._data if type(new_state._data) is np.ndarray
                             else new_state._data.get()).reshape(-1))
        if len(b) != _STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but "
                               f"found the input RNG state size to be {len(b)}")
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = {
            'bit_generator': 'PCG64',
            'state': {'state': int.from_bytes(b[0:16], 'little'),
                      'inc': int.from_bytes(b[16:32], 'little')},
            'has_uint32': int.from_bytes(b[32:36], 'little'),
            'uinteger': int.from_bytes(b[36:40], 'little')}
        self._rng = rng
        self._seed = int.from_bytes(b[40:48], 'little')
        return self

    def clone_state(self):
        """A new Generator with a copy of this one's state."""
        g = Generator(self.device)
        g.set_state(self.get_state())
        return g

    def __repr__(self):
        return f"<ember.Generator object at {hex(id(self))}>"


default_generator = Generator()
_device_generators = {}   # cuda device -> Generator


def _default_for(dev):
    """The default generator of device ``dev``."""
    if dev.type == 'cpu':
        return default_generator
    key = _device(dev.type, dev.index or 0)
    g = _device_generators.get(key)
    if g is None:
        g = _device_generators[key] = Generator(key)
        g.manual_seed(default_generator.initial_seed())
    return g


def manual_seed(seed):
    """Seed the default generators (CPU and CUDA); returns the CPU default generator.

    Example::

        >>> _ = ember.manual_seed(0)
        >>> a = ember.rand(2); _ = ember.manual_seed(0)
        >>> bool((ember.rand(2) == a).all())
        True
    """
    s = _seed_value(seed)
    for g in _device_generators.values():
        g.manual_seed(s)
    return default_generator.manual_seed(s)


def seed():
    """Seed the default generators non-deterministically; returns the seed."""
    s = default_generator.seed()
    for g in _device_generators.values():
        g.manual_seed(s)
    return s


def initial_seed():
    """The initial seed of the default CPU generator."""
    return default_generator.initial_seed()


def get_rng_state():
    """The state of the default CPU generator as a ``uint8`` tensor."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restore the default CPU generator's state from :func:`get_rng_state`."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type=None):
    """Context manager: on exit, restore the RNG state (default CPU generator, and the
    CUDA generators of ``devices`` or of every CUDA device used) that held on entry.

    Example::

        >>> with ember.random.fork_rng():
        ...     _ = ember.rand(3)     # does not advance the outer stream
    """
    if not enabled:
        yield
        return
    cpu = default_generator.get_state()
    if devices is None:
        devs = list(_device_generators)
    else:
        devs = [_device('cuda', d) if isinstance(d, int) else _device(d) for d in devices]
    saved = [(d, _default_for(d).get_state()) for d in devs]
    try:
        yield
    finally:
        default_generator.set_state(cpu)
        for d, st in saved:
            _default_for(d).set_state(st)
