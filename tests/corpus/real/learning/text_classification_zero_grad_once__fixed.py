# source: https://github.com/FreedomIntelligence/TextClassificationBenchmark/issues/20
# expect: clean
import argparse
import copy
from collections import namedtuple

import torch
import torch.nn as nn
import torch.optim as optim
from torch.nn.modules.loss import NLLLoss


class LSTMClassifier(nn.Module):
    def __init__(self, opt):
        super(LSTMClassifier, self).__init__()
        self.embedding = nn.Embedding(opt.vocab_size, opt.embedding_dim)
        self.lstm = nn.LSTM(opt.embedding_dim, opt.hidden_dim)
        self.hidden2label = nn.Linear(opt.hidden_dim, opt.label_size)

    def forward(self, sentence):
        embeds = self.embedding(sentence)
        lstm_out, _ = self.lstm(embeds)
        return torch.log_softmax(self.hidden2label(lstm_out[-1]), dim=-1)


def setup(opt):
    return LSTMClassifier(opt)


def clip_gradient(optimizer, grad_clip):
    for group in optimizer.param_groups:
        for param in group["params"]:
            if param.grad is not None and param.requires_grad:
                param.grad.data.clamp_(-grad_clip, grad_clip)


Batch = namedtuple("Batch", ["text", "label"])
opt = argparse.Namespace(model="lstm", vocab_size=20, embedding_dim=8, hidden_dim=8, label_size=2, batch_size=4, learning_rate=0.01, grad_clip=1e-1)
torch.manual_seed(0)
train_iter = [Batch((torch.randint(0, 20, (4, 4)), torch.full((4,), 4)), torch.randint(0, 2, (4,))) for _ in range(3)]

model = setup(opt)
init = copy.deepcopy(model.state_dict())
if torch.cuda.is_available():
    model.cuda()
model.train()
optimizer = optim.Adam(model.parameters(), lr=opt.learning_rate)
optimizer.zero_grad()
loss_fun = NLLLoss()

for index, batch in enumerate(train_iter):
    if index % 1000 == 0:
        print(index)
    if len(batch.text[0]) == opt.batch_size:
        optimizer.zero_grad()
        predicted = model(batch.text[0])
        loss = loss_fun(predicted, batch.label)
        loss.backward()
        clip_gradient(optimizer, opt.grad_clip)
        optimizer.step()
        print("loss : %.5f" % loss.item())

# the effect: clearing before each backward gives other weights
reference = setup(opt)
reference.load_state_dict(init)
ref_opt = optim.Adam(reference.parameters(), lr=opt.learning_rate)
for batch in train_iter:
    ref_opt.zero_grad()
    loss_fun(reference(batch.text[0]), batch.label).backward()
    clip_gradient(ref_opt, opt.grad_clip)
    ref_opt.step()
assert torch.allclose(model.hidden2label.weight, reference.hidden2label.weight)
