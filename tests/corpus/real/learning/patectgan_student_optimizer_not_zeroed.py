# source: https://github.com/opendp/smartnoise-sdk/issues/280
# expect: silent: the student discriminator's optimizer is stepped every iteration and never cleared: its gradients pile up
# buggy-line: 56
# mechanism: three optimizers in one loop (teachers, student, generator); every one is cleared but the student's
import torch
import torch.nn as nn
import torch.optim as optim


class Discriminator(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.seq = nn.Sequential(nn.Linear(dim, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))

    def forward(self, x):
        return self.seq(x)


class Generator(nn.Module):
    def __init__(self, z_dim, dim):
        super().__init__()
        self.seq = nn.Sequential(nn.Linear(z_dim, 8), nn.ReLU(), nn.Linear(8, dim))

    def forward(self, z):
        return self.seq(z)


class PATECTGAN:
    def __init__(self, dim=6, z_dim=4, num_teachers=2):
        self.dim, self.z_dim = dim, z_dim
        self.generator = Generator(z_dim, dim)
        self.optimizerG = optim.Adam(self.generator.parameters(), lr=2e-4)
        self.student_disc = Discriminator(dim)
        self.teacher_disc = [Discriminator(dim) for _ in range(num_teachers)]
        self.optimizer_t = [optim.Adam(t.parameters(), lr=2e-4) for t in self.teacher_disc]
        self.optimizer_s = optim.Adam(self.student_disc.parameters(), lr=2e-4)
        self.leftover = []

    def train(self, data, epochs=2):
        criterion = nn.BCEWithLogitsLoss()
        for epoch in range(epochs):
            for i, disc in enumerate(self.teacher_disc):
                self.optimizer_t[i].zero_grad()
                real = data[i::len(self.teacher_disc)]
                fake = self.generator(torch.randn(len(real), self.z_dim)).detach()
                loss_t = criterion(disc(real), torch.ones(len(real), 1)) + criterion(disc(fake), torch.zeros(len(fake), 1))
                loss_t.backward()
                self.optimizer_t[i].step()

            # train student discriminator on teacher votes
            fake = self.generator(torch.randn(8, self.z_dim)).detach()
            votes = torch.stack([(t(fake) > 0).float() for t in self.teacher_disc]).mean(0).round()
            self.leftover.append(self.student_disc.seq[0].weight.grad)
            loss_s = criterion(self.student_disc(fake), votes)
            loss_s.backward()
            self.optimizer_s.step()

            # train generator
            self.optimizerG.zero_grad()
            fake = self.generator(torch.randn(8, self.z_dim))
            loss_g = criterion(self.student_disc(fake), torch.ones(8, 1))
            loss_g.backward()
            self.optimizerG.step()


gan = PATECTGAN()
gan.train(torch.randn(16, 6))
assert gan.leftover[1] is not None and gan.leftover[1].abs().sum() > 0  # stale student gradients
