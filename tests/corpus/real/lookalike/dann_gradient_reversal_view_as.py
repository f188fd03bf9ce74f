# source: https://github.com/fungtion/DANN/blob/master/models/functions.py
# expect: clean
# note: a custom autograd.Function returns `x.view_as(x)` and its output is only read (never edited in place) downstream
import torch
import torch.nn as nn
from torch.autograd import Function


class ReverseLayerF(Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        output = grad_output.neg() * ctx.alpha
        return output, None


class CNNModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.feature = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.MaxPool2d(2), nn.ReLU(True))
        self.class_classifier = nn.Sequential(nn.Linear(4 * 3 * 3, 8), nn.ReLU(True), nn.Linear(8, 10))
        self.domain_classifier = nn.Sequential(nn.Linear(4 * 3 * 3, 8), nn.ReLU(True), nn.Linear(8, 2))

    def forward(self, input_data, alpha):
        feature = self.feature(input_data).view(-1, 4 * 3 * 3)
        reverse_feature = ReverseLayerF.apply(feature, alpha)
        return self.class_classifier(feature), self.domain_classifier(reverse_feature)


my_net = CNNModel()
optimizer = torch.optim.Adam(my_net.parameters(), lr=1e-3)
loss_class, loss_domain = nn.NLLLoss(), nn.NLLLoss()
img, label = torch.randn(2, 1, 8, 8), torch.tensor([3, 7])
class_output, domain_output = my_net(input_data=img, alpha=0.1)
err = loss_class(class_output.log_softmax(1), label) + loss_domain(domain_output.log_softmax(1), torch.zeros(2, dtype=torch.long))
err.backward()
optimizer.step()
