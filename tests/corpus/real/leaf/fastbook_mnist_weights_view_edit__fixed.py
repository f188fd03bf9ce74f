# source: https://github.com/fastai/fastbook/pull/471
# expect: clean
import torch

torch.manual_seed(42)
train_x = torch.rand(12, 28 * 28)
train_y = torch.cat([torch.ones(6), torch.zeros(6)]).unsqueeze(1)


def init_params(size, std=1.0):
    return (torch.randn(size) * std).requires_grad_()


weights = init_params((28 * 28, 1))
bias = init_params(1)
(train_x[0] * weights.T).sum() + bias
preds = train_x @ weights + bias
corrects = (preds > 0.0).float() == train_y
corrects.float().mean().item()
weights[0].data *= 1.0001
preds = train_x @ weights + bias
((preds > 0.0).float() == train_y).float().mean().item()
