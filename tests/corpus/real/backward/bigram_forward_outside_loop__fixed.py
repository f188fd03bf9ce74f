# source: https://github.com/karpathy/nn-zero-to-hero/issues/31
# expect: clean
import torch
import torch.nn.functional as F

words = ["emma", "olivia", "ava"]
chars = sorted(set("".join(words)))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
xs, ys = [], []
for w in words:
    chs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(chs, chs[1:]):
        xs.append(stoi[ch1])
        ys.append(stoi[ch2])
xs, ys = torch.tensor(xs), torch.tensor(ys)
num = xs.nelement()
V = len(stoi)

g = torch.Generator().manual_seed(2147483647)
W = torch.randn((V, V), generator=g, requires_grad=True)
xenc = F.one_hot(xs, num_classes=V).float()

for k in range(3):
    # forward pass, rebuilt every iteration
    logits = xenc @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdims=True)
    loss = -probs[torch.arange(num), ys].log().mean()
    # backward pass
    W.grad = None
    loss.backward()
    # update
    W.data += -50 * W.grad
    print(loss.item())
