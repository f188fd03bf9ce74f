# source: https://github.com/ZiqiaoPeng/DualTalk/issues/9
# expect: clean
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
        optimizer.zero_grad()
        for i, (audio, vertice) in enumerate(train_loader):
            loss = criterion(model(audio), vertice) / args.gradient_accumulation_steps
            loss.backward()
            loss_log.append(loss.item())
            if (i + 1) % args.gradient_accumulation_steps == 0 or (i + 1 == len(train_loader)):
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

model.zero_grad()
for audio, vertice in train_loader[0:2]:
    (criterion(model(audio), vertice) / 2).backward()
assert torch.allclose(grads[0], model.decoder.weight.grad)
