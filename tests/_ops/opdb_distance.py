"""Op-database entries of the distances (ember/_ops/distance.py): cdist (direct kernel and
the matrix-product path for p = 2), pdist, dist, pairwise_distance, cosine_similarity,
normalize."""
import numpy as np

from _ops.opdb import OpInfo, S, INF

P_ALL = (0.0, 1.0, 1.5, 2.0, 3.0, INF)


def cdist_samples(mk):
    for p in P_ALL:
        yield S(mk((3, 4)), mk((5, 4)), p=p)
        yield S(mk((2, 3, 4)), mk((1, 5, 4)), p=p)
    yield S(mk((3, 2, 4)), mk((2, 5, 4)), desc='batch broadcast')
    # p = 2 through the matrix product: > 25 rows, or forced
    yield S(mk((30, 5)), mk((7, 5)), desc='mm (30 rows)')
    yield S(mk((2, 4, 5)), mk((2, 27, 5)), desc='mm batched (27 rows)')
    yield S(mk((3, 4)), mk((5, 4)), compute_mode='use_mm_for_euclid_dist')
    yield S(mk((30, 4)), mk((5, 4)), compute_mode='donot_use_mm_for_euclid_dist')
    yield S(mk((30, 4)), mk((5, 4)), p=1.0, compute_mode='use_mm_for_euclid_dist')
    yield S(mk((0, 4)), mk((5, 4)), desc='empty rows')
    yield S(mk((3, 0)), mk((5, 0)), desc='no columns')
    x = mk((3, 4))
    yield S(x, x.copy(), p=2.0, desc='equal rows: zero distances (gradient 0)')
    yield S(x, x.copy(), p=3.0, desc='equal rows p=3')
    # errors
    yield S(mk((4,)), mk((5, 4)), desc='err 1d')
    yield S(mk((3, 4)), mk((5, 3)), desc='err columns')
    yield S(mk((3, 4)), mk((5, 4)), p=-1.0, desc='err p')
    yield S(mk((3, 4)), mk((5, 4)), compute_mode='bad', desc='err mode')
    yield S(mk((3, 4)), mk((5, 4)), compute_mode=None, desc='err mode None')
    yield S(mk((3, 4)), mk((5, 4), dtype='int64'), desc='err int')
    yield S(mk((2, 3, 4)), mk((3, 5, 4)), desc='err batch')


def pdist_samples(mk):
    for p in P_ALL:
        yield S(mk((5, 3)), p=p)
    yield S(mk((1, 3)))
    crash = "torch's pdist backward crashes the process (segfault) on empty inputs"
    yield S(mk((0, 3)), grad=False, note=crash)
    yield S(mk((4, 0)), grad=False, note=crash)
    yield S(mk((3,)), desc='err 1d')
    yield S(mk((3, 4)), p=-1.0, desc='err p')


def dist_samples(mk):
    for p in (0, 1, 2, 3, 1.5, INF, -INF):
        yield S(mk((3, 4)), mk((3, 4)), p=p)
    yield S(mk((3, 4)), mk((4,)), desc='broadcast')
    yield S(mk(()), mk(()))
    yield S(mk((3, 4)), mk((3, 4), dtype='int64'), desc='int other: promoted')
    yield S(mk((3, 4)), mk((2, 4)), desc='err broadcast')


def pd_samples(mk):
    for p in (1.0, 2.0, 3.0, 0.5, INF, -1.0):
        yield S(mk((4, 5)), mk((4, 5)), p=p)
    yield S(mk((4, 5)), mk((4, 5)), keepdim=True)
    yield S(mk((5,)), mk((5,)), eps=0.1)
    yield S(mk((4, 5)), mk((5,)), desc='broadcast')
    yield S(mk((2, 3, 5)), mk((3, 5)), desc='3d')
    yield S(mk(()), mk(()), desc='0d')
    yield S(mk((4, 5)), mk((3, 5)), desc='err broadcast')


def cs_samples(mk):
    yield S(mk((4, 5)), mk((4, 5)))
    yield S(mk((4, 5)), mk((4, 5)), dim=0)
    yield S(mk((4, 5)), mk((5,)), dim=-1, desc='broadcast')
    yield S(mk((2, 3, 5)), mk((2, 3, 5)), dim=2, eps=1e-3)
    yield S(mk((4, 5)), np.zeros((4, 5), mk.np), desc='zero vector: eps')
    yield S(mk((4, 5)), mk((4, 5), dtype='int64'), desc='int: promoted')
    yield S(mk((5,)), mk((5,)), dim=0)
    yield S(mk((4, 5), dtype='int64'), mk((4, 5), dtype='int64'), desc='err int')
    yield S(mk((4, 5)), mk((3, 5)), desc='err broadcast')
    yield S(mk((4, 5)), mk((4, 5)), dim=2, desc='err dim')


def norm_samples(mk):
    yield S(mk((4, 5)))
    yield S(mk((4, 5)), p=1.0, dim=0)
    yield S(mk((2, 3, 4)), p=3.0, dim=-1)
    yield S(mk((5,)), dim=0)
    yield S(np.zeros((2, 3), mk.np), desc='zeros: eps')
    yield S(mk((2, 3, 4)), dim=(1, 2))
    yield S(mk((4, 5)), p=INF)


OPS = [
    OpInfo('cdist', lambda m, *a, **k: m.cdist(*a, **k), cdist_samples, gc_max=6),
    OpInfo('nn.functional.pdist', lambda m, *a, **k: m.nn.functional.pdist(*a, **k),
           pdist_samples, gc_max=4),
    OpInfo('pdist', lambda m, *a, **k: m.pdist(*a, **k), lambda mk: [S(mk((4, 3)), p=1.5)]),
    OpInfo('dist', lambda m, *a, **k: m.dist(*a, **k), dist_samples, gc_max=4),
    OpInfo('Tensor.dist', lambda m, x, y, **k: x.dist(y, **k),
           lambda mk: [S(mk((3, 4)), mk((3, 4)), p=3)]),
    OpInfo('nn.functional.pairwise_distance',
           lambda m, *a, **k: m.nn.functional.pairwise_distance(*a, **k), pd_samples),
    OpInfo('pairwise_distance', lambda m, *a, **k: m.pairwise_distance(*a, **k),
           lambda mk: [S(mk((4, 5)), mk((4, 5)), 1.0, 1e-6, True)]),
    OpInfo('nn.functional.cosine_similarity',
           lambda m, *a, **k: m.nn.functional.cosine_similarity(*a, **k), cs_samples),
    OpInfo('cosine_similarity', lambda m, *a, **k: m.cosine_similarity(*a, **k),
           lambda mk: [S(mk((4, 5)), mk((4, 5)), 0, 1e-6)]),
    OpInfo('nn.functional.normalize', lambda m, *a, **k: m.nn.functional.normalize(*a, **k),
           norm_samples),
]
