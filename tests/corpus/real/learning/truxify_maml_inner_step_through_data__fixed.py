# source: https://github.com/KanishJebaMathewM/Truxify/issues/13118
# expect: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
import numpy as np
from typing import Dict, List, Tuple, Any, Optional
import logging
import copy

logger = logging.getLogger(__name__)

from torch.func import functional_call as _functional_call


class MAMLModel(nn.Module):
    """Model-Agnostic Meta-Learning (MAML)"""
    
    def __init__(
        self,
        input_dim: int = 64,
        hidden_dim: int = 256,
        output_dim: int = 1,
        num_layers: int = 3
    ):
        super().__init__()
        
        self.input_dim = input_dim
        self.hidden_dim = hidden_dim
        self.output_dim = output_dim
        self.num_layers = num_layers
        
        # Build network
        layers = []
        layers.append(nn.Linear(input_dim, hidden_dim))
        layers.append(nn.ReLU())
        layers.append(nn.Dropout(0.2))
        
        for _ in range(num_layers - 1):
            layers.append(nn.Linear(hidden_dim, hidden_dim))
            layers.append(nn.ReLU())
            layers.append(nn.Dropout(0.2))
        
        layers.append(nn.Linear(hidden_dim, output_dim))
        
        self.network = nn.Sequential(*layers)
    
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.network(x)
    
    def clone(self) -> 'MAMLModel':
        """Create a clone of the model"""
        clone = MAMLModel(
            self.input_dim,
            self.hidden_dim,
            self.output_dim,
            self.num_layers
        )
        clone.load_state_dict(self.state_dict())
        return clone


class MAML:
    """Model-Agnostic Meta-Learning Algorithm"""
    
    def __init__(
        self,
        model: MAMLModel,
        inner_lr: float = 0.01,
        outer_lr: float = 0.001,
        device: str = "cuda" if torch.cuda.is_available() else "cpu"
    ):
        self.model = model.to(device)
        self.inner_lr = inner_lr
        self.outer_lr = outer_lr
        self.device = device
        
        self.outer_optimizer = torch.optim.Adam(self.model.parameters(), lr=outer_lr)
        self.criterion = nn.MSELoss()

    def inner_update(self, model: MAMLModel, support_x: torch.Tensor, support_y: torch.Tensor):
        """Perform inner loop update (task-specific adaptation), graph-preserving"""
        adapted = {name: p.clone() for name, p in model.named_parameters()}

        pred = _functional_call(model, adapted, (support_x,))
        loss = self.criterion(pred, support_y)

        grads = torch.autograd.grad(loss, list(adapted.values()), create_graph=True)

        adapted = {
            name: param - self.inner_lr * grad
            for (name, param), grad in zip(adapted.items(), grads)
        }

        return lambda x: _functional_call(model, adapted, (x,))
    
    def outer_update(self, meta_loss: torch.Tensor):
        """Perform outer loop update (meta-optimization)"""
        self.outer_optimizer.zero_grad()
        meta_loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.outer_optimizer.step()
    
    def meta_train_step(
        self,
        tasks: List[Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]],
        k_shot: int = 5
    ) -> float:
        """Single meta-training step"""
        meta_loss = 0.0
        
        for support_x, support_y, query_x, query_y in tasks:
            # Inner adaptation on support set
            adapted_model = self.inner_update(self.model, support_x, support_y)

            # Compute loss on query set
            pred = adapted_model(query_x)
            task_loss = self.criterion(pred, query_y)
            meta_loss += task_loss
        
        # Average loss across tasks
        meta_loss = meta_loss / len(tasks)
        
        # Outer update
        self.outer_update(meta_loss)
        
        return meta_loss.item()


class TaskGenerator:
    """Task generator for meta-learning"""
    
    def __init__(self, num_tasks: int = 1000, input_dim: int = 64):
        self.num_tasks = num_tasks
        self.input_dim = input_dim
        self.tasks = []
        
        self._generate_tasks()
    
    def _generate_tasks(self):
        """Generate synthetic tasks"""
        for i in range(self.num_tasks):
            # Random linear function
            w = np.random.randn(self.input_dim, 1)
            b = np.random.randn(1)
            
            self.tasks.append({
                'weights': w,
                'bias': b,
                'task_id': i
            })
    
    def sample_task(self, k_shot: int = 5) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """Sample a single task"""
        task = np.random.choice(self.tasks)
        w = task['weights']
        b = task['bias']
        
        # Generate support set
        support_x = np.random.randn(k_shot, self.input_dim)
        support_y = support_x @ w + b + np.random.randn(k_shot, 1) * 0.1
        
        # Generate query set
        query_x = np.random.randn(10, self.input_dim)
        query_y = query_x @ w + b + np.random.randn(10, 1) * 0.1
        
        return (
            torch.tensor(support_x, dtype=torch.float32),
            torch.tensor(support_y, dtype=torch.float32),
            torch.tensor(query_x, dtype=torch.float32),
            torch.tensor(query_y, dtype=torch.float32)
        )
    
    def sample_tasks(self, num_tasks: int, k_shot: int = 5) -> List[Tuple]:
        """Sample multiple tasks"""
        tasks = []
        for _ in range(num_tasks):
            tasks.append(self.sample_task(k_shot))
        return tasks


if __name__ == "__main__":
    np.random.seed(0)
    maml = MAML(MAMLModel(input_dim=8, hidden_dim=16), device="cpu")
    generator = TaskGenerator(num_tasks=20, input_dim=8)
    before = [p.detach().clone() for p in maml.model.parameters()]
    maml.meta_train_step(generator.sample_tasks(4, k_shot=5))
    assert all(p.grad is not None for p in maml.model.parameters())
