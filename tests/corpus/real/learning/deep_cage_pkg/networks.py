import torch
import torch.nn as nn


class CageDeformer(nn.Module):
    """stands for networks.NetworkFull: predicts a cage around the source and its
    deformation towards the target"""

    def __init__(self, opt, template_vertices, template_faces):
        super().__init__()
        self.opt = opt
        self.register_buffer("template_vertices", template_vertices)
        self.register_buffer("template_faces", template_faces)
        self.encoder = nn.Linear(3, opt.bottleneck_size)
        self.nc_decoder = nn.Linear(opt.bottleneck_size, template_vertices.shape[1] * 3)
        self.nd_decoder = nn.Linear(2 * opt.bottleneck_size, template_vertices.shape[1] * 3)

    def forward(self, source_shape, target_shape):
        B = source_shape.shape[0]
        s_code = self.encoder(source_shape).max(dim=1)[0]
        t_code = self.encoder(target_shape).max(dim=1)[0]
        cage = self.template_vertices + 0.1 * self.nc_decoder(s_code).view(B, -1, 3)
        new_cage = cage + 0.1 * self.nd_decoder(torch.cat([s_code, t_code], dim=1)).view(B, -1, 3)
        return {"cage": cage, "new_cage": new_cage, "cage_face": self.template_faces}


class MVCRegularizer(nn.Module):
    """penalise large (> threshold) and negative MVC weights"""

    def __init__(self, alpha=1.0, beta=1.0, threshold=5.0):
        super().__init__()
        self.alpha = alpha
        self.beta = beta
        self.threshold = threshold

    def forward(self, weights):
        loss = 0
        if self.alpha > 0:
            large_loss = torch.log(torch.nn.functional.relu(weights.abs() - self.threshold) + 1)
            loss += torch.mean(large_loss) * self.alpha
        if self.beta > 0:
            neg_loss = torch.nn.functional.relu(-weights)
            neg_loss = neg_loss ** 2
            loss += torch.mean(neg_loss) * self.beta
        return loss
