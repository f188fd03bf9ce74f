# source: https://github.com/huggingface/accelerate/blob/main/examples/by_feature/gradient_accumulation.py
# expect: clean
import torch
import torch.nn as nn

accumulation_steps = 2
model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(3, 4), torch.randint(0, 2, (3,))) for _ in range(4)]

model.train()
for step, (inputs, labels) in enumerate(loader):
    outputs = model(inputs)
    loss = nn.functional.cross_entropy(outputs, labels) / accumulation_steps
    loss.backward()
    if (step + 1) % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
