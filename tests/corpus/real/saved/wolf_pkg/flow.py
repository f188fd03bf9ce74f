import torch.nn as nn


class Flow(nn.Module):
    """
    Normalizing Flow base class
    """

    def __init__(self, inverse):
        super(Flow, self).__init__()
        self.inverse = inverse

    def fwdpass(self, x, *h, init=False, init_scale=1.0, **kwargs):
        if self.inverse:
            return self.backward(x, *h, **kwargs)
        return self.forward(x, *h, **kwargs)
