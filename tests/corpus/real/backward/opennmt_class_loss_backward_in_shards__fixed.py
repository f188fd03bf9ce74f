# source: https://github.com/OpenNMT/OpenNMT-py/issues/2153
# expect: clean
# mechanism: an extra classification loss on the encoder output is backpropagated inside the loss computation; the NMT loss then backpropagates through the same encoder graph
import torch
import torch.nn as nn
import torch.nn.functional as F


class Statistics:
    def __init__(self, loss=0.0):
        self.loss = loss

    def update(self, stat):
        self.loss += stat.loss


class LossComputeBase(nn.Module):
    def __init__(self, criterion, generator, class_head):
        super().__init__()
        self.criterion = criterion
        self.generator = generator
        self.class_head = class_head

    def _compute_loss(self, output, target):
        scores = self.generator(output)
        loss = self.criterion(scores.view(-1, scores.size(-1)), target.view(-1))
        return loss, Statistics(loss.item())

    def _compute_class_loss(self, stargets_logits, stargets_refs):
        loss = F.cross_entropy(stargets_logits, stargets_refs)
        return loss, Statistics(loss.item())

    def __call__(self, batch, output, enc_final, stargets_refs, normalization=1.0):
        batch_stats = Statistics()
        class_loss, class_stats = self._compute_class_loss(self.class_head(enc_final), stargets_refs)
        batch_stats.update(class_stats)
        loss, stats = self._compute_loss(output, batch["tgt"])
        (loss.div(float(normalization)) + class_loss).backward()
        batch_stats.update(stats)
        return None, batch_stats


class NMTModel(nn.Module):
    def __init__(self, vocab=7, dim=8):
        super().__init__()
        self.embeddings = nn.Embedding(vocab, dim)
        self.encoder = nn.GRU(dim, dim, batch_first=True)
        self.decoder = nn.Linear(dim, dim)

    def forward(self, src):
        memory_bank, enc_final = self.encoder(self.embeddings(src))
        dec_out = torch.tanh(self.decoder(memory_bank))
        return dec_out, enc_final[-1]


model = NMTModel()
generator = nn.Linear(8, 7)
train_loss = LossComputeBase(nn.NLLLoss(), nn.Sequential(generator, nn.LogSoftmax(dim=-1)), nn.Linear(8, 2))
optim = torch.optim.Adam(list(model.parameters()) + list(train_loss.parameters()), lr=1e-3)
batch = {"src": torch.randint(0, 7, (2, 5)), "tgt": torch.randint(0, 7, (2, 5)), "class": torch.tensor([0, 1])}
optim.zero_grad()
outputs, enc_final = model(batch["src"])
train_loss(batch, outputs, enc_final, batch["class"])
optim.step()
