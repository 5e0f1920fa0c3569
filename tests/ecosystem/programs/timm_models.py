"""timm: a ResNet, a ViT and an EfficientNet (random init) forward and backward,
features_only, the optimizer and scheduler factories."""
import torch

import _torchvision_schemas  # noqa: E402,F401  (the oracle's torchvision schemas)

import timm  # noqa: E402
import timm.optim  # noqa: E402
import timm.scheduler  # noqa: E402

for name, kw in (('resnet18', {}), ('vit_tiny_patch16_224', {'img_size': 64}),
                 ('efficientnet_b0', {})):
    torch.manual_seed(0)
    m = timm.create_model(name, pretrained=False, num_classes=5, **kw)
    x = torch.randn(4, 3, 64, 64)
    m.eval()
    with torch.no_grad():
        print('@eval', name, f"{m(x).sum().item():.5f}")
    m.train()
    y = m(x)
    y.square().mean().backward()
    g = sum(p.grad.abs().sum() for p in m.parameters() if p.grad is not None)
    print('@train', name, f"{y.sum().item():.5f}", f"{g.item():.3f}")
torch.manual_seed(0)
f = timm.create_model('resnet18', pretrained=False, features_only=True).eval()
print('@features', *[s for o in f(torch.randn(1, 3, 64, 64)) for s in o.shape])
opt = timm.optim.create_optimizer_v2(m, 'adamw', lr=1e-3, weight_decay=0.05)
sched, epochs = timm.scheduler.create_scheduler_v2(opt, 'cosine', num_epochs=4, warmup_epochs=1)
lrs = []
for e in range(epochs):
    sched.step(e)
    lrs.append(opt.param_groups[0]['lr'])
print('@lrs', *[f"{v:.8f}" for v in lrs])
