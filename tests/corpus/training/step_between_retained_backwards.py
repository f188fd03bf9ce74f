# torch: raises one of the variables needed for gradient computation has been modified by an inplace operation
# A VAE trainer steps the decoder's optimizer after the reconstruction backward, then
# backpropagates the perceptual term through the same (retained) decoder graph.
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
dec_opt.step()  # expect: GL103, GL504
perceptual.backward()
enc_opt.step()
