"""passes.split_module.split_module vs torch."""
from .._util import both, close

SRC = '''
split_module = __import__(torch.__name__ + '.fx.passes.split_module', fromlist=['x']).split_module
class M(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.a = torch.nn.Linear(4, 4)
        s.b = torch.nn.Linear(4, 4)
        s.p = torch.nn.Parameter(torch.ones(4))
    def forward(s, x, y):
        z = s.a(x) + y
        w = torch.relu(z) * s.p
        return s.b(w) - z
torch.manual_seed(0)
m = M()
gm = fx.symbolic_trace(m)
part = {'a': 0, 'add': 0, 'relu': 1, 'p': 1, 'mul': 1, 'b': 2, 'sub': 2}
qm = {}
split = split_module(gm, m, lambda n: part[n.name], qm)
codes = [split.code] + [c.code for _, c in split.named_children()]
x = torch.randn(2, 4); y = torch.randn(2, 4)
out = split(x, y); ref = m(x, y)
subs = [n for n, _ in split.named_children()]
'''


def test_split_module_outputs():
    e, t = both(SRC)
    assert e['subs'] == t['subs']
    assert e['codes'] == t['codes']
    assert e['qm'] == t['qm']
    close(e['out'], e['ref'], 1e-6)
    close(e['out'], t['out'])
