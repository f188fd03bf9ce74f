# source: https://github.com/pytorch/torchtitan/pull/3575
# expect: silent: fwd_bwd clears the gradients of the earlier micro-batches: optim_step applies the last one's only
# buggy-line: 15
# mechanism: zero_grad() in the per-micro-batch forward/backward method; the optimizer step runs once after all micro-batches
import torch
import torch.nn as nn


class PolicyTrainer:
    def __init__(self, model, lr=0.0):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)

    def fwd_bwd(self, microbatch):
        self.optimizer.zero_grad()
        obs, advantages = microbatch
        logprobs = torch.log_softmax(self.model(obs), dim=-1)[:, 0]
        loss = -(logprobs * advantages).mean()
        loss.backward()
        return loss.item()

    def optim_step(self):
        grad = self.model.weight.grad.clone()
        self.optimizer.step()
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
assert not torch.allclose(applied, model.weight.grad)  # earlier micro-batches were wiped
