"""Op-database entries of the dropout family (ember/_ops/dropout.py).

Every call seeds both libraries first (``m.manual_seed(0)``), so the random masks are the
same draws: values and gradients are compared bit for bit by the harness, and gradcheck sees
one fixed mask per call."""
import numpy as np

from _ops.opdb import OpInfo, S, FLOAT, F32


def _seeded(fn):
    def f(m, *a, **kw):
        m.manual_seed(0)
        return fn(m, *a, **kw)
    return f


def _F(name):
    return _seeded(lambda m, *a, **kw: getattr(m.nn.functional, name)(*a, **kw))


def _torch(name):
    return _seeded(lambda m, *a, **kw: getattr(m, name)(*a, **kw))


def _inplace_F(name):
    return _seeded(lambda m, x, *a, **kw: getattr(m.nn.functional, name)(x.clone(), *a,
                                                                          inplace=True, **kw))


def _plain(mk):
    yield S(mk((4, 5)), p=0.3)
    yield S(mk((3, 2, 4)), p=0.5, training=True)
    yield S(mk((6,)), p=0.8)
    yield S(mk(()), p=0.5)
    yield S(mk((0, 3)), p=0.5)
    yield S(mk((4, 5)), p=0.0)
    yield S(mk((4, 5)), p=1.0)
    yield S(mk((4, 5)), p=0.5, training=False)
    yield S(mk((3, 4)), pre='t', p=0.4)   # a transposed input: the mask follows its layout
    yield S(mk((2, 3)), p=1.5, grad=False)
    yield S(mk((2, 3)), p=-0.1, grad=False)


def _alpha(mk):
    yield S(mk((4, 5)), p=0.3, training=True)
    yield S(mk((3, 2, 4)), p=0.5, training=True)
    yield S(mk((4, 5)), p=1.0, training=True)
    yield S(mk((4, 5)), p=0.3)                  # training defaults to False
    yield S(mk((0, 2)), p=0.3, training=True)
    yield S(mk((2, 3)), p=2.0, training=True, grad=False)


def _feature_alpha(mk):
    yield S(mk((4, 5, 3)), p=0.3, training=True)
    yield S(mk((2, 3, 2, 2)), p=0.5, training=True)
    yield S(mk((4, 5)), p=0.3)
    yield S(mk((5,)), p=0.3, training=True, grad=False)   # RuntimeError: needs 2 dims


def _nd(lo, hi):
    def gen(mk):
        for nd in range(lo - 1, hi + 2):
            shape = (3, 4, 2, 2, 2)[:nd]
            yield S(mk(shape), p=0.4)
        yield S(mk((3, 4, 2, 2, 2)[:hi]), p=0.0)
        yield S(mk((3, 4, 2, 2, 2)[:hi]), p=1.0)
        yield S(mk((3, 4, 2, 2, 2)[:hi]), p=0.5, training=False)
        yield S(mk((3, 4, 2, 2, 2)[:hi]), p=3.0, grad=False)
    return gen


def _torch_samples(mk):
    yield S(mk((4, 5)), 0.3, True)
    yield S(mk((4, 5)), 0.3, False)
    yield S(mk((4, 5, 2)), 0.6, True)
    yield S(mk((4, 5)), 1.0, True)
    yield S(mk((4, 5)), 0.0, True)
    yield S(mk((4, 5)), 1.5, True, grad=False)      # RuntimeError at the torch level
    yield S(mk((4,)), 0.5, True, grad=False)        # feature forms: RuntimeError (1-D)


def _int_samples(mk):
    yield S(np.arange(6).reshape(2, 3), p=0.5)
    yield S(np.arange(6).reshape(2, 3), p=1.0)
    yield S(np.arange(6).reshape(2, 3), p=0.0)
    yield S(np.ones((2, 3), bool), p=0.5)


OPS = [
    OpInfo('nn.functional.dropout', _F('dropout'), _plain),
    OpInfo('nn.functional.dropout.inplace', _inplace_F('dropout'), _plain, gradcheck=False),
    OpInfo('nn.functional.dropout.int', _F('dropout'), _int_samples, dtypes=(F32,),
           grad=False),
    OpInfo('nn.functional.alpha_dropout', _F('alpha_dropout'), _alpha),
    OpInfo('nn.functional.alpha_dropout.inplace', _inplace_F('alpha_dropout'), _alpha,
           gradcheck=False),
    OpInfo('nn.functional.alpha_dropout.int', _F('alpha_dropout'),
           lambda mk: (S(s.args[0], training=True, **s.kw) for s in _int_samples(mk)),
           dtypes=(F32,), grad=False),
    OpInfo('nn.functional.feature_alpha_dropout', _F('feature_alpha_dropout'), _feature_alpha),
    OpInfo('nn.functional.dropout1d', _F('dropout1d'), _nd(2, 3)),
    OpInfo('nn.functional.dropout1d.inplace', _inplace_F('dropout1d'), _nd(2, 3),
           gradcheck=False),
    OpInfo('nn.functional.dropout2d', _F('dropout2d'), _nd(3, 4)),
    OpInfo('nn.functional.dropout2d.inplace', _inplace_F('dropout2d'), _nd(3, 4),
           gradcheck=False),
    OpInfo('nn.functional.dropout3d', _F('dropout3d'), _nd(4, 5)),
    OpInfo('nn.functional.dropout3d.inplace', _inplace_F('dropout3d'), _nd(4, 5),
           gradcheck=False),
]
for _n in ('dropout', 'feature_dropout', 'alpha_dropout', 'feature_alpha_dropout'):
    OPS.append(OpInfo(_n, _torch(_n), _torch_samples))
    OPS.append(OpInfo(_n + '_', _seeded(lambda m, x, *a, _n=_n: getattr(m, _n + '_')(
        x.clone(), *a)), _torch_samples, gradcheck=False))
