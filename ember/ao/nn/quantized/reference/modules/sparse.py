"""The reference quantized Embedding and EmbeddingBag."""
from ......nn import functional as F
from ......nn.modules.sparse import Embedding as _Embedding, EmbeddingBag as _EmbeddingBag
from .utils import ReferenceQuantizedModule

__all__ = ['Embedding', 'EmbeddingBag']


class Embedding(_Embedding, ReferenceQuantizedModule):
    """A reference quantized embedding (``torch.ao.nn.quantized.reference.Embedding``):
    the float table is quantized and dequantized with its stored parameters on every call,
    then ``F.embedding`` looks the rows up.

    Args:
        num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
        scale_grad_by_freq, sparse, _weight, device, dtype: as :class:`ember.nn.Embedding`.
        weight_qparams (dict, optional): the table's quantization parameters.

    Shape:
        - Input: integer indices :math:`(*)`; Output: :math:`(*, H)`.

    Example::

        >>> m = ember.ao.nn.quantized.reference.Embedding(10, 3)
        >>> m(ember.tensor([1, 2])).shape
        torch.Size([2, 3])
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 device=None, dtype=None, weight_qparams=None):
        super().__init__(num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
                         scale_grad_by_freq, sparse, _weight, device, dtype)
        self._init_weight_qparams(weight_qparams, device)

    def _get_name(self):
        return 'QuantizedEmbedding(Reference)'

    def forward(self, input):
        """``F.embedding`` of ``input`` in :meth:`get_weight`."""
        return F.embedding(input, self.get_weight(), self.padding_idx, self.max_norm,
                           self.norm_type, self.scale_grad_by_freq, self.sparse)

    @classmethod
    def from_float(cls, mod, weight_qparams):
        """A reference embedding sharing ``mod``'s weight, with ``weight_qparams``."""
        return cls(mod.num_embeddings, mod.embedding_dim, mod.padding_idx, mod.max_norm,
                   mod.norm_type, mod.scale_grad_by_freq, mod.sparse, mod.weight,
                   mod.weight.device, mod.weight.dtype, weight_qparams)


class EmbeddingBag(_EmbeddingBag, ReferenceQuantizedModule):
    """A reference quantized embedding bag
    (``torch.ao.nn.quantized.reference.EmbeddingBag``): the float table is quantized and
    dequantized with its stored parameters on every call, then ``F.embedding_bag`` runs.

    NOTE: its name in ``repr`` is ``QuantizedEmbedding(Reference)``, as PyTorch's.

    Args:
        num_embeddings, embedding_dim, max_norm, norm_type, scale_grad_by_freq, mode,
        sparse, _weight, include_last_offset, padding_idx, device, dtype: as
        :class:`ember.nn.EmbeddingBag`.
        weight_qparams (dict, optional): the table's quantization parameters.

    Shape:
        - Input: indices :math:`(B, N)` or 1-D with ``offsets``; Output: :math:`(B, H)`.

    Example::

        >>> m = ember.ao.nn.quantized.reference.EmbeddingBag(10, 3)
        >>> m(ember.tensor([[1, 2]])).shape
        torch.Size([1, 3])
    """

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode='mean', sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None,
                 weight_qparams=None):
        super().__init__(num_embeddings, embedding_dim, max_norm, norm_type,
                         scale_grad_by_freq, mode, sparse, _weight, include_last_offset,
                         padding_idx, device, dtype)
        self._init_weight_qparams(weight_qparams, device)

    def _get_name(self):
        return 'QuantizedEmbedding(Reference)'

    def forward(self, input, offsets=None, per_sample_weights=None):
        """``F.embedding_bag`` of ``input`` in :meth:`get_weight`."""
        return F.embedding_bag(input, self.get_weight(), offsets, self.max_norm,
                               self.norm_type, self.scale_grad_by_freq, self.mode,
                               self.sparse, per_sample_weights, self.include_last_offset,
                               self.padding_idx)

    @classmethod
    def from_float(cls, mod, weight_qparams, use_precomputed_fake_quant=False):
        """A reference embedding bag sharing ``mod``'s weight, with ``weight_qparams``."""
        return cls(mod.num_embeddings, mod.embedding_dim, mod.max_norm, mod.norm_type,
                   mod.scale_grad_by_freq, mod.mode, mod.sparse, mod.weight,
                   mod.include_last_offset, mod.padding_idx, mod.weight.device,
                   mod.weight.dtype, weight_qparams)
