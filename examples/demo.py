"""A short tour of ember: tensors, views, autograd, a custom autograd.Function.

Run: python examples/demo.py   (the same script runs with `import torch` instead)
"""
import ember as torch

torch.manual_seed(0)

# tensors and views share storage
x = torch.arange(6.).reshape(2, 3)
v = x.t()
v[0, 1] = 10.
print(x)
print('contiguous after t():', v.is_contiguous(), ' strides:', v.stride())

# autograd
w = torch.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
b = torch.zeros(1, requires_grad=True)
inp = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
target = torch.tensor([[1.], [0.]])
lr = 0.01
for step in range(5):
    out = (inp @ w.t() + b).sigmoid()
    loss = ((out - target) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    print(f'step {step}: loss {loss.item():.6f}')
print('loss grad_fn:', loss.grad_fn)

# higher-order derivative: d2/dx2 tanh(x) = -2 tanh(x) (1 - tanh(x)^2)
t = torch.tensor(0.5, requires_grad=True)
(g,) = torch.autograd.grad(t.tanh(), t, create_graph=True)
(h,) = torch.autograd.grad(g, t)
print('tanh\'\'(0.5) =', round(h.item(), 6))


# a custom autograd.Function
class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx, grad_output):
        (a,) = ctx.saved_tensors
        return 2 * a * grad_output


a = torch.tensor([1., 2., 3.], requires_grad=True)
Square.apply(a).sum().backward()
print('custom Function grad:', a.grad)
