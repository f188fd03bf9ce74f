# source: https://github.com/zhuangdizhu/FedGen/issues/1
# expect: clean
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class User:
    def __init__(self, model, test_data):
        self.model = model
        self.test_data = test_data

    def test(self):
        self.model.eval()
        test_acc = 0
        loss = 0
        for x, y in self.test_data:
            with torch.no_grad():
                output = self.model(x)
                loss += F.cross_entropy(output, y)
            test_acc += (torch.argmax(output, dim=1) == y).sum().item()
        return test_acc, loss, y.shape[0]


class Server:
    def __init__(self, model, users):
        self.model = model
        self.users = users

    def test(self):
        num_samples, tot_correct, losses = [], [], []
        for c in self.users:
            ct, c_loss, ns = c.test()
            tot_correct.append(ct * 1.0)
            num_samples.append(ns)
            losses.append(c_loss)
        return num_samples, tot_correct, losses

    def evaluate(self):
        test_samples, test_accs, test_losses = self.test()
        glob_acc = np.sum(test_accs) * 1.0 / np.sum(test_samples)
        glob_loss = np.sum([x * y for (x, y) in zip(test_samples, test_losses)]).item() / np.sum(test_samples)
        return glob_acc, glob_loss


model = nn.Linear(6, 3)
users = [User(model, [(torch.randn(4, 6), torch.randint(0, 3, (4,)))]) for _ in range(2)]
server = Server(model, users)
server.evaluate()
