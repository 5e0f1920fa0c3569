"""Seed 002's custom ``autograd.Function``: a linear layer with a hand-written backward,
checked with ``gradcheck`` in float64 and trained as part of a model. Run
``python examples/custom_function.py`` (``--use-torch``: on PyTorch).
"""
import sys


def run(torch, steps=100):
    Function = torch.autograd.Function

    class LinearFunction(Function):
        @staticmethod
        def forward(ctx, input, weight, bias=None):
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    class MyLinear(torch.nn.Module):
        def __init__(self, n_in, n_out):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.randn(n_out, n_in) * 0.1)
            self.bias = torch.nn.Parameter(torch.zeros(n_out))

        def forward(self, x):
            return LinearFunction.apply(x, self.weight, self.bias)

    torch.manual_seed(0)
    args = (torch.randn(5, 3, dtype=torch.float64, requires_grad=True),
            torch.randn(2, 3, dtype=torch.float64, requires_grad=True),
            torch.randn(2, dtype=torch.float64, requires_grad=True))
    ok = torch.autograd.gradcheck(LinearFunction.apply, args)
    model = torch.nn.Sequential(MyLinear(4, 8), torch.nn.Tanh(), MyLinear(8, 1))
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    x = torch.randn(128, 4)
    y = (x ** 2).sum(1, keepdim=True)
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
    return ok, loss.item()


if __name__ == '__main__':
    if '--use-torch' in sys.argv:
        import torch
    else:
        import ember as torch
    ok, loss = run(torch)
    print(f"gradcheck passed: {ok}; final training loss {loss:.4f}")
