# source: https://github.com/pytorch/torchtitan/pull/3575
# expect: clean
import torch
import torch.nn as nn


class PolicyTrainer:
    def __init__(self, model, lr=0.0):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)

    def fwd_bwd(self, microbatch):
        obs, advantages = microbatch
        logprobs = torch.log_softmax(self.model(obs), dim=-1)[:, 0]
        loss = -(logprobs * advantages).mean()
        loss.backward()
        return loss.item()

    def optim_step(self):
        grad = self.model.weight.grad.clone()
        self.optimizer.step()
        self.optimizer.zero_grad()
        return grad


model = nn.Linear(5, 3)
trainer = PolicyTrainer(model)
microbatches = [(torch.randn(4, 5), torch.randn(4)) for _ in range(3)]
for microbatch in microbatches:
    trainer.fwd_bwd(microbatch)
applied = trainer.optim_step()

model.zero_grad()
for obs, advantages in microbatches:
    (-(torch.log_softmax(model(obs), dim=-1)[:, 0] * advantages).mean()).backward()
assert torch.allclose(applied, model.weight.grad)
