# source: https://github.com/source-separation/tutorial/issues/18
# expect: a leaf Variable that requires grad is being used in an in-place operation
# buggy-line: 20
# mechanism: hand-written gradient descent on a learnable spectrogram mask: `mask -= learning_rate * mask.grad` in the loop, outside no_grad
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
    mask -= learning_rate * mask.grad
    mask.grad.zero_()
    losses.append(loss.item())
print(losses)
