"""Embedding and EmbeddingBag: lookup tables of learnable rows.

``Embedding(sparse=True)`` gives its weight a sparse COO gradient, as PyTorch.
NOTE: unlike PyTorch, ``EmbeddingBag(sparse=True)``'s weight gradient is dense (same
values); dense-update optimizers read a sparse gradient through its dense form."""
from ..._ops.creation import empty
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ['Embedding', 'EmbeddingBag']


def _fill_row_zero(weight, idx):
    with no_grad():
        weight[idx].fill_(0)


class Embedding(Module):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim``: the input
    holds indices, the output the rows of ``weight`` at them.

    Args:
        num_embeddings (int): size of the dictionary.
        embedding_dim (int): size of each vector.
        padding_idx (int, optional): this row (negative counts from the end) is initialised
            to zeros and gets no gradient. Default: None
        max_norm (float, optional): rows looked up whose norm exceeds this are renormalised
            to it, IN PLACE in ``weight``. Default: None
        norm_type (float): the p of the p-norm for ``max_norm``. Default: 2.0
        scale_grad_by_freq (bool): divide gradients by index frequency in the mini-batch.
            Default: False
        sparse (bool): the gradient of ``weight`` is a sparse COO tensor (one entry per
            looked-up index). Default: False
        _weight (Tensor, optional): use this as the weight (shape
            ``(num_embeddings, embedding_dim)``) instead of a new one.
        _freeze (bool): create the weight with ``requires_grad=False``. Default: False
        device, dtype: factory arguments of the weight.

    Shape:
        - Input: ``(*)``, int64 or int32 indices.
        - Output: ``(*, H)`` where ``H = embedding_dim``.

    Attributes:
        weight (Parameter): ``(num_embeddings, embedding_dim)``, drawn from ``N(0, 1)``.

    Example::

        >>> emb = nn.Embedding(10, 3)
        >>> emb(ember.tensor([[1, 2, 4, 5], [4, 3, 2, 9]])).shape
        torch.Size([2, 4, 3])
    """
    __constants__ = ['num_embeddings', 'embedding_dim', 'padding_idx', 'max_norm',
                     'norm_type', 'scale_grad_by_freq', 'sparse']

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if padding_idx > 0:
                if padding_idx >= self.num_embeddings:
                    raise AssertionError("Padding_idx must be within num_embeddings")
            elif padding_idx < 0:
                if padding_idx < -self.num_embeddings:
                    raise AssertionError("Padding_idx must be within num_embeddings")
                padding_idx = self.num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if _weight is None:
            self.weight = Parameter(empty((num_embeddings, embedding_dim), device=device,
                                          dtype=dtype), requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)
        self.sparse = sparse

    def reset_parameters(self):
        """Re-draw the weight from ``N(0, 1)`` and zero the ``padding_idx`` row."""
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is not None:
            _fill_row_zero(self.weight, self.padding_idx)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm,
                           self.norm_type, self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = '{num_embeddings}, {embedding_dim}'
        if self.padding_idx is not None:
            s += ', padding_idx={padding_idx}'
        if self.max_norm is not None:
            s += ', max_norm={max_norm}'
        if self.norm_type != 2:
            s += ', norm_type={norm_type}'
        if self.scale_grad_by_freq is not False:
            s += ', scale_grad_by_freq={scale_grad_by_freq}'
        if self.sparse is not False:
            s += ', sparse=True'
        return s.format(**self.__dict__)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        """An :class:`Embedding` whose weight is ``embeddings`` (shared, not copied).

        Args:
            embeddings (Tensor): 2-D ``(num_embeddings, embedding_dim)`` weight.
            freeze (bool): the weight does not require grad. Default: True
            padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse: as for
                :class:`Embedding` (the ``padding_idx`` row is not zeroed).

        Example::

            >>> emb = nn.Embedding.from_pretrained(ember.tensor([[1., 2.], [3., 4.]]))
            >>> emb(ember.tensor([1]))
            tensor([[3., 4.]])
        """
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings,
                   _freeze=freeze, padding_idx=padding_idx, max_norm=max_norm,
                   norm_type=norm_type, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


class EmbeddingBag(Module):
    """Sums, averages or takes the maximum of "bags" of embeddings without materialising
    the per-index lookups (see :func:`ember.nn.functional.embedding_bag`).

    Args:
        num_embeddings (int): size of the dictionary.
        embedding_dim (int): size of each vector.
        max_norm (float, optional): rows looked up whose norm exceeds this are renormalised
            to it, IN PLACE in ``weight``. Default: None
        norm_type (float): the p of the p-norm for ``max_norm``. Default: 2.0
        scale_grad_by_freq (bool): divide gradients by index frequency (not with ``max``).
            Default: False
        mode (str): ``'sum'``, ``'mean'`` or ``'max'``. Default: ``'mean'``
        sparse (bool): NOTE: unlike PyTorch, the gradient of ``weight`` stays dense.
            Default: False
        _weight (Tensor, optional): use this as the weight instead of a new one.
        include_last_offset (bool): ``offsets`` ends with the end of the last bag.
            Default: False
        padding_idx (int, optional): this row is zero-initialised and left out of every
            bag. Default: None
        device, dtype: factory arguments of the weight.

    Shape:
        - input: 1-D ``(N)`` with ``offsets`` ``(B)`` (or ``(B + 1)``), or 2-D ``(B, N)``.
        - per_sample_weights (optional): same shape as ``input`` (``mode='sum'`` only).
        - output: ``(B, embedding_dim)``.

    Attributes:
        weight (Parameter): ``(num_embeddings, embedding_dim)``, drawn from ``N(0, 1)``.

    Example::

        >>> bag = nn.EmbeddingBag(10, 3, mode='sum')
        >>> bag(ember.tensor([1, 2, 4, 5, 4, 3, 2, 9]), ember.tensor([0, 4])).shape
        torch.Size([2, 3])
    """
    __constants__ = ['num_embeddings', 'embedding_dim', 'max_norm', 'norm_type',
                     'scale_grad_by_freq', 'mode', 'sparse', 'include_last_offset',
                     'padding_idx']

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode='mean', sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if padding_idx > 0:
                if padding_idx >= self.num_embeddings:
                    raise AssertionError("padding_idx must be within num_embeddings")
            elif padding_idx < 0:
                if padding_idx < -self.num_embeddings:
                    raise AssertionError("padding_idx must be within num_embeddings")
                padding_idx = self.num_embeddings + padding_idx
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(empty((num_embeddings, embedding_dim), device=device,
                                          dtype=dtype))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight)
        self.mode = mode
        self.sparse = sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self):
        """Re-draw the weight from ``N(0, 1)`` and zero the ``padding_idx`` row."""
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is not None:
            _fill_row_zero(self.weight, self.padding_idx)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = '{num_embeddings}, {embedding_dim}'
        if self.max_norm is not None:
            s += ', max_norm={max_norm}'
        if self.norm_type != 2:
            s += ', norm_type={norm_type}'
        if self.scale_grad_by_freq is not False:
            s += ', scale_grad_by_freq={scale_grad_by_freq}'
        s += ', mode={mode}'
        if self.padding_idx is not None:
            s += ', padding_idx={padding_idx}'
        return s.format(**{k: repr(v) for k, v in self.__dict__.items()})

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, mode='mean', sparse=False,
                        include_last_offset=False, padding_idx=None):
        """An :class:`EmbeddingBag` whose weight is ``embeddings`` (shared, not copied).

        Args:
            embeddings (Tensor): 2-D ``(num_embeddings, embedding_dim)`` weight.
            freeze (bool): the weight does not require grad. Default: True
            max_norm, norm_type, scale_grad_by_freq, mode, sparse, include_last_offset,
                padding_idx: as for :class:`EmbeddingBag`.

        Example::

            >>> bag = nn.EmbeddingBag.from_pretrained(ember.tensor([[1., 2.], [3., 4.]]))
            >>> bag(ember.tensor([[0, 1]]))
            tensor([[2., 3.]])
        """
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings,
                  max_norm=max_norm, norm_type=norm_type,
                  scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
