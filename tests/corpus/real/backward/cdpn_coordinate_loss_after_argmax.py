# source: https://github.com/LZGMatrix/BOP19_CDPN_2019ICCV/issues/4
# expect: element 0 of tensors does not require grad and does not have a grad_fn
# buggy-line: 59
# also-line: 57
# note: the reporter's train.py, written from the repository's test.py: the coordinate loss is taken on the argmax of the bin scores
import torch
import torch.nn as nn
import torch.nn.functional as F


class Cfg(dict):
    """stands for the EasyDict config read from the yaml file"""

    __getattr__ = dict.__getitem__


cfg = Cfg(network=Cfg(coor_bin=64, rot_output_channels=65), train=Cfg(lr=1e-4, epochs=1))


class RotHeadNet(nn.Module):
    """stands for CDPN's backbone and rotation head: bin scores for x, y, z and a mask"""

    def __init__(self, num_bins):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU())
        self.out_layer = nn.Conv2d(16, 3 * num_bins + 1, 1)
        self.num_bins = num_bins

    def forward(self, x):
        out = self.out_layer(self.features(x))
        n = self.num_bins
        return out[:, :1], out[:, 1:1 + n], out[:, 1 + n:1 + 2 * n], out[:, 1 + 2 * n:]


model = RotHeadNet(cfg.network.rot_output_channels)
optimizer = torch.optim.RMSprop(model.parameters(), lr=cfg.train.lr)

# stands for the LM dataset: a cropped image and its ground-truth coordinates in [-1, 1]
train_loader = [(torch.randn(1, 3, 16, 16), torch.rand(1, 16, 16, 3) * 2 - 1) for _ in range(2)]

for epoch in range(cfg.train.epochs):
    for i, (inp, target_coor) in enumerate(train_loader):
        output_conf, output_coor_x_, output_coor_y_, output_coor_z_ = model(inp)

        output_coor_x_ = output_coor_x_.squeeze()
        output_coor_y_ = output_coor_y_.squeeze()
        output_coor_z_ = output_coor_z_.squeeze()

        ####

        output_coor_ = torch.stack([torch.argmax(output_coor_x_, axis=0),
                                    torch.argmax(output_coor_y_, axis=0),
                                    torch.argmax(output_coor_z_, axis=0)], axis=2)
        output_coor_[output_coor_ == cfg.network.coor_bin] = 0
        output_coor_ = 2.0 * output_coor_.float() / (63.0 - 1.0) - 1.0  # [-1,1]

        loss = F.l1_loss(output_coor_, target_coor.squeeze(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
