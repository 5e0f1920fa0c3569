"""lightning: Trainer.fit for two epochs, validate, predict (a linear regression)."""
import torch

import _torchvision_schemas  # noqa: E402,F401  (the oracle's torchvision schemas)

import lightning as L  # noqa: E402


class Reg(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 1)

    def training_step(self, batch, i):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.lin(x), y)
        self.log('loss', loss)
        return loss

    def validation_step(self, batch, i):
        x, y = batch
        self.log('val_loss', torch.nn.functional.mse_loss(self.lin(x), y))

    def predict_step(self, batch, i):
        return self.lin(batch[0])

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


torch.manual_seed(0)
ds = torch.utils.data.TensorDataset(torch.randn(16, 4), torch.randn(16, 1))
dl = torch.utils.data.DataLoader(ds, batch_size=4)
tr = L.Trainer(max_epochs=2, accelerator='cpu', logger=False, enable_checkpointing=False,
               enable_progress_bar=False, enable_model_summary=False)
m = Reg()
tr.fit(m, dl)
print('@weight', f"{m.lin.weight.sum().item():.6f}")
print('@val', f"{tr.validate(m, dl, verbose=False)[0]['val_loss']:.6f}")
print('@predict', f"{torch.cat(tr.predict(m, dl)).sum().item():.5f}")
