# A helper splits each piece of torch.split into groups with reshape (a view), and the
# caller normalises the key groups in place.
import torch
import torch.nn as nn


def groups(t, n):
    return t.reshape(t.shape[0], n, t.shape[1] // n, t.shape[2])


class GroupedMixer(nn.Module):
    def __init__(self, channels=8, n_groups=2):
        super().__init__()
        self.proj = nn.Conv1d(channels, 2 * channels, 1)
        self.channels, self.n_groups = channels, n_groups

    def forward(self, x):
        keys, values = torch.split(self.proj(x), [self.channels, self.channels], dim=1)
        keys = groups(keys, self.n_groups)
        keys.div_(keys.norm(dim=2, keepdim=True) + 1e-6)  # expect: GL103
        values = groups(values, self.n_groups)
        return (keys * values).sum(dim=2)


model = GroupedMixer()
model(torch.randn(3, 8, 6)).sum().backward()
