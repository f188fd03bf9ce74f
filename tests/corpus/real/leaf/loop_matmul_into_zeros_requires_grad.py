# source: https://github.com/pytorch/pytorch/issues/53348
# expect: a view of a leaf Variable that requires grad is being used in an in-place operation
# buggy-line: 17
# mechanism: an accumulator made with `torch.zeros(..., requires_grad=True)` (a leaf) is filled element by element with index assignment in nested loops
import torch


def loop_matmul(ma, mb):
    B, C, H, W = ma.shape
    B, C, W, K = mb.shape
    res_torch = torch.zeros((B, C, H, K), requires_grad=True)
    for b in range(B):
        for c in range(C):
            for h in range(H):
                for k in range(K):
                    for r in range(W):
                        res_torch[b][c][h][k] = res_torch[b][c][h][k] + ma[b][c][h][r] * mb[b][c][r][k]
    return res_torch


ma = torch.randn(1, 2, 2, 3).requires_grad_(True)
mb = torch.randn(1, 2, 3, 2).requires_grad_(True)
res_torch = loop_matmul(ma, mb)
res_torch.sum().backward()
print(ma.grad)
