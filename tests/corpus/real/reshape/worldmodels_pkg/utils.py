""" Various auxiliary utilities (stands for utils/misc.py of ctallec/world-models, sizes shrunk for CPU) """
from os.path import join
import torch

# Hardcoded for now
ASIZE, LSIZE, RSIZE, RED_SIZE, SIZE =\
    3, 8, 16, 16, 24


def save_checkpoint(state, is_best, filename, best_filename):
    """ Save state in filename. Also save in best_filename if is_best. """
    torch.save(state, filename)
    if is_best:
        torch.save(state, best_filename)
