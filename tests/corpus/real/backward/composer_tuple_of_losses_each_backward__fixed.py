# source: https://github.com/mosaicml/composer/pull/1240
# expect: clean
# mechanism: the model's loss returns a tuple of losses computed from one forward; the trainer calls backward on each in turn, and the second one walks the graph the first freed
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F


def ensure_tuple(x):
    if isinstance(x, (tuple, list)):
        return tuple(x)
    return (x,)


class TwoHeadModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(6, 8), nn.Tanh())
        self.cls_head = nn.Linear(8, 3)
        self.aux_head = nn.Linear(8, 1)

    def forward(self, batch):
        x, _ = batch
        h = self.encoder(x)
        return self.cls_head(h), self.aux_head(h)

    def loss(self, outputs, batch):
        logits, aux = outputs
        _, y = batch
        return F.cross_entropy(logits, y), aux.pow(2).mean()


class Trainer:
    def __init__(self, model, optimizer):
        self.state = SimpleNamespace(model=model, optimizers=[optimizer], loss=None, outputs=None)

    def _train_microbatch(self, batch, current_batch_size):
        self.state.outputs = self.state.model(batch)
        self.state.loss = self.state.model.loss(self.state.outputs, batch)
        microbatch_num_samples = batch[0].shape[0]
        total_loss = sum(ensure_tuple(self.state.loss))
        total_loss.mul_(microbatch_num_samples / current_batch_size)
        total_loss.backward(create_graph=False)

    def fit(self, dataloader):
        for batch in dataloader:
            for optimizer in self.state.optimizers:
                optimizer.zero_grad()
            self._train_microbatch(batch, batch[0].shape[0])
            for optimizer in self.state.optimizers:
                optimizer.step()


model = TwoHeadModel()
trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1))
trainer.fit([(torch.randn(4, 6), torch.randint(0, 3, (4,))) for _ in range(2)])
