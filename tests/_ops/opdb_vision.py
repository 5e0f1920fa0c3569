"""Op-database entries of the vision family (ember/_ops/vision.py): ``F.interpolate`` in
every mode (align_corners True/False, size vs scale_factor, recompute_scale_factor, up- and
downsampling, antialias), ``F.upsample*``, ``F.grid_sample`` (every mode x padding mode,
4-D and 5-D), ``F.affine_grid``, ``torch.grid_sampler*`` / ``affine_grid_generator``,
pixel (un)shuffle, channel shuffle, ``F.unfold`` / ``F.fold``, and their argument errors
(same exception type as torch).

Small samples come first in each generator: the harness's float64 gradcheck takes the first
ones with at most 40 elements."""
import numpy as np

from _ops.opdb import OpInfo, S, F32

OPS = []


def _F(name, **fixed):
    return lambda m, *a, **kw: getattr(m.nn.functional, name)(*a, **fixed, **kw)


def _T(name):
    return lambda m, *a, **kw: getattr(m, name)(*a, **kw)


# ----------------------------------------------------------------------------- interpolate

_AREA_EMPTY = ("area mode is the pooling family's adaptive_avg_pool: the errors torch raises "
               "for empty outputs or zero channels (in its backward) are that family's to "
               "reproduce; here only the forward is compared")


def _common_errors(mk, x4, area=False):
    kw = dict(grad=False, note=_AREA_EMPTY) if area else {}
    yield S(x4, size=(0, 3), **kw)                   # empty output
    yield S(x4, scale_factor=0.1, **kw)              # output rounds to 0
    yield S(x4, size=3, scale_factor=2)              # both
    yield S(x4)                                      # neither
    yield S(x4, size=(3,))                           # wrong length
    yield S(x4, scale_factor=(2.,))
    yield S(x4, size=(3, 3.5))                       # float size
    yield S(x4, size=3, recompute_scale_factor=True)
    if not area:
        yield S(mk((2, 0, 4, 5)), size=3)            # no channels
    yield S(mk((2, 3, 0, 5)), size=3)                # empty spatial dim
    yield S(mk((3, 4)), size=2)                      # 2-d input


def _interp_samples(mode, dims, align=(None,), aa=False):
    def gen(mk):
        shapes = {1: [(1, 1, 4), (2, 3, 5)], 2: [(1, 1, 2, 3), (2, 3, 4, 5)],
                  3: [(1, 1, 2, 2, 2), (1, 2, 3, 4, 2)]}
        for nd in dims:
            small, big = shapes[nd]
            for ac in align:
                kw = {} if ac is None else dict(align_corners=ac)
                yield S(mk(small), scale_factor=2, **kw)
                yield S(mk(big), size=(7, 3, 9)[:nd], **kw)               # up and down
                yield S(mk(big), size=(2, 8, 1)[:nd], **kw)
                yield S(mk(big), scale_factor=(1.7, 0.6, 2.5)[:nd], **kw)  # 1/scale in the map
                yield S(mk(big), scale_factor=0.5, **kw)
                yield S(mk(big), scale_factor=1.6, recompute_scale_factor=True, **kw)
                yield S(mk(big), scale_factor=3, recompute_scale_factor=False, **kw)
                yield S(mk(big), size=tuple(big[2:]), **kw)                # same size
                yield S(mk(big), size=5, **kw)                              # int size
                if aa:
                    yield S(mk(big), size=(2, 3), antialias=True, **kw)
                    yield S(mk((1, 2, 9, 11)), scale_factor=0.3, antialias=True, **kw)
                    yield S(mk(big), size=(9, 12), antialias=True, **kw)
        yield S(mk((0, 2) + shapes[dims[0]][1][2:]), size=4, grad=False)   # empty batch
        if mode in ('nearest', 'nearest-exact', 'area'):
            yield S(mk((1, 2, 3, 4)), size=3, align_corners=True)          # not allowed
        yield from _common_errors(mk, mk((2, 3, 4, 5)), mode == 'area')
        yield S(mk((2, 3, 4, 5, 6, 2)), size=3)                            # 6-d input
    return gen


_INTERP = [('nearest', (1, 2, 3), (None,)), ('nearest-exact', (1, 2, 3), (None,)),
           ('linear', (1,), (False, True)), ('bilinear', (2,), (False, True)),
           ('bicubic', (2,), (False, True)), ('trilinear', (3,), (False, True)),
           ('area', (1, 2, 3), (None,))]
for _mode, _dims, _al in _INTERP:
    OPS.append(OpInfo(f'interpolate:{_mode}', _F('interpolate', mode=_mode),
                      _interp_samples(_mode, _dims, _al, aa=_mode in ('bilinear', 'bicubic')),
                      rtol=2e-5, atol=2e-5))


def _lanczos(mk):
    yield S(mk((1, 1, 3, 4)), size=(2, 3), antialias=True)
    yield S(mk((2, 3, 9, 11)), scale_factor=0.3, antialias=True)
    yield S(mk((2, 3, 4, 5)), size=(9, 12), antialias=True)
    yield S(mk((2, 3, 4, 5)), size=(2, 5), antialias=True, align_corners=False)
    yield S(mk((2, 3, 4, 5)), size=3, antialias=True, align_corners=True)   # not allowed
    yield S(mk((2, 3, 4, 5)), size=3)                                       # needs antialias
    yield S(mk((2, 3, 4)), size=3, antialias=True)


OPS.append(OpInfo('interpolate:lanczos', _F('interpolate', mode='lanczos'), _lanczos,
                  rtol=2e-5, atol=2e-5))


def _mode_mismatch(mk):
    yield S(mk((2, 3, 4)), size=3, mode='bilinear')
    yield S(mk((2, 3, 4)), size=3, mode='trilinear')
    yield S(mk((2, 3, 4, 5)), size=3, mode='linear')
    yield S(mk((2, 3, 4, 5)), size=3, mode='trilinear')
    yield S(mk((2, 3, 4, 5, 2)), size=3, mode='linear')
    yield S(mk((2, 3, 4, 5, 2)), size=3, mode='bicubic')
    yield S(mk((2, 3, 4, 5)), size=3, mode='nope')
    yield S(mk((2, 3, 4)), size=3, mode='linear', antialias=True)
    yield S(mk((2, 3, 4, 5)), size=3, mode='nearest', antialias=True)


def _byte(mk):
    x = (np.arange(2 * 3 * 4 * 5) % 251).astype(np.uint8).reshape(2, 3, 4, 5)
    yield S(x, size=(7, 3), grad=False)
    yield S(x, scale_factor=2, mode='nearest-exact', grad=False)
    for mode in ('bilinear', 'bicubic'):                     # fixed-point passes
        for ac in (False, True):
            yield S(x, size=(3, 11), mode=mode, align_corners=ac, grad=False)
            yield S(x, scale_factor=2.3, mode=mode, align_corners=ac, grad=False)
            yield S(x, scale_factor=0.45, mode=mode, align_corners=ac, antialias=True,
                    grad=False)
    yield S(x[:, :, :1], size=(1, 3), mode='bilinear', grad=False)
    yield S(x[0], size=3, mode='linear', grad=False)          # torch: not implemented
    yield S(x.astype(np.int64), size=3, grad=False)          # torch: not implemented for Long


OPS += [
    OpInfo('interpolate:mismatch', _F('interpolate'), _mode_mismatch),
    OpInfo('interpolate:uint8', _F('interpolate'), _byte, dtypes=(F32,), grad=False),
    OpInfo('upsample', _F('upsample'), lambda mk: iter([
        S(mk((1, 1, 2, 3)), scale_factor=2), S(mk((2, 3, 4, 5)), size=(3, 7), mode='bilinear'),
        S(mk((2, 3, 4, 5)), size=3, mode='bicubic', align_corners=True)])),
    OpInfo('upsample_nearest', _F('upsample_nearest'), lambda mk: iter([
        S(mk((1, 1, 2, 3)), scale_factor=2), S(mk((2, 3, 4)), size=7)])),
    OpInfo('upsample_bilinear', _F('upsample_bilinear'), lambda mk: iter([
        S(mk((1, 1, 2, 3)), scale_factor=2), S(mk((2, 3, 4, 5)), size=(3, 7)),
        S(mk((2, 3, 4)), size=3)])),
]


# ----------------------------------------------------------------------------- grid_sample

def _grid(mk, shape, lo=-1.2, hi=1.2):
    return np.asarray(mk.rng.uniform(lo, hi, shape), mk.np)


def _gs_samples(mode, pad):
    def gen(mk):
        for ac in (False, True):
            yield S(mk((1, 1, 3, 3)), _grid(mk, (1, 2, 2, 2)), align_corners=ac)
            yield S(mk((2, 3, 4, 5)), _grid(mk, (2, 6, 7, 2)), align_corners=ac)
            yield S(mk((2, 3, 4, 5)), _grid(mk, (2, 3, 4, 2), -3, 3), align_corners=ac)
            yield S(mk((1, 2, 1, 5)), _grid(mk, (1, 3, 3, 2)), align_corners=ac)   # 1-row input
            if mode != 'bicubic':
                yield S(mk((1, 1, 2, 2, 2)), _grid(mk, (1, 1, 2, 2, 3)), align_corners=ac)
                yield S(mk((2, 2, 3, 4, 2)), _grid(mk, (2, 2, 3, 2, 3)), align_corners=ac)
        nonfinite = np.array([[[[np.nan, 0.], [0., np.nan], [np.inf, 0.], [-np.inf, 0.5],
                                [0.3, -np.inf]]]], mk.np)
        yield S(mk((1, 2, 3, 4)), nonfinite, align_corners=False, grad=False,
                note='non-finite grid: values only (NaN -> 0 under border/reflection clipping)')
        yield S(mk((0, 3, 4, 5)), _grid(mk, (0, 2, 2, 2)), align_corners=False, grad=False)
        yield S(mk((2, 3, 4, 5)), _grid(mk, (2, 0, 2, 2)), align_corners=False)
        # errors
        yield S(mk((2, 3, 4, 5)), _grid(mk, (1, 2, 2, 2)), align_corners=False)
        yield S(mk((2, 3, 4, 5)), _grid(mk, (2, 2, 2, 3)), align_corners=False)
        yield S(mk((2, 3, 4, 5)), _grid(mk, (2, 2, 2, 1, 2)), align_corners=False)
        yield S(mk((2, 3, 0, 5)), _grid(mk, (2, 2, 2, 2)), align_corners=False)
        yield S(mk((2, 3, 4)), _grid(mk, (2, 4, 1)), align_corners=False)
        if mode == 'bicubic':
            yield S(mk((1, 2, 3, 4, 5)), _grid(mk, (1, 2, 3, 4, 3)), align_corners=False)
    return gen


for _mode in ('bilinear', 'nearest', 'bicubic'):
    for _pad in ('zeros', 'border', 'reflection'):
        OPS.append(OpInfo(f'grid_sample:{_mode}:{_pad}',
                          _F('grid_sample', mode=_mode, padding_mode=_pad),
                          _gs_samples(_mode, _pad), rtol=1e-4, atol=1e-5))


def _gs_args(mk):
    x, g = mk((2, 3, 4, 5)), _grid(mk, (2, 3, 3, 2))
    yield S(x, g)                                          # align_corners=None: warns
    yield S(x, g, mode='foo')
    yield S(x, g, padding_mode='foo')
    yield S(x, g.astype(np.float64 if mk.np == np.float32 else np.float32))   # dtype mismatch


def _grid_sampler(mk):
    x, g = mk((2, 3, 4, 5)), _grid(mk, (2, 3, 3, 2))
    for mode in (0, 1, 2):
        for pad in (0, 1, 2):
            yield S(x, g, mode, pad, mode == 1)


OPS += [
    OpInfo('grid_sample:args', _F('grid_sample'), _gs_args, gradcheck=False),
    OpInfo('grid_sampler', _T('grid_sampler'), _grid_sampler, rtol=1e-4, atol=1e-5,
           gradcheck=False),
    OpInfo('grid_sampler_2d', _T('grid_sampler_2d'), lambda mk: iter([
        S(mk((2, 3, 4, 5)), _grid(mk, (2, 3, 3, 2)), 0, 0, False)]), gradcheck=False),
    OpInfo('grid_sampler_3d', _T('grid_sampler_3d'), lambda mk: iter([
        S(mk((1, 2, 3, 4, 2)), _grid(mk, (1, 2, 3, 2, 3)), 0, 2, True)]), gradcheck=False),
]


# ----------------------------------------------------------------------------- affine_grid

def _affine(mk):
    for ac in (False, True):
        yield S(mk((1, 2, 3)), (1, 1, 2, 3), align_corners=ac)
        yield S(mk((2, 2, 3)), (2, 3, 4, 5), align_corners=ac)
        yield S(mk((2, 3, 4)), (2, 1, 3, 4, 2), align_corners=ac)
        yield S(mk((2, 2, 3)), [2, 3, 1, 5], align_corners=ac)   # unit-size dim
    yield S(mk((2, 2, 3)), (2, 3, 4, 5))                         # align_corners=None: warns
    # errors
    yield S(mk((2, 2, 3)), (3, 3, 4, 5), align_corners=False)    # batch mismatch
    yield S(mk((2, 2, 3)), (2, 3, 4, 5, 6), align_corners=False)
    yield S(mk((2, 3, 4)), (2, 3, 4, 5), align_corners=False)
    yield S(mk((2, 2, 3)), (2, 3, 4), align_corners=False)
    yield S(mk((2, 2, 3)), (2, 3, 0, 5), align_corners=False)
    yield S(mk((2, 3)), (2, 3, 4, 5), align_corners=False)
    yield S(mk((2, 2, 3), dtype='int64'), (2, 3, 4, 5), align_corners=False)


OPS += [
    OpInfo('affine_grid', _F('affine_grid'), _affine),
    OpInfo('affine_grid_generator', _T('affine_grid_generator'), lambda mk: iter([
        S(mk((2, 2, 3)), (2, 3, 4, 5), False), S(mk((1, 3, 4)), (1, 1, 2, 3, 4), True)])),
]


# ----------------------------------------------------------------------------- shuffles

def _pixel_shuffle(mk):
    yield S(mk((1, 4, 2, 3)), 2)
    yield S(mk((2, 18, 3, 4)), 3)
    yield S(mk((8, 2, 3)), 2)                       # unbatched
    yield S(mk((2, 3, 8, 2, 2)), 2)                 # extra batch dims
    yield S(mk((2, 4, 3, 3)), 1)
    yield S(mk((0, 8, 2, 2)), 2, grad=False)
    yield S(mk((2, 6, 3, 3)), 2)                    # channels not divisible
    yield S(mk((2, 8, 3, 3)), 0)
    yield S(mk((2, 8, 3, 3)), -2)
    yield S(mk((8, 3)), 2)                          # too few dims
    yield S(mk((2, 8, 3, 3)), 2.0)                  # float factor


def _pixel_unshuffle(mk):
    yield S(mk((1, 1, 2, 4)), 2)
    yield S(mk((2, 2, 6, 9)), 3)
    yield S(mk((3, 4, 6)), 2)
    yield S(mk((2, 3, 2, 4, 4)), 2)
    yield S(mk((2, 2, 5, 6)), 2)                    # height not divisible
    yield S(mk((2, 2, 4, 5)), 2)                    # width not divisible
    yield S(mk((2, 2, 4, 4)), 0)
    yield S(mk((4, 4)), 2)


def _channel_shuffle(mk):
    yield S(mk((1, 4, 2)), 2)
    yield S(mk((2, 6, 3, 2)), 3)
    yield S(mk((2, 6, 2, 2, 2)), 2)
    yield S(mk((2, 6, 3)), 6)
    yield S(mk((0, 6, 3)), 3, grad=False)
    yield S(mk((2, 6, 3, 3)), 4)                    # not divisible
    yield S(mk((2, 6, 3)), 0)
    yield S(mk((2, 6, 3)), -1)
    yield S(mk((2, 6)), 3)                          # too few dims


OPS += [
    OpInfo('pixel_shuffle', _F('pixel_shuffle'), _pixel_shuffle),
    OpInfo('torch.pixel_shuffle', _T('pixel_shuffle'), lambda mk: iter([S(mk((1, 8, 2, 3)), 2)])),
    OpInfo('pixel_unshuffle', _F('pixel_unshuffle'), _pixel_unshuffle),
    OpInfo('torch.pixel_unshuffle', _T('pixel_unshuffle'),
           lambda mk: iter([S(mk((1, 2, 4, 6)), 2)])),
    OpInfo('channel_shuffle', _F('channel_shuffle'), _channel_shuffle),
    OpInfo('torch.channel_shuffle', _T('channel_shuffle'),
           lambda mk: iter([S(mk((2, 6, 3)), 2), S(mk((2, 6, 3)), 4)])),
    OpInfo('native_channel_shuffle', _F('native_channel_shuffle'), _channel_shuffle,
           note="torch has no derivative for native_channel_shuffle: its backward raises "
                "RuntimeError in both libraries"),
]


# ----------------------------------------------------------------------------- fold / unfold

def _unfold(mk):
    yield S(mk((1, 1, 3, 3)), 2)
    yield S(mk((2, 3, 5, 6)), (2, 3))
    yield S(mk((2, 3, 7, 8)), (2, 3), dilation=(1, 2), padding=(1, 2), stride=(2, 1))
    yield S(mk((2, 3, 7, 8)), 3, 2, 1, 2)
    yield S(mk((3, 5, 6)), 2)                       # unbatched
    yield S(mk((2, 3, 5, 6)), [2, 2], stride=[3, 3])
    yield S(mk((0, 3, 5, 6)), 2, grad=False)
    yield S(mk((2, 3, 5, 6)), 7)                    # kernel larger than the input
    yield S(mk((2, 3, 5, 6)), 0)
    yield S(mk((2, 3, 5, 6)), 2, stride=0)
    yield S(mk((2, 3, 5, 6)), 2, dilation=0)
    yield S(mk((2, 3, 5, 6)), 2, padding=-1)
    yield S(mk((2, 3, 5, 6)), (2, 3, 4))
    yield S(mk((2, 0, 5, 6)), 2)
    yield S(mk((2, 3, 4, 5, 6)), 2)
    yield S(mk((5, 6)), 2)


def _fold(mk):
    yield S(mk((1, 4, 4)), (3, 3), 2)
    yield S(mk((2, 12, 20)), (5, 6), 2)
    yield S(mk((2, 18, 32)), (7, 8), (2, 3), dilation=(1, 2), padding=(1, 2), stride=(2, 1))
    yield S(mk((2, 27, 16)), (7, 8), 3, 2, 1, 2)
    yield S(mk((12, 20)), (5, 6), 2)                # unbatched
    yield S(mk((2, 4, 9)), 4, 2)                    # int output_size
    yield S(mk((0, 12, 20)), (5, 6), 2, grad=False)
    yield S(mk((2, 12, 20)), (5, 7), 2)             # wrong number of blocks
    yield S(mk((2, 13, 20)), (5, 6), 2)             # channels not divisible
    yield S(mk((2, 12, 20)), (5, 6), 2, stride=0)
    yield S(mk((2, 12, 20)), (5, 6), 0)
    yield S(mk((2, 12, 20)), (5, 6, 1), 2)
    yield S(mk((2, 3, 4, 5)), (5, 6), 2)
    yield S(mk((2, 0, 20)), (5, 6), 2)
    yield S(mk((2, 4, 1)), (1, 1), 2)               # no block fits


OPS += [
    OpInfo('unfold', _F('unfold'), _unfold),
    OpInfo('fold', _F('fold'), _fold),
]
