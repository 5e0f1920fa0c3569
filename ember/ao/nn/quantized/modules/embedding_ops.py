"""Quantized ``Embedding`` and ``EmbeddingBag``: ``quint8`` tables quantized per row with
float scales and zero points."""
import ember
from ember import _dtype as D
from ember import nn as _nn
from ember.nn import Module
from ember._quantized import ops as _qops
from .utils import _quantize_weight, _hide_packed_params_repr

__all__ = ['EmbeddingPackedParams', 'Embedding', 'EmbeddingBag']


def _empty_table(num_embeddings, embedding_dim, dtype):
    return ember.quantize_per_channel(ember.zeros(num_embeddings, embedding_dim),
                                      ember.ones(num_embeddings), ember.zeros(num_embeddings),
                                      0, dtype)


class EmbeddingPackedParams(Module):
    """Holds a quantized embedding table, packed; state dict entries ``dtype`` and
    ``_packed_weight``.

    Args:
        num_embeddings (int): rows of the table.
        embedding_dim (int): columns of the table.
        dtype (ember.dtype): ``ember.quint8``. Default: ``ember.quint8``.

    Example::

        >>> nn.quantized.modules.embedding_ops.EmbeddingPackedParams(3, 2).dtype
        torch.quint8
    """
    _version = 1

    def __init__(self, num_embeddings, embedding_dim, dtype=D.quint8):
        super().__init__()
        self.dtype = dtype
        if dtype not in (D.quint8, D.quint4x2):
            raise NotImplementedError(f"Unsupported dtype on quantized embedding! Supports "
                                      f"quint8 and quint4x2. Got dtype: {dtype}")
        self.set_weight(_empty_table(num_embeddings, embedding_dim, dtype))

    def set_weight(self, weight):
        """Pack the quantized table ``weight``."""
        if self.dtype not in (D.quint8, D.quint4x2):
            raise NotImplementedError("Unsupported dtype for quantized embedding prepack! "
                                      "Supports quint8 and quint4x2.")
        self._packed_weight = _qops.embedding_bag_prepack(weight)

    def _weight(self):
        return _qops.embedding_bag_unpack(self._packed_weight)

    def forward(self, x):
        return x

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + 'dtype'] = self.dtype
        destination[prefix + '_packed_weight'] = self._weight()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        pending = {}
        for k in ('dtype', '_packed_weight'):
            if prefix + k in state_dict:
                pending[k] = state_dict.pop(prefix + k)
            else:
                missing_keys.append(prefix + k)
        self.__dict__['_pending_emb'] = pending
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys,
                                      unexpected_keys, error_msgs)

    def _commit_loads(self):
        super()._commit_loads()
        pending = self.__dict__.pop('_pending_emb', {})
        if 'dtype' in pending:
            self.dtype = pending['dtype']
        if '_packed_weight' in pending:
            self.set_weight(pending['_packed_weight'])

    def __repr__(self):
        return repr(self._weight())


def _check_float_qparams(weight_observer, cls_name):
    if weight_observer.qscheme is not D.per_channel_affine_float_qparams:
        raise AssertionError("Embedding quantization is only supported with "
                             "float_qparams_weight_only_qconfig.")
    if weight_observer.dtype not in (D.quint8, D.quint4x2):
        raise AssertionError(f"The only supported dtype for nnq.{cls_name} is torch.quint8 "
                             f"and torch.quint4x2, got {weight_observer.dtype}")


def _weight_observer(mod):
    if getattr(mod, 'qconfig', None) is not None and mod.qconfig.weight is not None:
        return mod.qconfig.weight()
    from ember.ao.quantization.qconfig import float_qparams_weight_only_qconfig
    return float_qparams_weight_only_qconfig.weight()


class Embedding(Module):
    r"""An embedding table of ``quint8`` rows, each quantized with its own float scale and
    zero point; lookups return float32 rows (``torch.ao.nn.quantized.Embedding``).

    Args:
        num_embeddings (int): rows of the table.
        embedding_dim (int): size of each row.
        dtype (ember.dtype): ``ember.quint8``. Default: ``ember.quint8``.

    Shape:
        - Input: :math:`(*)` int64 indices
        - Output: :math:`(*, H)` float32

    Example::

        >>> m = nn.quantized.Embedding(10, 3)
        >>> m(ember.tensor([1, 2])).shape
        torch.Size([2, 3])
    """
    _version = 1

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 dtype=D.quint8):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.dtype = dtype
        if _weight is None:
            qweight = _empty_table(num_embeddings, embedding_dim, D.quint8)
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            qweight = _weight
        self._packed_params = EmbeddingPackedParams(num_embeddings, embedding_dim, dtype)
        self._packed_params.set_weight(qweight)

    def forward(self, indices):
        return _qops.embedding_byte(self._packed_params._packed_weight, indices)

    def _get_name(self):
        return 'QuantizedEmbedding'

    def __repr__(self):
        return _hide_packed_params_repr(self, EmbeddingPackedParams)

    def extra_repr(self):
        return (f"num_embeddings={self.num_embeddings}, embedding_dim={self.embedding_dim}, "
                f"dtype={self._packed_params.dtype}, qscheme={self.weight().qscheme()}")

    def set_weight(self, w):
        """Replace the quantized table."""
        self._packed_params.set_weight(w)

    def weight(self):
        """The quantized table."""
        return self._packed_params._weight()

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A quantized embedding from a float ``nn.Embedding`` with a float-qparams weight
        qconfig (or a QAT embedding with ``weight_fake_quant``)."""
        if hasattr(mod, 'weight_fake_quant'):
            weight_observer = mod.weight_fake_quant
        else:
            if type(mod) is not _nn.Embedding:
                raise AssertionError("nnq.Embedding.from_float only works for nn.Embedding")
            if not hasattr(mod, 'qconfig'):
                raise AssertionError("Embedding input float module must have qconfig defined")
            weight_observer = _weight_observer(mod)
        _check_float_qparams(weight_observer, 'Embedding')
        weight_observer(mod.weight)
        qweight = _quantize_weight(mod.weight.float(), weight_observer)
        q = Embedding(mod.num_embeddings, mod.embedding_dim)
        q.set_weight(qweight)
        return q

    @classmethod
    def from_reference(cls, ref_embedding):
        """A quantized embedding from a reference quantized embedding."""
        q = cls(ref_embedding.num_embeddings, ref_embedding.embedding_dim,
                ref_embedding.padding_idx, ref_embedding.max_norm, ref_embedding.norm_type,
                ref_embedding.scale_grad_by_freq, ref_embedding.sparse,
                ref_embedding.get_quantized_weight(), ref_embedding.weight_dtype)
        return q


class EmbeddingBag(Embedding):
    r"""Sums of rows of a quantized table over bags (``torch.ao.nn.quantized.EmbeddingBag``).

    NOTE: as PyTorch's module, the bags are always summed (``mode`` is kept but the kernel
    is called with the sum mode).

    Args:
        num_embeddings (int): rows of the table.
        embedding_dim (int): size of each row.
        mode (str): kept for the float module's interface. Default: ``'sum'``.
        include_last_offset (bool): ``offsets`` has one more entry, the end of the last
            bag. Default: ``False``.
        dtype (ember.dtype): ``ember.quint8``. Default: ``ember.quint8``.

    Example::

        >>> m = nn.quantized.EmbeddingBag(10, 3)
        >>> m(ember.tensor([1, 2, 4]), ember.tensor([0, 1])).shape
        torch.Size([2, 3])
    """
    _version = 1

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode='sum', sparse=False, _weight=None,
                 include_last_offset=False, dtype=D.quint8):
        super().__init__(num_embeddings, embedding_dim, _weight=_weight, dtype=dtype)
        self.mode = mode
        self.pruned_weights = False
        self.include_last_offset = include_last_offset
        self.dtype = dtype

    def forward(self, indices, offsets=None, per_sample_weights=None,
                compressed_indices_mapping=None):
        return _qops.embedding_bag_byte(self._packed_params._packed_weight, indices, offsets,
                                        False, 0, self.pruned_weights, per_sample_weights,
                                        compressed_indices_mapping, self.include_last_offset)

    def _get_name(self):
        return 'QuantizedEmbeddingBag'

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """A quantized embedding bag from a float ``nn.EmbeddingBag`` with a float-qparams
        weight qconfig (or a QAT embedding bag with ``weight_fake_quant``)."""
        if hasattr(mod, 'weight_fake_quant'):
            weight_observer = mod.weight_fake_quant
        else:
            if type(mod) is not _nn.EmbeddingBag:
                raise AssertionError("nnq.EmbeddingBag.from_float only works for "
                                     "nn.EmbeddingBag")
            if not hasattr(mod, 'qconfig'):
                raise AssertionError("EmbeddingBag input float module must have qconfig "
                                     "defined")
            weight_observer = _weight_observer(mod)
        _check_float_qparams(weight_observer, 'EmbeddingBag')
        weight_observer(mod.weight)
        qweight = _quantize_weight(mod.weight.float(), weight_observer)
        q = EmbeddingBag(mod.num_embeddings, mod.embedding_dim, max_norm=None, norm_type=2.0,
                         scale_grad_by_freq=False, mode=mod.mode, sparse=False, _weight=None,
                         include_last_offset=mod.include_last_offset,
                         dtype=weight_observer.dtype)
        q.set_weight(qweight)
        return q
