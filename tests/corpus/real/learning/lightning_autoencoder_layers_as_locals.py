# source: https://github.com/Lightning-AI/pytorch-lightning/issues/2282
# expect: optimizer got an empty parameter list
# buggy-line: 16
# also-line: 35
import argparse

import torch
import torch.nn as nn


class Autoencoder(nn.Module):
    def __init__(self, hparams: argparse.Namespace):
        super(Autoencoder, self).__init__()
        self.hparams = hparams

        self_layer_e_1 = nn.Conv1d(hparams.in_channels, hparams.out_channels, hparams.kernel_size)
        self_layer_e_2 = nn.Conv1d(hparams.out_channels, hparams.in_channels, hparams.kernel_size)
        self_layer_d_1 = nn.ConvTranspose1d(hparams.in_channels, hparams.out_channels, hparams.kernel_size)
        self_layer_d_2 = nn.ConvTranspose1d(hparams.out_channels, hparams.in_channels, hparams.kernel_size)

    def forward(self, x):
        x = self_layer_e_1(x)
        x = nn.ReLu(x)
        x = self_layer_e_2(x)
        encoded = nn.ReLU(x)
        x = self_layer_d_1(encoded)
        x = nn.ReLU(x)
        decoded = self_layer_d_2(x)
        decoded = self.decoder(encoded)
        return self.decoded, self.encoded

    def configure_optimizers(self):
        # option1 optimizer = torch.optim.Adam(self.parameters(), lr=self.hparams.lr)
        # option 2
        optimizer = torch.optim.Adam(params=list(self.parameters()), lr=self.hparams.lr)
        return optimizer


hparams = argparse.Namespace(in_channels=1, out_channels=4, kernel_size=3, lr=1e-3)
model = Autoencoder(hparams)
# what the Trainer does first in fit()
optimizer = model.configure_optimizers()
