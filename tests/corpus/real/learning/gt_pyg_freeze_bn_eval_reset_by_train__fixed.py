# source: https://github.com/pgniewko/gt-pyg/issues/112
# expect: clean
from typing import Dict, List, Optional, Union

import torch
import torch.nn as nn
import torch.nn.functional as F


class GTConv(nn.Module):
    """stands for gt_pyg.nn.gt_conv.GTConv: message passing over edge_index,
    then a feed-forward block, each followed by the configured norm"""

    def __init__(self, node_in_dim, hidden_dim, norm="bn", dropout=0.1):
        super().__init__()
        self.WV = nn.Linear(node_in_dim, hidden_dim)
        self.norm1 = nn.BatchNorm1d(hidden_dim) if norm == "bn" else nn.LayerNorm(hidden_dim)
        self.ffn = nn.Linear(hidden_dim, hidden_dim)
        self.norm2 = nn.BatchNorm1d(hidden_dim) if norm == "bn" else nn.LayerNorm(hidden_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, edge_index, edge_attr=None):
        src, dst = edge_index
        msg = torch.zeros_like(x).index_add(0, dst, self.WV(x)[src])
        h = self.norm1(x + self.dropout(msg))
        h = self.norm2(h + self.dropout(F.gelu(self.ffn(h))))
        return h, edge_attr


class GraphTransformerNet(nn.Module):
    def __init__(self, node_dim_in: int, hidden_dim: int = 16, norm: str = "bn",
                 num_gt_layers: int = 2, dropout: float = 0.1, num_tasks: int = 1) -> None:
        super().__init__()
        self.num_tasks = int(num_tasks)
        self.node_emb = nn.Linear(node_dim_in, hidden_dim, bias=False)
        self.edge_emb = None
        self.input_norm = nn.BatchNorm1d(hidden_dim) if norm == "bn" else nn.LayerNorm(hidden_dim)
        self.input_dropout = nn.Dropout(dropout)
        self.gt_layers = nn.ModuleList(
            [GTConv(hidden_dim, hidden_dim, norm=norm, dropout=dropout) for _ in range(num_gt_layers)]
        )
        self.global_pool = nn.Identity()
        self.readout_norm = nn.BatchNorm1d(hidden_dim) if norm == "bn" else nn.LayerNorm(hidden_dim)
        self.readout_dropout = nn.Dropout(dropout)
        self.mu_mlp = nn.Linear(hidden_dim, num_tasks)
        self.log_var_mlp = nn.Linear(hidden_dim, num_tasks)

    def _get_batch_index(self, batch):
        return batch

    def forward(self, x, edge_index, edge_attr=None, batch=None, zero_var=False):
        # Node embedding
        h = self.node_emb(x)  # [N, H]

        # Input norm + dropout
        h = self.input_norm(h)
        h = self.input_dropout(h)

        e = None

        # Graph Transformer layers
        for gt_layer in self.gt_layers:
            h, e = gt_layer(x=h, edge_index=edge_index, edge_attr=e)

        # Global pooling
        batch_index = self._get_batch_index(batch)
        g = torch.zeros(int(batch_index.max()) + 1, h.shape[1]).index_add(0, batch_index, self.global_pool(h))

        # Readout norm + dropout
        latent = self.readout_norm(g)
        g = self.readout_dropout(latent)

        # Heads
        mu = self.mu_mlp(g)            # [B, T]
        log_var = self.log_var_mlp(g)  # [B, T]
        log_var = torch.clamp(log_var, min=-10.0, max=10.0)
        return mu, log_var

    def _get_component_modules(self, name: str) -> List[nn.Module]:
        """Map component name to list of modules."""
        embeddings = [self.node_emb] + ([self.edge_emb] if self.edge_emb else [])
        encoder = [self.input_norm, self.input_dropout] + list(self.gt_layers)
        heads = [self.readout_norm, self.readout_dropout, self.mu_mlp, self.log_var_mlp]
        pooling = [self.global_pool]

        components = {
            "embeddings": embeddings,
            "encoder": encoder,
            "gt_layers": list(self.gt_layers),
            "heads": heads,
            "pooling": pooling,
            "all": embeddings + encoder + heads + pooling,
        }
        # Handle gt_layer_{i}
        if name.startswith("gt_layer_"):
            idx = int(name.split("_")[-1])
            if idx < 0 or idx >= len(self.gt_layers):
                raise ValueError(f"Invalid layer index: {idx}. Model has {len(self.gt_layers)} layers.")
            return [self.gt_layers[idx]]

        if name not in components:
            raise ValueError(f"Unknown component: '{name}'. Valid: {sorted(components.keys())}")
        return components[name]

    def _set_requires_grad(self, modules: List[nn.Module], requires_grad: bool) -> None:
        """Set requires_grad for all params in modules. Handles BatchNorm eval mode."""
        for module in modules:
            for param in module.parameters():
                param.requires_grad = requires_grad
            # Set BatchNorm to eval mode when freezing
            for m in module.modules():
                if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
                    if requires_grad:
                        m.train()
                    else:
                        m.eval()

    def freeze(
        self,
        components: Optional[Union[str, List[str]]] = None,
        exclude: Optional[Union[str, List[str]]] = None,
    ) -> "GraphTransformerNet":
        """Freeze model components (set requires_grad=False)."""
        if components is None:
            components = ["all"]
        elif isinstance(components, str):
            components = [components]

        if exclude is None:
            exclude = []
        elif isinstance(exclude, str):
            exclude = [exclude]

        # Get modules to freeze
        to_freeze = set()
        for comp in components:
            for m in self._get_component_modules(comp):
                to_freeze.add(m)

        # Remove excluded modules
        for comp in exclude:
            for m in self._get_component_modules(comp):
                to_freeze.discard(m)

        self._set_requires_grad(list(to_freeze), requires_grad=False)
        return self

    def train(self, mode: bool = True) -> "GraphTransformerNet":
        """Keep frozen BatchNorm layers in eval mode across model.train()."""
        super().train(mode)
        if mode:
            for m in self.modules():
                if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)) and not any(
                    p.requires_grad for p in m.parameters()
                ):
                    m.eval()
        return self

    def get_frozen_status(self) -> Dict[str, Optional[bool]]:
        status: Dict[str, Optional[bool]] = {}
        for name in ["embeddings", "encoder", "gt_layers", "heads", "pooling"]:
            modules = self._get_component_modules(name)
            params = [p for m in modules for p in m.parameters()]
            status[name] = all(not p.requires_grad for p in params) if params else None
        return status


def train_epoch(model, loader, optimizer):
    model.train()
    total = 0.0
    for x, edge_index, batch, y in loader:
        optimizer.zero_grad()
        mu, log_var = model(x, edge_index, batch=batch)
        loss = F.gaussian_nll_loss(mu, y, log_var.exp())
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


if __name__ == "__main__":
    torch.manual_seed(0)
    model = GraphTransformerNet(node_dim_in=5, hidden_dim=16, norm="bn", num_gt_layers=2)
    # pretend pretraining set the running statistics
    model.freeze(exclude="heads")
    stats_before = model.input_norm.running_mean.clone()
    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    edge_index = torch.tensor([[0, 1, 2, 3, 4, 5], [1, 0, 3, 2, 5, 4]])
    loader = [(torch.randn(6, 5) + 3.0, edge_index, torch.tensor([0, 0, 1, 1, 2, 2]), torch.randn(3, 1))
              for _ in range(3)]
    for epoch in range(2):
        train_epoch(model, loader, optimizer)
    assert model.get_frozen_status()["encoder"] is True
    assert not model.input_norm.training
    assert torch.equal(model.input_norm.running_mean, stats_before)
