# source: https://github.com/Project-MONAI/GenerativeModels/issues/102
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

device = torch.device("cpu")
model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 1, 3, padding=1)).to(device)
discriminator = nn.Sequential(nn.Conv2d(1, 4, 4, stride=2), nn.ReLU(), nn.Conv2d(4, 1, 3)).to(device)
l1_loss = nn.L1Loss()
adv_weight = 0.01
optimizer_g = torch.optim.Adam(params=model.parameters(), lr=1e-4)
optimizer_d = torch.optim.Adam(params=discriminator.parameters(), lr=5e-4)
train_loader = [{"image": torch.randn(2, 1, 16, 16)} for _ in range(2)]
d_grad_at_start = []

for epoch in range(1):
    model.train()
    discriminator.train()
    for step, batch in enumerate(train_loader):
        images = batch["image"].to(device)
        optimizer_g.zero_grad(set_to_none=True)

        # Generator part
        reconstruction = model(images)
        logits_fake = discriminator(reconstruction.contiguous().float())
        recons_loss = l1_loss(reconstruction.float(), images.float())
        generator_loss = F.softplus(-logits_fake).mean()
        loss_g = recons_loss + adv_weight * generator_loss

        loss_g.backward()
        optimizer_g.step()

        # Discriminator part
        optimizer_d.zero_grad(set_to_none=True)
        d_grad_at_start.append(discriminator[0].weight.grad)
        logits_fake = discriminator(reconstruction.contiguous().detach())
        loss_d_fake = F.softplus(logits_fake).mean()
        logits_real = discriminator(images.contiguous().detach())
        loss_d_real = F.softplus(-logits_real).mean()
        discriminator_loss = (loss_d_fake + loss_d_real) * 0.5
        loss_d = adv_weight * discriminator_loss

        loss_d.backward()
        optimizer_d.step()

assert d_grad_at_start[1] is None
