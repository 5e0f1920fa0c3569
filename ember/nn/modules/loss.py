"""Loss functions as modules: each holds its options (``reduction``, class ``weight``
buffers, ...) and calls the functional form of ``ember.nn.functional``."""
import math

from ..._ops.loss import _reduction
from .. import functional as F
from .distance import PairwiseDistance
from .linear import Linear
from .module import Module

__all__ = ['L1Loss', 'NLLLoss', 'NLLLoss2d', 'PoissonNLLLoss', 'GaussianNLLLoss', 'KLDivLoss',
           'MSELoss', 'BCELoss', 'BCEWithLogitsLoss', 'HingeEmbeddingLoss',
           'MultiLabelMarginLoss', 'SmoothL1Loss', 'HuberLoss', 'SoftMarginLoss',
           'CrossEntropyLoss', 'MultiLabelSoftMarginLoss', 'CosineEmbeddingLoss',
           'MarginRankingLoss', 'MultiMarginLoss', 'TripletMarginLoss',
           'TripletMarginWithDistanceLoss', 'CTCLoss', 'LinearCrossEntropyLoss',
           'LinearCrossEntropyOptions']


class _Loss(Module):
    """Base of the losses: holds ``reduction`` (translating the deprecated
    ``size_average``/``reduce``)."""

    def __init__(self, size_average=None, reduce=None, reduction='mean'):
        super().__init__()
        if size_average is not None or reduce is not None:
            self.reduction = _reduction(size_average, reduce, reduction)
        else:
            self.reduction = reduction


class _WeightedLoss(_Loss):
    """A loss with a class ``weight`` buffer (None allowed)."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction='mean'):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer('weight', weight)



class L1Loss(_Loss):
    """Mean absolute error between input and target.

    Args:
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Shape:
        - Input: ``(*)``; Target: the same shape; Output: scalar (``(*)`` with ``'none'``).

    Example::

        >>> nn.L1Loss()(ember.tensor([1., 2.]), ember.tensor([0., 0.]))
        tensor(1.5000)
    """
    __constants__ = ['reduction']

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """Negative log likelihood loss of log-probabilities and class indices.

    Args:
        weight (Tensor, optional): ``(C)`` class weights.
        size_average, reduce: deprecated (see ``reduction``).
        ignore_index (int): a target value that adds nothing. Default: -100.
        reduction (str): ``'none'`` | ``'mean'`` (weighted mean) | ``'sum'``. Default:
            ``'mean'``.

    Shape:
        - Input: ``(N, C)``, ``(C)`` or ``(N, C, d1, ..., dK)``.
        - Target: ``(N)``, ``()`` or ``(N, d1, ..., dK)``, int64 in ``[0, C)``.
        - Output: scalar, or the target's shape with ``'none'``.

    Example::

        >>> nn.NLLLoss()(ember.tensor([[-1., -2.], [-3., -0.5]]), ember.tensor([0, 1]))
        tensor(0.7500)
    """
    __constants__ = ['ignore_index', 'reduction']

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction='mean'):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class NLLLoss2d(NLLLoss):
    """Deprecated alias of :class:`NLLLoss` (constructing one warns, as in PyTorch).

    Args:
        weight, size_average, ignore_index, reduce, reduction: see :class:`NLLLoss`.

    Shape:
        - See :class:`NLLLoss`.

    Example::

        >>> loss = nn.NLLLoss2d()   # FutureWarning
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction='mean'):
        import warnings
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a "
                      "drop-in replacement and see https://pytorch.org/docs/main/nn.html"
                      "#torch.nn.NLLLoss for more details.", FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


class PoissonNLLLoss(_Loss):
    """Negative log likelihood of a Poisson-distributed target.

    Args:
        log_input (bool): the input is the log of the rate. Default: ``True``.
        full (bool): add the Stirling approximation term. Default: ``False``.
        size_average, reduce: deprecated (see ``reduction``).
        eps (float): avoids ``log(0)`` when not ``log_input``. Default: 1e-8.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Shape:
        - Input: ``(*)``; Target: the same shape; Output: scalar (``(*)`` with ``'none'``).

    Example::

        >>> nn.PoissonNLLLoss()(ember.tensor([0.]), ember.tensor([1.]))
        tensor(1.)
    """
    __constants__ = ['log_input', 'full', 'eps', 'reduction']

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction='mean'):
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                  eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Gaussian negative log likelihood of a target given expectations and variances.

    Args:
        full (bool): add the constant ``0.5 log(2 pi)``. Default: ``False``.
        eps (float): the variances are clamped below at ``eps``. Default: 1e-6.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Shape:
        - Input: ``(N, *)`` or ``(*)``; Target: the same; Var: the same, one dimension
          short, or with one dimension of size 1; Output: scalar (input's shape with
          ``'none'``).

    Example::

        >>> nn.GaussianNLLLoss()(ember.tensor([0.]), ember.tensor([1.]), ember.tensor([1.]))
        tensor(0.5000)
    """
    __constants__ = ['full', 'eps', 'reduction']

    def __init__(self, *, full=False, eps=1e-6, reduction='mean'):
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                   reduction=self.reduction)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence loss of log-probabilities and a target distribution.

    Args:
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'batchmean'`` | ``'sum'`` | ``'mean'``. Default:
            ``'mean'`` (with PyTorch's warning that ``'batchmean'`` is the KL divergence).
        log_target (bool): the target is in log space. Default: ``False``.

    Shape:
        - Input: ``(*)``; Target: the same shape; Output: scalar (``(*)`` with ``'none'``).

    Example::

        >>> kl = nn.KLDivLoss(reduction='batchmean')
        >>> kl(ember.tensor([[-1., -1.]]), ember.tensor([[0.5, 0.5]]))
        tensor(0.3069)
    """
    __constants__ = ['reduction']

    def __init__(self, size_average=None, reduce=None, reduction='mean', log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class MSELoss(_Loss):
    """Mean squared error between input and target.

    Args:
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Shape:
        - Input: ``(*)``; Target: the same shape; Output: scalar (``(*)`` with ``'none'``).

    Example::

        >>> nn.MSELoss()(ember.tensor([1., 2.]), ember.tensor([0., 0.]))
        tensor(2.5000)
    """
    __constants__ = ['reduction']

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class BCELoss(_WeightedLoss):
    """Binary cross entropy between probabilities and targets.

    Args:
        weight (Tensor, optional): weights broadcastable to the input.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Shape:
        - Input: ``(*)`` in ``[0, 1]``; Target: the same shape; Output: scalar (``(*)``
          with ``'none'``).

    Example::

        >>> nn.BCELoss()(ember.tensor([0.5]), ember.tensor([1.]))
        tensor(0.6931)
    """
    __constants__ = ['reduction']

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """A sigmoid and binary cross entropy in one (stable for large logits).

    Args:
        weight (Tensor, optional): weights broadcastable to the input.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        pos_weight (Tensor, optional): weights of positive examples, broadcast along the
            last (class) dimension.

    Shape:
        - Input: ``(*)`` logits; Target: the same shape; Output: scalar (``(*)`` with
          ``'none'``).

    Example::

        >>> nn.BCEWithLogitsLoss()(ember.tensor([0.]), ember.tensor([1.]))
        tensor(0.6931)
    """

    def __init__(self, weight=None, size_average=None, reduce=None, reduction='mean',
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer('weight', weight)
        self.register_buffer('pos_weight', pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """Hinge embedding loss of distances and 1/-1 labels.

    Args:
        margin (float): Default: 1.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Shape:
        - Input: ``(*)``; Target: the same shape; Output: scalar (``(*)`` with ``'none'``).

    Example::

        >>> nn.HingeEmbeddingLoss()(ember.tensor([0.3, 0.4]), ember.tensor([1., -1.]))
        tensor(0.4500)
    """
    __constants__ = ['margin', 'reduction']

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction='mean'):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin,
                                      reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Multi-class multi-label hinge loss (targets listed until the first -1).

    Args:
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Shape:
        - Input: ``(C)`` or ``(N, C)``; Target: the same shape, int64; Output: scalar
          (``(N)`` with ``'none'``).

    Example::

        >>> loss = nn.MultiLabelMarginLoss()
        >>> loss(ember.tensor([[0.1, 0.2, 0.4, 0.8]]), ember.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """
    __constants__ = ['reduction']

    def forward(self, input, target):
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Squared error below ``beta``, absolute error above.

    Args:
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        beta (float): the threshold, ``>= 0``. Default: 1.

    Shape:
        - Input: ``(*)``; Target: the same shape; Output: scalar (``(*)`` with ``'none'``).

    Example::

        >>> nn.SmoothL1Loss()(ember.tensor([0.5, 3.]), ember.tensor([0., 0.]))
        tensor(1.3125)
    """
    __constants__ = ['reduction']

    def __init__(self, size_average=None, reduce=None, reduction='mean', beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Squared error below ``delta``, delta-scaled absolute error above.

    Args:
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        delta (float): the threshold, ``> 0``. Default: 1.

    Shape:
        - Input: ``(*)``; Target: the same shape; Output: scalar (``(*)`` with ``'none'``).

    Example::

        >>> nn.HuberLoss(delta=2.)(ember.tensor([0.5, 3.]), ember.tensor([0., 0.]))
        tensor(2.0625)
    """
    __constants__ = ['reduction', 'delta']

    def __init__(self, reduction='mean', delta=1.0):
        if isinstance(delta, bool) or not isinstance(delta, (int, float)):
            raise TypeError(f"delta must be a float or int, got: {type(delta)}")
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class SoftMarginLoss(_Loss):
    """Two-class logistic loss of scores and 1/-1 labels.

    Args:
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Shape:
        - Input: ``(*)``; Target: the same shape; Output: scalar (``(*)`` with ``'none'``).

    Example::

        >>> nn.SoftMarginLoss()(ember.tensor([0.]), ember.tensor([1.]))
        tensor(0.6931)
    """
    __constants__ = ['reduction']

    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy between logits and class indices or class probabilities.

    Args:
        weight (Tensor, optional): ``(C)`` class weights.
        size_average, reduce: deprecated (see ``reduction``).
        ignore_index (int): a class index that adds nothing. Default: -100.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        label_smoothing (float): in ``[0, 1]``. Default: 0.

    Shape:
        - Input: ``(C)``, ``(N, C)`` or ``(N, C, d1, ..., dK)``.
        - Target: class indices ``()``, ``(N)``, ``(N, d1, ..., dK)`` (int64), or
          probabilities of the input's shape.
        - Output: scalar, or the shape without ``C`` with ``'none'``.

    Example::

        >>> loss = nn.CrossEntropyLoss()
        >>> loss(ember.tensor([[2., 0.], [0., 2.]]), ember.tensor([0, 1]))
        tensor(0.1269)
    """
    __constants__ = ['ignore_index', 'reduction', 'label_smoothing']

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction='mean', label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class LinearCrossEntropyOptions:
    """Options of the chunked :func:`linear_cross_entropy` (validated as PyTorch does).
    Frozen, compared and printed as PyTorch's dataclass.

    NOTE: unlike PyTorch, ember has no chunked path: ``linear_cross_entropy`` always
    computes the reference (full logits); the options are accepted and checked only. The
    class lives in ``ember.nn.modules.loss`` (PyTorch's in
    ``torch.nn.modules.linear_cross_entropy_options``) and is a plain frozen class, not a
    ``dataclasses`` dataclass (importing ``dataclasses`` would slow ``import ember``).

    Args:
        allow_retain_graph (bool): Default: ``False``.
        batch_chunk_size (int, optional): a positive chunk size. Default: None.
        chunking_method (str, optional): ``'auto'`` or ``'aspect_ratio[:k]'``. Default:
            ``'auto'``.
        acc_policy (str): ``'auto'`` | ``'accurate'`` | ``'balanced'`` | ``'compact'``.
        acc_dtype (dtype, optional): float16, bfloat16, float32 or float64.

    Example::

        >>> nn.LinearCrossEntropyOptions(batch_chunk_size=64).batch_chunk_size
        64
    """
    __slots__ = ('allow_retain_graph', 'batch_chunk_size', 'chunking_method', 'acc_policy',
                 'acc_dtype')

    def __init__(self, allow_retain_graph=False, batch_chunk_size=None, chunking_method='auto',
                 acc_policy='auto', acc_dtype=None):
        for k, v in zip(self.__slots__, (allow_retain_graph, batch_chunk_size, chunking_method,
                                         acc_policy, acc_dtype)):
            object.__setattr__(self, k, v)
        if self.acc_policy not in {'auto', 'accurate', 'balanced', 'compact'}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != 'auto':
            name, sep, factor = self.chunking_method.partition(':')
            if not sep:
                factor = '1'
            if not (name == 'aspect_ratio' and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None or (isinstance(self.batch_chunk_size, int)
                                                  and self.batch_chunk_size > 0)):
            raise ValueError("batch_chunk_size must be positive int or None, got "
                             f"{self.batch_chunk_size!r}")
        import ember
        ok = {ember.float16, ember.bfloat16, ember.float32, ember.float64}
        if self.acc_dtype is not None and self.acc_dtype not in ok:
            raise ValueError("acc_dtype must be one of {None, torch.float16, torch.bfloat16, "
                             f"torch.float32, torch.float64}}, got {self.acc_dtype!r}. Pass "
                             "acc_dtype=None to let the op pick automatically.")

    def _values(self):
        return tuple(getattr(self, k) for k in self.__slots__)

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field '{name}'")

    def __delattr__(self, name):
        raise AttributeError(f"cannot delete field '{name}'")

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self):
        return hash(self._values())

    def __reduce__(self):
        return (self.__class__, self._values())

    def __repr__(self):
        return 'LinearCrossEntropyOptions(' + ', '.join(
            f'{k}={getattr(self, k)!r}' for k in self.__slots__) + ')'


class LinearCrossEntropyLoss(_WeightedLoss):
    """A linear layer (``self.linear``) followed by the cross entropy of its logits.

    Args:
        in_features (int): size of each input sample.
        num_classes (int): number of classes ``C``.
        out_features (tuple of ints): ``(d1, ..., dK)`` for a K-dimensional loss.
            Default: ``()``.
        bias (bool): the linear layer has a bias. Default: ``False``.
        device, dtype: factory arguments of the linear weight.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        weight (Tensor, optional): ``(C)`` class weights.
        ignore_index (int, optional): ignored class index (None: -100 for indices).
        label_smoothing (float): in ``[0, 1]``. Default: 0.
        options (LinearCrossEntropyOptions, optional): chunking options (see the NOTE of
            :class:`LinearCrossEntropyOptions`).

    Shape:
        - Input: ``(in_features)`` or ``(N, in_features)``.
        - Target: ``()``, ``(N)`` or ``(N, *out_features)`` class indices, or
          probabilities ``(C)`` / ``(N, C, *out_features)``.
        - Output: scalar, or the target's batch shape with ``'none'``.

    Example::

        >>> loss = nn.LinearCrossEntropyLoss(5, 10)
        >>> loss(ember.randn(2, 5), ember.tensor([1, 7])).shape
        torch.Size([])
    """
    __constants__ = ['num_classes', 'out_features', 'reduction', 'ignore_index',
                     'label_smoothing']

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None,
                 dtype=None, reduction='mean', weight=None, ignore_index=None,
                 label_smoothing=0.0, options=None):
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got "
                               f"{tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got "
                               f"{label_smoothing}")
        super().__init__(weight=weight, size_average=None, reduce=None, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.linear = Linear(in_features, math.prod(out_features) * num_classes, bias=bias,
                             device=device, dtype=dtype)
        self.options = options

    def forward(self, input, target):
        w = self.linear.weight.reshape((self.num_classes,) + tuple(self.out_features)
                                       + (self.linear.in_features,))
        b = self.linear.bias
        if b is not None:
            b = b.reshape((self.num_classes,) + tuple(self.out_features))
        return F.linear_cross_entropy(input, w, target, linear_bias=b, weight=self.weight,
                                      reduction=self.reduction, ignore_index=self.ignore_index,
                                      label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Multi-label one-versus-all logistic loss.

    Args:
        weight (Tensor, optional): ``(C)`` class weights.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Shape:
        - Input: ``(N, C)``; Target: the same shape, 0/1 labels; Output: scalar (``(N)``
          with ``'none'``).

    Example::

        >>> loss = nn.MultiLabelSoftMarginLoss()
        >>> loss(ember.tensor([[0., 0.]]), ember.tensor([[1., 0.]]))
        tensor(0.6931)
    """
    __constants__ = ['reduction']

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight,
                                             reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """Cosine embedding loss of two inputs and 1/-1 labels.

    Args:
        margin (float): in ``[-1, 1]``. Default: 0.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Shape:
        - Input1, Input2: ``(N, D)`` or ``(D)``; Target: ``(N)`` or ``()``; Output: scalar
          (``(N)`` with ``'none'``).

    Example::

        >>> loss = nn.CosineEmbeddingLoss()
        >>> loss(ember.tensor([[1., 0.]]), ember.tensor([[0., 1.]]), ember.tensor([1]))
        tensor(1.)
    """
    __constants__ = ['margin', 'reduction']

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction='mean'):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                       reduction=self.reduction)


class MarginRankingLoss(_Loss):
    """Ranking loss of two score vectors and 1/-1 labels.

    Args:
        margin (float): Default: 0.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Shape:
        - Input1, Input2, Target: ``(N)`` or ``()``; Output: scalar (``(N)`` with
          ``'none'``).

    Example::

        >>> loss = nn.MarginRankingLoss()
        >>> loss(ember.tensor([1., 2.]), ember.tensor([2., 1.]), ember.tensor([1., 1.]))
        tensor(0.5000)
    """
    __constants__ = ['margin', 'reduction']

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction='mean'):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss of scores and class indices.

    Args:
        p (int): 1 or 2. Default: 1.
        margin (float): Default: 1.
        weight (Tensor, optional): ``(C)`` class weights.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Shape:
        - Input: ``(N, C)`` or ``(C)``; Target: ``(N)`` or ``()``; Output: scalar (the
          target's shape with ``'none'``).

    Example::

        >>> loss = nn.MultiMarginLoss()
        >>> loss(ember.tensor([[0.1, 0.2, 0.4, 0.8]]), ember.tensor([3]))
        tensor(0.3250)
    """
    __constants__ = ['p', 'margin', 'reduction']

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction='mean'):
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError("MultiMarginLoss: expected weight to be None or 1D tensor, got "
                             f"{weight.dim()}D instead")
        self.p = p
        self.margin = margin

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """Triplet loss with the pairwise p-norm distance.

    Args:
        margin (float): ``> 0``. Default: 1.
        p (float): the norm degree. Default: 2.
        eps (float): see :class:`PairwiseDistance`. Default: 1e-6.
        swap (bool): the distance swap. Default: ``False``.
        size_average, reduce: deprecated (see ``reduction``).
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Shape:
        - Anchor, Positive, Negative: ``(N, D)`` or ``(D)``; Output: scalar (``(N)`` with
          ``'none'``).

    Example::

        >>> loss = nn.TripletMarginLoss(margin=1.0, p=2)
        >>> a = ember.zeros(1, 2)
        >>> loss(a, a, a + 3)
        tensor(0.)
    """
    __constants__ = ['margin', 'p', 'eps', 'swap', 'reduction']

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None,
                 reduction='mean'):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got "
                             f"{margin} instead")
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                     eps=self.eps, swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """Triplet loss with a custom distance function (default :class:`PairwiseDistance`,
    registered as the submodule ``distance_function`` as in PyTorch).

    Args:
        distance_function (callable, optional): ``d(x, y)`` -> distances.
        margin (float): ``> 0``. Default: 1.
        swap (bool): the distance swap. Default: ``False``.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.

    Shape:
        - Anchor, Positive, Negative: ``(N, *)``; Output: scalar (``(N)`` with ``'none'``).

    Example::

        >>> loss = nn.TripletMarginWithDistanceLoss()
        >>> a = ember.zeros(1, 2)
        >>> loss(a, a, a + 3)
        tensor(0.)
    """
    __constants__ = ['margin', 'swap', 'reduction']

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction='mean'):
        super().__init__(size_average=None, reduce=None, reduction=reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than "
                             f"0, got {margin} instead")
        self.distance_function = (distance_function if distance_function is not None
                                  else PairwiseDistance())
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(anchor, positive, negative,
                                                   distance_function=self.distance_function,
                                                   margin=self.margin, swap=self.swap,
                                                   reduction=self.reduction)


class CTCLoss(_Loss):
    """The Connectionist Temporal Classification loss.

    Args:
        blank (int): the blank label. Default: 0.
        reduction (str): ``'none'`` | ``'mean'`` | ``'sum'``. Default: ``'mean'``.
        zero_infinity (bool): infinite losses (impossible alignments) become 0. Default:
            ``False``.

    Shape:
        - Log_probs: ``(T, N, C)`` or ``(T, C)``; Targets: ``(N, S)`` or concatenated
          ``(sum(target_lengths))``; Input_lengths, Target_lengths: ``(N)`` (tensors or
          tuples of ints); Output: scalar (``(N)`` with ``'none'``).

    Example::

        >>> ctc = nn.CTCLoss()
        >>> lp = ember.randn(5, 2, 4).log_softmax(2)
        >>> ctc(lp, ember.tensor([[1, 2], [3, 3]]), [5, 5], [2, 2]).shape
        torch.Size([])
    """
    __constants__ = ['blank', 'reduction']

    def __init__(self, blank=0, reduction='mean', zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)
