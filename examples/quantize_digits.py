"""Quantize the README's digits CNN three ways with ember: dynamic, post-training static and
quantization-aware training (QAT), next to the float model.

The program trains the LeNet-style CNN of ``examples/train_digits.py`` on scikit-learn's 8x8
digits (with a ``QuantStub``/``DeQuantStub`` pair around it, which static quantization needs),
then

* **dynamic**: ``quantize_dynamic(model, {nn.Linear}, dtype=qint8)``: int8 linear weights,
  activations quantized on the fly;
* **static**: fuse conv+relu and linear+relu, ``qconfig = get_default_qconfig('x86')``,
  ``prepare``, calibrate on training batches, ``convert``: int8 weights and activations;
* **QAT**: fuse for QAT, ``get_default_qat_qconfig('x86')``, ``prepare_qat``, fine-tune a few
  epochs with fake-quantized weights and activations, ``convert``;

and prints, for each model, its size on disk (``save`` of the ``state_dict``), its test
accuracy and its inference latency (best of several passes over the test set).

The program is plain PyTorch code: ``import ember as torch`` is the only change (run it with
``--use-torch`` to run the same code on PyTorch).

Usage::

    python examples/quantize_digits.py                 # 20 epochs float, 3 epochs QAT
    python examples/quantize_digits.py --epochs 5 --qat-epochs 1

Needs scikit-learn (the ``examples`` extra): ``pip install -e '.[examples]'``.
"""
import argparse
import copy
import io
import os
import time
import warnings

import numpy as np


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--epochs', type=int, default=20, help='float training epochs (default: 20)')
    p.add_argument('--qat-epochs', type=int, default=3, help='QAT fine-tuning epochs (default: 3)')
    p.add_argument('--batch-size', type=int, default=64, help='batch size (default: 64)')
    p.add_argument('--lr', type=float, default=3e-3, help='peak learning rate (default: 3e-3)')
    p.add_argument('--calib-batches', type=int, default=8,
                   help='training batches run through the observers (default: 8)')
    p.add_argument('--repeats', type=int, default=5,
                   help='timed passes over the test set, best kept (default: 5)')
    p.add_argument('--seed', type=int, default=0, help='random seed (default: 0)')
    p.add_argument('--use-torch', action='store_true', help='run the same code on PyTorch')
    return p.parse_args(argv)


def build_model(torch):
    nn = torch.nn
    tq = torch.ao.quantization

    class QuantLeNet(nn.Module):
        """The README's CNN for 8x8 digits, between a QuantStub and a DeQuantStub."""

        def __init__(self, num_classes=10):
            super().__init__()
            self.quant = tq.QuantStub()
            self.features = nn.Sequential(
                nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            )
            self.classifier = nn.Sequential(
                nn.Flatten(), nn.Linear(32 * 2 * 2, 64), nn.ReLU(), nn.Dropout(0.25),
                nn.Linear(64, num_classes),
            )
            self.dequant = tq.DeQuantStub()

        def forward(self, x):
            return self.dequant(self.classifier(self.features(self.quant(x))))

    return QuantLeNet()


# conv+relu and linear+relu runs of QuantLeNet, fused before static quantization and QAT
FUSE = [['features.0', 'features.1'], ['features.3', 'features.4'],
        ['classifier.1', 'classifier.2']]


def load_data(torch, seed):
    from sklearn.datasets import load_digits
    digits = load_digits()
    x = torch.tensor(digits.images.astype(np.float32) / 16.0).unsqueeze(1)   # (N, 1, 8, 8)
    y = torch.tensor(digits.target.astype(np.int64))
    full = torch.utils.data.TensorDataset(x, y)
    return torch.utils.data.random_split(full, [0.9, 0.1],
                                         generator=torch.Generator().manual_seed(seed))


def train(torch, model, loader, epochs, lr):
    """Adam with a OneCycle schedule over ``epochs`` (the README's recipe)."""
    if epochs <= 0:
        return model
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, epochs=epochs,
                                                steps_per_epoch=len(loader))
    loss_fn = torch.nn.CrossEntropyLoss()
    for _ in range(epochs):
        model.train()
        for xb, yb in loader:
            opt.zero_grad()
            loss_fn(model(xb), yb).backward()
            opt.step()
            sched.step()
    return model


def accuracy(torch, model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for xb, yb in loader:
            correct += (model(xb).argmax(1) == yb).sum().item()
            total += yb.numel()
    return correct / total


def latency_ms(torch, model, batches, repeats):
    """Best wall time (ms) of one pass over ``batches``."""
    model.eval()
    best = float('inf')
    with torch.no_grad():
        for _ in range(repeats):
            t0 = time.perf_counter()
            for xb in batches:
                model(xb)
            best = min(best, time.perf_counter() - t0)
    return best * 1e3


def size_bytes(torch, model):
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    return len(buf.getvalue())


def quantize_all(torch, model, train_loader, args):
    """The dynamic, static and QAT versions of the trained float ``model``."""
    nn, tq = torch.nn, torch.ao.quantization
    models = {'float': model}
    models['dynamic'] = tq.quantize_dynamic(copy.deepcopy(model), {nn.Linear},
                                            dtype=torch.qint8)

    static = tq.fuse_modules(copy.deepcopy(model).eval(), FUSE)
    static.qconfig = tq.get_default_qconfig('x86')
    tq.prepare(static, inplace=True)
    with torch.no_grad():                    # calibration: the observers see training data
        for i, (xb, _) in enumerate(train_loader):
            if i >= args.calib_batches:
                break
            static(xb)
    models['static'] = tq.convert(static)

    qat = tq.fuse_modules_qat(copy.deepcopy(model).train(), FUSE)
    qat.qconfig = tq.get_default_qat_qconfig('x86')
    tq.prepare_qat(qat, inplace=True)
    train(torch, qat, train_loader, args.qat_epochs, args.lr / 10)
    models['qat'] = tq.convert(qat.eval())
    return models


def main(argv=None):
    args = parse_args(argv)
    if args.use_torch:
        import torch
    else:
        import ember as torch
    torch.manual_seed(args.seed)
    train_set, test_set = load_data(torch, args.seed)
    train_loader = torch.utils.data.DataLoader(
        train_set, batch_size=args.batch_size, shuffle=True,
        generator=torch.Generator().manual_seed(args.seed))
    test_loader = torch.utils.data.DataLoader(test_set, batch_size=256)
    model = train(torch, build_model(torch), train_loader, args.epochs, args.lr).eval()

    with warnings.catch_warnings():          # eager quantization is deprecated in torch 2.13
        warnings.simplefilter('ignore')
        models = quantize_all(torch, model, train_loader, args)

    batches = [xb for xb, _ in test_loader]
    results = {}
    print(f"{'PyTorch' if args.use_torch else 'ember'}: {len(train_set)} train / "
          f"{len(test_set)} test images")
    print(f"{'model':8s} {'size (KB)':>10s} {'accuracy':>9s} {'latency (ms)':>13s}")
    for name, m in models.items():
        res = {'size': size_bytes(torch, m), 'accuracy': accuracy(torch, m, test_loader),
               'latency_ms': latency_ms(torch, m, batches, args.repeats)}
        results[name] = res
        print(f"{name:8s} {res['size'] / 1024:10.1f} {100 * res['accuracy']:8.1f}% "
              f"{res['latency_ms']:13.2f}")
    return results, models


if __name__ == '__main__':
    main()
