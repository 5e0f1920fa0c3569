"""Per-layer learning rates (seeds 002 and 004): parameter groups give the pretrained
feature layers a small learning rate and the new classifier a large one; a scheduler then
scales every group. Run ``python examples/per_layer_lr.py`` (``--use-torch``: on PyTorch).
"""
import sys


def run(torch, steps=30):
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(8 * 4 * 4, 10))
    features, classifier = model[0], model[4]
    optimizer = torch.optim.SGD([
        {'params': features.parameters(), 'lr': 1e-3},
        {'params': classifier.parameters()},      # takes the default lr below
    ], lr=1e-1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
    x = torch.randn(32, 1, 8, 8)
    y = torch.randint(0, 10, (32,))
    lrs = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        lrs.append([g['lr'] for g in optimizer.param_groups])
    return lrs, loss.item()


if __name__ == '__main__':
    if '--use-torch' in sys.argv:
        import torch
    else:
        import ember as torch
    lrs, loss = run(torch)
    print(f"learning rates at the end: features {lrs[-1][0]:.2e}, classifier {lrs[-1][1]:.2e}; "
          f"final loss {loss:.4f}")
