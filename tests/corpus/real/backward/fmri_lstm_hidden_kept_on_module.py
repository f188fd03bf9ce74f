# source: https://github.com/sgadgil6/cnslab_fmri/issues/4
# expect: Trying to backward through the graph a second time
# buggy-line: 50
# also-line: 27
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class fMRI_LSTM(nn.Module):
    def __init__(self, hidden_dim, input_dim):
        super(fMRI_LSTM, self).__init__()
        self.hidden_dim = hidden_dim
        self.lstm = nn.LSTM(input_dim, hidden_dim, num_layers=1, batch_first=True)
        self.linear = nn.Linear(hidden_dim, 1)
        self.hidden = self.init_hidden()
        self.dropout = nn.Dropout(p=0.2)
        self.activate = nn.Sigmoid()

    def init_hidden(self):
        return (torch.randn(1, 4, self.hidden_dim).to(device), torch.randn(1, 4, self.hidden_dim).to(device))

    def forward(self, x):
        lstm_out, self.hidden = self.lstm(x, self.hidden)
        lstm_out = lstm_out.squeeze()[:, -1, :]
        out = self.dropout(lstm_out)
        linear_output = self.linear(out)
        final_output = self.activate(linear_output)
        return final_output


def train(training_data, training_labels, num_timesteps=5, n_epochs=2):
    model = fMRI_LSTM(8, 22).to(device)
    loss_function = nn.BCELoss()
    optimizer = optim.Adam(model.parameters(), lr=0.001)
    for epoch in range(n_epochs):
        epoch_loss = 0.0
        for i in range(0, len(training_data), 4):
            model.train()
            idx = np.random.choice(training_data.shape[1], num_timesteps, replace=False)
            x = torch.Tensor(training_data[i : i + 4][:, idx]).to(device)
            true_label = torch.FloatTensor(training_labels[i : i + 4]).view(-1, 1).to(device)
            model.zero_grad()
            predicted_prob = model(x)
            loss = loss_function(predicted_prob, true_label)
            epoch_loss += loss.item()
            loss.backward()
            optimizer.step()
        print("Epoch: {}, loss: {}".format(epoch, epoch_loss))


training_data = np.random.rand(8, 20, 22).astype(np.float32)
training_labels = np.random.randint(0, 2, 8).astype(np.float32)
train(training_data, training_labels)
