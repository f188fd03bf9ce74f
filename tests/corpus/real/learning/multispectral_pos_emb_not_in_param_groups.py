# source: https://github.com/DocF/multispectral-object-detection/issues/77
# expect: silent: the optimizer's parameter groups collect only modules' .weight and .bias; the transformer's positional embedding self.pos_emb (an nn.Parameter of the GPT block) is in none of them and never trains
# buggy-line: 53
# also-line: 16
# mechanism: parameter groups built by walking named_modules() for weights and biases; a parameter held under another name reaches the loss but never the optimizer
import torch
import torch.nn as nn


class GPT(nn.Module):
    def __init__(self, d_model=8, vert_anchors=2, horz_anchors=2):
        super().__init__()
        self.vert_anchors = vert_anchors
        self.horz_anchors = horz_anchors
        # positional embedding parameter (learnable), rgb_fea + ir_fea
        self.pos_emb = nn.Parameter(torch.zeros(1, 2 * vert_anchors * horz_anchors, d_model))
        self.trans = nn.Linear(d_model, d_model)
        self.ln_f = nn.LayerNorm(d_model)

    def forward(self, x):
        rgb_fea, ir_fea = x
        bs, c, h, w = rgb_fea.shape
        rgb_fea_flat = rgb_fea.view(bs, c, -1)
        ir_fea_flat = ir_fea.view(bs, c, -1)
        token_embeddings = torch.cat([rgb_fea_flat, ir_fea_flat], dim=2).permute(0, 2, 1)
        x = self.trans(token_embeddings + self.pos_emb)
        return self.ln_f(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv_rgb = nn.Conv2d(3, 8, 1)
        self.conv_ir = nn.Conv2d(3, 8, 1)
        self.bn = nn.BatchNorm2d(8)
        self.gpt = GPT()
        self.head = nn.Linear(8, 1)

    def forward(self, rgb, ir):
        return self.head(self.gpt((self.bn(self.conv_rgb(rgb)), self.bn(self.conv_ir(ir)))))


model = Model()
pg0, pg1, pg2 = [], [], []  # optimizer parameter groups
for k, v in model.named_modules():
    if hasattr(v, 'bias') and isinstance(v.bias, nn.Parameter):
        pg2.append(v.bias)  # biases
    if isinstance(v, nn.BatchNorm2d):
        pg0.append(v.weight)  # no decay
    elif hasattr(v, 'weight') and isinstance(v.weight, nn.Parameter):
        pg1.append(v.weight)  # apply decay

optimizer = torch.optim.SGD(pg0, lr=0.1, momentum=0.9, nesterov=True)
optimizer.add_param_group({'params': pg1, 'weight_decay': 5e-4})  # add pg1 with weight_decay
optimizer.add_param_group({'params': pg2})  # add pg2 (biases)
del pg0, pg1, pg2

torch.manual_seed(0)
before = model.gpt.pos_emb.detach().clone()
for _ in range(2):
    optimizer.zero_grad()
    loss = model(torch.randn(2, 3, 2, 2), torch.randn(2, 3, 2, 2)).pow(2).mean()
    loss.backward()
    optimizer.step()
# the effect: pos_emb gets a gradient, the optimizer never applies it
assert model.gpt.pos_emb.grad.abs().sum() > 0
assert torch.equal(model.gpt.pos_emb, before)
