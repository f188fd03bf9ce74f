# iCaRL's exemplar selection (facebookresearch/GradientEpisodicMemory model/icarl.py):
# each pass runs the net on the exemplars chosen so far and reads the output only through
# `.data`, then writes the next exemplar into the same buffer. The conv saved the buffer,
# but the output's graph is dropped with the temporary: no backward ever reads it.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, n_outputs):
        super(Net, self).__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, n_outputs)
        )
        self.num_exemplars = 5
        self.nc_per_task = 5
        self.mem_class_x = {}

    def forward(self, x, t):
        return self.net(x)

    def observe(self, x, t, y):
        offset1, offset2 = 0, self.nc_per_task
        cdata = x
        mean_feature = self.net(cdata)[:, offset1:offset2].data.clone().mean(0)
        nd = self.nc_per_task
        exemplars = torch.zeros(self.num_exemplars, 3, 8, 8)
        ntr = cdata.size(0)
        taken = torch.zeros(ntr)
        model_output = self.net(cdata)[:, offset1:offset2].data.clone()
        for ee in range(self.num_exemplars):
            prev = torch.zeros(1, nd)
            if ee > 0:
                prev = self.net(exemplars[:ee])[:, offset1:offset2].data.clone().sum(0)
            cost = (
                (mean_feature.expand(ntr, nd) - (model_output + prev.expand(ntr, nd)) / (ee + 1))
                .norm(2, 1)
                .squeeze()
            )
            _, indx = cost.sort(0)
            winner = 0
            while winner < indx.size(0) and taken[indx[winner]] == 1:
                winner += 1
            taken[indx[winner]] = 1
            exemplars[ee] = cdata[indx[winner]].clone()
        self.mem_class_x[y[0].item()] = exemplars.clone()
        loss = nn.functional.cross_entropy(self.forward(x, t), y)
        loss.backward()


Net(10).observe(torch.randn(20, 3, 8, 8), 0, torch.zeros(20, dtype=torch.long))
