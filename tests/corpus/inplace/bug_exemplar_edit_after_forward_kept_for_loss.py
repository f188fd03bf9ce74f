# The twin of ok_exemplar_edit_after_forward_read_through_data: the output of the pass over
# the chosen exemplars is kept for a loss, so the next write into the buffer the conv saved
# breaks the backward.
import torch
import torch.nn as nn

net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.Flatten(), nn.Linear(4 * 6 * 6, 10))
cdata = torch.randn(20, 3, 8, 8)
exemplars = torch.zeros(5, 3, 8, 8)
prev = net(exemplars[:2])[:, 0:5].sum(0)
exemplars[2] = cdata[0].clone()  # expect: GL103
prev.sum().backward()
