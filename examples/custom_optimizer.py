"""Seed 004's custom optimizer: ``SimpleSGD`` subclasses ``torch.optim.Optimizer`` (param
groups, ``defaults``, ``step``) and trains a small regression model, next to the built-in
SGD on the same model. Run ``python examples/custom_optimizer.py`` (``--use-torch``: on
PyTorch; ember runs the book's code unchanged, PyTorch needs ``no_grad`` in ``step``).
"""
import sys


def run(torch, steps=50):
    nn = torch.nn
    Optimizer = torch.optim.Optimizer

    class SimpleSGD(Optimizer):
        def __init__(self, params, lr='required'):
            if lr != 'required' and lr < 0.0:
                raise ValueError("Invalid learning rate: {}".format(lr))
            defaults = dict(lr=lr)
            super(SimpleSGD, self).__init__(params, defaults)

        def step(self):
            with torch.no_grad():   # (the book's code omits it; PyTorch needs it)
                for group in self.param_groups:
                    for p in group['params']:
                        if p.grad is None:
                            continue
                        d_p = p.grad
                        p.add_(d_p, alpha=-group['lr'])

    torch.manual_seed(0)
    x = torch.randn(64, 3)
    y = x @ torch.tensor([[1.5], [-2.0], [0.5]]) + 0.3
    out = {}
    for name in ('SimpleSGD', 'SGD'):
        torch.manual_seed(1)
        model = nn.Linear(3, 1)
        opt = SimpleSGD(model.parameters(), lr=0.1) if name == 'SimpleSGD' else \
            torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(steps):
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
        out[name] = (loss.item(), model.weight.detach().reshape(-1).tolist())
    return out


if __name__ == '__main__':
    if '--use-torch' in sys.argv:
        import torch
    else:
        import ember as torch
    for name, (loss, w) in run(torch).items():
        print(f"{name:10s} final loss {loss:.6f} weights {[round(v, 4) for v in w]}")
