"""Tracer / symbolic_trace / Proxy behaviour vs torch.fx."""
import pytest

from ._util import both, close, run_src


def _both_code(src):
    e, t = both(src)
    assert e['gm'].code == t['gm'].code
    return e, t


def test_operators_reflected_unary():
    e, t = _both_code('''
def f(x, y):
    a = 2 - x; b = 3 * y; c = 1 / (x.abs() + 1); d = 2 ** x; e = -x; g = +y; h = abs(x)
    i = x // 2; j = x % 2; k = x @ y.t(); l = (x > 0) & (y < 1); m = ~l
    return a + b + c + d + e + g + h + i + j, k, m, x == y, x != y, x >= y, x <= y
gm = fx.symbolic_trace(f)
torch.manual_seed(0)
x = torch.randn(3, 3); y = torch.randn(3, 3)
out = gm(x, y)
ref = f(x, y)
''')
    for ns in (e, t):
        for a, b in zip(ns['out'], ns['ref']):
            close(a, b, 0)
    for a, b in zip(e['out'], t['out']):
        close(a, b)


def test_attributes_items_methods():
    _both_code('''
def f(x):
    n = x.size()
    s = x.shape
    d = x.dim()
    return x.reshape(s[0], -1).mean(1, keepdim=True) + x[..., 0:1], n, d, x.T
gm = fx.symbolic_trace(f)
''')


def test_unpacking_allowed():
    e, t = _both_code('''
def f(x):
    a, b = x.chunk(2)
    return a * b
gm = fx.symbolic_trace(f)
x = torch.arange(4.)
out = gm(x)
''')
    close(e['out'], t['out'])


@pytest.mark.parametrize('body,exc', [
    ('if x.sum() > 0:\n        return x\n    return -x', 'TraceError'),
    ('return [y for y in x]', 'TraceError'),
    ('return len(x)', 'RuntimeError'),
])
def test_trace_errors(body, exc):
    src = f'''
def f(x):
    {body}
'''
    msgs = []
    for mod in ('ember', 'torch'):
        ns = run_src(src, mod)
        errcls = getattr(__import__(mod + '.fx.proxy', fromlist=['x']), 'TraceError') \
            if exc == 'TraceError' else RuntimeError
        with pytest.raises(errcls) as ei:
            ns['fx'].symbolic_trace(ns['f'])
        msgs.append(str(ei.value))
    assert msgs[0] == msgs[1]


def test_trace_error_is_value_error():
    from ember.fx.proxy import TraceError
    assert issubclass(TraceError, ValueError)


def test_custom_tracer_leaf_and_module_calls():
    e, t = _both_code('''
class Inner(torch.nn.Module):
    def __init__(s):
        super().__init__(); s.lin = torch.nn.Linear(3, 3)
    def forward(s, x):
        return s.lin(x).relu()
class Outer(torch.nn.Module):
    def __init__(s):
        super().__init__(); s.inner = Inner(); s.layers = torch.nn.ModuleList([torch.nn.Linear(3, 3)])
    def forward(s, x):
        return s.layers[0](s.inner(x))
class LeafInner(fx.Tracer):
    def is_leaf_module(self, m, qualname):
        return isinstance(m, Inner) or super().is_leaf_module(m, qualname)
torch.manual_seed(0)
o = Outer()
g = LeafInner().trace(o)
gm = fx.GraphModule(o, g)
gm_full = fx.symbolic_trace(o)
code_full = gm_full.code
x = torch.randn(2, 3)
out = gm(x); ref = o(x)
''')
    assert e['code_full'] == t['code_full']
    close(e['out'], e['ref'], 0)
    close(e['out'], t['out'])


def test_concrete_args_and_defaults():
    e, t = both('''
def f(x, flag=True, scale=2.0):
    if flag:
        return x * scale
    return x
gm = fx.symbolic_trace(f, concrete_args={'flag': True})
x = torch.ones(2)
out = gm(x)
''')
    close(e['out'], t['out'])
    assert e['gm'].code == t['gm'].code
    e, t = both('''
def f(x, flag=True):
    return x + 1 if flag else x
gm = fx.symbolic_trace(f, concrete_args={'flag': True, 'x': fx.PH})
''')
    assert e['gm'].code == t['gm'].code


WRAP = '''
def my_helper(x, n):
    return x * n
fx.wrap('my_helper')
def f(x):
    return my_helper(x, 3) + 1
gm = fx.symbolic_trace(f)
targets = [n.target.__name__ if callable(n.target) else n.target for n in gm.graph.nodes]
out = gm(torch.ones(2))
'''


def test_wrap():
    e, t = both(WRAP)
    assert e['targets'] == t['targets']
    assert e['gm'].code.replace('fxtest_ember', 'fxtest_torch') == t['gm'].code
    close(e['out'], t['out'])


def test_tensor_constant_and_create_proxy_override():
    e, t = _both_code('''
class Counting(fx.Tracer):
    n = 0
    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        Counting.n += 1
        return super().create_proxy(kind, target, args, kwargs, name, type_expr, proxy_factory_fn)
class M(torch.nn.Module):
    def __init__(s):
        super().__init__(); s.c = torch.tensor([1., 2.])
    def forward(s, x):
        return x + s.c + torch.tensor([3., 4.])
m = M()
g = Counting().trace(m)
gm = fx.GraphModule(m, g)
n = Counting.n
''')
    assert e['n'] == t['n']


def test_proxy_graph_building():
    e, t = both('''
g = fx.Graph()
x = fx.Proxy(g.placeholder('x'))
y = torch.relu(x) + 1
g.output(y.node)
gm = fx.GraphModule(torch.nn.Module(), g)
code = gm.code
r = repr(x)
''')
    assert e['code'] == t['code'] and e['r'] == t['r']


def test_map_arg_and_immutable():
    from ember.fx import map_arg
    from ember.fx.immutable_collections import immutable_list, immutable_dict
    import ember.fx as efx
    g = efx.Graph()
    x = g.placeholder('x')
    n = g.call_function(len, ([x, 1],), {'k': x})
    assert isinstance(n.args[0], immutable_list) and isinstance(n.kwargs, immutable_dict)
    assert map_arg(n.args, lambda a: a.name) == (['x', 1],)
    with pytest.raises(TypeError):
        n.args[0].append(2)


def test_has_side_effect_keeps_node():
    e, t = both('''
calls = []
def log(x):
    calls.append(1)
fx.has_side_effect(log)
fx.wrap('log')
def f(x):
    log(x)
    torch.relu(x)
    return x + 1
gm = fx.symbolic_trace(f)
changed = gm.graph.eliminate_dead_code()
gm.recompile()
names = [n.name for n in gm.graph.nodes]
''')
    assert e['names'] == t['names'] and e['changed'] == t['changed']


def test_plain_bindings_return_after_tracing():
    import gc
    import ember
    import ember.fx as efx
    from ember._ops import _dispatch

    def f(x):
        return ember.relu(x) + 1
    gm = efx.symbolic_trace(f)
    gc.collect()
    _dispatch.sync_released()
    assert not _dispatch.observing()
    assert ember.equal(gm(ember.ones(2)), ember.full((2,), 2.))


CNN = '''
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 4, 3); self.bn = torch.nn.BatchNorm2d(4)
        self.fc = torch.nn.Linear(4*3*3, 10); self.drop = torch.nn.Dropout(0.5)
        self.register_buffer('scale', torch.ones(10))
    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv1(x))), 2)
        x = torch.flatten(x, 1)
        x = self.drop(x)
        x = F.dropout(x, 0.1, training=self.training)
        x = self.fc(x) * self.scale
        x = F.softmax(x, dim=1) + F.gelu(x) + torch.tanh(x).mean(dim=(0,), keepdim=True)
        x = x.permute(1, 0).contiguous().to(torch.float64)
        return F.log_softmax(x, dim=-1), x.new_zeros(2), torch.zeros(x.shape[0], dtype=torch.float32)
torch.manual_seed(0)
net = Net().eval()
gm = fx.symbolic_trace(net)
x = torch.randn(2, 1, 8, 8)
out = gm(x)
ref = net(x)
nodes = [(n.op, n.name) for n in gm.graph.nodes]
lines = [l for l in gm.code.split(chr(10)) if 'functional' not in l and '_C._nn' not in l]
'''


def test_cnn_functional_calls():
    e, t = both(CNN)
    assert e['nodes'] == t['nodes']
    assert e['lines'] == t['lines']
    for a, b in zip(e['out'], e['ref']):
        close(a, b, 0)
    for a, b in zip(e['out'], t['out']):
        close(a, b, 1e-5)


def test_tensor_attrs_params_and_proxyable_class():
    e, t = both('''
class M(torch.nn.Module):
    def __init__(s):
        super().__init__(); s.c = torch.tensor([1., 2.]); s.w = torch.nn.Parameter(torch.ones(2))
    def forward(s, x):
        return s.c + x, s.w * x, torch.add(s.c, x), s.w.sum(), x.add(s.c)
gm = fx.symbolic_trace(M())
out = gm(torch.tensor([3., 4.]))
class TP(metaclass=fx.ProxyableClassMeta):
    def __init__(self, a, b): self.a, self.b = a, b
def f(x):
    p = TP(x, x)
    return x + 1
gm2 = fx.symbolic_trace(f)
''')
    assert e['gm'].code == t['gm'].code
    assert e['gm2'].code.replace('fxtest_ember', 'fxtest_torch') == t['gm2'].code
    for a, b in zip(e['out'], t['out']):
        close(a, b)


def test_node_prepend_append_order():
    e, t = both('''
def f(x):
    a = x + 1
    b = x * 2
    return a - b
gm = fx.symbolic_trace(f)
nodes = list(gm.graph.nodes)
nodes[1].prepend(nodes[2])
order1 = [n.name for n in gm.graph.nodes]
nodes[2].append(nodes[1])
order2 = [n.name for n in gm.graph.nodes]
lt = nodes[1] < nodes[3]
gm.recompile()
''')
    assert e['order1'] == t['order1'] and e['order2'] == t['order2'] and e['lt'] == t['lt']
    assert e['gm'].code == t['gm'].code


def test_varargs():
    e, t = both('''
def f(x, *args):
    return x + args[0] + args[1]
gm = fx.symbolic_trace(f)
o = torch.ones(1)
out = gm(o, o * 2, o * 3)
iout = fx.Interpreter(gm).run(o, o * 2, o * 3)
''')
    assert e['gm'].code == t['gm'].code
    close(e['out'], t['out'])
    close(e['iout'], t['iout'])
