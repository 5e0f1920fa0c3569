"""PowerSGD gradient compression (Vogels et al., 2019) as a DDP communication hook: each
matrix-shaped gradient ``M`` (``n x m``) is sent as two low-rank factors ``P`` (``n x r``)
and ``Q`` (``m x r``) with one power iteration (``P = orth(M Q)``, ``Q = M^T P``); vectors
and matrices too small to gain are all-reduced as they are. The compression error is fed
back into the next iteration's gradient, and ``Q`` is reused as the next starting point."""
import numpy as _np_seed   # only for the seed stream of the random starting matrices

from .default_hooks import _allreduce_fut
from .._futures import done_future

__all__ = ['PowerSGDState', 'powerSGD_hook', 'batched_powerSGD_hook']


class PowerSGDState:
    """The state of :func:`powerSGD_hook` (kept between iterations).

    Args:
        process_group (ProcessGroup or None): the group (``None``: the world).
        matrix_approximation_rank (int): ``r``, the rank of the factors. Default: 1.
        start_powerSGD_iter (int): plain all-reduce before this iteration. Default: 1000.
        min_compression_rate (float): compress a matrix only if ``n*m / ((n+m)*r)`` is at
            least this. Default: 2.
        use_error_feedback (bool): add the previous compression error to the gradient.
            Default: ``True``.
        warm_start (bool): start each power iteration from the previous ``Q``.
            Default: ``True``.
        orthogonalization_epsilon (float): added to the column norms when
            orthogonalizing. Default: 0.
        random_seed (int): seed of the random starting ``Q``. Default: 0.
        compression_stats_logging_frequency (int), batch_tensors_with_same_shape (bool):
            accepted for compatibility.

    Example::

        >>> state = PowerSGDState(None, matrix_approximation_rank=2, start_powerSGD_iter=10)
        >>> ddp.register_comm_hook(state, powerSGD_hook)
    """

    def __init__(self, process_group, matrix_approximation_rank=1, start_powerSGD_iter=1000,
                 min_compression_rate=2, use_error_feedback=True, warm_start=True,
                 orthogonalization_epsilon=0, random_seed=0,
                 compression_stats_logging_frequency=10000, batch_tensors_with_same_shape=False):
        if (use_error_feedback or warm_start) and start_powerSGD_iter <= 1:
            raise ValueError("Expect `start_powerSGD_iter` > 1 if `use_error_feedback` or "
                             "`warm_start` is enabled, because PowerSGD can only be applied "
                             "after the first two iterations in DDP.")
        self.process_group = process_group
        self.matrix_approximation_rank = matrix_approximation_rank
        self.start_powerSGD_iter = start_powerSGD_iter
        self.min_compression_rate = min_compression_rate
        self.use_error_feedback = use_error_feedback
        self.warm_start = warm_start
        self.orthogonalization_epsilon = orthogonalization_epsilon
        self.rng = _np_seed.random.RandomState(random_seed)
        self.error_dict = {}
        self.p_memory_dict = {}
        self.q_memory_dict = {}
        self.iter = 0
        self.total_numel_before_compression = 0
        self.total_numel_after_compression = 0
        self.compression_stats_logging_frequency = max(1, compression_stats_logging_frequency)
        self.next_stats_report = 0
        self.batch_tensors_with_same_shape = batch_tensors_with_same_shape

    def maybe_increase_iter(self, bucket):
        """Count an iteration once its last bucket has been reduced."""
        if bucket.is_last():
            self.iter += 1

    def compression_stats(self):
        """``(compress_rate, numel_before, numel_after)`` accumulated so far."""
        after = self.total_numel_after_compression
        rate = self.total_numel_before_compression / after if after > 0 else 0
        return rate, self.total_numel_before_compression, after

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != 'process_group'}

    def __setstate__(self, st):
        self.process_group = None
        self.__dict__.update(st)


def _orthogonalize(m, eps=0):
    """Gram-Schmidt on the columns of ``m`` (in place)."""
    cols = m.shape[1]
    for i in range(cols):
        col = m[:, i:i + 1]
        if eps == 0:
            col.div_(col.norm())
        else:
            col.div_(col.norm() + eps)
        if i + 1 < cols:
            rest = m[:, i + 1:]
            rest.sub_((col * rest).sum(0, keepdim=True) * col)


def _worth(n, m, r, rate):
    uncompressed = n * m
    compressed = (n + m) * r
    return compressed * rate < uncompressed, uncompressed, compressed


def powerSGD_hook(state, bucket):
    """A DDP communication hook compressing each matrix gradient of the bucket to rank
    ``state.matrix_approximation_rank`` (one power iteration, error feedback, warm start).
    Before ``state.start_powerSGD_iter`` it is a plain averaging all-reduce.

    Args:
        state (PowerSGDState): the state.
        bucket (GradBucket): the bucket.

    Returns:
        A future of the (approximately) averaged flat tensor.

    NOTE: unlike PyTorch, the three all-reduces of an iteration run one after the other
    inside the hook (the returned future is already complete).

    Example::

        >>> ddp.register_comm_hook(PowerSGDState(None, start_powerSGD_iter=10), powerSGD_hook)
    """
    from .... import distributed as dist
    from ....random import manual_seed, fork_rng
    import ember
    pg = state.process_group
    buf = bucket.buffer()
    if state.iter < state.start_powerSGD_iter:
        state.maybe_increase_iter(bucket)
        return _allreduce_fut(pg, buf)
    n_ranks = dist.get_world_size(pg)
    idx = bucket.index()
    if state.use_error_feedback:
        if idx in state.error_dict:
            buf.add_(state.error_dict[idx])
        else:
            state.error_dict[idx] = ember.zeros(buf.numel(), dtype=buf.dtype)
        before = buf.clone()
    r_cap = state.matrix_approximation_rank
    plain, mats, ranks = [], [], []
    for g in bucket.gradients():
        if g.dim() <= 1:
            plain.append(g)
            continue
        mat = g.reshape(g.shape[0], -1)
        n, m = mat.shape
        r = min(n, m, r_cap)
        ok, u, c = _worth(n, m, r, state.min_compression_rate)
        state.total_numel_before_compression += u
        if ok:
            mats.append((g, mat))
            ranks.append(r)
            state.total_numel_after_compression += c
        else:
            plain.append(g)
            state.total_numel_after_compression += u
    if plain:
        flat = ember.cat([g.reshape(-1) for g in plain])
        dist.all_reduce(flat, group=pg)
        flat.div_(n_ranks)
        o = 0
        for g in plain:
            k = g.numel()
            g.copy_(flat[o:o + k].view(g.shape))
            o += k
    if mats:
        need_init = not state.warm_start or idx not in state.p_memory_dict
        if need_init:
            state.p_memory_dict[idx] = [ember.empty(mat.shape[0], r, dtype=buf.dtype)
                                        for (g, mat), r in zip(mats, ranks)]
            seed = int(state.rng.randint(1_000_000_000))
            with fork_rng(devices=[]):
                manual_seed(seed)
                state.q_memory_dict[idx] = [ember.randn(mat.shape[1], r, dtype=buf.dtype)
                                            for (g, mat), r in zip(mats, ranks)]
            for q in state.q_memory_dict[idx]:
                _orthogonalize(q, state.orthogonalization_epsilon)
        ps, qs = state.p_memory_dict[idx], state.q_memory_dict[idx]
        for (g, mat), p, q in zip(mats, ps, qs):
            ember.matmul(mat, q, out=p)
        pflat = ember.cat([p.reshape(-1) for p in ps])
        dist.all_reduce(pflat, group=pg)
        o = 0
        for p in ps:
            k = p.numel()
            p.copy_(pflat[o:o + k].view(p.shape))
            o += k
            _orthogonalize(p, state.orthogonalization_epsilon)
        for (g, mat), p, q in zip(mats, ps, qs):
            ember.matmul(mat.t(), p, out=q)
        qflat = ember.cat([q.reshape(-1) for q in qs])
        dist.all_reduce(qflat, group=pg)
        o = 0
        for q in qs:
            k = q.numel()
            q.copy_(qflat[o:o + k].view(q.shape))
            o += k
        for (g, mat), p, q in zip(mats, ps, qs):
            g.copy_(ember.matmul(p, q.t()).div_(n_ranks).view(g.shape))
    if state.use_error_feedback:
        state.error_dict[idx] = before - buf
    state.maybe_increase_iter(bucket)
    return done_future(buf)


def batched_powerSGD_hook(state, bucket):
    """PowerSGD on the whole bucket seen as one square-ish matrix (one compression per
    bucket instead of per gradient).

    Args:
        state (PowerSGDState): the state.
        bucket (GradBucket): the bucket.

    Example::

        >>> ddp.register_comm_hook(PowerSGDState(None, start_powerSGD_iter=10),
        ...                        batched_powerSGD_hook)
    """
    import math
    buf = bucket.buffer()
    n = buf.numel()
    side = math.ceil(math.sqrt(n))
    pg = state.process_group
    if state.iter < state.start_powerSGD_iter:
        state.maybe_increase_iter(bucket)
        return _allreduce_fut(pg, buf)
    from ...._ops.creation import zeros

    class _One:
        def __init__(self, idx, g, last):
            self._i, self._g, self._l = idx, g, last

        def index(self):
            return self._i

        def buffer(self):
            return self._g.view(-1)

        def gradients(self):
            return [self._g]

        def is_last(self):
            return self._l

    padded = zeros(side * side, dtype=buf.dtype)
    padded[:n].copy_(buf)
    sq = padded.view(side, side)
    saved_rate = state.min_compression_rate
    state.min_compression_rate = 0
    try:
        powerSGD_hook(state, _One(bucket.index(), sq, bucket.is_last()))
    finally:
        state.min_compression_rate = saved_rate
    buf.copy_(padded[:n])
    return done_future(buf)
