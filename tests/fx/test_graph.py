"""Graph-level behaviour vs torch.fx: python_code, lint errors, node_copy, meta."""
import pytest

from ._util import both, run_src


def test_python_code_and_node_copy():
    e, t = both('''
def f(x, y):
    return torch.relu(x) * y
gm = fx.symbolic_trace(f)
pc = gm.graph.python_code('self')
src = pc.src
g2 = fx.Graph()
env = {}
for n in gm.graph.nodes:
    env[n] = g2.node_copy(n, lambda a: env[a])
    env[n].meta['seen'] = True
code2 = fx.GraphModule(torch.nn.Module(), g2).code
metas = [n.meta.get('seen') for n in g2.nodes]
rel = [n.name for n in gm.graph.find_nodes(op='placeholder')]
''')
    assert e['src'] == t['src'] and e['code2'] == t['code2'] and 'torch' in e['pc'].globals
    assert e['metas'] == t['metas'] and e['rel'] == t['rel']


def test_lint_errors():
    src = '''
def f(x):
    return torch.relu(x) + 1
gm = fx.symbolic_trace(f)
nodes = list(gm.graph.nodes)
nodes[1].append(nodes[2])
nodes[0].append(nodes[2])
'''
    for mod in ('ember', 'torch'):
        ns = run_src(src, mod)
        with pytest.raises(RuntimeError):
            ns['gm'].graph.lint()


def test_custom_tracer_getattr_override():
    e, t = both('''
class NoParamProxy(fx.Tracer):
    def getattr(self, attr, attr_val, parameter_proxy_cache):
        return attr_val
class M(torch.nn.Module):
    def __init__(s):
        super().__init__(); s.w = torch.nn.Parameter(torch.ones(3))
    def forward(s, x):
        return x * s.w
m = M()
g = NoParamProxy().trace(m)
gm = fx.GraphModule(m, g)
''')
    assert e['gm'].code == t['gm'].code
