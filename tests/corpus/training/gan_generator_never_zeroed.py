# torch: ok
# Only the discriminator's gradients are cleared: the generator's accumulate, batch after
# batch, and every optimizerG.step() applies their running sum.
import torch
import torch.nn as nn
import torch.optim as optim

generator = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 6))
discriminator = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 1))
optimizer_G = optim.SGD(generator.parameters(), lr=0.0)
optimizer_D = optim.SGD(discriminator.parameters(), lr=0.0)
adversarial_loss = nn.BCEWithLogitsLoss()
z = torch.randn(5, 4)
g_grads = []
for i in range(2):
    gen_imgs = generator(z)
    g_loss = adversarial_loss(discriminator(gen_imgs), torch.ones(5, 1))
    g_loss.backward()  # expect: GL503
    optimizer_G.step()
    g_grads.append(generator[0].weight.grad.clone())

    optimizer_D.zero_grad()
    real_loss = adversarial_loss(discriminator(torch.randn(5, 6)), torch.ones(5, 1))
    fake_loss = adversarial_loss(discriminator(gen_imgs.detach()), torch.zeros(5, 1))
    d_loss = (real_loss + fake_loss) / 2
    d_loss.backward()
    optimizer_D.step()
assert torch.allclose(g_grads[1], 2 * g_grads[0])
