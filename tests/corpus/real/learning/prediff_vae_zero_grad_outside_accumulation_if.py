# source: https://github.com/gaozhihan/PreDiff/issues/32
# expect: silent: g_opt.zero_grad() (and d_opt.zero_grad()) run on every batch before manual_backward, while the optimizers step only every accumulate_grad_batches batches: each step applies the last micro-batch's gradients alone
# buggy-line: 46
# also-line: 54
# mechanism: zero_grad() on every iteration before that iteration's backward, step() only under (batch_idx + 1) % accumulate_grad_batches == 0, in a manual-optimization training_step a trainer loop calls
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
        g_opt.zero_grad()
        self.manual_backward(aeloss)
        if (batch_idx + 1) % self.accumulate_grad_batches == 0:
            self.applied.append(self.torch_nn_module[0].weight.grad.clone())
            g_opt.step()

        # train the discriminator
        discloss = F.softplus(-self.discriminator(target_bchw)).mean() + F.softplus(self.discriminator(pred_bchw.detach())).mean()
        d_opt.zero_grad()
        self.manual_backward(discloss)
        if (batch_idx + 1) % self.accumulate_grad_batches == 0:
            d_opt.step()


torch.manual_seed(0)
pl_module = VAESEVIRPLModule(accumulate_grad_batches=2)
batches = [torch.randn(4, 8) for _ in range(4)]
for batch_idx, batch in enumerate(batches):  # what trainer.fit runs
    pl_module.training_step(batch, batch_idx)

# the effect: the first generator step applies batch 1's gradient alone, not batches 0 and 1
pl_module.torch_nn_module.zero_grad()
for batch in batches[:2]:
    pred = pl_module(batch)
    (F.mse_loss(pred, batch) - pl_module.discriminator(pred).mean()).backward()
assert not torch.allclose(pl_module.applied[0], pl_module.torch_nn_module[0].weight.grad)
