# source: https://github.com/source-separation/tutorial/issues/18
# expect: clean
import torch

torch.manual_seed(0)
n_freq, n_frames = 6, 5
mix = torch.rand(n_freq, n_frames) + 0.1
source = mix * (torch.rand(n_freq, n_frames) > 0.5)

mask = torch.rand(n_freq, n_frames, requires_grad=True)
learning_rate = 0.5
n_iterations = 3
losses = []
for i in range(n_iterations):
    estimate = torch.sigmoid(mask) * mix
    loss = torch.mean(torch.abs(estimate - source))
    loss.backward()
    with torch.no_grad():
        mask -= learning_rate * mask.grad
        mask.grad.zero_()
    losses.append(loss.item())
print(losses)
