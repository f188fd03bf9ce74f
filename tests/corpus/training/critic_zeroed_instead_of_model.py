# torch: ok
# A trainer clears the critic's gradients (the loss goes through it) but steps an
# optimizer over the model's parameters, whose gradients nothing clears.
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, critic):
        self.model, self.critic = model, critic
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
        self.grads = []

    def fit(self, batches):
        for x in batches:
            self.critic.zero_grad()
            loss = self.critic(self.model(x)).mean()
            loss.backward()  # expect: GL503
            self.optimizer.step()
            self.grads.append(self.model.weight.grad.clone())


trainer = Trainer(nn.Linear(4, 6), nn.Linear(6, 1))
trainer.fit([torch.randn(5, 4)] * 2)
assert torch.allclose(trainer.grads[1], 2 * trainer.grads[0])
