# source: https://github.com/facebookresearch/CrypTen/issues/487
# expect: mat1 and mat2 shapes cannot be multiplied
# buggy-line: 15
# mechanism: the images reach nn.Linear(784, 10) as (batch, 28, 28): the Linear multiplies the last dimension, 28, not the 784 pixels
import torch
import torch.nn as nn


class LogisticRegression(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(28 * 28, 10)

    def forward(self, x):
        return self.linear(x)


def train_model(model, X, y, epochs=2, learning_rate=0.05, batch_size=10):
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        num_batches = X.size(0) // batch_size
        for batch in range(num_batches):
            start, end = batch * batch_size, (batch + 1) * batch_size
            x_batch = X[start:end]
            y_batch = y[start:end]
            output = model(x_batch)
            loss = criterion(output, y_batch)
            model.zero_grad()
            loss.backward()
            with torch.no_grad():
                for param in model.parameters():
                    param -= learning_rate * param.grad


x_train = torch.rand(20, 28, 28)
y_train = torch.randint(0, 10, (20,))
model = LogisticRegression()
train_model(model, x_train, y_train)
