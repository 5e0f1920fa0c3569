"""``ember._C``: the few names of PyTorch's ``torch._C`` that Python code commonly uses.

Example::

    >>> class Plain(ember.Tensor):
    ...     __torch_function__ = ember._C._disabled_torch_function_impl
"""
from ._tensor import _disabled_torch_function_impl  # noqa: F401
from .overrides import (DisableTorchFunction, DisableTorchFunctionSubclass,  # noqa: F401
                        _is_torch_function_enabled, _len_torch_function_stack)
from .autograd.grad_mode import is_grad_enabled, set_grad_enabled  # noqa: F401
from ._tensor import Tensor
from ._dtype import dtype as _dtype_cls

__all__ = ['DisableTorchFunction', 'DisableTorchFunctionSubclass',
           '_disabled_torch_function_impl', 'DispatchKey', 'DispatchKeySet']


import enum as _enum  # noqa: E402
import threading as _threading  # noqa: E402
import types as _types  # noqa: E402

# PyTorch 2.13's dispatch keys and their numbers (``torch._C.DispatchKey``)
_DISPATCH_KEYS = dict(
    Undefined=0, CompositeExplicitAutogradNonFunctional=155, CompositeExplicitAutograd=154,
    CompositeImplicitAutogradNestedTensor=153, CompositeImplicitAutograd=151,
    AutogradNestedTensor=22, AutogradOther=20, Autograd=150, Conjugate=16, ZeroTensor=18,
    Negative=17, BackendSelect=11, ADInplaceOrView=19, PythonTLSSnapshot=41, Python=13,
    FuncTorchDynamicLayerFrontMode=42, FuncTorchDynamicLayerBackMode=14,
    FuncTorchBatchedDecomposition=152, FuncTorchBatched=34, FuncTorchVmapMode=36,
    FuncTorchGradWrapper=39, PythonDispatcher=46, PreDispatch=45, Functionalize=15,
    AutocastCPU=24, AutocastMPS=31, AutocastXPU=27, AutocastHPU=29, AutocastIPU=28,
    AutocastCUDA=32, AutocastPrivateUse1=33, Dense=1, StartOfDenseBackends=48, CPU=49, CUDA=50,
    HIP=51, XLA=52, MPS=53, IPU=54, XPU=55, HPU=56, VE=57, Lazy=58, MTIA=59, MAIA=60,
    PrivateUse1=61, PrivateUse2=62, PrivateUse3=63, Meta=64, EndOfDenseBackends=64,
    Quantized=5, StartOfQuantizedBackends=65, QuantizedCPU=66, QuantizedCUDA=67,
    QuantizedHIP=68, QuantizedXLA=69, QuantizedMPS=70, QuantizedIPU=71, QuantizedXPU=72,
    QuantizedHPU=73, QuantizedVE=74, QuantizedLazy=75, QuantizedMTIA=76, QuantizedMAIA=77,
    QuantizedPrivateUse1=78, QuantizedPrivateUse2=79, QuantizedPrivateUse3=80,
    QuantizedMeta=81, EndOfQuantizedBackends=81, Sparse=8, StartOfSparseBackends=82,
    SparseCPU=83, SparseCUDA=84, SparseHIP=85, SparseXLA=86, SparseMPS=87, SparseIPU=88,
    SparseXPU=89, SparseHPU=90, SparseVE=91, SparseLazy=92, SparseMTIA=93, SparseMAIA=94,
    SparsePrivateUse1=95, SparsePrivateUse2=96, SparsePrivateUse3=97, SparseMeta=98,
    EndOfSparseBackends=98, SparseCsr=9, StartOfSparseCsrBackends=99, SparseCsrCPU=100,
    SparseCsrCUDA=101, SparseCsrHIP=102, SparseCsrXLA=103, SparseCsrMPS=104, SparseCsrIPU=105,
    SparseCsrXPU=106, SparseCsrHPU=107, SparseCsrVE=108, SparseCsrLazy=109, SparseCsrMTIA=110,
    SparseCsrMAIA=111, SparseCsrPrivateUse1=112, SparseCsrPrivateUse2=113,
    SparseCsrPrivateUse3=114, SparseCsrMeta=115, EndOfSparseCsrBackends=115, NestedTensor=10,
    StartOfNestedTensorBackends=116, NestedTensorCPU=117, NestedTensorCUDA=118,
    NestedTensorHIP=119, NestedTensorXLA=120, NestedTensorMPS=121, NestedTensorIPU=122,
    NestedTensorXPU=123, NestedTensorHPU=124, NestedTensorVE=125, NestedTensorLazy=126,
    NestedTensorMTIA=127, NestedTensorMAIA=128, NestedTensorPrivateUse1=129,
    NestedTensorPrivateUse2=130, NestedTensorPrivateUse3=131, NestedTensorMeta=132,
    EndOfNestedTensorBackends=132, AutogradFunctionality=21,
    StartOfAutogradFunctionalityBackends=133, AutogradCPU=134, AutogradCUDA=135,
    AutogradHIP=136, AutogradXLA=137, AutogradMPS=138, AutogradIPU=139, AutogradXPU=140,
    AutogradHPU=141, AutogradVE=142, AutogradLazy=143, AutogradMTIA=144, AutogradMAIA=145,
    AutogradPrivateUse1=146, AutogradPrivateUse2=147, AutogradPrivateUse3=148,
    AutogradMeta=149, EndOfAutogradFunctionalityBackends=149,)

DispatchKey = _enum.IntEnum('DispatchKey', _DISPATCH_KEYS, module=__name__)
DispatchKey.__str__ = lambda self: f"DispatchKey.{self.name}"
DispatchKey.__doc__ = """PyTorch's dispatch keys, by name and number (``DispatchKey.AutocastCPU``).

NOTE: unlike PyTorch, ember has no dispatcher: the keys name what code asks about; of the
dispatch-key guards only the autocast keys change what runs (see
:class:`_ExcludeDispatchKeyGuard`).

Example::

    >>> ember._C.DispatchKey.AutocastCPU.name
    'AutocastCPU'
"""


class DispatchKeySet:
    """A set of :class:`DispatchKey` s (``DispatchKeySet(key)``, combined with ``|``).

    Args:
        key (DispatchKey): the one key of the new set.

    Example::

        >>> ks = ember._C.DispatchKeySet(ember._C.DispatchKey.AutocastCPU)
        >>> ks.has(ember._C.DispatchKey.AutocastCPU)
        True
    """

    __slots__ = ('_keys',)

    def __init__(self, key):
        if not isinstance(key, DispatchKey):
            raise TypeError(f"DispatchKeySet(): expected a DispatchKey, got {type(key).__name__}")
        self._keys = frozenset((key,))

    @classmethod
    def _of(cls, keys):
        s = object.__new__(cls)
        s._keys = frozenset(keys)
        return s

    def __or__(self, other):
        return DispatchKeySet._of(self._keys | other._keys)

    def __and__(self, other):
        return DispatchKeySet._of(self._keys & other._keys)

    def __sub__(self, other):
        return DispatchKeySet._of(self._keys - other._keys)

    def __eq__(self, other):
        return isinstance(other, DispatchKeySet) and self._keys == other._keys

    def __hash__(self):
        return hash(self._keys)

    def has(self, key):
        """Whether ``key`` is in the set."""
        return key in self._keys

    def add(self, key):
        """A new set with ``key`` added."""
        return DispatchKeySet._of(self._keys | {key})

    def remove(self, key):
        """A new set without ``key``."""
        return DispatchKeySet._of(self._keys - {key})

    def highestPriorityTypeId(self):
        """The key of highest priority (the largest number), ``Undefined`` for an empty set."""
        return max(self._keys) if self._keys else DispatchKey.Undefined

    def __iter__(self):
        return iter(sorted(self._keys))

    def __repr__(self):
        return f"DispatchKeySet({', '.join(k.name for k in sorted(self._keys))})"


_tls = _threading.local()
_AUTOCAST_DEVICE = {'AutocastCPU': 'cpu', 'AutocastCUDA': 'cuda', 'AutocastXPU': 'xpu',
                    'AutocastMPS': 'mps', 'AutocastHPU': 'hpu'}


def _excluded():
    s = getattr(_tls, 'excluded', None)
    if s is None:
        s = _tls.excluded = []
    return s


def _dispatch_tls_is_dispatch_key_excluded(key):
    """Whether ``key`` is excluded in this thread (inside an :class:`_ExcludeDispatchKeyGuard`).

    Example::

        >>> ember._C._dispatch_tls_is_dispatch_key_excluded(ember._C.DispatchKey.AutocastCPU)
        False
    """
    return any(ks.has(key) for ks in _excluded())


class _ExcludeDispatchKeyGuard:
    """Context manager: the keys of ``keyset`` are excluded in this thread inside the block.

    Excluding an autocast key turns autocast off for its device inside the block (its ops
    run in their own dtypes), as in PyTorch, and restores it on exit.

    NOTE: unlike PyTorch, other keys have no effect on what runs (ember has no dispatcher);
    they are recorded for :func:`_dispatch_tls_is_dispatch_key_excluded`.

    Args:
        keyset (DispatchKeySet): the keys to exclude.

    Example::

        >>> ks = ember._C.DispatchKeySet(ember._C.DispatchKey.AutocastCPU)
        >>> with ember._C._ExcludeDispatchKeyGuard(ks):
        ...     pass
    """

    def __init__(self, keyset):
        if not isinstance(keyset, DispatchKeySet):
            raise TypeError("_ExcludeDispatchKeyGuard(): expected a DispatchKeySet, got "
                            f"{type(keyset).__name__}")
        self.keyset = keyset
        self._saved = None

    def __enter__(self):
        from .amp import autocast_mode as am
        devs = [_AUTOCAST_DEVICE[k.name] for k in self.keyset if k.name in _AUTOCAST_DEVICE]
        self._saved = [(d, am.is_autocast_enabled(d)) for d in devs
                       if d in ('cpu', 'cuda')]
        for d, _ in self._saved:
            am.set_autocast_enabled(d, False)
        _excluded().append(self.keyset)
        return self

    def __exit__(self, *exc):
        from .amp import autocast_mode as am
        _excluded().remove(self.keyset)
        for d, was in self._saved:
            am.set_autocast_enabled(d, was)
        return False


def _log_api_usage_once(event):
    """Record that the API ``event`` was used (PyTorch's usage logging, off by default).

    NOTE: ember keeps no usage log; this does nothing, as PyTorch does without a logger.

    Example::

        >>> ember._C._log_api_usage_once("python.my_library")
    """


def _get_tracing_state():
    """The TorchScript tracer's state while ``torch.jit.trace`` records, else ``None``
    (torchvision's ``_is_tracing`` asks it).

    NOTE: unlike PyTorch, ember has no tracer (``ember.jit.trace`` runs eagerly): always
    ``None``.

    Example::

        >>> ember._C._get_tracing_state() is None
        True
    """
    return None


_TensorMeta = type(Tensor)


def _nn_parse_to(*args, **kwargs):
    """The arguments of ``Tensor.to``/``Module.to`` as ``(device, dtype, non_blocking,
    memory_format)`` (``torch._C._nn._parse_to``).

    Example::

        >>> ember._C._nn._parse_to(ember.float64)
        (None, torch.float64, False, None)
    """
    from .nn.modules.module import _parse_to
    device, dtype, memory_format = _parse_to(args, kwargs)
    first = args[0] if args else None
    names = (('tensor', 'non_blocking') if isinstance(first, Tensor) else
             ('dtype', 'non_blocking') if isinstance(first, _dtype_cls) else
             ('device', 'dtype', 'non_blocking'))
    non_blocking = kwargs.get('non_blocking', dict(zip(names, args)).get('non_blocking', False))
    return device, dtype, non_blocking, memory_format


_nn = _types.SimpleNamespace(_parse_to=_nn_parse_to)
