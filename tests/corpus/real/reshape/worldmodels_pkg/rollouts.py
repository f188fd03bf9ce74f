""" Some data loading utilities (stands for data/loaders.py: random rollouts instead of files) """
import numpy as np
import torch
import torch.utils.data

from worldmodels_pkg.utils import ASIZE, SIZE


class RolloutSequenceDataset(torch.utils.data.Dataset): # pylint: disable=too-few-public-methods
    """ Encapsulates rollouts: (obs, action, reward, terminal, next_obs) sequences """
    def __init__(self, root, seq_len, transform, buffer_size=200, train=True): # pylint: disable=too-many-arguments
        self._transform = transform
        self._seq_len = seq_len
        self._n = 20 if train else 12  # not a multiple of the batch size
        self._rng = np.random.RandomState(0)

    def load_next_buffer(self):
        """ Loads next buffer """

    def __len__(self):
        return self._n

    def __getitem__(self, i):
        obs_data = self._rng.randint(0, 255, (self._seq_len + 1, SIZE, SIZE, 3)).astype(np.float32)
        obs_data = torch.as_tensor(np.ascontiguousarray(self._transform(obs_data)), dtype=torch.float32)
        obs, next_obs = obs_data[:-1], obs_data[1:]
        action = torch.randn(self._seq_len, ASIZE)
        reward = torch.randn(self._seq_len)
        terminal = torch.zeros(self._seq_len)
        return obs, action, reward, terminal, next_obs
