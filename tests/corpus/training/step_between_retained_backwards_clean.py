# torch: ok
# Both backwards run before either optimizer steps.
import torch
import torch.nn as nn

encoder = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 4))
decoder = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 6))
enc_opt = torch.optim.Adam(encoder.parameters(), lr=1e-3)
dec_opt = torch.optim.Adam(decoder.parameters(), lr=1e-3)
x = torch.randn(5, 6)
recon = decoder(encoder(x))
recon_loss = (recon - x).pow(2).mean()
perceptual = (recon.tanh() - x.tanh()).abs().mean()
enc_opt.zero_grad()
dec_opt.zero_grad()
recon_loss.backward(retain_graph=True)
perceptual.backward()
dec_opt.step()
enc_opt.step()
