# torch: AssertionError: the head's parameters are missing from parameters()
# The twin of convenience_dict_of_model_parameters_ok: the dict enumerates a layer no
# attribute of the module registers (a local list of heads), so the dict is the only
# place its parameters are kept and parameters() never yields them.
import torch.nn as nn


class Agent(nn.Module):
    def __init__(self, tasks):
        super(Agent, self).__init__()
        self.model = nn.Linear(4, 8)
        heads = [nn.Linear(8, 2) for _ in range(tasks)]
        self.params = {n: p for n, p in heads[0].named_parameters()}  # expect: GL502


agent = Agent(3)
if len(list(agent.parameters())) == 2:
    raise AssertionError("the head's parameters are missing from parameters()")
