# source: https://github.com/locuslab/convex_adversarial/issues/34
# expect: clean
# mechanism: evaluate_robust turns gradients off for the whole evaluation (torch.set_grad_enabled(False)); the uncommented _pgd call inside it backpropagates
import torch
import torch.nn as nn
from torch.autograd import Variable


def _pgd(model, X, y, epsilon, niters=3, alpha=0.01):
    out = model(X)
    ce = nn.CrossEntropyLoss()(out, y)
    err = (out.data.max(1)[1] != y.data).float().sum() / X.size(0)

    X_pgd = Variable(X.data, requires_grad=True)
    for i in range(niters):
        opt = torch.optim.Adam([X_pgd], lr=1e-3)
        opt.zero_grad()
        loss = nn.CrossEntropyLoss()(model(X_pgd), y)
        loss.backward()
        eta = alpha * X_pgd.grad.data.sign()
        X_pgd = Variable(X_pgd.data + eta, requires_grad=True)
        eta = torch.clamp(X_pgd.data - X.data, -epsilon, epsilon)
        X_pgd = Variable(X.data + eta, requires_grad=True)

    err_pgd = (model(X_pgd).data.max(1)[1] != y.data).float().sum() / X.size(0)
    return err, err_pgd


def evaluate_robust(loader, model, epsilon, epoch, log, verbose):
    errors = []
    torch.set_grad_enabled(False)
    for i, (X, y) in enumerate(loader):
        out = model(Variable(X))
        err = (out.max(1)[1] != y).float().sum() / X.size(0)
        with torch.enable_grad():
            _, pgd_err = _pgd(model, Variable(X), Variable(y), epsilon)
        errors.append((err.item(), pgd_err.item()))
    torch.set_grad_enabled(True)
    return errors


model = nn.Sequential(nn.Flatten(), nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 10))
test_loader = [(torch.rand(4, 1, 4, 4), torch.randint(0, 10, (4,))) for _ in range(2)]
evaluate_robust(test_loader, model, 0.1, 0, None, verbose=False)
