"""passes.shape_prop.ShapeProp vs torch."""
from .._util import both

SRC = '''
ShapeProp = __import__(torch.__name__ + '.fx.passes.shape_prop', fromlist=['x']).ShapeProp
class M(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.lin = torch.nn.Linear(4, 6)
    def forward(s, x):
        y = s.lin(x).transpose(0, 1)
        return y.to(torch.float64), y.shape[0]
gm = fx.symbolic_trace(M())
x = torch.randn(3, 4, requires_grad=True)
ShapeProp(gm).propagate(x)
metas = []
for n in gm.graph.nodes:
    tm = n.meta.get('tensor_meta')
    if tm is not None and hasattr(tm, 'shape'):
        metas.append((n.name, tuple(tm.shape), str(tm.dtype), tm.requires_grad, tuple(tm.stride),
                      str(tm.memory_format), tm.is_quantized, type(tm).__name__))
    else:
        metas.append((n.name, tm is None))
    metas.append(n.meta.get('type').__name__ if n.meta.get('type') else None)
fields = type(list(gm.graph.nodes)[0].meta['tensor_meta'])._fields
'''


def test_shape_prop_metadata():
    e, t = both(SRC)
    assert e['fields'] == t['fields']
    em = [m if not isinstance(m, str) else m.replace('Tensor', 'T') for m in e['metas']]
    tm = [m if not isinstance(m, str) else m.replace('Tensor', 'T') for m in t['metas']]
    assert em == tm
