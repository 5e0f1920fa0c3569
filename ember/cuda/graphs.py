"""``ember.cuda.graphs``: the CUDA-graph names of ``torch.cuda.graphs``.

NOTE: unlike PyTorch, ember cannot capture CUDA graphs (its ops are Python calls, not one
stream of kernels to record): the classes and functions exist so that code naming them
(type annotations, ``isinstance``, feature checks) imports, and using them raises
``RuntimeError`` naming why; without CUDA they raise as PyTorch's CPU build does.
"""

__all__ = ['CUDAGraph', 'graph', 'graph_pool_handle', 'make_graphed_callables',
           'is_current_stream_capturing']


def _refuse(what):
    from . import _get_cupy
    if _get_cupy() is None:
        raise RuntimeError(f"{what} requires CUDA support (Torch not compiled with CUDA "
                           "enabled)")
    raise RuntimeError(f"{what}: ember cannot capture CUDA graphs; run the code eagerly")


def is_current_stream_capturing():
    """Whether the current stream is capturing a CUDA graph (see
    ``ember.cuda.is_current_stream_capturing``).

    Example::

        >>> ember.cuda.graphs.is_current_stream_capturing()    # doctest: +SKIP
        False
    """
    from . import is_current_stream_capturing as f
    return f()


class CUDAGraph:
    """A captured CUDA graph (``capture_begin``/``capture_end``/``replay``).

    NOTE: unlike PyTorch, ember cannot capture CUDA graphs: constructing one raises
    ``RuntimeError``.

    Args:
        keep_graph (bool): keep the graph after ``instantiate``.

    Example::

        >>> g = ember.cuda.CUDAGraph()     # doctest: +SKIP
    """

    def __new__(cls, keep_graph=False):
        _refuse("torch.cuda.CUDAGraph")


class graph:
    """Context manager capturing the CUDA work of its block into ``cuda_graph``.

    NOTE: unlike PyTorch, ember cannot capture CUDA graphs: constructing it raises
    ``RuntimeError``.

    Args:
        cuda_graph (CUDAGraph): the graph to capture into.
        pool (optional): a memory pool handle to share.
        stream (Stream, optional): the stream to capture on.
        capture_error_mode (str): ``"global"``, ``"thread_local"`` or ``"relaxed"``.

    Example::

        >>> with ember.cuda.graph(g):     # doctest: +SKIP
        ...     y = x * 2
    """

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode='global'):
        _refuse("torch.cuda.graph")


def graph_pool_handle():
    """A handle to a memory pool that several graph captures may share.

    NOTE: unlike PyTorch, ember cannot capture CUDA graphs: this raises ``RuntimeError``.

    Example::

        >>> h = ember.cuda.graph_pool_handle()     # doctest: +SKIP
    """
    _refuse("torch.cuda.graph_pool_handle")


def make_graphed_callables(callables, sample_args, num_warmup_iters=3,
                           allow_unused_input=False, pool=None):
    """Graph-captured versions of ``callables`` (functions or modules).

    NOTE: unlike PyTorch, ember cannot capture CUDA graphs: this raises ``RuntimeError``.

    Args:
        callables: a function or module, or a tuple of them.
        sample_args: sample arguments for each callable.

    Example::

        >>> f = ember.cuda.make_graphed_callables(model, (x,))     # doctest: +SKIP
    """
    _refuse("torch.cuda.make_graphed_callables")
