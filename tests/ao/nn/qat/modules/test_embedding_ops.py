"""ember.ao.nn.qat.Embedding / EmbeddingBag against torch."""
import numpy as np
import pytest
import torch

import ember
import ember.ao.nn.qat as e_nnqat
from ao._quant_util import keep_rng  # noqa: F401  (autouse fixture)
from ao._quant_util import both, compare_state, quiet, train_steps


def _qconfig(T):
    return T.ao.quantization.default_embedding_qat_qconfig


def test_embedding_from_float_forward_backward():
    e_f, t_f = both(lambda T: T.nn.Embedding(10, 4, padding_idx=1))
    t_f.qconfig, e_f.qconfig = _qconfig(torch), _qconfig(ember)
    e = quiet(e_nnqat.Embedding.from_float, e_f)
    t = quiet(torch.ao.nn.qat.Embedding.from_float, t_f)
    assert repr(e) == repr(t)
    idx = lambda rng: rng.integers(0, 10, (3, 5))
    train_steps(e, t, None, steps=2, make_input=idx)
    compare_state(e, t)
    compare_state(e.to_float(), t.to_float())


def test_embedding_bag_from_float_forward_backward():
    e_f, t_f = both(lambda T: T.nn.EmbeddingBag(10, 4, mode='sum'))
    t_f.qconfig, e_f.qconfig = _qconfig(torch), _qconfig(ember)
    e = quiet(e_nnqat.EmbeddingBag.from_float, e_f)
    t = quiet(torch.ao.nn.qat.EmbeddingBag.from_float, t_f)
    assert repr(e) == repr(t)
    idx = lambda rng: rng.integers(0, 10, (3, 5))
    train_steps(e, t, None, steps=2, make_input=idx)
    compare_state(e, t)
    compare_state(e.to_float(), t.to_float())


def test_embedding_needs_float_qparams_qscheme():
    msgs = []
    for T, mod in ((torch, torch.ao.nn.qat), (ember, e_nnqat)):
        qc = quiet(T.ao.quantization.get_default_qat_qconfig, 'fbgemm')
        with pytest.raises(AssertionError) as ex:
            quiet(mod.Embedding, 5, 2, qconfig=qc)
        msgs.append(str(ex.value))
        with pytest.raises(AssertionError) as ex:
            quiet(mod.EmbeddingBag, 5, 2, qconfig=qc)
        msgs.append(str(ex.value))
    assert msgs[:2] == msgs[2:]
    assert 'per_channel_affine_float_qparams' in msgs[0]
