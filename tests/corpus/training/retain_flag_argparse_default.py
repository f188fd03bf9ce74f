# torch: raises Trying to backward through the graph a second time
# A script's --retain-graph switch defaults to off; the two-stage loss backpropagates
# through the shared features twice.
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--retain-graph", action="store_true")
args = parser.parse_args([])

backbone = nn.Sequential(nn.Linear(8, 8), nn.ReLU())
head_a, head_b = nn.Linear(8, 1), nn.Linear(8, 1)
features = backbone(torch.randn(5, 8))
head_a(features).mean().backward(retain_graph=args.retain_graph)
head_b(features).mean().backward()  # expect: GL305
