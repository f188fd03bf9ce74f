# source: https://github.com/mit-han-lab/temporal-shift-module/issues/235
# expect: view size is not compatible with input tensor's size and stride
# buggy-line: 18
# also-line: 14
import torch
import torch.nn as nn


def accuracy(output, target, topk=(1,)):
    """Computes the precision@k for the specified values of k"""
    maxk = max(topk)
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))
    res = []
    for k in topk:
        correct_k = correct[:k].view(-1).float().sum(0)
        res.append(correct_k.mul_(100.0 / batch_size))
    return res


model = nn.Linear(16, 10)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for i in range(2):
    inputs, target = torch.randn(8, 16), torch.randint(0, 10, (8,))
    output = model(inputs)
    loss = criterion(output, target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    prec1, prec5 = accuracy(output.data, target, topk=(1, 5))
    print(loss.item(), prec1.item(), prec5.item())
