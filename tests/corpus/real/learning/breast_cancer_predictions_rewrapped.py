# source: https://github.com/nyukat/breast_cancer_classifier/issues/56
# expect: silent: the averaged predictions go through numpy and are wrapped again with torch.tensor(..., requires_grad=True): the loss reaches no weight and optimizer.step() changes nothing
# buggy-line: 36
# also-line: 25
import numpy as np
import torch
import torch.nn as nn

VIEWS = ("L-CC", "R-CC", "L-MLO", "R-MLO")


class SplitViewModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleDict({view.replace("-", "_"): nn.Linear(6, 2) for view in VIEWS})

    def forward(self, x):
        return {view: torch.log_softmax(self.heads[view.replace("-", "_")](x[view]), dim=-1) for view in VIEWS}


def compute_batch_predictions(y_hat, mode):
    assert mode == "view_split"
    batch_prediction_dict = {}
    for view in VIEWS:
        batch_prediction_dict[view] = np.exp(y_hat[view].cpu().detach().numpy())
    return batch_prediction_dict


def run_model(model, exam_list, parameters, optimizer, loss):
    for datum in exam_list:
        output = model(datum["images"])
        batch_predictions = compute_batch_predictions(output, mode=parameters["model_mode"])
        predictions = np.stack([batch_predictions[view][:, 1] for view in VIEWS]).mean(axis=0)
        gt = np.asarray(datum["label"], dtype=np.float32)
        gt = torch.tensor(gt, dtype=torch.float, requires_grad=True)
        predictions = torch.tensor(predictions, requires_grad=True)
        l = loss(predictions, gt)
        optimizer.zero_grad()
        l.backward()
        optimizer.step()


torch.manual_seed(0)
model = SplitViewModel()
before = {name: p.detach().clone() for name, p in model.named_parameters()}
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
parameters = {"model_mode": "view_split"}
exam_list = [{"images": {view: torch.randn(3, 6) for view in VIEWS}, "label": [0.0, 1.0, 1.0]} for _ in range(2)]
run_model(model, exam_list, parameters, optimizer, nn.BCELoss())
assert all(torch.equal(p, before[name]) for name, p in model.named_parameters())
