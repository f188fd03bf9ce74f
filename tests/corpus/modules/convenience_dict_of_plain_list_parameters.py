# torch: AssertionError: the heads kept in a plain list are missing from parameters()
# The twin of convenience_dict_of_model_parameters_ok: the dict enumerates layers the
# class keeps in a plain list, so neither the list nor the dict registers them.
import torch.nn as nn


class Agent(nn.Module):
    def __init__(self, tasks):
        super(Agent, self).__init__()
        self.model = nn.Linear(4, 8)
        self.heads = [nn.Linear(8, 2) for _ in range(tasks)]  # expect: GL502
        self.params = {n: p for n, p in self.heads[0].named_parameters()}  # expect: GL502


agent = Agent(3)
if len(list(agent.parameters())) == 2:
    raise AssertionError("the heads kept in a plain list are missing from parameters()")
