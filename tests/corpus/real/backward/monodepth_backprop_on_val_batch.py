# source: https://github.com/nianticlabs/monodepth2/issues/24
# expect: element 0 of tensors does not require grad and does not have a grad_fn
# buggy-line: 45
# also-line: 42
# mechanism: the losses are computed inside `with torch.no_grad()` (the validation path), then backward() is called on them
import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self):
        self.models = {"encoder": nn.Conv2d(3, 8, 3, padding=1), "depth": nn.Conv2d(8, 1, 3, padding=1)}
        self.parameters_to_train = []
        for m in self.models.values():
            self.parameters_to_train += list(m.parameters())
        self.model_optimizer = torch.optim.Adam(self.parameters_to_train, 1e-4)

    def set_train(self):
        for m in self.models.values():
            m.train()

    def set_eval(self):
        for m in self.models.values():
            m.eval()

    def process_batch(self, inputs):
        features = self.models["encoder"](inputs["color"])
        outputs = {"disp": torch.sigmoid(self.models["depth"](features))}
        losses = self.compute_losses(inputs, outputs)
        return outputs, losses

    def compute_losses(self, inputs, outputs):
        target = inputs["color"].mean(1, keepdim=True)
        return {"loss": F.l1_loss(outputs["disp"], target)}

    def val(self, inputs):
        """Validate the model on a single minibatch
        """
        self.set_eval()
        with torch.no_grad():
            outputs, losses = self.process_batch(inputs)
        # changed here: also learn from the validation batch
        self.model_optimizer.zero_grad()
        losses["loss"].backward()
        self.model_optimizer.step()
        self.set_train()


trainer = Trainer()
trainer.val({"color": torch.rand(2, 3, 16, 16)})
