"""Layer-library speed (issue: the nn layer library): `python bench/bench_layers.py [name ...]`.

Each workload is the same program under ember and torch (``m`` is the module), run
alternately, best of N; the ratio ember/torch is printed with the issue's target.

- train_lenet: LeNet5 training step (forward, CrossEntropyLoss, backward, SGD step) on
  64x1x28x28: <= 1.5x
- train_resnet: a ResNet-style stack (conv-BN-ReLU, residual blocks, pooling) on 32x3x32x32:
  <= 1.5x
- train_lstm: 2-layer LSTM (hidden 256, seq 35, batch 32) training step: <= 2x
- train_transformer: TransformerEncoder (d_model 128, 4 heads, 2 layers, seq 64, batch 16)
  training step: <= 1.5x
- conv_fwd: conv2d 3x3 64->64 on 16x64x56x56, forward: <= 2x
- lenet_memory: peak traced memory of the LeNet step, ember vs torch: <= 2x
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
os.environ.setdefault('OMP_NUM_THREADS', '1')

import numpy as np  # noqa: E402
import torch  # noqa: E402

import ember  # noqa: E402
from _runner import compare  # noqa: E402

torch.set_num_threads(1)


def lenet(m):
    nn = m.nn
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(),
        nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))


def resnet(m):
    nn = m.nn

    class Block(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.c1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.b1 = nn.BatchNorm2d(c)
            self.c2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.b2 = nn.BatchNorm2d(c)

        def forward(self, x):
            y = self.b1(self.c1(x)).relu()
            return (self.b2(self.c2(y)) + x).relu()

    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
        Block(32), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3, padding=1, bias=False),
        nn.BatchNorm2d(64), nn.ReLU(), Block(64), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(64, 10))


def _pair(factory):
    t = factory(torch)
    e = factory(ember)
    e.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy())
                       for k, v in t.state_dict().items()})
    return e, t


def _step_fns(e, t, x, target_fn, loss):
    """Zero-arg training steps for both libraries: forward, loss, backward, SGD step."""
    xe, xt = ember.from_numpy(x), torch.from_numpy(x)
    ye, yt = target_fn(ember), target_fn(torch)
    oe = ember.optim.SGD(e.parameters(), lr=0.01)
    ot = torch.optim.SGD(t.parameters(), lr=0.01)
    le, lt = loss(ember), loss(torch)

    def se():
        oe.zero_grad()
        le(e(xe), ye).backward()
        oe.step()

    def st():
        ot.zero_grad()
        lt(t(xt), yt).backward()
        ot.step()
    return se, st


def _labels(n, k):
    lab = np.random.default_rng(0).integers(0, k, n)
    return lambda m: m.from_numpy(lab.copy())


def train_lenet():
    e, t = _pair(lenet)
    x = np.random.default_rng(0).standard_normal((64, 1, 28, 28)).astype(np.float32)
    se, st = _step_fns(e, t, x, _labels(64, 10), lambda m: m.nn.CrossEntropyLoss())
    compare('LeNet5 train step 64x1x28x28', {'ember': se, 'torch': st}, number=5, rounds=5,
            target=1.5)


def train_resnet():
    e, t = _pair(resnet)
    x = np.random.default_rng(0).standard_normal((32, 3, 32, 32)).astype(np.float32)
    se, st = _step_fns(e, t, x, _labels(32, 10), lambda m: m.nn.CrossEntropyLoss())
    compare('ResNet-style train step 32x3x32x32', {'ember': se, 'torch': st}, number=2,
            rounds=5, target=1.5)


class _LastStep:
    """``m.nn.Module`` factory: LSTM followed by a linear head on the last step."""

    def __init__(self, m, kind):
        nn = m.nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                if kind == 'lstm':
                    self.body = nn.LSTM(256, 256, num_layers=2)
                else:
                    layer = nn.TransformerEncoderLayer(128, 4, dim_feedforward=512,
                                                       batch_first=True, dropout=0.0)
                    self.body = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
                self.head = nn.Linear(256 if kind == 'lstm' else 128, 10)

            def forward(self, x):
                y = self.body(x)
                if isinstance(y, tuple):
                    y = y[0]
                return self.head(y[-1] if kind == 'lstm' else y[:, -1])
        self.net = Net()


def train_lstm():
    e, t = _pair(lambda m: _LastStep(m, 'lstm').net)
    x = np.random.default_rng(0).standard_normal((35, 32, 256)).astype(np.float32)
    se, st = _step_fns(e, t, x, _labels(32, 10), lambda m: m.nn.CrossEntropyLoss())
    compare('2-layer LSTM(256) train step seq35 b32', {'ember': se, 'torch': st}, number=2,
            rounds=5, target=2.0)


def train_transformer():
    e, t = _pair(lambda m: _LastStep(m, 'tf').net)
    x = np.random.default_rng(0).standard_normal((16, 64, 128)).astype(np.float32)
    se, st = _step_fns(e, t, x, _labels(16, 10), lambda m: m.nn.CrossEntropyLoss())
    compare('TransformerEncoder(128,4h,2L) step s64 b16', {'ember': se, 'torch': st},
            number=2, rounds=5, target=1.5)


def conv_fwd():
    ce, ct = _pair(lambda m: m.nn.Conv2d(64, 64, 3, padding=1))
    x = np.random.default_rng(0).standard_normal((16, 64, 56, 56)).astype(np.float32)
    xe, xt = ember.from_numpy(x), torch.from_numpy(x)
    with ember.no_grad(), torch.no_grad():
        compare('conv2d 3x3 64->64 16x64x56x56 fwd', {'ember': lambda: ce(xe),
                                                     'torch': lambda: ct(xt)},
                number=1, rounds=3, target=2.0)


def lenet_memory():
    """Peak memory of the LeNet training step: in a fresh child process per library, after
    imports and model construction, the kernel's peak-RSS mark is reset
    (``/proc/self/clear_refs``), five steps run, and the growth of the peak over the RSS at
    the reset is reported: the step's working set, whether a library frees it between steps
    (NumPy) or keeps it cached (torch's allocator); import footprints do not count."""
    import subprocess
    code = r'''
import os, sys, numpy as np
sys.path.insert(0, %r)
lib = sys.argv[1]
if lib == 'torch':
    import torch as m; m.set_num_threads(1)
else:
    import ember as m
import bench_layers as B

def kb(field):
    for line in open('/proc/self/status'):
        if line.startswith(field):
            return int(line.split()[1])

net = B.lenet(m)
x = m.from_numpy(np.random.default_rng(0).standard_normal((64, 1, 28, 28)).astype(np.float32))
y = m.from_numpy(np.random.default_rng(0).integers(0, 10, 64))
opt = m.optim.SGD(net.parameters(), lr=0.01)
loss = m.nn.CrossEntropyLoss()
def step():
    opt.zero_grad(); loss(net(x), y).backward(); opt.step()
with open('/proc/self/clear_refs', 'w') as f:
    f.write('5')
base = kb('VmRSS:')
for _ in range(5):
    step()
print(kb('VmHWM:') - base)
''' % os.path.dirname(os.path.abspath(__file__))
    out = {}
    for lib in ('ember', 'torch'):
        r = subprocess.run([sys.executable, '-c', code, lib], capture_output=True, text=True,
                           env=dict(os.environ, OMP_NUM_THREADS='1'))
        if r.returncode:
            raise RuntimeError(r.stderr)
        out[lib] = max(int(r.stdout.split()[-1]), 1) / 1024
    print(f"{'LeNet5 step peak RSS growth (MB)':<44} ember={out['ember']:.1f}  "
          f"torch={out['torch']:.1f}  ember/torch = {out['ember'] / out['torch']:5.2f}x  "
          f"(target <= 2.0x)")


if __name__ == '__main__':
    for w in (sys.argv[1:] or ['conv_fwd', 'train_lenet', 'train_resnet', 'train_lstm',
                               'train_transformer', 'lenet_memory']):
        globals()[w]()
