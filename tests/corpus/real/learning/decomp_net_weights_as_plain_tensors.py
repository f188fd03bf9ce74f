# source: https://github.com/pytorch/examples/issues/277
# expect: optimizer got an empty parameter list
# buggy-line: 16
# also-line: 35
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Decomp_Net(nn.Module):
    def __init__(self, params):
        super(Decomp_Net, self).__init__()
        # the weights of a trained model, decomposed and kept as tensors
        items = list(params.items())
        self.W_conv1 = items[0][1].view(10, 25)
        self.B_conv1 = items[1][1]
        self.W_fc = items[2][1]
        self.B_fc = items[3][1]

    def forward(self, x):
        x = F.conv2d(x, self.W_conv1.view(10, 1, 5, 5), self.B_conv1)
        x = F.relu(F.max_pool2d(x, 2))
        x = x.view(-1, 10 * 4 * 4)
        return F.log_softmax(F.linear(x, self.W_fc, self.B_fc), dim=1)


pretrained = {
    "conv1.weight": torch.randn(10, 1, 5, 5),
    "conv1.bias": torch.randn(10),
    "fc.weight": torch.randn(10, 160),
    "fc.bias": torch.randn(10),
}
new_model = Decomp_Net(pretrained)
optimizer = optim.SGD(new_model.parameters(), lr=0.01, momentum=0.5)
data, target = torch.randn(4, 1, 12, 12), torch.randint(0, 10, (4,))
optimizer.zero_grad()
loss = F.nll_loss(new_model(data), target)
loss.backward()
optimizer.step()
