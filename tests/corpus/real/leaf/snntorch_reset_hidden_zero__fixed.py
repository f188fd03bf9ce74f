# source: https://github.com/jeshraghian/snntorch/pull/443
# expect: clean
import torch
import torch.nn as nn


class SpikingNeuron(nn.Module):
    def __init__(self, beta=0.9, threshold=1.0, learn_init=True):
        super().__init__()
        self.beta = beta
        self.threshold = threshold
        self.learn_init = learn_init

    @staticmethod
    def zeros(*args):
        for state in args:
            state.detach().zero_()

    def init_leaky(self, shape):
        return torch.ones(shape, requires_grad=self.learn_init)

    def fire(self, mem):
        return torch.sigmoid(5 * (mem - self.threshold))


class Leaky(SpikingNeuron):
    def forward(self, input_, mem):
        mem = self.beta * mem + input_
        spk = self.fire(mem)
        return spk, mem - spk * self.threshold


fc = nn.Linear(4, 3)
lif = Leaky()
optimizer = torch.optim.Adam(fc.parameters(), lr=1e-3)
data = torch.randn(5, 2, 4)
for episode in range(2):
    mem = lif.init_leaky((2, 3))
    Leaky.zeros(mem)
    spikes = []
    for step in range(data.size(0)):
        spk, mem = lif(fc(data[step]), mem)
        spikes.append(spk)
    loss = torch.stack(spikes).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
