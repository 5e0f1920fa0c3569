"""subgraph_rewriter.replace_pattern (the documentation example) vs torch."""
from ._util import both, close

SRC = '''
class M(torch.nn.Module):
    def forward(self, x, w1, w2):
        m1 = torch.cat([w1, w2]).sum()
        m2 = torch.cat([w1, w2]).sum()
        return x + torch.max(m1) + torch.max(m2)
def pattern(w1, w2):
    return torch.cat([w1, w2]).sum()
def replacement(w1, w2):
    return torch.stack([w1, w2])
gm = fx.symbolic_trace(M())
matches = fx.replace_pattern(gm, pattern, replacement)
code = gm.code
torch.manual_seed(0)
x = torch.randn(2); w1 = torch.randn(3); w2 = torch.randn(3)
out = gm(x, w1, w2)
n = len(matches)
anchors = [m.anchor.name for m in matches]
'''


def test_replace_pattern_doc_example():
    e, t = both(SRC)
    assert e['code'] == t['code']
    assert e['n'] == t['n'] == 2
    assert e['anchors'] == t['anchors']
    close(e['out'], t['out'])


def test_replace_pattern_with_filters():
    e, t = both(SRC.replace('matches = fx.replace_pattern(gm, pattern, replacement)',
                            '''sr = __import__(torch.__name__ + '.fx.subgraph_rewriter', fromlist=['x'])
matches = sr.replace_pattern_with_filters(gm, pattern, replacement,
                                          [lambda m, g, p: m.nodes_map[m.anchors[0]].name == 'sum_2'])'''))
    assert e['code'] == t['code']
    assert e['n'] == t['n'] == 1
