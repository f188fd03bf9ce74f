# source: https://github.com/weizheliu/People-Flows/issues/7
# expect: element 0 of tensors does not require grad and does not have a grad_fn
# buggy-line: 39
# also-line: 24
import torch
import torch.nn as nn


class CANNet2s(nn.Module):
    def __init__(self):
        super().__init__()
        self.frontend = nn.Sequential(nn.Conv2d(6, 8, 3, padding=1), nn.ReLU())
        self.backend = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.output_layer = nn.Conv2d(8, 10, 1)

    def forward(self, prev_img, img):
        x = self.frontend(torch.cat([prev_img, img], 1))
        return self.output_layer(self.backend(x))


def main():
    model = CANNet2s()
    # keep the pretrained VGG frontend fixed
    for param in model.parameters():
        param.requires_grad = False
    criterion = nn.MSELoss(reduction="sum")
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    train(model, criterion, optimizer)


def train(model, criterion, optimizer):
    for i in range(2):
        prev_img, img = torch.randn(1, 3, 8, 8), torch.randn(1, 3, 8, 8)
        target = torch.rand(1, 8, 8)
        flows = model(prev_img, img)
        density = flows.sum(1)
        loss = criterion(density, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


main()
