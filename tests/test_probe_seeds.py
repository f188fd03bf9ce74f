"""Acceptance on the seed examples: `gradlint --probe` confirms each true finding with
torch's own message, through the real rules (witness probes) and the code probe."""

from gradlint.engine import lint_source
from gradlint.probe import run_probes

SEED_000_EX3 = """\
# Example 3: Invalid gradient shape due to incompatible gradient tensor
import torch
input_tensor_3 = torch.randn(10, 5, requires_grad=True)
weight_matrix_3 = torch.randn(5, 3, requires_grad=True)
output_tensor_3 = torch.mm(input_tensor_3, weight_matrix_3)  # Shape: (10, 3)
reduced_tensor_3 = torch.sum(output_tensor_3, dim=1, keepdim = False) # Shape: (10,)

# Incorrect: Gradient not aligned with reduced_tensor_3
grad_incorrect = torch.randn(10, 3)  # does NOT match the reduced shape
try:
  reduced_tensor_3.backward(grad_incorrect)
except RuntimeError as e:
    print(f"Runtime Error: {e}")

"""

SEED_001_EX1 = """\
import torch
import torch.nn as nn

class MyModule(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        # Incorrect: Reshaping introduces issues for gradient propagation.
        x = x.reshape(-1, 10)  #Assume input x may not always be of size 10.
        x = self.linear(x)
        return x

    def mmBackward(self, grad_output):
        #This function is correct, but the error lies in the forward pass
        grad_input = torch.mm(grad_output, self.linear.weight.T)
        return grad_input


model = MyModule(20, 5)
input_tensor = torch.randn(1, 20)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
"""

SEED_001_EX2 = """\
import torch
import torch.nn as nn

class MyModule(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(size))

    def forward(self, x):
        # Incorrect: In-place modification breaks the computation graph.
        self.weight += x
        return self.weight

    def mmBackward(self, grad_output):
        return grad_output

model = MyModule(10)
input_tensor = torch.randn(10)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
"""

SEED_001_EX3 = """\
import torch
import torch.nn as nn

class MyModule(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        # Incorrect: Hard threshold is not differentiable.
        x[x < 0] = 0
        return x

    def mmBackward(self, grad_output): #This is technically never called in this case.
        return grad_output

model = MyModule()
input_tensor = torch.randn(10)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
"""

SEED_002_EX1 = """\
import torch
import torch.nn as nn

class MyLinearLayer(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_features, out_features))
        self.bias = nn.Parameter(torch.randn(out_features))

    def forward(self, x):
        self.x = x # save input for backward pass
        return torch.mm(x, self.weight) + self.bias

    def backward(self, grad_output):
        grad_input = torch.mm(grad_output, self.weight.t())
        grad_weight = torch.mm(self.x.t(), grad_output)
        grad_bias = grad_output.sum(dim=0)
        return grad_input, grad_weight, grad_bias


# Example usage
layer = MyLinearLayer(10, 5)
input = torch.randn(1,10)
output = layer(input)
grad_output = torch.ones_like(output)
grad_input, grad_weight, grad_bias = layer.backward(grad_output)

print(grad_input.shape, grad_weight.shape, grad_bias.shape)
"""


def _confirmed(diagnostics, code, line, verdict="confirmed"):
    [d] = [
        d
        for d in diagnostics
        if (d.code, d.line) == (code, line) and (d.probe or {}).get("verdict") == verdict
    ]
    return d.probe["message"]


def test_witness_probes_reproduce_the_seeds():
    """The rules' examples only reproduce the bugs (they do not run the user's code). One
    worker for all: leaf in-place (001 ex. 2 and 3) and the gradient shape (000 ex. 3).
    Seed 001 ex. 3 never calls its module, so no caller's tensor is edited: it is linted
    with the call its `input_tensor` is made for and a read of that tensor afterwards. Its
    module has no parameter, so its SGD raises "optimizer got an empty parameter list"
    (torch 2.13): GL507."""
    found = lint_source("001-ex3.py", SEED_001_EX3).diagnostics
    assert [d.code for d in found] == ["GL303", "GL507"]
    called = SEED_001_EX3 + "output = model(input_tensor)\nprint(input_tensor)\n"
    found = {
        name: lint_source(f"{name}.py", source).diagnostics
        for name, source in [
            ("000-ex3", SEED_000_EX3),
            ("001-ex2", SEED_001_EX2),
            ("001-ex3", called),
        ]
    }
    run_probes([d for diagnostics in found.values() for d in diagnostics], mode="witness")
    assert _confirmed(found["000-ex3"], "GL301", 11, "reproduced").startswith("Mismatch in shape")
    leaf = "a leaf Variable that requires grad is being used in an in-place operation"
    assert _confirmed(found["001-ex2"], "GL101", 11, "reproduced").startswith(leaf)
    assert _confirmed(found["001-ex3"], "GL105", 10, "reproduced")


def test_code_probes_confirm_the_seeds(tmp_path):
    """001 ex. 1: the shape error torch raises; 002 ex. 1: `backward` is never invoked."""
    sources, found = {}, []
    for name, source in [("s001_ex1.py", SEED_001_EX1), ("s002_ex1.py", SEED_002_EX1)]:
        path = tmp_path / name
        path.write_text(source)
        sources[str(path)] = source
        found += lint_source(str(path), source).diagnostics
    result = run_probes(found, sources=sources)  # definitions: no module-level code runs
    shape = [d for d in result if d.path.endswith("s001_ex1.py") and d.line in (11, 12)]
    assert shape
    for d in shape:
        assert d.probe["verdict"] == "confirmed"
        assert d.probe["message"].startswith("mat1 and mat2 shapes cannot be multiplied (2x10")
    ignored = [d for d in result if d.path.endswith("s002_ex1.py")]
    assert _confirmed(ignored, "GL303", 14).startswith(
        "`MyLinearLayer.backward` was never invoked by `loss.backward()`"
    )
