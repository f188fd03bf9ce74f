# source: https://github.com/facebookresearch/DomainBed/issues/50
# expect: silent: autograd.grad without create_graph returns gradients with no graph, so the trace penalty built from them is a constant and its weight has no effect on the update
# buggy-line: 73
# also-line: 88
# mechanism: a penalty on gradients from torch.autograd.grad(..., create_graph=False) added to the objective that is backpropagated
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.autograd as autograd


class Algorithm(torch.nn.Module):
    """
    A subclass of Algorithm implements a domain generalization algorithm.
    Subclasses should implement the following:
    - update()
    - predict()
    """
    def __init__(self, input_shape, num_classes, num_domains, hparams):
        super(Algorithm, self).__init__()
        self.hparams = hparams

    def update(self, minibatches, unlabeled=None):
        raise NotImplementedError

    def predict(self, x):
        raise NotImplementedError


class ERM(Algorithm):
    """
    Empirical Risk Minimization (ERM)
    """

    def __init__(self, input_shape, num_classes, num_domains, hparams):
        super(ERM, self).__init__(input_shape, num_classes, num_domains,
                                  hparams)
        # stands for networks.Featurizer / networks.Classifier (an MLP for non-image inputs)
        self.featurizer = nn.Sequential(nn.Linear(input_shape[0], 16), nn.ReLU())
        self.classifier = nn.Linear(16, num_classes)

        self.network = nn.Sequential(self.featurizer, self.classifier)
        self.optimizer = torch.optim.Adam(
            self.network.parameters(),
            lr=self.hparams["lr"],
            weight_decay=self.hparams['weight_decay']
        )

    def predict(self, x):
        return self.network(x)


class IGA(ERM):
    """
    Inter-environmental Gradient Alignment
    From https://arxiv.org/abs/2008.01883v2
    """

    def __init__(self, in_features, num_classes, num_domains, hparams):
        super(IGA, self).__init__(in_features, num_classes, num_domains, hparams)

    def update(self, minibatches, unlabeled=None):
        total_loss = 0
        grads = []
        for i, (x, y) in enumerate(minibatches):
            logits = self.network(x)

            env_loss = F.cross_entropy(logits, y)
            total_loss += env_loss

            env_grad = autograd.grad(env_loss, self.network.parameters(),
                                        retain_graph=True)

            grads.append(env_grad)

        mean_loss = total_loss / len(minibatches)
        mean_grad = autograd.grad(mean_loss, self.network.parameters(),
                                        retain_graph=True)

        # compute trace penalty
        penalty_value = 0
        for grad in grads:
            for g, mean_g in zip(grad, mean_grad):
                penalty_value += (g - mean_g).pow(2).sum()

        objective = mean_loss + self.hparams['penalty'] * penalty_value

        self.optimizer.zero_grad()
        objective.backward()
        self.optimizer.step()

        return {'loss': mean_loss.item(), 'penalty': penalty_value.item()}


if __name__ == "__main__":
    hparams = {'lr': 1e-2, 'weight_decay': 0., 'penalty': 1000}
    torch.manual_seed(0)
    minibatches = [(torch.randn(8, 5), torch.randint(0, 3, (8,))) for _ in range(3)]
    algorithm = IGA((5,), 3, 3, hparams)
    without_penalty = copy.deepcopy(algorithm)
    without_penalty.hparams = dict(hparams, penalty=0)
    algorithm.update(minibatches)
    without_penalty.update(minibatches)
    same = all(torch.allclose(a, b) for a, b in zip(algorithm.parameters(), without_penalty.parameters()))
    # the penalty is built from gradients without a graph: its weight changes nothing
    assert same
