"""Seed 000's first training loop: a two-layer network learns to output zero.

A custom ``Linear`` (``nn.Parameter`` weights), ``F.relu``, an SGD optimizer with momentum
and weight decay, and the classic loop: forward, loss, ``zero_grad``, ``backward``,
``step``. Run ``python examples/learn_zero.py``; ``--use-torch`` runs it on PyTorch.
"""
import sys


def run(torch, steps=300):
    nn, F = torch.nn, torch.nn.functional

    class MyLinear(nn.Module):
        def __init__(self, in_features, out_features):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(in_features, out_features))
            self.bias = nn.Parameter(torch.randn(out_features))

        def forward(self, input):
            return (input @ self.weight) + self.bias

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.l0 = MyLinear(4, 3)
            self.l1 = MyLinear(3, 1)

        def forward(self, x):
            return self.l1(F.relu(self.l0(x)))

    torch.manual_seed(0)
    net = Net()
    optimizer = torch.optim.SGD(net.parameters(), lr=1e-2, weight_decay=1e-2, momentum=0.9)
    probe = torch.randn(64, 4)
    losses = []
    for _ in range(steps):
        output = net(torch.randn(4))
        loss = torch.abs(output)
        net.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    with torch.no_grad():
        mean_abs = net(probe).abs().mean().item()
    return losses, mean_abs


if __name__ == '__main__':
    if '--use-torch' in sys.argv:
        import torch
    else:
        import ember as torch
    losses, mean_abs = run(torch)
    print(f"first loss {losses[0]:.4f}, last loss {losses[-1]:.4f}, "
          f"mean |output| on new inputs {mean_abs:.4f}")
