"""AdaptiveLogSoftmaxWithLoss: the efficient softmax approximation of Grave et al. for
large output spaces (frequent classes in a head, the rest in smaller tail clusters)."""
from collections import namedtuple

from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ['AdaptiveLogSoftmaxWithLoss']

_ASMoutput = namedtuple('_ASMoutput', ['output', 'loss'])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive log-softmax: the first ``cutoffs[0]`` classes (the shortlist) and one
    entry per tail cluster form the head; the classes of cluster ``i`` are scored by
    ``tail[i]``, a projection to ``in_features // div_value**(i+1)`` features followed by
    a linear layer to the cluster's classes.

    Args:
        in_features (int): features of the input.
        n_classes (int): number of classes.
        cutoffs (Sequence[int]): increasing cluster boundaries in ``[1, n_classes - 1]``.
        div_value (float): the divisor of the projection sizes. Default: 4.0.
        head_bias (bool): the head has a bias. Default: ``False``.
        device, dtype: factory arguments of the parameters.

    Returns:
        ``forward`` returns the named tuple ``(output, loss)``: ``output`` is the
        log-probability of each target ``(N)``, ``loss`` the mean negative of it.

    NOTE: unlike PyTorch 2.13, whose ``log_prob`` (and ``predict`` beyond the shortlist)
    raise an IndexError for an unbatched input, ember computes them (the batched result's
    row).

    Shape:
        - input: ``(N, in_features)`` or ``(in_features)``.
        - target: ``(N)`` or ``()``, class indices in ``[0, n_classes)``.
        - output1: ``(N)`` or ``()``; output2: scalar.

    Example::

        >>> asm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4, 8])
        >>> out, loss = asm(ember.randn(3, 8), ember.tensor([0, 5, 9]))
        >>> out.shape
        torch.Size([3])
    """

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             "n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device,
                           dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(
                Linear(in_features, hsz, bias=False, device=device, dtype=dtype),
                Linear(hsz, osz, bias=False, device=device, dtype=dtype)))

    def reset_parameters(self):
        """Re-draw the head and tail weights (Linear's default scheme)."""
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        import ember
        td = target_.dim()
        if td == 1:
            if input_.shape[0] != target_.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input_.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs "
                                   f"with size {input_.size()}")
        elif td == 0:
            if input_.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs "
                                   f"with size {input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = td > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        n = target.shape[0]
        bounds = [0] + self.cutoffs
        if n and bool(((target < 0) | (target >= self.n_classes)).any()):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values "
                               f"in range [{target.min().item()}, {target.max().item()}] were "
                               "found. ")
        # the head entry of each row: its class (shortlist) or its cluster's entry
        gather = target.clone()
        output = input.new_zeros(n)
        for i in range(1, len(bounds) - 1):
            lo, hi = bounds[i], bounds[i + 1]
            mask = (target >= lo) & (target < hi)
            rows = mask.nonzero().reshape(-1)
            if rows.numel() == 0:
                continue
            gather = gather.masked_fill(mask, self.shortlist_size + i - 1)
            sub = self.tail[i - 1](input.index_select(0, rows))
            lp = F.log_softmax(sub, dim=1).gather(1, (target[mask] - lo).unsqueeze(1))
            output = output.index_copy(0, rows, lp.squeeze(1))
        head_lp = F.log_softmax(self.head(input), dim=1)
        output = output + head_lp.gather(1, gather.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):
        import ember
        head_lp = F.log_softmax(head_output, dim=1)
        parts = [head_lp[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            clp = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(clp + head_lp[:, self.shortlist_size + i].unsqueeze(1))
        return ember.cat(parts, 1)

    def log_prob(self, input):
        """Log-probabilities of every class.

        Args:
            input (Tensor): ``(N, in_features)`` or ``(in_features)``.

        Returns:
            Tensor: ``(N, n_classes)`` (or ``(n_classes)``).
        """
        batched = input.dim() > 1
        x = input if batched else input.unsqueeze(0)
        out = self._get_full_log_prob(x, self.head(x))
        return out if batched else out.squeeze(0)

    def predict(self, input):
        """The most likely class of each input row (cheaper than ``log_prob().argmax(1)``
        when the head's answer is a shortlist class).

        Args:
            input (Tensor): ``(N, in_features)`` or ``(in_features)``.

        Returns:
            Tensor: ``(N)`` (or ``()``) int64 class indices.
        """
        import ember
        batched = input.dim() > 1
        x = input if batched else input.unsqueeze(0)
        head = self.head(x)
        out = ember.argmax(head, dim=1)
        far = out >= self.shortlist_size
        if bool(far.any()):
            if bool(far.all()):
                out = ember.argmax(self._get_full_log_prob(x, head), dim=1)
            else:
                out = out.clone()
                out[far] = ember.argmax(self._get_full_log_prob(x[far], head[far]), dim=1)
        return out if batched else out.squeeze(0)
