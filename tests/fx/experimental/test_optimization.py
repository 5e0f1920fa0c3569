"""experimental.optimization.fuse (the FX conv+bn fusion example) vs torch."""
from .._util import both, close

SRC = '''
fuse = __import__(torch.__name__ + '.fx.experimental.optimization', fromlist=['fuse']).fuse
class Net(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        s.bn = torch.nn.BatchNorm2d(8)
        s.conv1 = torch.nn.Conv1d(2, 4, 3)
        s.bn1 = torch.nn.BatchNorm1d(4)
    def forward(s, x, y):
        return s.bn(s.conv(x)).relu().mean(), s.bn1(s.conv1(y))
torch.manual_seed(0)
net = Net()
for _ in range(2):
    net(torch.randn(4, 3, 6, 6), torch.randn(4, 2, 7))
net.eval()
fused = fuse(net)
x = torch.randn(2, 3, 6, 6); y = torch.randn(2, 2, 7)
with torch.no_grad():
    out = fused(x, y); ref = net(x, y)
mods = [type(m).__name__ for _, m in fused.named_modules()]
code = fused.code
'''


def test_fuse_conv_bn():
    e, t = both(SRC)
    assert e['mods'] == t['mods']
    assert e['code'] == t['code']
    for a, b in zip(e['out'], e['ref']):
        close(a, b, 1e-5)
    for a, b in zip(e['out'], t['out']):
        close(a, b, 1e-4)
