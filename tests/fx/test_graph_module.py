"""symbolic_trace / Graph / GraphModule compared with torch.fx."""
import copy
import pickle

import pytest

from ._util import both, close, run_src

MODEL = '''
class M(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.linear = torch.nn.Linear(4, 5)
        s.p = torch.nn.Parameter(torch.ones(5))
        s.seq = torch.nn.Sequential(torch.nn.Linear(5, 5), torch.nn.ReLU())
    def forward(s, x, y=2):
        a = s.linear(x)
        b = torch.relu(a) + s.p
        b = s.seq(b)
        c = b.clamp(min=0.0) * 2
        d = c.size(0); e = c.shape[1]
        f = c.view(d, e).sum(dim=-1, keepdim=True)
        g = torch.cat([f, f], 1) - 1
        g = -g
        g = 3 / (g.abs() + 1)
        return (g.transpose(0, 1), f[0, :], torch.sigmoid(g) @ torch.ones(2, 2))
torch.manual_seed(0)
m = M()
gm = fx.symbolic_trace(m)
x = torch.randn(3, 4)
'''


@pytest.fixture(scope='module')
def pair():
    return both(MODEL)


def test_nodes_equal(pair):
    e, t = pair
    en = [(n.op, n.name, n.target if isinstance(n.target, str) else n.target.__name__)
          for n in e['gm'].graph.nodes]
    tn = [(n.op, n.name, n.target if isinstance(n.target, str) else n.target.__name__)
          for n in t['gm'].graph.nodes]
    assert en == tn


def test_code_text_equal(pair):
    e, t = pair
    assert e['gm'].code == t['gm'].code
    assert str(e['gm'].graph) == str(t['gm'].graph)


def test_forward_equals_eager(pair):
    e, t = pair
    for ns in (e, t):
        for a, b in zip(ns['gm'](ns['x']), ns['m'](ns['x'])):
            close(a, b, 0)
    for a, b in zip(e['gm'](e['x']), t['gm'](t['x'])):
        close(a, b)


def test_state_dict_and_repr(pair):
    e, t = pair
    assert list(e['gm'].state_dict()) == list(t['gm'].state_dict())
    assert str(e['gm']) == str(t['gm'])
    assert type(e['gm']).__name__ == 'M'


def test_pickle_deepcopy(pair):
    e, _ = pair
    gm, x = e['gm'], e['x']
    for g2 in (pickle.loads(pickle.dumps(gm)), copy.deepcopy(gm)):
        assert g2.code == gm.code
        for a, b in zip(g2(x), gm(x)):
            close(a, b, 0)


def test_gradients_flow(pair):
    e, t = pair
    outs = []
    for ns in (e, t):
        x = ns['x'].clone().requires_grad_()
        sum(o.sum() for o in ns['gm'](x)).backward()
        outs.append((x.grad, ns['gm'].linear.weight.grad))
    close(outs[0][0], outs[1][0])
    close(outs[0][1], outs[1][1])


GRAPH_EDIT = '''
def f(x, y):
    return torch.relu(x) + y * 2
gm = fx.symbolic_trace(f)
g = gm.graph
relu = g.find_nodes(op='call_function', target=torch.relu)[0]
with g.inserting_after(relu):
    new = g.call_function(torch.neg, (relu,))
relu.replace_all_uses_with(new)
new.replace_input_with(new, relu)
new.args = (relu,)
unused = g.call_function(torch.exp, (relu,))
g.eliminate_dead_code()
g.lint()
gm.recompile()
a = torch.arange(6.).reshape(2, 3) - 2
out = gm(a, a)
names = [n.name for n in g.nodes]
users = [len(n.users) for n in g.nodes]
inputs = [[m.name for m in n.all_input_nodes] for n in g.nodes]
nxt = relu.next.name
prv = relu.prev.name
fmt = relu.format_node()
'''


def test_graph_editing():
    e, t = both(GRAPH_EDIT)
    for k in ('names', 'users', 'inputs', 'nxt', 'prv', 'fmt'):
        assert e[k] == t[k], k
    assert e['gm'].code == t['gm'].code
    close(e['out'], t['out'])


BUILD = '''
g = fx.Graph()
x = g.placeholder('x')
w = g.placeholder('w', default_value=3)
a = g.call_function(torch.add, (x, w), {'alpha': 2})
b = g.call_method('sum', (a,), {'dim': 0})
c = g.create_node('call_function', torch.mul, (b, b), name='my_mul')
g.output((c, [a, b]))
g2 = fx.Graph()
vm = {}
out = g2.graph_copy(g, vm)
g2.output(out)
gm = fx.GraphModule(torch.nn.Module(), g)
gm2 = fx.GraphModule({}, g2)
r = gm(torch.ones(2, 2))
code2 = gm2.code
s = str(g)
'''


def test_graph_build():
    e, t = both(BUILD)
    assert e['gm'].code == t['gm'].code
    assert e['code2'] == t['code2']
    assert e['s'] == t['s']
    close(e['r'][0], t['r'][0])


def test_erase_node_with_users_raises():
    for mod in ('ember', 'torch'):
        ns = run_src('''
def f(x): return torch.relu(x) + 1
gm = fx.symbolic_trace(f)
n = gm.graph.find_nodes(op='call_function', target=torch.relu)[0]
''', mod)
        with pytest.raises(RuntimeError):
            ns['gm'].graph.erase_node(ns['n'])


def test_submodule_management():
    e, t = both(MODEL + '''
ok1 = gm.add_submodule('extra.lin', torch.nn.Linear(2, 2))
ok2 = gm.delete_submodule('extra.lin')
ok3 = gm.delete_submodule('nothere')
gm.add_submodule('unused', torch.nn.ReLU())
gm.delete_all_unused_submodules()
mods = [n for n, _ in gm.named_modules()]
''')
    for k in ('ok1', 'ok2', 'ok3', 'mods'):
        assert e[k] == t[k], k


def test_print_tabular_and_readable(capsys):
    e, _ = both(MODEL)
    e['gm'].graph.print_tabular()
    out = capsys.readouterr().out
    assert 'call_module' in out and 'torch.relu' in out
    s = e['gm'].print_readable(print_output=False)
    assert s.startswith('class M(torch.nn.Module):') and 'def forward(self, x, y = 2):' in s


def test_to_folder(tmp_path):
    import importlib
    import sys
    e, _ = both(MODEL)
    e['gm'].to_folder(str(tmp_path / 'fxpkg'), 'Foo')
    sys.path.insert(0, str(tmp_path))
    try:
        mod = importlib.import_module('fxpkg')
        foo = mod.Foo()
        for a, b in zip(foo(e['x']), e['gm'](e['x'])):
            close(a, b, 0)
    finally:
        sys.path.remove(str(tmp_path))


def test_print_readable_text():
    e, t = both(MODEL)
    assert e['gm'].print_readable(print_output=False) == t['gm'].print_readable(print_output=False)


def test_public_names_and_modules():
    import torch.fx as tf
    import ember.fx as ef
    for n in tf.__all__:
        a, b = getattr(tf, n), getattr(ef, n)
        ma, mb = getattr(a, '__module__', None), getattr(b, '__module__', None)
        if ma and mb:
            assert ma.replace('torch', 'ember') == mb, n


def test_pickle_and_save_load_on_strict_backend(tmp_path):
    """A GraphModule pickled, or its state_dict saved and loaded, while the strict check
    backend is the CPU's array module computes there (rebuilt tensors are strict arrays,
    not host arrays that the strict backend refuses to mix)."""
    import ember
    from ember._backend import strict_backend as sb
    was = sb.enabled()
    sb.enable()
    try:
        m = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.ReLU())
        gm = ember.fx.symbolic_trace(m)
        x = ember.randn(2, 3)
        want = gm(x)
        g2 = pickle.loads(pickle.dumps(gm))
        assert type(g2.get_parameter('0.weight')._data) is sb.StrictArray
        close(g2(x), want, 0)
        ember.save(gm.state_dict(), str(tmp_path / 'sd.pt'))
        sd = ember.load(str(tmp_path / 'sd.pt'))
        assert all(type(v._data) is sb.StrictArray for v in sd.values())
        g3 = ember.fx.symbolic_trace(ember.nn.Sequential(ember.nn.Linear(3, 4),
                                                         ember.nn.ReLU()))
        g3.load_state_dict(sd)
        close(g3(x), want, 0)
    finally:
        if not was:
            sb.disable()
