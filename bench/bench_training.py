"""Training speed (issue 9): `python bench/bench_training.py [workload ...]`.

Run with ``env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OMP_NUM_THREADS=1`` on this machine.

- mlp: MLP 784-512-256-10 training step, batch 128, CrossEntropyLoss, SGD(momentum=0.9): <= 1.2x torch
- adam: Adam.step() on a ~10M-parameter model, gradients already populated: <= 1.5x torch
- loader: one epoch of DataLoader over a 50k x 784 float32 TensorDataset, batch 256,
  shuffle=True, num_workers=0: <= 1.5x torch
- workers: ember DataLoader, dataset whose __getitem__ costs 1 ms, num_workers=2 vs 0:
  >= 1.6x faster
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
os.environ.setdefault('OMP_NUM_THREADS', '1')

import torch  # noqa: E402

import ember  # noqa: E402
from _runner import compare  # noqa: E402

torch.set_num_threads(1)


def mlp():
    def setup(m):
        m.manual_seed(0)
        net = m.nn.Sequential(m.nn.Linear(784, 512), m.nn.ReLU(), m.nn.Linear(512, 256), m.nn.ReLU(),
                              m.nn.Linear(256, 10))
        opt = m.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
        lossf = m.nn.CrossEntropyLoss()
        x, y = m.randn(128, 784), m.randint(0, 10, (128,))

        def step():
            opt.zero_grad()
            lossf(net(x), y).backward()
            opt.step()
        return step
    compare('MLP 784-512-256-10 train step, b=128, SGD mom', {'ember': setup(ember), 'torch': setup(torch)},
            number=20, target=1.2)


def adam():
    def setup(m):
        m.manual_seed(0)
        # 4 x Linear(1580, 1580) ~= 4 x 2.5M = 10.0M params
        net = m.nn.Sequential(*[m.nn.Linear(1580, 1580) for _ in range(4)])
        opt = m.optim.Adam(net.parameters(), lr=1e-3)
        for p in net.parameters():
            p.grad = m.randn(p.shape)
        return opt.step
    n = sum(p.numel() for p in setup(torch).__self__.param_groups[0]['params'])
    compare(f'Adam.step(), {n / 1e6:.1f}M params', {'ember': setup(ember), 'torch': setup(torch)},
            number=5, rounds=5, target=1.5)


def loader():
    def setup(m):
        m.manual_seed(0)
        ds = m.utils.data.TensorDataset(m.randn(50000, 784), m.randint(0, 10, (50000,)))
        dl = m.utils.data.DataLoader(ds, batch_size=256, shuffle=True, num_workers=0)

        def epoch():
            for _ in dl:
                pass
        return epoch
    compare('DataLoader epoch 50k x 784, b=256, shuffle', {'ember': setup(ember), 'torch': setup(torch)},
            number=1, rounds=5, target=1.5)


class _Slow(ember.utils.data.Dataset):
    def __len__(self):
        return 1000

    def __getitem__(self, i):
        time.sleep(0.001)
        return ember.tensor([float(i)])


def workers():
    def epoch(nw):
        dl = ember.utils.data.DataLoader(_Slow(), batch_size=16, num_workers=nw)

        def run():
            for _ in dl:
                pass
        return run
    r = compare('ember DataLoader 1ms/item, workers=2 (ember) vs 0', {'ember': epoch(2), 'nw0': epoch(0)},
                ref='nw0', number=1, rounds=3)
    print(f"{'':44} speed-up of num_workers=2 over 0: {1 / r:.2f}x  (target >= 1.6x)", flush=True)


if __name__ == '__main__':
    for w in (sys.argv[1:] or ['mlp', 'adam', 'loader', 'workers']):
        globals()[w]()
