"""Interpreter / Transformer (the documentation examples) compared with torch.fx."""
import pytest

from ._util import both, close, run_src

BASE = '''
class M(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.lin = torch.nn.Linear(3, 3)
    def forward(s, x):
        return torch.add(torch.sigmoid(s.lin(x)), x).relu()
torch.manual_seed(0)
m = M()
gm = fx.symbolic_trace(m)
x = torch.randn(2, 3)
'''


def test_interpreter_run_equals_module():
    e, t = both(BASE + '''
out = fx.Interpreter(gm).run(x)
boxed = fx.Interpreter(gm).boxed_run([x])
ref = gm(x)
''')
    for ns in (e, t):
        close(ns['out'], ns['ref'], 0)
        close(ns['boxed'], ns['ref'], 0)
    close(e['out'], t['out'])


def test_transformer_add_to_mul():
    e, t = both(BASE + '''
class AddToMul(fx.Transformer):
    def call_function(self, target, args, kwargs):
        if target == torch.add:
            target = torch.mul
        return super().call_function(target, args, kwargs)
new = AddToMul(gm).transform()
out = new(x)
code = new.code
ref = (torch.sigmoid(m.lin(x)) * x).relu()
''')
    assert e['code'] == t['code']
    close(e['out'], e['ref'], 0)
    close(e['out'], t['out'])


def test_negsigm_swap_interpreter():
    e, t = both(BASE + '''
class NegSigmSwap(fx.Interpreter):
    def call_function(self, target, args, kwargs):
        if target == torch.sigmoid:
            return torch.neg(*args, **kwargs)
        return super().call_function(target, args, kwargs)
    def call_method(self, target, args, kwargs):
        if target == 'relu':
            return torch.sigmoid(*args, **kwargs)
        return super().call_method(target, args, kwargs)
out = NegSigmSwap(gm).run(x)
''')
    close(e['out'], t['out'])


PROFILING = '''
import time, statistics
class ProfilingInterpreter(fx.Interpreter):
    def __init__(self, mod):
        gm = fx.symbolic_trace(mod)
        super().__init__(gm)
        self.total_runtime_sec = []
        self.runtimes_sec = {}
    def run(self, *args):
        t_start = time.time()
        return_val = super().run(*args)
        t_end = time.time()
        self.total_runtime_sec.append(t_end - t_start)
        return return_val
    def run_node(self, n):
        t_start = time.time()
        return_val = super().run_node(n)
        t_end = time.time()
        self.runtimes_sec.setdefault(n, [])
        self.runtimes_sec[n].append(t_end - t_start)
        return return_val
class Net(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.conv = torch.nn.Conv2d(3, 4, 3)
        s.bn = torch.nn.BatchNorm2d(4)
        s.fc = torch.nn.Linear(4, 2)
    def forward(s, x):
        y = torch.flatten(torch.nn.functional.adaptive_avg_pool2d(s.bn(s.conv(x)).relu(), 1), 1)
        return s.fc(y)
torch.manual_seed(0)
net = Net().eval()
interp = ProfilingInterpreter(net)
inp = torch.randn(2, 3, 8, 8)
with torch.no_grad():
    out = interp.run(inp)
    ref = net(inp)
names = [n.name for n in interp.runtimes_sec]
'''


def test_profiling_interpreter_example():
    e, t = both(PROFILING)
    assert e['names'] == t['names']
    close(e['out'], e['ref'], 1e-6)
    close(e['out'], t['out'], 1e-4)
    assert len(e['interp'].total_runtime_sec) == 1


def test_interpreter_missing_input_error():
    for mod in ('ember', 'torch'):
        ns = run_src(BASE, mod)
        with pytest.raises(RuntimeError):
            ns['fx'].Interpreter(ns['gm']).run()


def test_fetch_args_and_map_nodes():
    e, t = both(BASE + '''
it = fx.Interpreter(gm)
it.env = {}
nodes = list(gm.graph.nodes)
it.env[nodes[0]] = x
args, kwargs = it.fetch_args_kwargs_from_env(nodes[1])
mapped = it.map_nodes_to_values((nodes[0], 1), nodes[1])
''')
    close(e['args'][0], t['args'][0], 0)
    assert e['mapped'][1] == 1
