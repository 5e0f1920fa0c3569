"""Train a LeNet-style CNN on scikit-learn's 8x8 handwritten digits with ember.

The program is plain PyTorch code: ``import ember as torch`` is the only change (run it
with ``--use-torch`` to run the same code on PyTorch, if installed). It splits the 1,797
images into train/validation/test sets with ``random_split``, feeds them through
``DataLoader``s, trains with Adam and a OneCycle learning-rate schedule, shows a progress
bar per epoch with the running loss, checks the validation accuracy after every epoch,
saves a checkpoint (model, optimizer, scheduler, epoch, history) every epoch, can resume
from it (``--resume``), plots the loss and accuracy curves to a PNG, and reports the test
accuracy at the end.

Usage::

    python examples/train_digits.py                  # 20 epochs, results in ./runs/digits
    python examples/train_digits.py --epochs 5 --out /tmp/run
    python examples/train_digits.py --stop-after 5   # train 5 of the 20 epochs, then stop
    python examples/train_digits.py --resume         # continue from the last checkpoint

Needs the ``examples`` extra (scikit-learn for the data set, tqdm, matplotlib):
``pip install -e '.[examples]'``.
"""
import argparse
import os
import sys
import time

import numpy as np


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--epochs', type=int, default=20, help='epochs to train (default: 20)')
    p.add_argument('--batch-size', type=int, default=64, help='batch size (default: 64)')
    p.add_argument('--lr', type=float, default=3e-3, help='peak learning rate (default: 3e-3)')
    p.add_argument('--device', default='cpu', help="device (default: 'cpu')")
    p.add_argument('--seed', type=int, default=0, help='random seed (default: 0)')
    p.add_argument('--out', default=os.path.join('runs', 'digits'),
                   help='output folder for the checkpoint and the plot (default: runs/digits)')
    p.add_argument('--resume', action='store_true', help='continue from the checkpoint in --out')
    p.add_argument('--use-torch', action='store_true', help='run the same code on PyTorch')
    p.add_argument('--no-progress', action='store_true', help='no progress bars')
    p.add_argument('--stop-after', type=int, default=None,
                   help='train at most this many epochs in this run (resume later)')
    return p.parse_args(argv)


def build_model(torch):
    nn = torch.nn

    class LeNet(nn.Module):
        """Two conv/pool stages and a two-layer classifier, sized for 8x8 inputs."""

        def __init__(self, num_classes=10):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            )
            self.classifier = nn.Sequential(
                nn.Flatten(), nn.Linear(32 * 2 * 2, 64), nn.ReLU(), nn.Dropout(0.25),
                nn.Linear(64, num_classes),
            )

        def forward(self, x):
            return self.classifier(self.features(x))

    return LeNet()


def load_data(torch, seed):
    from sklearn.datasets import load_digits
    TensorDataset, random_split = torch.utils.data.TensorDataset, torch.utils.data.random_split
    digits = load_digits()
    x = torch.tensor(digits.images.astype(np.float32) / 16.0).unsqueeze(1)   # (N, 1, 8, 8)
    y = torch.tensor(digits.target.astype(np.int64))
    full = TensorDataset(x, y)
    return random_split(full, [0.8, 0.1, 0.1], generator=torch.Generator().manual_seed(seed))


def evaluate(torch, model, loader, device):
    model.eval()
    correct = total = 0
    loss_sum = 0.0
    with torch.no_grad():
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            out = model(xb)
            loss_sum += torch.nn.functional.cross_entropy(out, yb, reduction='sum').item()
            correct += (out.argmax(1) == yb).sum().item()
            total += yb.numel()
    return loss_sum / total, correct / total


def plot(history, path):
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    ep = range(1, len(history['train_loss']) + 1)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    a1.plot(ep, history['train_loss'], label='train')
    a1.plot(ep, history['val_loss'], label='validation')
    a1.set_xlabel('epoch')
    a1.set_ylabel('cross-entropy loss')
    a1.legend()
    a2.plot(ep, [100 * a for a in history['val_acc']], label='validation')
    a2.set_xlabel('epoch')
    a2.set_ylabel('accuracy (%)')
    a2.legend()
    fig.suptitle('LeNet on 8x8 digits')
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None):
    args = parse_args(argv)
    if args.use_torch:
        import torch
    else:
        import ember as torch
    DataLoader = torch.utils.data.DataLoader   # (``from torch.utils...`` would import torch)
    from tqdm import tqdm

    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    ckpt_path = os.path.join(args.out, 'checkpoint.pt')
    plot_path = os.path.join(args.out, 'training.png')

    train_set, val_set, test_set = load_data(torch, args.seed)
    shuffle_gen = torch.Generator().manual_seed(args.seed)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                              generator=shuffle_gen)
    val_loader = DataLoader(val_set, batch_size=256)
    test_loader = DataLoader(test_set, batch_size=256)

    device = torch.device(args.device)
    model = build_model(torch).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=args.lr, epochs=args.epochs, steps_per_epoch=len(train_loader))
    criterion = torch.nn.CrossEntropyLoss()
    history = {'train_loss': [], 'val_loss': [], 'val_acc': []}
    start_epoch = 0

    if args.resume:
        if not os.path.exists(ckpt_path):
            sys.exit(f"--resume: no checkpoint at {ckpt_path}")
        ckpt = torch.load(ckpt_path, map_location=device)
        if ckpt['epochs'] != args.epochs:   # the schedule spans the whole run
            sys.exit(f"--resume: the checkpoint is of a {ckpt['epochs']}-epoch run; "
                     f"pass --epochs {ckpt['epochs']}")
        model.load_state_dict(ckpt['model'])
        optimizer.load_state_dict(ckpt['optimizer'])
        scheduler.load_state_dict(ckpt['scheduler'])
        history = ckpt['history']
        start_epoch = ckpt['epoch'] + 1
        torch.set_rng_state(ckpt['rng_state'])
        shuffle_gen.set_state(ckpt['shuffle_state'])
        print(f"resumed from {ckpt_path} after epoch {start_epoch}")

    print(f"{'PyTorch' if args.use_torch else 'ember'}: {len(train_set)} train / "
          f"{len(val_set)} validation / {len(test_set)} test images, "
          f"{sum(p.numel() for p in model.parameters())} parameters")
    t0 = time.time()
    end_epoch = args.epochs if args.stop_after is None else min(
        args.epochs, start_epoch + args.stop_after)
    for epoch in range(start_epoch, end_epoch):
        model.train()
        running, seen = 0.0, 0
        bar = tqdm(train_loader, desc=f"epoch {epoch + 1}/{args.epochs}", leave=False,
                   disable=args.no_progress)
        for xb, yb in bar:
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            scheduler.step()
            running += loss.item() * yb.numel()
            seen += yb.numel()
            bar.set_postfix(loss=f"{running / seen:.4f}")
        val_loss, val_acc = evaluate(torch, model, val_loader, device)
        history['train_loss'].append(running / seen)
        history['val_loss'].append(val_loss)
        history['val_acc'].append(val_acc)
        print(f"epoch {epoch + 1:3d}  train loss {running / seen:.4f}  "
              f"val loss {val_loss:.4f}  val acc {100 * val_acc:5.1f}%  "
              f"lr {scheduler.get_last_lr()[0]:.2e}")
        torch.save({'epoch': epoch, 'epochs': args.epochs, 'model': model.state_dict(),
                    'optimizer': optimizer.state_dict(), 'scheduler': scheduler.state_dict(),
                    'history': history, 'rng_state': torch.get_rng_state(),
                    'shuffle_state': shuffle_gen.get_state()}, ckpt_path)

    test_loss, test_acc = evaluate(torch, model, test_loader, device)
    print(f"test loss {test_loss:.4f}  test accuracy {100 * test_acc:.1f}%  "
          f"({time.time() - t0:.1f} s)")
    plot(history, plot_path)
    print(f"checkpoint: {ckpt_path}")
    print(f"plot: {plot_path}")
    return test_acc


if __name__ == '__main__':
    main()
