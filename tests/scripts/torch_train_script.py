"""A plain PyTorch training script (it imports torch, never ember): tests/test_main.py runs
it under ``python -m ember run`` and under real PyTorch and compares what it prints."""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
x = torch.randn(256, 20)
y = (x[:, :5].sum(1) > 0).long()
loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
for epoch in range(4):
    total = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item() * len(yb)
    sched.step()
    print(f"epoch {epoch} loss {total / len(x):.6f}")
print("backend", type(torch.ones(1)).__module__.split('.')[0])
