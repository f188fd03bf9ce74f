# source: https://github.com/pytorch/pytorch/issues/140469
# expect: can't optimize a non-leaf Tensor
# buggy-line: 23
# mechanism: `torch.randn(..., requires_grad=True) * 0.01` is the result of a multiplication (not a leaf) and is handed to an optimizer
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser(description="Parameter Processing")
parser.add_argument("--dlipc", type=int, default=2, help="image(s) per class")
parser.add_argument("--dllr_img", type=float, default=0.1)
parser.add_argument("--dldevice", type=str, default="cpu")
args = parser.parse_args([])

num_classes, channel, im_size = 3, 1, (4, 4)
net = nn.Sequential(nn.Flatten(), nn.Linear(channel * im_size[0] * im_size[1], num_classes))
image_real = torch.randn(12, channel, *im_size)
label_real = torch.randint(0, num_classes, (12,))

image_syn = torch.randn(size=(num_classes * args.dlipc, channel, im_size[0], im_size[1]), dtype=torch.float, requires_grad=True, device=args.dldevice) * 0.01
label_syn = torch.arange(num_classes).repeat_interleave(args.dlipc)
optimizer_img = torch.optim.SGD([image_syn], lr=args.dllr_img, momentum=0.5)

for it in range(2):
    loss_real = nn.functional.cross_entropy(net(image_real), label_real)
    gw_real = torch.autograd.grad(loss_real, list(net.parameters()))
    loss_syn = nn.functional.cross_entropy(net(image_syn), label_syn)
    gw_syn = torch.autograd.grad(loss_syn, list(net.parameters()), create_graph=True)
    loss = sum(((a.detach() - b) ** 2).sum() for a, b in zip(gw_real, gw_syn))
    optimizer_img.zero_grad()
    loss.backward()
    optimizer_img.step()
