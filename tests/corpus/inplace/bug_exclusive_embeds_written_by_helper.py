# A text model that takes token ids or ready embeddings (never both) and writes image
# features into the embeddings by a masked assignment in a helper: when the caller
# passes `inputs_embeds`, its own tensor is overwritten (the shape of the Kosmos-2 text
# transformer's forward_embedding).
import torch
import torch.nn as nn


class TextWithImages(nn.Module):
    def __init__(self, vocab=10, dim=4):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, dim)

    def embed(
        self,
        input_ids: torch.Tensor | None = None,
        inputs_embeds: torch.Tensor | None = None,
        image_embeds: torch.Tensor | None = None,
        image_mask: torch.Tensor | None = None,
    ):
        if inputs_embeds is None:
            inputs_embeds = self.embed_tokens(input_ids)
        if image_embeds is not None:
            inputs_embeds[image_mask.to(dtype=torch.bool)] = image_embeds.view(-1, 4)  # expect: GL104
        return inputs_embeds * 2.0

    def forward(
        self,
        input_ids: torch.Tensor | None = None,
        inputs_embeds: torch.Tensor | None = None,
        image_embeds: torch.Tensor | None = None,
        image_mask: torch.Tensor | None = None,
    ):
        if input_ids is not None and inputs_embeds is not None:
            raise ValueError("pass input_ids or inputs_embeds, not both")
        elif input_ids is None and inputs_embeds is None:
            raise ValueError("pass input_ids or inputs_embeds")
        return self.embed(input_ids, inputs_embeds, image_embeds, image_mask)


embeds = torch.randn(2, 3, 4)
before = embeds.clone()
mask = torch.tensor([[1, 0, 0], [0, 1, 0]])
TextWithImages()(inputs_embeds=embeds, image_embeds=torch.ones(2, 4), image_mask=mask)
assert torch.equal(embeds, before), "forward() changed its caller's tensor"
