# source: https://github.com/pytorch/pytorch/issues/17893
# expect: Mismatch in shape: grad_output[0] has a shape of torch.Size([4, 2, 6]) and output[0] has a shape of torch.Size([4, 1])
# buggy-line: 25
import torch
import torch.nn as nn


class SeqCritic(nn.Module):
    def __init__(self, channels=2, length=6):
        super().__init__()
        self.conv = nn.Conv1d(channels, 4, 3, padding=1)
        self.fc = nn.Linear(4 * length, 1)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).flatten(1))


def gradient_penalty(critic, real_data, fake_data, lam=10.0):
    alpha = torch.rand(real_data.size(0), 1, 1)
    interpolates = (alpha * real_data + (1 - alpha) * fake_data).requires_grad_(True)
    disc_interpolates = critic(interpolates)
    gradients = torch.autograd.grad(
        outputs=disc_interpolates,
        inputs=interpolates,
        grad_outputs=torch.ones_like(real_data),
        create_graph=True,
    )[0]
    return lam * ((gradients.flatten(1).norm(2, dim=1) - 1) ** 2).mean()


critic = SeqCritic()
opt = torch.optim.Adam(critic.parameters(), lr=1e-4)
real, fake = torch.randn(4, 2, 6), torch.randn(4, 2, 6)
loss = critic(fake).mean() - critic(real).mean() + gradient_penalty(critic, real, fake)
opt.zero_grad()
loss.backward()
opt.step()
