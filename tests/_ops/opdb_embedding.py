"""Op-database entries of the embedding family (ember/_ops/embedding.py): F.embedding,
F.embedding_bag, F.one_hot and the torch-level embedding / embedding_bag."""
import numpy as np

from _ops.opdb import OpInfo, S, FLOAT, F32


def _F(name):
    return lambda m, *a, **kw: getattr(m.nn.functional, name)(*a, **kw)


def _embedding(mk):
    w = mk((7, 3))
    yield S(mk.index(7, (2, 4)), w)
    yield S(mk.index(7, (5,)), w)
    yield S(np.array(3), w)
    yield S(mk.index(7, (0, 2)), w)
    yield S(np.array([[0, 2, 2], [6, 2, 1]]), w, padding_idx=2, gc=False)
    yield S(np.array([[0, 2, 2], [6, 2, 1]]), w, padding_idx=-1, gc=False)
    yield S(np.array([0, 2, 2, 5, 5, 5]), w, scale_grad_by_freq=True, gc=False)
    yield S(np.array([0, 2, 2, 5]), w, sparse=True, note="the sparse=True gradient is a "
            "sparse COO tensor (tests/sparse/test_coo.py compares it)", grad=False)
    yield S(np.array([0, 2, 2, 5]).astype(np.int32), w)
    yield S(np.array([[0, 2], [2, 5]]), w, max_norm=0.8, gc=False)     # renormalises w's rows
    yield S(np.array([0, 3, 3]), w, max_norm=0.5, norm_type=1.0, gc=False)
    yield S(np.array([1.0, 2.0]), w, grad=False)       # RuntimeError: float indices
    yield S(np.array([1, 7]), w, grad=False)           # IndexError
    yield S(np.array([1, 2]), mk((7,)), grad=False)     # 'weight' must be 2-D
    yield S(np.array([1, 2]), w, padding_idx=7, grad=False)


def _embedding_bag(mk):
    w = mk((8, 3))
    idx = np.array([1, 2, 4, 5, 4, 3, 2, 7, 0])
    for mode in ('sum', 'mean', 'max'):
        yield S(idx, w, np.array([0, 4, 4, 6]), mode=mode)
        yield S(idx, w, np.array([0, 3, 9]), mode=mode, include_last_offset=True)
        yield S(idx, w, np.array([0, 2]), mode=mode, padding_idx=4, gc=False)
        yield S(idx.reshape(3, 3), w, mode=mode)
        yield S(np.zeros(0, np.int64), w, np.array([0, 0]), mode=mode)
    yield S(idx, w, np.array([0, 5]), mode='sum', per_sample_weights=mk((9,)))
    yield S(idx, w, np.array([0, 5]), mode='mean', scale_grad_by_freq=True, gc=False)
    yield S(idx, w, np.array([0, 5]), mode='max', max_norm=0.7, gc=False)
    yield S(idx, w, np.array([1, 5]), grad=False)                # offsets[0] != 0
    yield S(idx, w, np.array([0, 5]), mode='mode', grad=False)   # ValueError
    yield S(idx, w, grad=False)                                  # offsets None


def _torch_embedding(mk):
    w = mk((6, 4))
    yield S(w, mk.index(6, (3, 2)))
    yield S(w, np.array([0, 1, 1, 5]), 1, gc=False)   # padding row: no gradient by design
    yield S(w, np.array([0, 1, 1, 5]), -1, True, gc=False)


def _one_hot(mk):
    yield S(np.array([0, 3, 1]))
    yield S(np.array([[0, 3], [1, 1]]), 6)
    yield S(np.array(2), 3)
    yield S(np.zeros((0, 2), np.int64), 4)
    yield S(np.array([0, 3]), 2)          # too small num_classes
    yield S(np.array([0, -3]))            # negative
    yield S(np.array([0., 1.]))           # not int64
    yield S(np.zeros(0, np.int64))        # cannot infer


OPS = [
    OpInfo('nn.functional.embedding', _F('embedding'), _embedding),
    OpInfo('nn.functional.embedding_bag', _F('embedding_bag'), _embedding_bag,
           rtol=1e-5, atol=1e-6),
    OpInfo('embedding', lambda m, *a: m.embedding(*a), _torch_embedding),
    OpInfo('nn.functional.one_hot', _F('one_hot'), _one_hot, dtypes=(F32,), grad=False),
]
del FLOAT
