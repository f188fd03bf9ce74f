# source: https://github.com/yifita/deep_cage/issues/16
# expect: clean
import argparse

import torch

from deep_cage_pkg.networks import CageDeformer, MVCRegularizer


def mean_value_coordinates_3D(query, vertices, faces, verbose=False):
    """stands for the MVC of the cage vertices at each query point (B, Q, C):
    inverse-distance coordinates, normalised by their absolute sum (some negative, as MVC outside a convex cage)"""
    diff = query.unsqueeze(2) - vertices.unsqueeze(1)
    weights_unnormed = 1.0 / (diff.norm(dim=-1) + 1e-6) - 1.0
    weights = weights_unnormed / weights_unnormed.abs().sum(dim=-1, keepdim=True)
    if verbose:
        return weights, weights_unnormed
    return weights


def deform_with_MVC(cage, cage_deformed, cage_face, query, verbose=False):
    """
    cage (B,C,3)
    cage_deformed (B,C,3)
    cage_face (B,F,3) int64
    query (B,Q,3)
    """
    weights, weights_unnormed = mean_value_coordinates_3D(query, cage, cage_face, verbose=True)
    deformed = torch.sum(weights.unsqueeze(-1)*cage_deformed.unsqueeze(1), dim=2)
    if verbose:
        return deformed, weights, weights_unnormed
    return deformed


class AllLosses(torch.nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.opt = opt
        self.loss = {}
        self.mvc_reg_loss = MVCRegularizer(threshold=50, beta=1.0, alpha=0.0)

    def forward(self, all_inputs, all_outputs, progress=1.0):
        self.loss.clear()
        self.loss["CD"] = ((all_outputs["deformed"] - all_inputs["target_shape"]) ** 2).mean()
        self.loss["WREG"] = self.mvc_reg_loss(all_outputs["weight"]) * self.opt.mvc_weight
        return sum(self.loss.values())


def train_step(opt, net, losses, data):
    outputs = net(data["source_shape"], data["target_shape"])
    deformed, weights, weights_unnormed = deform_with_MVC(
        outputs["cage"], outputs["new_cage"], outputs["cage_face"], data["source_shape"], verbose=True)
    outputs.update(deformed=deformed, weight=weights, weight_unnormed=weights_unnormed)
    loss = losses(data, outputs)
    loss.backward()
    return loss


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--bottleneck_size", type=int, default=16)
    parser.add_argument("--mvc_weight", type=float, default=1.0)
    parser.add_argument("--num_point", type=int, default=32)
    opt = parser.parse_args([])

    torch.manual_seed(0)
    template_vertices = torch.randn(1, 8, 3) * 0.5
    template_faces = torch.randint(0, 8, (1, 12, 3))
    data = {"source_shape": torch.randn(2, opt.num_point, 3), "target_shape": torch.randn(2, opt.num_point, 3)}
    grads = []
    for mvc_weight in (0.0, 1000.0):
        opt.mvc_weight = mvc_weight
        torch.manual_seed(1)
        net = CageDeformer(opt, template_vertices, template_faces)
        losses = AllLosses(opt)
        loss = train_step(opt, net, losses, data)
        assert mvc_weight == 0 or losses.loss["WREG"].item() > 0
        grads.append(net.nc_decoder.weight.grad.clone())
    assert not torch.equal(grads[0], grads[1])
