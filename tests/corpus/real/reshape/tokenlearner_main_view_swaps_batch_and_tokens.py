# source: https://github.com/rish-16/tokenlearner-pytorch/issues/1
# expect: silent: y.view(8, 512, 3) of the (512, 8, 3) tokens is not the (S, B, C) layout nn.MultiheadAttention wants: it regroups the memory, so attention mixes tokens of different images, and view(512, 8, 3) does not undo a transpose
# buggy-line: 16
# also-line: 18
import torch
import torch.nn as nn
from tokenlearner_pkg import TokenLearner, TokenFuser

mhsa = nn.MultiheadAttention(3, 1)
tklr = TokenLearner(S=8)
tkfr = TokenFuser(32, 32, 3, S=8)

x = torch.rand(512, 32, 32, 3)

y = tklr(x)
y = y.view(8, 512, 3)
y, _ = mhsa(y, y, y) # ignore attn weights
y = y.view(512, 8, 3)

out = tkfr(y, x)
print (out.shape)

# the effect: image 0's attended tokens depend on the other images of the batch
tokens = tklr(x)
alone, _ = mhsa(tokens[:1].transpose(0, 1), tokens[:1].transpose(0, 1), tokens[:1].transpose(0, 1))
assert not torch.allclose(y[0], alone.transpose(0, 1)[0], atol=1e-5)
