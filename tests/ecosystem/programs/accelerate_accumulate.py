"""accelerate: prepare a model and optimizer, gradient accumulation over 2 steps."""
import torch
from accelerate import Accelerator

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
acc = Accelerator(cpu=True, gradient_accumulation_steps=2)
model, opt = acc.prepare(model, opt)
x, y = torch.randn(8, 4), torch.randn(8, 2)
for i in range(4):
    with acc.accumulate(model):
        loss = torch.nn.functional.mse_loss(model(x[2 * i:2 * i + 2]), y[2 * i:2 * i + 2])
        acc.backward(loss)
        opt.step()
        opt.zero_grad()
    print('@loss', i, f"{loss.item():.6f}")
print('@weight', f"{model.weight.sum().item():.6f}")
