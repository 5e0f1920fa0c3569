"""``ember.torch_version.TorchVersion`` against ``torch.torch_version.TorchVersion``."""
import pickle

import pytest
import torch.torch_version as TV

import ember.torch_version as EV

VERSIONS = ['2.13.0+ember0.1.0', '2.13.0+cpu', '2.13.0', '2.6.0a0+git1234', '1.0rc1',
            '1.0.post1', '1.0.dev1', '1!0.1', 'parrot', '2.13']
OTHERS = ['2.6', '2.13.0', '2.13', '2.13.0+cpu', '2.13.0+ember0.1.0', '2.13.0+f', '2.14.0a0',
          '1.0', '1.0a1', '1.0.post0', '9.9', 'parrot', 'z', (2, 13), (2, 13, 0), [2, 14],
          ('a', 'b'), 2, 2.13, None, object()]
OPS = ['__lt__', '__le__', '__gt__', '__ge__', '__eq__', '__ne__']


def _apply(cls, v, other, op):
    import operator
    try:
        return getattr(operator, op)(cls(v), other)
    except TypeError:
        return TypeError


@pytest.mark.parametrize('v', VERSIONS)
def test_comparisons_match_torch(v):
    for other in OTHERS:
        for op in OPS:
            got = _apply(EV.TorchVersion, v, other, op)
            want = _apply(TV.TorchVersion, v, other, op)
            assert got == want, (v, other, op, got, want)


def test_is_a_string():
    e, t = EV.TorchVersion('2.13.0+ember0.1.0'), TV.TorchVersion('2.13.0+ember0.1.0')
    assert isinstance(e, str) and str(e) == str(t) and repr(e) == repr(t)
    assert hash(e) == hash(t) == hash('2.13.0+ember0.1.0')
    assert e.split('+') == t.split('+') and type(e + 'x') is type(t + 'x') is str
    assert {e: 1}['2.13.0+ember0.1.0'] == 1
    r = pickle.loads(pickle.dumps(e))
    assert type(r) is EV.TorchVersion and r == e


def test_ember_version_is_own_outside_torch_mode():
    import ember
    assert ember.__version__ == ember.version.__version__ == ember.version._EMBER_VERSION
    assert type(ember.__version__) is str
