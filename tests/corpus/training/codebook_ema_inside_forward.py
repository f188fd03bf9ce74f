# torch: raises one of the variables needed for gradient computation has been modified by an inplace operation
# A vector quantiser updates its codebook (a buffer) by EMA inside forward, under
# no_grad, after the distance matmul saved it; two augmented views go through the
# model before the summed loss is backpropagated.
import torch
import torch.nn as nn


class Quantiser(nn.Module):
    def __init__(self, codes=6, dim=4, decay=0.9):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("codebook", torch.randn(codes, dim))
        self.decay = decay

    def forward(self, x):
        z = self.proj(x)
        scores = z @ self.codebook.t()
        nearest = scores.argmax(dim=1)
        with torch.no_grad():
            self.codebook[nearest] = self.decay * self.codebook[nearest] + (1 - self.decay) * z  # expect: GL103
        return scores.softmax(dim=1)


model = Quantiser()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
views = [torch.randn(5, 4), torch.randn(5, 4)]
optimizer.zero_grad()
probs = [model(view) for view in views]
loss = -(probs[0] * probs[1].log()).sum(dim=1).mean()
loss.backward()
optimizer.step()
