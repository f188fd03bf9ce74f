"""The project index (gradlint/project.py): a file is linted with the definitions it
imports from its own project, as if they were in it; findings stay on its own lines."""

from __future__ import annotations

import textwrap
from pathlib import Path

from gradlint import project
from gradlint.cache import ResultCache
from gradlint.config import Config
from gradlint.engine import lint_source

MODEL = """\
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(torch.ones(3))

        def forward(self, x):
            return torch.sigmoid(x * self.scale)
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _found(path: Path) -> list[tuple[str, int]]:
    result = lint_source(str(path), path.read_bytes())
    assert not result.internal_errors, result.internal_errors
    return [(d.code, d.line) for d in result.diagnostics]


EDIT_SCALE = """\
    import torch
    {import_line}

    model = {build}
    model.scale.mul_(2)
"""


def _edit_scale(tmp_path: Path, files: dict[str, str], import_line: str, build: str, name: str):
    _write(tmp_path, {**files, name: EDIT_SCALE.format(import_line=import_line, build=build)})
    return _found(tmp_path / name)


def test_parameter_of_a_sibling_module_edited_in_place(tmp_path):
    found = _edit_scale(tmp_path, {"model.py": MODEL}, "from model import Net", "Net()", "train.py")
    assert found == [("GL101", 5)]


def test_the_same_lines_without_the_model_file_are_unknown(tmp_path):
    assert _edit_scale(tmp_path, {}, "from model import Net", "Net()", "train.py") == []


def test_relative_import_in_a_package(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/model.py": MODEL}
    found = _edit_scale(tmp_path, files, "from .model import Net", "Net()", "pkg/train.py")
    assert found == [("GL101", 5)]


def test_from_package_module_import(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/model.py": MODEL}
    found = _edit_scale(tmp_path, files, "from pkg.model import Net", "Net()", "train.py")
    assert found == [("GL101", 5)]


def test_import_package_module_as_alias(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/model.py": MODEL}
    found = _edit_scale(tmp_path, files, "import pkg.model as m", "m.Net()", "train.py")
    assert found == [("GL101", 5)]


def test_re_export_through_init_under_another_name(tmp_path):
    files = {"pkg/__init__.py": "from .model import Net as Model\n", "pkg/model.py": MODEL}
    found = _edit_scale(tmp_path, files, "from pkg import Model", "Model()", "train.py")
    assert found == [("GL101", 5)]


def test_src_layout(tmp_path):
    files = {"src/pkg/__init__.py": "", "src/pkg/model.py": MODEL}
    found = _edit_scale(tmp_path, files, "from pkg.model import Net", "Net()", "src/pkg/train.py")
    assert found == [("GL101", 5)]


def test_output_of_a_forward_in_another_file_edited_in_place(tmp_path):
    _write(
        tmp_path,
        {
            "model.py": MODEL,
            "train.py": """\
                import torch
                from model import Net

                net = Net()
                out = net(torch.randn(2, 3))
                out.mul_(2)
                out.sum().backward()
            """,
        },
    )
    assert _found(tmp_path / "train.py") == [("GL103", 6)]


def test_plain_list_of_layers_from_a_helper_in_a_third_module_with_a_cycle(tmp_path):
    _write(
        tmp_path,
        {
            "utils.py": """\
                import torch.nn as nn
                from model import DEPTH


                def make_layers(width):
                    return [nn.Linear(width, width) for _ in range(DEPTH)]
            """,
            "model.py": """\
                import torch.nn as nn
                from utils import make_layers

                DEPTH = 2


                class Net(nn.Module):
                    def __init__(self, width=4):
                        super().__init__()
                        self.layers = make_layers(width)

                    def forward(self, x):
                        for layer in self.layers:
                            x = layer(x)
                        return x
            """,
        },
    )
    assert _found(tmp_path / "model.py") == [("GL502", 10)]


def test_import_cycle_between_dependencies_ends(tmp_path):
    _write(
        tmp_path,
        {
            "a.py": "from b import helper_b\n\n\ndef helper_a():\n    return helper_b()\n",
            "b.py": "from a import helper_a\n\n\ndef helper_b():\n    return helper_a()\n",
            "model.py": MODEL,
            "train.py": "import torch\nfrom model import Net\nfrom a import helper_a\n\n"
            "model = Net()\nmodel.scale.mul_(2)\n",
        },
    )
    assert _found(tmp_path / "train.py") == [("GL101", 6)]
    assert project.index_key(str(tmp_path / "a.py"), (tmp_path / "a.py").read_bytes())


def test_a_name_two_project_modules_define_leaves_the_file_alone(tmp_path):
    _write(
        tmp_path,
        {
            "model.py": MODEL + "\n\ndef helper():\n    return Net()\n",
            "other.py": "import torch.nn as nn\n\n\nclass Net(nn.Module):\n    pass\n\n\n"
            "def make():\n    return Net()\n",
            "train.py": "import torch\nfrom model import helper\nfrom other import make\n\n"
            "model = helper()\nmodel.scale.mul_(2)\n",
        },
    )
    assert _found(tmp_path / "train.py") == []


def test_cache_key_follows_the_imported_files(tmp_path):
    _write(
        tmp_path,
        {
            "model.py": MODEL,
            "train.py": EDIT_SCALE.format(import_line="from model import Net", build="Net()"),
        },
    )
    train = tmp_path / "train.py"
    cache = ResultCache(tmp_path / "cache", Config())
    before = cache.key(str(train), train.read_bytes())
    (tmp_path / "model.py").write_text(textwrap.dedent(MODEL).replace("ones", "zeros"))
    assert cache.key(str(train), train.read_bytes()) != before


# quantumiracle/Popular-RL-Algorithms ddpg.py (issue 31, batch 13): the networks come from
# the project's own modules; the message named the backward's line in the linked text
# (347), not in the file (196).
NETWORKS = """\
    import torch
    import torch.nn as nn


    class QNetwork(nn.Module):
        def __init__(self, state_dim, action_dim, hidden_dim):
            super().__init__()
            self.linear1 = nn.Linear(state_dim + action_dim, hidden_dim)
            self.linear2 = nn.Linear(hidden_dim, hidden_dim)
            self.linear3 = nn.Linear(hidden_dim, 1)

        def forward(self, state, action):
            x = torch.cat([state, action], 1)
            x = torch.relu(self.linear1(x))
            x = torch.relu(self.linear2(x))
            return self.linear3(x)
"""

DDPG = """\
    import torch
    import torch.optim as optim
    from value_networks import QNetwork

    qnet = QNetwork(3, 1, 8)
    policy = torch.nn.Linear(3, 1)
    q_optimizer = optim.Adam(qnet.parameters(), lr=1e-3)
    state, action, target_q = torch.randn(4, 3), torch.randn(4, 1), torch.randn(4, 1)
    predict_q = qnet(state, action)
    predict_new_q = qnet(state, policy(state))
    q_loss = ((predict_q - target_q) ** 2).mean()
    q_optimizer.zero_grad()
    q_loss.backward()
    q_optimizer.step()
    policy_loss = -torch.mean(predict_new_q)
    policy_loss.backward()
"""


def test_a_line_a_message_names_is_the_files_own(tmp_path):
    _write(tmp_path, {"value_networks.py": NETWORKS, "ddpg.py": DDPG})
    path = tmp_path / "ddpg.py"
    found = lint_source(str(path), path.read_bytes()).diagnostics
    backward = textwrap.dedent(DDPG).splitlines().index("policy_loss.backward()") + 1
    assert {(d.code, d.line) for d in found} == {("GL103", 14), ("GL504", 14)}
    assert all(f"line {backward}" in d.message + d.detail for d in found), found
