# source: https://github.com/udacity/deep-learning-v2-pytorch/issues/86
# expect: mat1 and mat2 shapes cannot be multiplied
# buggy-line: 33
# also-line: 31
import torch
from torch import nn, optim

torch.manual_seed(0)
trainloader = [(torch.rand(4, 1, 28, 28), torch.randint(0, 10, (4,))) for _ in range(2)]

model = nn.Sequential(
    nn.Linear(784, 256),
    nn.ReLU(),
    nn.Linear(256, 128),
    nn.ReLU(),
    nn.Linear(128, 64),
    nn.ReLU(),
    nn.Linear(64, 10),
    nn.LogSoftmax(dim=1),
)

criterion = nn.NLLLoss()
optimizer = optim.Adam(model.parameters(), lr=0.001)

# TODO: Train the network here
epochs = 5
for e in range(epochs):
    running_loss = 0
    for images, labels in trainloader:
        # Flatten MNIST images into a 784 long vector
        imagees = images.view(1, -1)

        log_ps = model(images)
        loss = criterion(log_ps, labels)

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        running_loss += loss.item()
    else:
        print("Training loss:", running_loss / len(trainloader))
