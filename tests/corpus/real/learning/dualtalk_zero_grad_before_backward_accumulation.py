# source: https://github.com/ZiqiaoPeng/DualTalk/issues/9
# expect: silent: optimizer.zero_grad() runs before every backward while step() runs every gradient_accumulation_steps iterations: each step applies one batch's gradient
# buggy-line: 30
# mechanism: zero_grad on every iteration before that iteration's backward, step only when i % gradient_accumulation_steps == 0
import argparse

import torch
import torch.nn as nn

torch.manual_seed(0)


class DualTalk(nn.Module):
    def __init__(self):
        super().__init__()
        self.audio_encoder = nn.Linear(6, 8)
        self.decoder = nn.Linear(8, 3)

    def forward(self, audio):
        return self.decoder(torch.relu(self.audio_encoder(audio)))


def trainer(args, train_loader, model, optimizer, criterion, epoch=1):
    loss_log = []
    grads = []
    for e in range(epoch):
        model.train()
        for i, (audio, vertice) in enumerate(train_loader):
            loss = criterion(model(audio), vertice)
            optimizer.zero_grad()
            loss.backward()
            loss_log.append(loss.item())
            if i % args.gradient_accumulation_steps == 0:
                grads.append(model.decoder.weight.grad.clone())
                optimizer.step()
                optimizer.zero_grad()
    return grads


parser = argparse.ArgumentParser()
parser.add_argument("--gradient_accumulation_steps", type=int, default=2)
args = parser.parse_args([])
model = DualTalk()
optimizer = torch.optim.Adam(model.parameters(), lr=0.0)
criterion = nn.MSELoss()
train_loader = [(torch.randn(4, 6), torch.randn(4, 3)) for _ in range(3)]
grads = trainer(args, train_loader, model, optimizer, criterion)

# the effect: the step at i == 2 applies batch 2's gradient alone, not batches 1 and 2 summed
model.zero_grad()
for audio, vertice in train_loader[1:3]:
    criterion(model(audio), vertice).backward()
assert not torch.allclose(grads[1], model.decoder.weight.grad)
