"""``ember.device``: where a tensor lives ('cpu', 'cuda[:n]', 'meta')."""

__all__ = ['device']

# the device types torch accepts in a device string, in the order its error message lists them
_TYPES = ('cpu', 'cuda', 'ipu', 'xpu', 'mkldnn', 'opengl', 'opencl', 'ideep', 'hip', 've', 'fpga',
          'maia', 'xla', 'lazy', 'vulkan', 'mps', 'meta', 'hpu', 'mtia', 'privateuseone')


def _has_accelerator():
    """Whether an accelerator is present; ``ember._backend`` installs the real answer (this
    layer cannot import the backends, which import it)."""
    return False


class device:
    """A device a tensor lives on, like ``torch.device``.

    Args:
        type (str): ``'cpu'``, ``'cuda'``, ``'cuda:1'`` or ``'meta'``.
        index (int, optional): the device ordinal.

    Example::

        >>> ember.device('cuda:1')
        device(type='cuda', index=1)
    """
    __slots__ = ('type', 'index')

    def __new__(cls, type, index=None):
        if isinstance(type, device):
            return type
        if isinstance(type, int) and index is None:     # an index on the current accelerator
            if not -(1 << 63) <= type < 1 << 63:
                raise ValueError("Overflow when unpacking long long")
            if type < 0:
                raise RuntimeError("Device index must not be negative")
            if not _has_accelerator():
                raise RuntimeError("Cannot access accelerator device when none is available.")
            type, index = 'cuda', type
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got ({type.__class__.__name__})")
        t = type
        if ':' in t:
            if index is not None:
                raise RuntimeError("type (string) must not include an index because index was passed explicitly: " + t)
            t, _, idx = t.partition(':')
            try:
                index = int(idx)
            except ValueError:
                raise RuntimeError(f"Invalid device string: '{type}'") from None
            if index < 0:
                raise RuntimeError(f"Device index must not be negative")
        if t not in _TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_TYPES)} device type at start of "
                               f"device string: {t}")
        key = (t, index)
        d = _CACHE.get(key)
        if d is None:
            d = object.__new__(cls)
            object.__setattr__(d, 'type', t)
            object.__setattr__(d, 'index', index)
            _CACHE[key] = d
        return d

    def __setattr__(self, k, v):
        raise AttributeError("device objects are immutable")

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        # as torch.device: equal only to a device (``device('cpu') == 'cpu'`` is False)
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __ne__(self, other):
        if not isinstance(other, device):
            return NotImplemented
        return self.type != other.type or self.index != other.index

    def _no_order(self, other):
        raise TypeError("comparison not implemented")

    __lt__ = __le__ = __gt__ = __ge__ = _no_order

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


_CACHE = {}
CPU = device('cpu')
