# source: https://github.com/tientrandinh/Revisiting-Reverse-Distillation/issues/12
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
encoder = nn.Linear(6, 8)
proj_layer = nn.Linear(8, 8)
bn = nn.Linear(8, 8)
decoder = nn.Linear(8, 8)
for p in encoder.parameters():
    p.requires_grad = False


def loss_function(a, b):
    return (1 - F.cosine_similarity(a, b, dim=-1)).mean()


optimizer_proj = torch.optim.Adam(proj_layer.parameters(), lr=0.0)
optimizer_distill = torch.optim.Adam(list(decoder.parameters()) + list(bn.parameters()), lr=0.0)
accumulation_steps = 2
train_dataloader = [torch.randn(4, 6) for _ in range(4)]
stepped = []
for epoch in range(1):
    for i, img in enumerate(train_dataloader):
        inputs = encoder(img)
        feature_space = proj_layer(inputs)
        outputs = decoder(bn(feature_space))
        loss = loss_function(inputs, outputs)
        loss.backward()
        if (i + 1) % accumulation_steps == 0:
            stepped.append(decoder.weight.grad.clone())
            optimizer_proj.step()
            optimizer_distill.step()
            optimizer_proj.zero_grad()
            optimizer_distill.zero_grad()

decoder.zero_grad()
for img in train_dataloader[:2]:
    inputs = encoder(img)
    loss_function(inputs, decoder(bn(proj_layer(inputs)))).backward()
assert torch.allclose(stepped[0], decoder.weight.grad)
