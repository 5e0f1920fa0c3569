"""Random number generators: ``ember.Generator``, the default generator and the global
seeding functions (``manual_seed``, ``seed``, ``initial_seed``, ``get_rng_state``,
``set_rng_state``, ``fork_rng``).

A Generator is PyTorch's CPU generator: a Mersenne Twister (mt19937, NumPy's ``MT19937``
bit generator gives the raw 32-bit words) seeded with the low 32 bits of the seed, plus
the two cached normal samples of PyTorch's scalar Box-Muller path. The samplers in
``ember._ops.random_ops`` apply PyTorch's transforms to that stream, so a seeded program
draws the same numbers as PyTorch on the CPU, and states move between the two:
``get_state`` returns PyTorch's 5056-byte ``CPUGeneratorImplState`` layout.
"""
import contextlib
import secrets
import struct
import sys

import numpy as np

from ._device import device as _device
from ._backend import numpy_backend as _npb

__all__ = ['Generator', 'default_generator', 'manual_seed', 'seed', 'initial_seed',
           'get_rng_state', 'set_rng_state', 'fork_rng', 'thread_safe_generator']

_DEFAULT_SEED = 67280421310721
_U64 = 1 << 64
_MT_N = 624
# PyTorch's state layout (little-endian, natural alignment):
#   uint64 the_initial_seed; int32 left; int32 seeded; uint64 next; uint64 state[624];
#   double normal_x, normal_y, normal_rho; int32 normal_is_valid; (pad 4)   -> 5048 bytes
#   float next_float_normal_sample; bool is_next_float_normal_sample_valid  -> 5056 bytes
_LEGACY_BYTES = 5048
_STATE_BYTES = 5056
_OFF_STATE = 24
_OFF_NORMAL = _OFF_STATE + 8 * _MT_N      # 5016


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
    """Creates and returns a generator object that manages the state of the algorithm
    which produces pseudo random numbers: PyTorch's CPU generator (mt19937), so the same
    seed gives the same numbers as in PyTorch. Pass it as ``generator=`` to sampling
    functions.

    Args:
        device (ember.device, optional): the device it generates for (``'cpu'`` by
            default). CUDA generators draw on the host and the values are copied to the
            device.

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
        self._reseed(_DEFAULT_SEED)

    def _reseed(self, s):
        self._seed = s
        self._mt = _npb.new_rng(s)
        self._gen32 = None            # a numpy Generator over ``_mt`` (see ``_words``)
        self._next0 = True            # torch's ``next_`` is 0 right after seeding
        self._next_double = None      # cached second sample of normal_distribution<double>
        self._next_float = None       # ... of normal_distribution<float>

    # ---------------------------------------------------------------- raw stream
    def _words(self, n):
        """The next ``n`` 32-bit words of the mt19937 stream (``uint32`` array)."""
        if n <= 0:
            return np.empty(0, np.uint32)
        self._next0 = False
        g = self._gen32
        if g is None or g.bit_generator is not self._mt:
            g = self._gen32 = np.random.Generator(self._mt)
        # full-range uint32 draws are the raw 32-bit words in order (MT19937 is a 32-bit
        # generator: nothing is buffered), ten times faster than ``random_raw``
        return g.integers(0, 1 << 32, n, dtype=np.uint32)

    def _words64(self, n):
        """The next ``n`` 64-bit draws (``random64``: two words, the first is the high
        half), as a ``uint64`` array."""
        w = self._words(2 * n).astype(np.uint64)
        return (w[0::2] << np.uint64(32)) | w[1::2]

    # ---------------------------------------------------------------- public API
    def manual_seed(self, seed):
        """Sets the seed for generating random numbers (negative values wrap modulo
        2**64; the Mersenne Twister is seeded with the low 32 bits). Returns the
        generator."""
        self._reseed(_seed_value(seed, strict=True))
        return self

    def seed(self):
        """Seeds the generator from a non-deterministic source; returns the 64-bit seed
        used."""
        s = secrets.randbits(64)
        self._reseed(s)
        return s

    def initial_seed(self):
        """Returns the initial seed for generating random numbers (the one last set by
        ``manual_seed``/``seed``, or the default one)."""
        return self._seed

    def get_state(self):
        """Returns the generator state as a ``torch.ByteTensor`` in PyTorch's CPU layout
        (5056 bytes), which ``torch.Generator.set_state`` accepts too."""
        from ._tensor import _new_tensor as wrap
        st = self._mt.state['state']
        pos = int(st['pos'])
        left = _MT_N + 1 - pos
        nxt = 0 if (self._next0 and pos == _MT_N) else pos
        buf = bytearray(_STATE_BYTES)
        struct.pack_into('<QiiQ', buf, 0, self._seed, left, 1, nxt)
        buf[_OFF_STATE:_OFF_NORMAL] = np.asarray(st['key'], dtype='<u8').tobytes()
        nd = self._next_double
        struct.pack_into('<dddi', buf, _OFF_NORMAL, 0.0, 0.0 if nd is None else nd, 0.0,
                         0 if nd is None else 1)
        nf = self._next_float
        struct.pack_into('<f?', buf, _LEGACY_BYTES, 0.0 if nf is None else nf, nf is not None)
        return wrap(np.frombuffer(bytes(buf), dtype=np.uint8).copy())

    def set_state(self, new_state):
        """Sets the generator state from a ``torch.ByteTensor`` made by :meth:`get_state`
        (ember's or PyTorch's; the legacy 5048-byte layout is accepted too). Returns the
        generator."""
        from ._tensor import Tensor
        from . import _dtype as D
        if not isinstance(new_state, Tensor) or new_state.dtype is not D.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        data = new_state._data
        b = bytes(np.ascontiguousarray(data if type(data) is np.ndarray
                                       else data.get()).reshape(-1))
        if len(b) not in (_LEGACY_BYTES, _STATE_BYTES):
            raise RuntimeError(f"Expected either a THGeneratorState of size {_LEGACY_BYTES} or "
                               f"a CPUGeneratorImplState of size {_STATE_BYTES} but found the "
                               f"input RNG state size to be {len(b)}")
        seed, left, seeded, nxt = struct.unpack_from('<QiiQ', b, 0)
        nx, ny, rho, valid = struct.unpack_from('<dddi', b, _OFF_NORMAL)
        if not (seeded and 0 < left <= _MT_N and nxt <= _MT_N):
            raise RuntimeError("Invalid mt19937 state")
        next_double = next_float = None
        if len(b) == _LEGACY_BYTES:
            if valid:      # legacy states keep (x, rho); the sample is rho * sin(2 pi x)
                next_double = rho * float(np.sin(2.0 * np.pi * nx))
        else:
            if valid:
                next_double = ny
            nf, nf_valid = struct.unpack_from('<f?', b, _LEGACY_BYTES)
            if nf_valid:
                next_float = nf
        key = np.frombuffer(b, dtype='<u8', count=_MT_N, offset=_OFF_STATE).astype(np.uint32)
        mt = np.random.MT19937()
        mt.state = {'bit_generator': 'MT19937',
                    'state': {'key': key, 'pos': _MT_N if left == 1 else int(nxt)}}
        self._mt = mt
        self._seed = seed
        self._next0 = left == 1 and nxt == 0
        self._next_double, self._next_float = next_double, next_float
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
    """Seed the default generators non-deterministically; returns the seed. The CPU
    generator draws a fresh seed and every device generator is seeded with it.

    Example::

        >>> s = ember.random.seed()
        >>> ember.random.initial_seed() == s
        True
    """
    s = default_generator.seed()
    for g in _device_generators.values():
        g.manual_seed(s)
    return s


def initial_seed():
    """The initial seed of the default CPU generator: the value given to the last
    :func:`manual_seed` or drawn by the last :func:`seed`.

    Example::

        >>> _ = ember.manual_seed(3)
        >>> ember.random.initial_seed()
        3
    """
    return default_generator.initial_seed()


def get_rng_state():
    """Returns the random number generator state as a ``torch.ByteTensor`` (PyTorch's
    CPU layout: ``torch.set_rng_state`` accepts it, and :func:`set_rng_state` accepts
    ``torch.get_rng_state()``).

    Example::

        >>> state = ember.random.get_rng_state()
        >>> a = ember.rand(2)
        >>> ember.random.set_rng_state(state)
        >>> bool((ember.rand(2) == a).all())
        True
    """
    return default_generator.get_state()


def set_rng_state(new_state):
    """Sets the random number generator state (a ``torch.ByteTensor`` from
    :func:`get_rng_state`, ember's or PyTorch's).

    Args:
        new_state (Tensor): the ``uint8`` state.

    Example::

        >>> state = ember.random.get_rng_state()
        >>> a = ember.rand(2)
        >>> ember.random.set_rng_state(state)
        >>> bool((ember.rand(2) == a).all())
        True
    """
    default_generator.set_state(new_state)


def thread_safe_generator():
    """The generator that random draws should use in the current DataLoader worker.

    In a worker that runs as a thread (``WorkerInfo.worker_method == 'thread'``) this is
    that worker's own :class:`Generator` (from ``WorkerInfo.rng``), so that threads do not
    share one stream; in the main process and in process workers it is ``None``, which
    makes ember's random functions use the default generator.

    Returns:
        Generator or None

    Example::

        >>> g = ember.random.thread_safe_generator()     # None outside thread workers
        >>> offset = ember.randint(0, 10, (2,), generator=g)

    NOTE: ember's DataLoader runs its workers as processes, so inside ember's own loaders
    this returns ``None``, as PyTorch's does in process workers.
    """
    # the DataLoader's worker module is an upper layer: when nothing has loaded it, this
    # is no worker (its state is read, not imported)
    worker = sys.modules.get('ember.utils.data._utils.worker')
    info = worker.get_worker_info() if worker is not None else None
    if info is not None and getattr(info, 'worker_method', None) == 'thread':
        rng = getattr(info, 'rng', None)
        if rng is not None:
            return rng.torch_generator
    return None


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
