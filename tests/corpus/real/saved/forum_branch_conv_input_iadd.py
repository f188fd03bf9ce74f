# source: https://discuss.pytorch.org/t/when-would-the-error-one-of-the-variables-needed-for-gradient-computation-has-been-modified-occur/11976/2
# expect: one of the variables needed for gradient computation has been modified by an inplace operation
# buggy-line: 21
# mechanism: x feeds a second branch (conv1_p saves it for its weight's gradient), then the main branch adds into x in place
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.conv1_p = nn.Conv2d(8, 8, 3, padding=1)
        self.shortcut = nn.Conv2d(3, 8, 1)
        self.head = nn.Conv2d(16, 4, 1)

    def forward(self, input):
        some_layer = self.shortcut(input)
        x = self.conv1(input) # main branch
        x_p = self.conv1_p(x) # another branch
        x += some_layer # main branch
        return self.head(torch.cat([x, x_p], 1))


net = Net()
out = net(torch.randn(2, 3, 8, 8))
out.mean().backward()
