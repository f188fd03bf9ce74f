# source: https://github.com/BaiTheBest/SparseLLM/issues/13
# expect: clean
import torch

torch.manual_seed(0)

s_learning_rate = 0.01
n_chunks = 2
chunk_size = 3
s = torch.randn(8, n_chunks * chunk_size).half()
W = torch.randn(n_chunks * chunk_size, 4)
target = torch.randn(8, 4)

for chunk_idx in range(n_chunks):
    chunk = slice(chunk_idx * chunk_size, (chunk_idx + 1) * chunk_size)
    s_batch = s[:, chunk].float().clone().requires_grad_(True)
    for _ in range(2):
        out = s_batch @ W[chunk, :]
        loss_s = ((out - target) ** 2).mean()
        loss_s.backward()
        with torch.no_grad():
            s_batch -= s_learning_rate * s_batch.grad
        s_batch.grad.zero_()
    s[:, chunk] = s_batch.detach().to(dtype=torch.float16)
