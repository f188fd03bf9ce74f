# source: https://github.com/2U1/Qwen-VL-Series-Finetune/pull/178
# expect: clean
import torch
import torch.nn as nn


class VisionTower(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.merger = nn.Linear(12, dim)

    def forward(self, pixel_values):
        return self.merger(pixel_values)


class QwenVLTiny(nn.Module):
    image_token_id = 7

    def __init__(self, vocab=10, dim=8):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, dim)
        self.visual = VisionTower(dim)
        self.lm_head = nn.Linear(dim, vocab)

    def enable_input_require_grads(self):
        def make_inputs_require_grads(module, input, output):
            output.requires_grad_(True)

        self._require_grads_hook = self.embed_tokens.register_forward_hook(make_inputs_require_grads)

    def forward(self, input_ids, pixel_values):
        inputs_embeds = self.embed_tokens(input_ids)
        img = self.visual(pixel_values)
        flat = inputs_embeds.view(-1, inputs_embeds.shape[-1])
        row_idx = (input_ids.view(-1) == self.image_token_id).nonzero().squeeze(-1)
        flat = flat.index_copy(0, row_idx, img)
        return self.lm_head(flat.view_as(inputs_embeds))


model = QwenVLTiny()
model.embed_tokens.weight.requires_grad_(False)
model.enable_input_require_grads()
optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
input_ids = torch.tensor([[1, 7, 7, 3, 4]])
pixel_values = torch.randn(2, 12)
labels = torch.tensor([[7, 7, 3, 4, 2]])
logits = model(input_ids, pixel_values)
loss = nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1))
loss.backward()
optimizer.step()
