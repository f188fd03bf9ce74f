# source: https://github.com/snakers4/silero-vad/pull/699
# expect: clean
import copy

import torch
import torch.nn as nn


class AverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class VADDecoderRNNJIT(nn.Module):
    def __init__(self):
        super(VADDecoderRNNJIT, self).__init__()
        self.rnn = nn.LSTMCell(16, 16)
        self.decoder = nn.Sequential(nn.Dropout(0.1), nn.ReLU(), nn.Conv1d(16, 1, kernel_size=1), nn.Sigmoid())

    def forward(self, x, state=torch.zeros(0)):
        x = x.squeeze(-1)
        if len(state):
            h, c = self.rnn(x, (state[0], state[1]))
        else:
            h, c = self.rnn(x)
        x = h.unsqueeze(-1).float()
        state = torch.stack([h, c])
        x = self.decoder(x)
        return x, state


def train(config, loader, jit_model, decoder, criterion, optimizer, device):
    losses = AverageMeter()
    decoder.train()
    context_size = 32 if config.tune_8k else 64
    num_samples = 256 if config.tune_8k else 512
    stft_layer = jit_model._model_8k.stft if config.tune_8k else jit_model._model.stft
    encoder_layer = jit_model._model_8k.encoder if config.tune_8k else jit_model._model.encoder
    with torch.enable_grad():
        for _, (x, targets, masks) in enumerate(loader):
            targets = targets.to(device)
            x = x.to(device)
            masks = masks.to(device)
            x = torch.nn.functional.pad(x, (context_size, 0))
            outs = []
            state = torch.zeros(0)
            for i in range(context_size, x.shape[1], num_samples):
                input_ = x[:, i - context_size : i + num_samples]
                out = stft_layer(input_)
                out = encoder_layer(out)
                out, state = decoder(out, state)
                outs.append(out)
            stacked = torch.cat(outs, dim=2).squeeze(1)
            loss = criterion(stacked, targets)
            loss = (loss * masks).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.update(loss.item(), masks.numel())
    return losses.avg


class FrozenVAD(nn.Module):
    """the pretrained JIT model's front end (stft, encoder), frozen"""

    def __init__(self):
        super().__init__()
        self.stft = nn.Sequential(nn.Unflatten(1, (1, -1)), nn.Conv1d(1, 16, 576, stride=576))
        self.encoder = nn.Sequential(nn.ReLU())
        self.requires_grad_(False)


class Config:
    tune_8k = False


jit_model = nn.Module()
jit_model._model = FrozenVAD()
torch.manual_seed(0)
decoder = VADDecoderRNNJIT()
init = copy.deepcopy(decoder.state_dict())
optimizer = torch.optim.Adam(decoder.parameters(), lr=1e-3)
criterion = nn.BCELoss(reduction="none")
loader = [(torch.randn(2, 1024), torch.randint(0, 2, (2, 2)).float(), torch.ones(2, 2)) for _ in range(3)]
torch.manual_seed(1)
train(Config(), loader, jit_model, decoder, criterion, optimizer, "cpu")

# the effect: clearing before each backward trains the decoder to other weights
reference = VADDecoderRNNJIT()
reference.load_state_dict(init)
ref_opt = torch.optim.Adam(reference.parameters(), lr=1e-3)
reference.train()
torch.manual_seed(1)
for x, targets, masks in loader:
    x = torch.nn.functional.pad(x, (64, 0))
    outs, state = [], torch.zeros(0)
    for i in range(64, x.shape[1], 512):
        out, state = reference(jit_model._model.encoder(jit_model._model.stft(x[:, i - 64 : i + 512])), state)
        outs.append(out)
    ref_opt.zero_grad()
    (criterion(torch.cat(outs, dim=2).squeeze(1), targets) * masks).mean().backward()
    ref_opt.step()
assert torch.allclose(decoder.rnn.weight_ih, reference.rnn.weight_ih)
