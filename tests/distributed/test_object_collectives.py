"""Object collectives on 2 independently started ranks: all_gather_object,
broadcast_object_list, gather_object, scatter_object_list, send/recv_object_list with
tensors and containers; objects are read back with ember's weights_only rules (a class that
is not allow-listed raises UnpicklingError on the receiving ranks; allow-listed, it loads).
One spawn, bounded by a timeout."""
import pytest

import ember.distributed as edist
from tests.distributed.test_collectives import COMMON, check_ok, spawn

SCRIPT = COMMON + r'''
import collections
from ember.serialization import safe_globals

class Point:
    def __init__(self, x):
        self.x = x

objs = [{'rank': 0, 't': ember.arange(3.)}, ('b', [1, 2.5, None], ember.ones(2, dtype=ember.int8))]
out = [None, None]
assert dist.all_gather_object(out, objs[r]) is None
assert out[0]['rank'] == 0 and ember.equal(out[0]['t'], ember.arange(3.))
assert out[1][:2] == ('b', [1, 2.5, None]) and out[1][2].dtype == ember.int8
lst = ['x', {'k': ember.zeros(2)}, 3] if r == 1 else [None, None, None]
dist.broadcast_object_list(lst, src=1)
assert lst[0] == 'x' and lst[2] == 3 and ember.equal(lst[1]['k'], ember.zeros(2))
g = [None, None] if r == 0 else None
dist.gather_object(collections.OrderedDict(a=r), g, dst=0)
if r == 0:
    assert g == [collections.OrderedDict(a=0), collections.OrderedDict(a=1)]
else:
    assert g is None
if r == 0:
    assert err(lambda: dist.gather_object(1, None, dst=0)) == ('AssertionError',
                                                               'Must provide object_gather_list on dst rank')
so = [None]
dist.scatter_object_list(so, [{'i': 0}, [ember.tensor([1, 2])]] if r == 0 else None, src=0)
assert so[0] == {'i': 0} if r == 0 else so[0][0].tolist() == [1, 2]
assert err(lambda: dist.scatter_object_list([], None, src=0)) == (
    'ValueError', 'Expected argument scatter_object_output_list to be a list of size at least 1.')
if r == 0:
    dist.send_object_list([1, 'two', ember.eye(2)], dst=1)
else:
    got = [None, None, None]
    assert dist.recv_object_list(got) == 0
    assert got[:2] == [1, 'two'] and ember.equal(got[2], ember.eye(2))
# safe unpickling: an arbitrary class is refused on every receiving rank ...
e = err(lambda: dist.all_gather_object([None, None], Point(r)))
assert e is not None and e[0] == 'UnpicklingError' and 'Point' in e[1], e
# ... unless allow-listed, as with ember.load(weights_only=True)
with safe_globals([Point]):
    out = [None, None]
    dist.all_gather_object(out, Point(r * 10))
assert [p.x for p in out] == [0, 10] and all(type(p) is Point for p in out)
print('ok', r, flush=True)
'''


@pytest.mark.skipif(not edist.is_mpi_available(), reason='mpi4py not installed')
def test_object_collectives():
    check_ok(spawn(SCRIPT, 2))
