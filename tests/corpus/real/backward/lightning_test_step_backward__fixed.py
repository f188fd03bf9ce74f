# source: https://github.com/Lightning-AI/pytorch-lightning/issues/19910
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class KalmanNetModule(nn.Module):
    """test_step refines the state estimate with a few gradient steps"""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))

    def test_step(self, batch, batch_idx):
        obs, state = batch
        with torch.enable_grad():  # turn autograd back on inside the eval loop
            estimate = self.net(obs)
            loss = F.mse_loss(estimate, state)
            self.net.zero_grad()
            loss.backward()
        correction = self.net[0].weight.grad.norm()
        return {"test_loss": loss.item(), "correction": correction.item()}


class Trainer:
    def test(self, model, dataloaders):
        model.eval()
        outputs = []
        with torch.no_grad():
            for batch_idx, batch in enumerate(dataloaders):
                outputs.append(model.test_step(batch, batch_idx))
        return outputs


test_data = [(torch.randn(5, 4), torch.randn(5, 4)) for _ in range(2)]
print(Trainer().test(KalmanNetModule(), test_data))
