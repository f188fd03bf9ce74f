# source: https://github.com/huggingface/transformers/pull/24529
# expect: clean
# mechanism: the class head divides its embeddings in place by their norm (`/=`), and torch.linalg.norm saved those very tensors for its backward
import torch
from torch import nn


class OwlViTClassPredictionHead(nn.Module):
    def __init__(self, config):
        super().__init__()
        out_dim = config["text_hidden_size"]
        self.query_dim = config["vision_hidden_size"]
        self.dense0 = nn.Linear(self.query_dim, out_dim)
        self.logit_shift = nn.Linear(self.query_dim, 1)
        self.logit_scale = nn.Linear(self.query_dim, 1)
        self.elu = nn.ELU()

    def forward(self, image_embeds, query_embeds, query_mask):
        image_class_embeds = self.dense0(image_embeds)
        if query_embeds is None:
            pred_logits = torch.zeros(image_class_embeds.shape[0], image_class_embeds.shape[1], self.query_dim)
            return (pred_logits, image_class_embeds)

        # Normalize image and text features
        image_class_embeds = image_class_embeds / (torch.linalg.norm(image_class_embeds, dim=-1, keepdim=True) + 1e-6)
        query_embeds = query_embeds / (torch.linalg.norm(query_embeds, dim=-1, keepdim=True) + 1e-6)

        pred_logits = torch.einsum("...pd,...qd->...pq", image_class_embeds, query_embeds)
        logit_shift = self.logit_shift(image_embeds)
        logit_scale = self.elu(self.logit_scale(image_embeds)) + 1
        pred_logits = (pred_logits + logit_shift) * logit_scale
        if query_mask is not None:
            if query_mask.ndim > 1:
                query_mask = torch.unsqueeze(query_mask, dim=-2)
            pred_logits = torch.where(query_mask == 0, -1e6, pred_logits)
        return (pred_logits, image_class_embeds)


config = {"text_hidden_size": 6, "vision_hidden_size": 8}
head = OwlViTClassPredictionHead(config)
text_projection = nn.Linear(5, 6)
image_embeds = torch.randn(2, 4, 8)
query_embeds = text_projection(torch.randn(2, 3, 5))
pred_logits, class_embeds = head(image_embeds, query_embeds, torch.ones(2, 3))
pred_logits.sigmoid().mean().backward()
