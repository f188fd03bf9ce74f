# source: https://github.com/nyukat/breast_cancer_classifier/issues/56
# expect: clean
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
        predictions = torch.stack([output[view].exp()[:, 1] for view in VIEWS]).mean(dim=0)
        gt = torch.tensor(datum["label"], dtype=torch.float)
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
assert not all(torch.equal(p, before[name]) for name, p in model.named_parameters())
