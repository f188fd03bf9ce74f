# source: https://github.com/mindee/doctr/pull/379
# expect: grad can be implicitly created only for scalar outputs
# buggy-line: 54
# also-line: 37
# mechanism: compute_loss builds the cross-entropy with reduction='none', sums it over time steps only and returns one loss per word (ce_loss.unsqueeze(1)); the training loop calls backward() on it
import torch
import torch.nn as nn
from torch.nn import functional as F


class MASTER(nn.Module):
    def __init__(self, vocab_size=10, d_model=16, max_length=6):
        super().__init__()
        self.vocab_size = vocab_size
        self.max_length = max_length
        self.feat_extractor = nn.Linear(8, d_model)
        self.linear = nn.Linear(d_model, vocab_size + 3)

    def compute_loss(
        self,
        model_output: torch.Tensor,
        gt: torch.Tensor,
        seq_len: torch.Tensor,
    ) -> torch.Tensor:
        """Compute categorical cross-entropy loss for the model."""
        # Input length : number of timesteps
        input_len = model_output.shape[1]
        # Add one for additional <eos> token
        seq_len = seq_len + 1
        # Compute loss
        cce = F.cross_entropy(model_output.permute(0, 2, 1), gt, reduction='none')
        # Compute mask
        mask_2d = torch.arange(input_len, device=model_output.device)[None, :] >= seq_len[:, None]
        cce[mask_2d] = 0

        ce_loss = cce.sum(1) / seq_len.to(dtype=torch.float32)
        return ce_loss.unsqueeze(1)

    def forward(self, x, gt, seq_len):
        features = self.feat_extractor(x)
        logits = self.linear(features)
        out = {}
        out['loss'] = self.compute_loss(logits, gt, seq_len)
        return out


model = MASTER()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
images = torch.randn(4, 6, 8)
targets = torch.randint(0, 13, (4, 6))
seq_len = torch.tensor([3, 5, 2, 4])
train_loss = model(images, targets, seq_len)['loss']
optimizer.zero_grad()
train_loss.backward()
optimizer.step()
