# source: https://github.com/rish-16/tokenlearner-pytorch/issues/1
# expect: clean
import torch
import torch.nn as nn
from tokenlearner_pkg import TokenLearner, TokenFuser

mhsa = nn.MultiheadAttention(3, 1)
tklr = TokenLearner(S=8)
tkfr = TokenFuser(32, 32, 3, S=8)

x = torch.rand(512, 32, 32, 3)

y = tklr(x)
y = y.transpose(0, 1)
y, _ = mhsa(y, y, y) # ignore attn weights
y = y.transpose(0, 1).contiguous()

out = tkfr(y, x)
print (out.shape)

tokens = tklr(x)
alone, _ = mhsa(tokens[:1].transpose(0, 1), tokens[:1].transpose(0, 1), tokens[:1].transpose(0, 1))
assert torch.allclose(y[0], alone.transpose(0, 1)[0], atol=1e-5)
