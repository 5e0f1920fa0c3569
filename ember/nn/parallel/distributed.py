"""``DistributedDataParallel``: data parallelism across processes (one model replica per rank).

At construction rank 0's parameters and buffers are broadcast to every rank. Each parameter
gets a post-accumulate-grad hook: its gradient is copied into a flat bucket (buckets of about
``bucket_cap_mb``, filled from the last parameters, whose gradients come first) and a bucket
is all-reduced as soon as all its gradients are there, in bucket order on every rank (MPI
needs the same order of collectives everywhere), asynchronously when the collective library
supports it. A callback queued on the autograd engine waits for every bucket at the end of
``backward()`` and writes the averaged gradients back to ``param.grad``.
"""
import contextlib
import warnings

from ... import _dtype as D
from ..modules.module import Module

__all__ = ['DistributedDataParallel']

_FIRST_BUCKET_BYTES = 1024 * 1024     # the first bucket is small, as PyTorch's
_DEFAULT_BUCKET_MB = 25


def _dist():
    from ... import distributed
    return distributed


class _JoinConfig:
    """The Join settings of a joinable (set by :class:`~ember.distributed.algorithms.Join`)."""

    def __init__(self, enable=False, throw_on_early_termination=False, is_first_joinable=False):
        self.enable = enable
        self.throw_on_early_termination = throw_on_early_termination
        self.is_first_joinable = is_first_joinable

    @staticmethod
    def construct_disabled_join_config():
        return _JoinConfig(False, False, False)


class _Bucket:
    __slots__ = ('index', 'params', 'pidx', 'offsets', 'numels', 'buffer', 'pending', 'ready',
                 'fut', 'views', 'dtype', 'filled')

    def __init__(self, index, params, pidx, dtype):
        from ..._ops.creation import zeros
        self.index = index
        self.params = params
        self.pidx = pidx
        self.dtype = dtype
        self.numels = [p.numel() for p in params]
        self.offsets = []
        o = 0
        for n in self.numels:
            self.offsets.append(o)
            o += n
        self.buffer = zeros(o, dtype=dtype)
        self.views = [self.buffer[off:off + n].view(p.shape)
                      for p, off, n in zip(params, self.offsets, self.numels)]
        self.pending = len(params)
        self.ready = False
        self.fut = None
        self.filled = [False] * len(params)


class DistributedDataParallel(Module):
    """Data parallelism across processes: wraps ``module`` so that ``backward()`` leaves on
    every rank the gradients averaged over all ranks of ``process_group``.

    Each rank runs its own replica on its own share of the data. The replicas start equal
    (rank 0's parameters and buffers are broadcast when the wrapper is built). During
    backward, gradients are gathered into buckets of about ``bucket_cap_mb`` megabytes, and a
    bucket is all-reduced as soon as all its gradients are ready, overlapping the rest of the
    backward pass; by the time ``backward()`` returns every ``param.grad`` holds the average.

    Args:
        module (Module): the module to replicate.
        device_ids (list, optional): the single device of a one-device CUDA module.
            NOTE: unlike PyTorch (which raises ``ValueError``), ``device_ids`` /
            ``output_device`` given with a CPU module are ignored with a warning, so that
            scripts written for one GPU per rank run on CPU.
        output_device (int or device, optional): see ``device_ids``.
        dim (int): the batch dimension (kept for compatibility). Default: 0.
        broadcast_buffers (bool): broadcast rank 0's buffers at the start of every forward.
            Default: ``True``.
        init_sync (bool): broadcast rank 0's parameters and buffers at construction.
            Default: ``True``.
        process_group (ProcessGroup, optional): the ranks to average over (the world).
        bucket_cap_mb (float, optional): bucket size in megabytes. Default: 25.
        find_unused_parameters (bool): find, after each forward, the parameters the output
            does not depend on and reduce zeros for them, so that backward completes.
            Parameters unused on every rank keep their gradient (``None`` if never set).
            Default: ``False``.
        check_reduction (bool): deprecated, ignored.
        gradient_as_bucket_view (bool): make ``param.grad`` views into the bucket buffers
            (saves a copy). Default: ``False``.
        static_graph (bool): accepted (the hooks need no graph analysis). Default: ``False``.

    A copy (``copy.deepcopy``, pickling) runs on the default process group with its own
    buckets and hooks and without the registered comm hook, as in PyTorch.

    Example::

        >>> dist.init_process_group('gloo')
        >>> ddp = nn.parallel.DistributedDataParallel(nn.Linear(10, 5))
        >>> ddp(ember.randn(20, 10)).sum().backward()   # grads averaged over the ranks
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=None,
                 init_sync=True, process_group=None, bucket_cap_mb=None,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None, skip_all_reduce_unused_params=False,
                 bucket_cap_mb_list=None, batched_grad_copy=False, forward_sync_buffers=None):
        super().__init__()
        dist = _dist()
        if isinstance(module, DistributedDataParallel) or getattr(module, '_is_fsdp', False):
            raise RuntimeError("Modules with uninitialized parameters can't be used with "
                               "`DistributedDataParallel`. Run a dummy forward pass to "
                               "correctly initialize the modules")
        if process_group is not None and device_mesh is not None:
            raise RuntimeError("Cannot specify both process_group and device_mesh arguments.")
        from ..parameter import UninitializedParameter
        params = []
        seen = set()
        for p in module.parameters():
            if isinstance(p, UninitializedParameter):
                raise RuntimeError("Modules with uninitialized parameters can't be used with "
                                   "`DistributedDataParallel`. Run a dummy forward pass to "
                                   "correctly initialize the modules")
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                params.append(p)
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        devs = {p.device for p in module.parameters()}
        self.device_type = next(iter(devs)).type
        self.is_multi_device_module = len(devs) > 1
        if (device_ids or output_device is not None) and \
                (self.device_type == 'cpu' or self.is_multi_device_module):
            warnings.warn(
                f"DistributedDataParallel: device_ids {device_ids} and output_device "
                f"{output_device} are ignored for a module with parameters on {devs} "
                "(NOTE: PyTorch raises ValueError here)", UserWarning, stacklevel=2)
            device_ids = output_device = None
        self.device_ids = None if not device_ids else list(device_ids)
        self.output_device = output_device
        self.module = module
        self.dim = dim
        self.process_group = process_group if process_group is not None else dist.group.WORLD
        if self.process_group is None:
            raise ValueError("Default process group has not been initialized, please make sure "
                             "to call init_process_group.")
        self.broadcast_buffers = True if broadcast_buffers is None else bool(broadcast_buffers)
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = False
        if static_graph:
            self._set_static_graph()
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((_DEFAULT_BUCKET_MB if bucket_cap_mb is None
                                     else bucket_cap_mb) * 1024 * 1024)
        self._params = params
        self._pindex = {id(p): i for i, p in enumerate(params)}
        self._module_buffers = [b for b in module.buffers()]
        self._comm_hook = None
        self._comm_state = None
        self._join_config = _JoinConfig.construct_disabled_join_config()
        self._divide_by_initial_world_size = True
        self._world_size = dist.get_world_size(self.process_group)
        self._verify_params_across_processes()
        if init_sync:
            self._sync_params_and_buffers(authoritative_rank=0)
        self._build_buckets()
        self._in_backward = False
        self._unfinished = False
        self._unused = ()
        # hooks fired by a backward that did not go through this wrapper's forward do nothing
        self._sync_this_backward = False
        self._handles = [p.register_post_accumulate_grad_hook(self._make_hook(i))
                         for i, p in enumerate(params)]

    # ------------------------------------------------------------------ setup
    def _set_static_graph(self):
        """Mark the graph static (accepted; nothing changes in how gradients are reduced)."""
        self.static_graph = True

    def _verify_params_across_processes(self):
        """Every rank must hold the same parameter shapes: compare counts and a checksum of
        the shapes across ranks (raises ``RuntimeError`` on every rank on a mismatch)."""
        dist = _dist()
        if self._world_size == 1:
            return
        from ..._ops.creation import tensor
        h = 0
        for p in self._params:
            for s in tuple(p.shape) + (-1,):
                h = (h * 1000003 + s + 7) % (1 << 61)
        v = tensor([len(self._params), -len(self._params), h, -h], dtype=D.int64)
        dist.all_reduce(v, op=dist.ReduceOp.MAX, group=self.process_group)
        mx, mn, hmx, hmn = (int(x) for x in v.tolist())
        mn, hmn = -mn, -hmn
        if mx != mn:
            other = mx if mx != len(self._params) else mn
            raise RuntimeError(f"DDP expects same model across all ranks, but Rank "
                               f"{dist.get_rank(self.process_group)} has {len(self._params)} "
                               f"params, while some rank has inconsistent {other} params.")
        if hmx != hmn:
            raise RuntimeError(f"DDP expects same model across all ranks, but Rank "
                               f"{dist.get_rank(self.process_group)} has parameters whose shapes "
                               "differ from another rank's.")

    def _sync_params_and_buffers(self, authoritative_rank=0):
        """Broadcast parameters and buffers from ``authoritative_rank`` (one flat message per
        dtype)."""
        tensors = [p for p in self.module.parameters()] + self._module_buffers
        self._broadcast_coalesced(tensors, authoritative_rank)

    def _broadcast_coalesced(self, tensors, src):
        dist = _dist()
        if self._world_size == 1 or not tensors:
            return
        from ..._ops.creation import empty
        groups = {}
        seen = set()
        for t in tensors:
            if t is None or id(t) in seen:
                continue
            seen.add(id(t))
            groups.setdefault(t.dtype, []).append(t)
        from ...autograd.grad_mode import no_grad
        with no_grad():
            for dt, ts in groups.items():
                n = sum(t.numel() for t in ts)
                flat = empty(n, dtype=dt)
                o = 0
                for t in ts:
                    k = t.numel()
                    flat[o:o + k].copy_(t.reshape(-1))
                    o += k
                dist.broadcast(flat, src=dist.get_global_rank(self.process_group, src)
                               if hasattr(dist, 'get_global_rank') else src,
                               group=self.process_group)
                o = 0
                for t in ts:
                    k = t.numel()
                    t.copy_(flat[o:o + k].view(t.shape))
                    o += k

    def _build_buckets(self):
        """Assign parameters to buckets in reverse order (the order gradients arrive in),
        one dtype per bucket; the first bucket is capped at 1 MB, the others at
        ``bucket_cap_mb``."""
        buckets, cur, cur_idx, cur_bytes, cap = [], [], [], 0, min(_FIRST_BUCKET_BYTES,
                                                                    self.bucket_bytes_cap)
        cur_dt = None
        for i in reversed(range(len(self._params))):
            p = self._params[i]
            nb = p.numel() * p.element_size()
            if cur and (p.dtype != cur_dt or cur_bytes + nb > cap and cur_bytes > 0):
                buckets.append((cur, cur_idx, cur_dt))
                cur, cur_idx, cur_bytes = [], [], 0
                cap = self.bucket_bytes_cap
            cur.append(p)
            cur_idx.append(i)
            cur_dt = p.dtype
            cur_bytes += nb
        if cur:
            buckets.append((cur, cur_idx, cur_dt))
        self._buckets = [_Bucket(k, ps, ix, dt) for k, (ps, ix, dt) in enumerate(buckets)]
        self._where = {}
        for b in self._buckets:
            for j, i in enumerate(b.pidx):
                self._where[i] = (b, j)
        self._next_bucket = 0

    # ------------------------------------------------------------------ backward
    def _make_hook(self, i):
        def hook(p):
            self._mark_ready(i, p)
        return hook

    def _start_backward(self):
        from ...autograd.engine import queue_callback
        self._in_backward = True
        self._next_bucket = 0
        for b in self._buckets:
            b.pending = len(b.params)
            b.ready = False
            b.fut = None
            b.filled = [False] * len(b.params)
        self._local_used = [False] * len(self._params)
        queue_callback(self._finalize)
        for i in self._unused:
            self._mark_ready(i, None, used=False)

    def _mark_ready(self, i, p, used=True):
        if not self._sync_this_backward:
            return
        if not self._in_backward:
            self._start_backward()
        else:
            self._progress()
        b, j = self._where[i]
        if b.filled[j]:
            if used and p is not None and p.grad is not None:
                self._local_used[i] = True
                b.views[j].copy_(p.grad.detach())
            return
        b.filled[j] = True
        view = b.views[j]
        g = p.grad if p is not None else None
        if used and g is not None:
            self._local_used[i] = True
            if g is not view:
                view.copy_(g.detach())
        else:
            view.zero_()
        b.pending -= 1
        if b.pending == 0:
            b.ready = True
            self._launch_ready()

    def _progress(self):
        """Poll the buckets in flight: MPI moves a nonblocking collective forward only inside
        MPI calls, so polling from the gradient hooks overlaps communication with the rest of
        the backward pass."""
        for k in range(self._next_bucket):
            f = self._buckets[k].fut
            if f is not None and hasattr(f, 'done'):
                f.done()

    def _launch_ready(self):
        bs = self._buckets
        while self._next_bucket < len(bs) and bs[self._next_bucket].ready:
            self._launch(bs[self._next_bucket])
            self._next_bucket += 1

    def _launch(self, b):
        from ...distributed.algorithms.ddp_comm_hooks import default_hooks as H
        gb = GradBucket(b.index, b.buffer, b.params, b.views, b.index == len(self._buckets) - 1)
        if self._comm_hook is None:
            b.fut = H._allreduce_fut(self.process_group, b.buffer,
                                     getattr(self, '_divisor', self._world_size))
        else:
            b.fut = self._comm_hook(self._comm_state, gb)

    def _finalize(self):
        self._in_backward = False
        for b in self._buckets:
            if not b.ready:
                if not self.find_unused_parameters:
                    self._unfinished = True
                    return
                for j, i in enumerate(b.pidx):
                    if not b.filled[j]:
                        b.filled[j] = True
                        b.views[j].zero_()
                b.ready = True
        self._launch_ready()
        globally_used = None
        if self.find_unused_parameters:
            from ..._ops.creation import tensor
            dist = _dist()
            m = tensor(self._local_used, dtype=D.int32)
            dist.all_reduce(m, op=dist.ReduceOp.MAX, group=self.process_group)
            globally_used = m.tolist()
        from ...autograd.grad_mode import no_grad
        with no_grad():
            for b in self._buckets:
                res = b.fut.wait()
                if isinstance(res, (list, tuple)):
                    res = res[0]
                if res is not b.buffer:
                    b.buffer.copy_(res.reshape(-1))
                for j, p in enumerate(b.params):
                    i = b.pidx[j]
                    if globally_used is not None and not globally_used[i]:
                        continue
                    v = b.views[j]
                    if self.gradient_as_bucket_view:
                        if p.grad is not v:
                            p.grad = v
                    elif p.grad is None:
                        p.grad = v.clone()
                    else:
                        p.grad.copy_(v)
                b.fut = None

    # ------------------------------------------------------------------ forward
    def _pre_forward(self):
        from ...autograd.grad_mode import is_grad_enabled
        if self._unfinished:
            self._unfinished = False
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a "
                "new one. This error indicates that your module has parameters that were not "
                "used in producing loss. You can enable unused parameter detection by passing "
                "the keyword argument `find_unused_parameters=True` to "
                "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` "
                "function outputs participate in calculating loss.")
        self._in_backward = False     # a backward that raised midway left it set
        self._divisor = self._world_size
        if self._join_config.enable:
            from ...distributed.algorithms.join import Join
            work = Join.notify_join_context(self)
            if work is not None:
                n = int(work.wait()[0].item())
                if not self._divide_by_initial_world_size:
                    self._divisor = n      # average over the ranks still training
        if self.will_sync_module_buffers():
            self._sync_buffers()
        grad_on = is_grad_enabled()
        self._sync_this_backward = grad_on and self.require_backward_grad_sync
        self.require_forward_param_sync = self._sync_this_backward
        self._unused = ()

    def _post_forward(self, output):
        if self._sync_this_backward and self.find_unused_parameters:
            self._unused = self._find_unused(output)
        return output

    def _find_unused(self, output):
        from ...autograd.graph import AccumulateGrad
        from ..._tensor import Tensor
        roots = []

        def collect(o):
            if isinstance(o, Tensor):
                if o.grad_fn is not None:
                    roots.append(o.grad_fn)
                elif o.requires_grad and id(o) in self._pindex:
                    used.add(self._pindex[id(o)])
            elif isinstance(o, (list, tuple)):
                for x in o:
                    collect(x)
            elif isinstance(o, dict):
                for x in o.values():
                    collect(x)
        used = set()
        collect(output)
        seen = set()
        stack = list(roots)
        while stack:
            n = stack.pop()
            if n is None or id(n) in seen:
                continue
            seen.add(id(n))
            if isinstance(n, AccumulateGrad):
                v = n.variable
                if v is not None and id(v) in self._pindex:
                    used.add(self._pindex[id(v)])
                continue
            for nxt, _ in n.next_functions:
                if nxt is not None:
                    stack.append(nxt)
        return tuple(i for i in range(len(self._params)) if i not in used)

    def forward(self, *inputs, **kwargs):
        """Run the wrapped module (after broadcasting rank 0's buffers when
        ``broadcast_buffers``) and prepare the gradient reduction of the next backward."""
        self._pre_forward()
        out = self.module(*inputs, **kwargs)
        return self._post_forward(out)

    def will_sync_module_buffers(self):
        """Whether the next forward broadcasts the buffers of rank 0."""
        return (self.require_forward_param_sync and self.broadcast_buffers
                and len(self._module_buffers) > 0 and self._world_size > 1)

    def _sync_buffers(self):
        self._broadcast_coalesced(self._module_buffers, 0)

    # ------------------------------------------------------------------ public API
    @contextlib.contextmanager
    def no_sync(self):
        """Context manager: backward passes run inside it accumulate gradients locally
        without communication; the first backward after it averages the accumulated sum.

        Example::

            >>> with ddp.no_sync():
            ...     ddp(x1).sum().backward()   # local only
            >>> ddp(x2).sum().backward()       # averages the gradients of x1 and x2
        """
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def register_comm_hook(self, state, hook):
        """Replace the bucket all-reduce by ``hook(state, bucket) -> Future``, whose value is
        the reduced flat tensor of the :class:`GradBucket` (e.g. ``default_hooks.
        allreduce_hook``, ``fp16_compress_hook``, ``powerSGD_hook``). Can be called once,
        before the first backward.

        Args:
            state (object): passed to every call (e.g. the process group, a PowerSGDState).
            hook (callable): ``hook(state, bucket)``.

        Example::

            >>> from ember.distributed.algorithms.ddp_comm_hooks import default_hooks
            >>> ddp.register_comm_hook(None, default_hooks.fp16_compress_hook)
        """
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        if self._comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be "
                               "called once.")
        self._comm_hook = hook
        self._comm_state = state

    def _register_builtin_comm_hook(self, comm_hook_type):
        from ...distributed.algorithms.ddp_comm_hooks import default_hooks as H
        name = getattr(comm_hook_type, 'name', str(comm_hook_type)).upper()
        hook = H.fp16_compress_hook if 'FP16' in name else H.allreduce_hook
        self.register_comm_hook(self.process_group, hook)

    def join(self, divide_by_initial_world_size=True, enable=True,
             throw_on_early_termination=False):
        """A :class:`~ember.distributed.algorithms.Join` context manager for training with
        uneven inputs across ranks: ranks that run out of data shadow the collectives of
        the others until every rank is done.

        Args:
            divide_by_initial_world_size (bool): divide gradients by the initial world size
                (``True``) or by the number of ranks still training. Default: ``True``.
            enable (bool): enable the uneven-input handling. Default: ``True``.
            throw_on_early_termination (bool): raise on every rank as soon as one rank runs
                out of data. Default: ``False``.

        Example::

            >>> with ddp.join():
            ...     for x in my_uneven_batches:
            ...         ddp(x).sum().backward()
        """
        from ...distributed.algorithms.join import Join
        self._divide_by_initial_world_size = divide_by_initial_world_size
        return Join([self], enable, throw_on_early_termination)

    def join_hook(self, **kwargs):
        """The :class:`JoinHook` shadowing this module's collectives on a joined rank.

        Args:
            divide_by_initial_world_size (bool, optional): as in :meth:`join`.
        """
        d = kwargs.get('divide_by_initial_world_size', self._divide_by_initial_world_size)
        return _DDPJoinHook(self, d)

    @property
    def join_device(self):
        """The device of the join collectives (the module's)."""
        return self._params[0].device

    @property
    def join_process_group(self):
        """The process group of the join collectives."""
        return self.process_group

    def _get_ddp_logging_data(self):
        return {'world_size': self._world_size, 'bucket_cap_bytes': self.bucket_bytes_cap,
                'find_unused_parameters': self.find_unused_parameters,
                'gradient_as_bucket_view': self.gradient_as_bucket_view,
                'static_graph': self.static_graph, 'num_buckets': len(self._buckets)}

    def __getstate__(self):
        st = super().__getstate__()
        for k in ('_handles', '_buckets', '_where', 'process_group', '_pindex', '_comm_hook',
                  '_comm_state'):
            st.pop(k, None)
        return st

    def __setstate__(self, state):
        # as PyTorch: the copy runs on the default group, with fresh buckets and hooks
        sup = getattr(super(), '__setstate__', None)
        if sup is not None:
            sup(state)
        else:
            self.__dict__.update(state)
        dist = _dist()
        self.process_group = dist.group.WORLD
        self._comm_hook = self._comm_state = None    # hooks are not copied (as PyTorch)
        self._pindex = {id(p): i for i, p in enumerate(self._params)}
        self._in_backward = False
        self._build_buckets()
        self._handles = [p.register_post_accumulate_grad_hook(self._make_hook(i))
                         for i, p in enumerate(self._params)]


class _DDPJoinHook:
    """On a rank whose inputs ran out: match the buffer broadcast and the bucket all-reduces
    of the ranks still training (with zero gradients), then broadcast the final model of
    the last rank to join."""

    def __init__(self, ddp, divide_by_initial_world_size):
        self.ddp = ddp
        self.divide = divide_by_initial_world_size

    def main_hook(self):
        ddp = self.ddp
        dist = _dist()
        if ddp.will_sync_module_buffers():
            ddp._sync_buffers()
        from ...autograd.grad_mode import no_grad
        with no_grad():
            from ...distributed.algorithms._futures import all_reduce_future
            for b in ddp._buckets:   # the same (nonblocking) call the training ranks make
                b.buffer.zero_()
                all_reduce_future(b.buffer, ddp.process_group).wait()
            if ddp.find_unused_parameters:
                from ..._ops.creation import zeros
                m = zeros(len(ddp._params), dtype=D.int32)
                dist.all_reduce(m, op=dist.ReduceOp.MAX, group=ddp.process_group)

    def post_hook(self, is_last_joiner):
        ddp = self.ddp
        dist = _dist()
        from ..._ops.creation import tensor
        me = dist.get_rank(ddp.process_group)
        v = tensor([me if is_last_joiner else -1], dtype=D.int64)
        dist.all_reduce(v, op=dist.ReduceOp.MAX, group=ddp.process_group)
        ddp._sync_params_and_buffers(authoritative_rank=int(v.item()))


class GradBucket:
    """A bucket of gradients handed to a DDP communication hook.

    ``buffer()`` is the flat tensor of the bucket's gradients (a hook reduces it and
    returns a future of the result), ``gradients()`` its per-parameter views,
    ``parameters()`` the parameters, ``index()`` its position (bucket 0 holds the last
    parameters), ``is_last()`` whether it is the last bucket of the pass.

    Example::

        >>> def hook(state, bucket):
        ...     return default_hooks.allreduce_hook(state, bucket)
    """

    def __init__(self, index, buffer, params, views, is_last):
        self._index, self._buffer, self._params = index, buffer, params
        self._views, self._is_last = views, is_last

    def index(self):
        """The bucket's index."""
        return self._index

    def buffer(self):
        """The flat tensor of the bucket's gradients."""
        return self._buffer

    def gradients(self):
        """The gradients of the bucket's parameters (views of :meth:`buffer`)."""
        return list(self._views)

    def parameters(self):
        """The bucket's parameters."""
        return list(self._params)

    def is_last(self):
        """Whether this is the last bucket reduced in the iteration."""
        return self._is_last

    def set_buffer(self, buffer):
        """Replace the contents of the bucket's flat buffer by ``buffer``."""
        self._buffer.copy_(buffer)
