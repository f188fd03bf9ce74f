# source: https://github.com/gaozhihan/PreDiff/issues/32
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class LightningModule(nn.Module):
    """The part of pytorch_lightning.LightningModule this script uses (manual optimization)."""

    def optimizers(self):
        return self._optimizers

    def manual_backward(self, loss):
        loss.backward()


class VAESEVIRPLModule(LightningModule):
    def __init__(self, accumulate_grad_batches=2):
        super().__init__()
        self.accumulate_grad_batches = accumulate_grad_batches
        self.automatic_optimization = False
        self.torch_nn_module = nn.Sequential(nn.Linear(8, 4), nn.ReLU(), nn.Linear(4, 8))
        self.discriminator = nn.Linear(8, 1)
        self._optimizers = self.configure_optimizers()
        self.applied = []

    def configure_optimizers(self):
        g_opt = torch.optim.AdamW(self.torch_nn_module.parameters(), lr=0.0)
        d_opt = torch.optim.AdamW(self.discriminator.parameters(), lr=0.0)
        return g_opt, d_opt

    def forward(self, target_bchw):
        return self.torch_nn_module(target_bchw)

    def training_step(self, batch, batch_idx):
        g_opt, d_opt = self.optimizers()
        target_bchw = batch
        pred_bchw = self(target_bchw)

        # train encoder+decoder+logvar
        aeloss = F.mse_loss(pred_bchw, target_bchw) - self.discriminator(pred_bchw).mean()
        self.manual_backward(aeloss / self.accumulate_grad_batches)
        if (batch_idx + 1) % self.accumulate_grad_batches == 0:
            self.applied.append(self.torch_nn_module[0].weight.grad.clone())
            g_opt.step()
            g_opt.zero_grad()

        # train the discriminator
        discloss = F.softplus(-self.discriminator(target_bchw)).mean() + F.softplus(self.discriminator(pred_bchw.detach())).mean()
        self.manual_backward(discloss / self.accumulate_grad_batches)
        if (batch_idx + 1) % self.accumulate_grad_batches == 0:
            d_opt.step()
            d_opt.zero_grad()


torch.manual_seed(0)
pl_module = VAESEVIRPLModule(accumulate_grad_batches=2)
batches = [torch.randn(4, 8) for _ in range(4)]
for batch_idx, batch in enumerate(batches):  # what trainer.fit runs
    pl_module.training_step(batch, batch_idx)

pl_module.torch_nn_module.zero_grad()
for batch in batches[:2]:
    pred = pl_module(batch)
    ((F.mse_loss(pred, batch) - pl_module.discriminator(pred).mean()) / 2).backward()
assert torch.allclose(pl_module.applied[0], pl_module.torch_nn_module[0].weight.grad)
