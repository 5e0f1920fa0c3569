"""Op-database entries of ``ember.fft`` (ember/_ops/fft.py): every transform (1-D, 2-D and
n-D; c2c, r2c, c2r, and the Hermitian ones) under each ``norm`` mode with ``n``/``s``/``dim``
variants, integer and complex inputs, non-contiguous views, the 0-dim / empty / bad-argument
errors, gradients under a random upstream gradient and float64 (complex128 for complex
inputs) gradcheck; plus fftfreq/rfftfreq/fftshift/ifftshift."""
import numpy as np

from _ops.opdb import OpInfo, S, F32, F64, I64, FLOAT

C64, C128 = 'complex64', 'complex128'
OPS = []

NORMS = (None, 'backward', 'ortho', 'forward')
ONE_D = ('fft', 'ifft', 'rfft', 'irfft', 'hfft', 'ihfft')
TWO_D = ('fft2', 'ifft2', 'rfft2', 'irfft2', 'hfft2', 'ihfft2')
N_D = ('fftn', 'ifftn', 'rfftn', 'irfftn', 'hfftn', 'ihfftn')
REAL_IN = {'rfft', 'ihfft', 'rfft2', 'ihfft2', 'rfftn', 'ihfftn'}
# c2r transforms read a Hermitian half-spectrum: their output length defaults to 2 * (m - 1)
C2R = {'irfft', 'hfft', 'irfft2', 'hfft2', 'irfftn', 'hfftn'}


def _f(name):
    return lambda m, x, **kw: getattr(m.fft, name)(x, **kw)


def _one_d(name):
    def gen(mk):
        for i, norm in enumerate(NORMS):
            yield S(mk((4, 6)), norm=norm)
            yield S(mk((5, 3)), n=(7, 4, 9, 5)[i], dim=0, norm=norm)
        yield S(mk((2, 3, 5)), n=3, dim=1, desc='crop')
        yield S(mk((3, 4)), pre='t', desc='non-contiguous')
        yield S(mk((1,)), n=1 if name not in C2R else 2)
        # errors
        yield S(mk(()), desc='0-dim')
        yield S(mk((0,)), desc='empty')
        yield S(mk((3,)), n=0, desc='n=0')
        yield S(mk((3,)), norm='bad', desc='bad norm')
        yield S(mk((3,)), dim=2, desc='dim out of range')
        if name in C2R:
            yield S(mk((1,)), desc='c2r of one point: output size 0')
    return gen


def _two_d(name):
    def gen(mk):
        for i, norm in enumerate(NORMS):
            yield S(mk((3, 4)), norm=norm)
        yield S(mk((2, 3, 4)), s=(4, 6), norm='ortho')
        yield S(mk((3, 4, 2)), dim=(0, 2), norm='forward')
        yield S(mk((4, 3)), pre='t', desc='non-contiguous')
        yield S(mk((5,)), desc='1-D input')
        yield S(mk((2, 0)), desc='empty')
        yield S(mk((2, 3)), s=(2, 0), desc='s with 0')
        yield S(mk((2, 3)), s=(2, 3, 4), desc='s too long')
    return gen


def _n_d(name):
    def gen(mk):
        for i, norm in enumerate(NORMS):
            yield S(mk((2, 3, 4)), norm=norm)
        yield S(mk((2, 3, 4)), s=(3, 5), norm='backward')
        yield S(mk((2, 3, 4)), dim=(0, -1), norm='ortho')
        yield S(mk((2, 3, 4)), s=(4, 2), dim=(2, 0), norm='forward')
        yield S(mk((3,)), dim=0)
        yield S(mk((4, 3)), pre='t', desc='non-contiguous')
        if name not in C2R:
            yield S(mk(()), desc='0-dim, no dims')
        else:
            yield S(mk(()), desc='0-dim (c2r needs a dim)')
        yield S(mk((2, 0)), desc='empty')
        yield S(mk((2, 3)), s=(2, 3, 4), desc='s too long')
        yield S(mk((2, 3)), dim=(0, 0), desc='repeated dim')
    return gen


def _dtypes(name):
    if name in REAL_IN:
        return FLOAT + (I64, C128)      # complex input: the error of r2c transforms
    return FLOAT + (I64, C64, C128)


_C2R_NOTE = ("c2r transforms ignore the imaginary part of the zero-frequency (and Nyquist) "
             "term; the gradient reaching it is compared with torch's as computed")
for _kind, _names, _gen in (('1d', ONE_D, _one_d), ('2d', TWO_D, _two_d), ('nd', N_D, _n_d)):
    for _n in _names:
        OPS.append(OpInfo('fft.' + _n, _f(_n), _gen(_n), dtypes=_dtypes(_n), gc_max=2,
                          rtol=1e-4, atol=1e-5, note=_C2R_NOTE if _n in C2R else None))


def _freq(name):
    def fn(m, *a, **kw):
        return getattr(m.fft, name)(*a, **kw)
    return fn


def _freq_samples(mk):
    yield S(5)
    yield S(6, 0.5)
    yield S(1, d=2.)
    yield S(0, desc='n=0')
    yield S(-1, desc='n<0')
    yield S(-4, desc='n=-4')
    yield S(4, dtype=None)


def _shift_samples(mk):
    yield S(mk((5,)))
    yield S(mk((4, 5)))
    yield S(mk((4, 5)), dim=0)
    yield S(mk((2, 3, 4)), dim=(0, 2))
    yield S(mk((3, 4)), pre='t')
    yield S(mk((0, 3)))
    yield S(mk(()), desc='0-dim: shifts required')


OPS += [
    OpInfo('fft.fftfreq', _freq('fftfreq'), _freq_samples, dtypes=(F32,), grad=False),
    OpInfo('fft.rfftfreq', _freq('rfftfreq'), _freq_samples, dtypes=(F32,), grad=False),
    OpInfo('fft.fftshift', _f('fftshift'), _shift_samples, dtypes=FLOAT + (I64, C128)),
    OpInfo('fft.ifftshift', _f('ifftshift'), _shift_samples, dtypes=FLOAT + (I64, C128)),
]
