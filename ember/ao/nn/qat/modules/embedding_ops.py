"""``ember.ao.nn.qat.Embedding`` and ``EmbeddingBag``: embedding tables whose weight goes
through a fake-quantize module (per-row float scale and zero point) in every forward, as
``torch.ao.nn.qat``."""
from .....nn import functional as F
from .....nn.modules.sparse import Embedding as _FloatEmbedding
from .....nn.modules.sparse import EmbeddingBag as _FloatEmbeddingBag
from .....nn.parameter import Parameter
from ._common import _check_float_qconfig, _need_qconfig

__all__ = ['Embedding', 'EmbeddingBag']


def _check_weight_qscheme(qconfig, what):
    from ..... import per_channel_affine_float_qparams
    qscheme = qconfig.weight().qscheme
    if qscheme != per_channel_affine_float_qparams:
        raise AssertionError(f'{what} weights requires a qscheme of '
                             f'torch.per_channel_affine_float_qparams Got {qscheme}')


def _check_from_float(cls, mod, what):
    if type(mod) is not cls._FLOAT_MODULE:
        raise AssertionError(f' qat.{cls.__name__}.from_float only works for '
                             f'{cls._FLOAT_MODULE.__name__}')
    _check_float_qconfig(mod)
    _check_weight_qscheme(mod.qconfig, what)


class Embedding(_FloatEmbedding):
    r"""An :class:`~ember.nn.Embedding` whose weight is fake-quantized in ``forward``, for
    quantization-aware training. The weight's qconfig must quantize per row with float
    qparams (``torch.per_channel_affine_float_qparams``).

    Args:
        num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
            scale_grad_by_freq, sparse, _weight, device, dtype: as :class:`~ember.nn.Embedding`.
        qconfig (QConfig): the quantization configuration. Required.

    Attributes:
        weight_fake_quant: the fake-quantize module applied to the weight.

    Shape:
        - Input: :math:`(*)`, integer indices.
        - Output: :math:`(*, H)`, with :math:`H` = ``embedding_dim``.

    Example::

        >>> qconfig = ember.ao.quantization.default_embedding_qat_qconfig
        >>> m = ember.ao.nn.qat.Embedding(10, 4, qconfig=qconfig)
        >>> m(ember.tensor([1, 2])).shape
        ember.Size([2, 4])
    """
    _FLOAT_MODULE = _FloatEmbedding

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 device=None, dtype=None, qconfig=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        super().__init__(num_embeddings, embedding_dim, padding_idx, max_norm, norm_type,
                         scale_grad_by_freq, sparse, _weight, **factory_kwargs)
        _need_qconfig(qconfig)
        _check_weight_qscheme(qconfig, 'Embedding')
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight(factory_kwargs=factory_kwargs)

    def forward(self, input):
        """Look the indices up in the fake-quantized table."""
        return F.embedding(input, self.weight_fake_quant(self.weight), self.padding_idx,
                           self.max_norm, self.norm_type, self.scale_grad_by_freq,
                           self.sparse)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """Make the QAT module from a float :class:`~ember.nn.Embedding` that carries a
        ``qconfig`` (the weight is shared).

        Args:
            mod (nn.Embedding): the float module.
            use_precomputed_fake_quant (bool): unused, as in PyTorch. Default: ``False``

        Example::

            >>> emb = nn.Embedding(10, 4)
            >>> emb.qconfig = ember.ao.quantization.default_embedding_qat_qconfig
            >>> qat = ember.ao.nn.qat.Embedding.from_float(emb)
        """
        _check_from_float(cls, mod, 'Embedding')
        return cls(mod.num_embeddings, mod.embedding_dim, mod.padding_idx, mod.max_norm,
                   mod.norm_type, mod.scale_grad_by_freq, mod.sparse, mod.weight,
                   qconfig=mod.qconfig)

    def to_float(self):
        """A float :class:`~ember.nn.Embedding` holding a detached copy of the weight.

        Example::

            >>> emb = ember.ao.nn.qat.Embedding(10, 4, qconfig=qconfig).to_float()
        """
        emb = _FloatEmbedding(self.num_embeddings, self.embedding_dim, self.padding_idx,
                              self.max_norm, self.norm_type, self.scale_grad_by_freq,
                              self.sparse, None)
        emb.weight = Parameter(self.weight.detach())
        emb.train(self.training)
        return emb


class EmbeddingBag(_FloatEmbeddingBag):
    r"""An :class:`~ember.nn.EmbeddingBag` whose weight is fake-quantized in ``forward``,
    for quantization-aware training. The weight's qconfig must quantize per row with float
    qparams (``torch.per_channel_affine_float_qparams``).

    Args:
        num_embeddings, embedding_dim, max_norm, norm_type, scale_grad_by_freq, mode,
            sparse, _weight, include_last_offset, padding_idx, device, dtype: as
            :class:`~ember.nn.EmbeddingBag`.
        qconfig (QConfig): the quantization configuration. Required.

    Attributes:
        weight_fake_quant: the fake-quantize module applied to the weight.

    Shape:
        - Input: :math:`(B, N)` indices, or :math:`(N)` with ``offsets``.
        - Output: :math:`(B, H)`

    Example::

        >>> qconfig = ember.ao.quantization.default_embedding_qat_qconfig
        >>> m = ember.ao.nn.qat.EmbeddingBag(10, 4, qconfig=qconfig)
        >>> m(ember.tensor([[1, 2], [3, 4]])).shape
        ember.Size([2, 4])
    """
    _FLOAT_MODULE = _FloatEmbeddingBag

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode='mean', sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, qconfig=None, device=None,
                 dtype=None):
        factory_kwargs = {'device': device, 'dtype': dtype}
        super().__init__(num_embeddings, embedding_dim, max_norm, norm_type,
                         scale_grad_by_freq, mode, sparse, _weight, include_last_offset,
                         padding_idx, **factory_kwargs)
        _need_qconfig(qconfig)
        _check_weight_qscheme(qconfig, 'Embedding Bag')
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight(factory_kwargs=factory_kwargs)

    def forward(self, input, offsets=None, per_sample_weights=None):
        """Sum, mean or max of the bags' rows of the fake-quantized table."""
        return F.embedding_bag(input, self.weight_fake_quant(self.weight), offsets,
                               self.max_norm, self.norm_type, self.scale_grad_by_freq,
                               self.mode, self.sparse, per_sample_weights,
                               self.include_last_offset, self.padding_idx)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """Make the QAT module from a float :class:`~ember.nn.EmbeddingBag` that carries a
        ``qconfig`` (the weight is shared).

        Args:
            mod (nn.EmbeddingBag): the float module.
            use_precomputed_fake_quant (bool): unused, as in PyTorch. Default: ``False``

        Example::

            >>> bag = nn.EmbeddingBag(10, 4)
            >>> bag.qconfig = ember.ao.quantization.default_embedding_qat_qconfig
            >>> qat = ember.ao.nn.qat.EmbeddingBag.from_float(bag)
        """
        _check_from_float(cls, mod, 'Embedding Bag')
        return cls(mod.num_embeddings, mod.embedding_dim, mod.max_norm, mod.norm_type,
                   mod.scale_grad_by_freq, mod.mode, mod.sparse, mod.weight,
                   mod.include_last_offset, mod.padding_idx, qconfig=mod.qconfig)

    def to_float(self):
        """A float :class:`~ember.nn.EmbeddingBag` holding a detached copy of the weight.

        Example::

            >>> bag = ember.ao.nn.qat.EmbeddingBag(10, 4, qconfig=qconfig).to_float()
        """
        bag = _FloatEmbeddingBag(self.num_embeddings, self.embedding_dim, self.max_norm,
                                 self.norm_type, self.scale_grad_by_freq, self.mode,
                                 self.sparse, None, self.include_last_offset,
                                 self.padding_idx)
        bag.weight = Parameter(self.weight.detach())
        bag.train(self.training)
        return bag
