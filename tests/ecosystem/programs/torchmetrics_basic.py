"""torchmetrics: classification metrics, a regression metric, a MetricCollection, updated
over batches."""
import torch

import _torchvision_schemas  # noqa: E402,F401  (the oracle's torchvision schemas)

import torchmetrics  # noqa: E402

torch.manual_seed(0)
acc = torchmetrics.classification.MulticlassAccuracy(num_classes=3)
col = torchmetrics.MetricCollection([torchmetrics.classification.MulticlassF1Score(num_classes=3),
                                     torchmetrics.classification.MulticlassPrecision(
                                         num_classes=3)])
mse = torchmetrics.MeanSquaredError()
for _ in range(3):
    p, t = torch.randn(10, 3), torch.randint(0, 3, (10,))
    acc.update(p, t)
    col.update(p, t)
    mse.update(torch.randn(5), torch.randn(5))
print('@acc', f"{acc.compute().item():.6f}")
for k, v in sorted(col.compute().items()):
    print('@' + k, f"{v.item():.6f}")
print('@mse', f"{mse.compute().item():.6f}")
