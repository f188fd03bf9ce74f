# torch: ok
# GT-RIPL/Continual-Learning-Benchmark agents/regularization.py (L2 on NormalNN): a dict of
# the registered model's own parameters, kept "for convenience"; the model is built from a
# config the file cannot read, but whatever it is, named_parameters() of an attribute of
# the module enumerates a registered sub-module: nothing is left out of parameters().
import torch
import torch.nn as nn

models = {"mlp": lambda: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))}


class NormalNN(nn.Module):
    def __init__(self, agent_config):
        super(NormalNN, self).__init__()
        self.config = agent_config
        self.model = self.create_model()
        self.criterion_fn = nn.CrossEntropyLoss()

    def create_model(self):
        cfg = self.config
        return models[cfg["model_name"]]()


class L2(NormalNN):
    def __init__(self, agent_config):
        super(L2, self).__init__(agent_config)
        self.params = {n: p for n, p in self.model.named_parameters() if p.requires_grad}  # For convenience
        self.regularization_terms = {}

    def calculate_importance(self):
        importance = {}
        for n, p in self.params.items():
            importance[n] = p.clone().detach().fill_(1)
        return importance


agent = L2({"model_name": "mlp"})
assert {id(p) for p in agent.params.values()} <= {id(p) for p in agent.parameters()}
