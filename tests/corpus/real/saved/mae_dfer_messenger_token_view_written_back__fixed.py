# source: https://github.com/sunlicai/MAE-DFER/issues/15
# expect: clean
import torch
import torch.nn as nn
from functools import partial


def rearrange(t, pattern, **axes):
    """stands for einops.rearrange on the patterns this block uses (each one a reshape)"""
    if pattern == "(b n) c -> b n c":
        return t.reshape(axes["b"], -1, t.shape[-1])
    if pattern == "b n c -> (b n) c":
        return t.reshape(-1, t.shape[-1])
    if pattern == "(b n) s c -> b (n s) c":
        return t.reshape(axes["b"], -1, t.shape[-1])
    if pattern == "b (n s) c -> (b n) s c":
        return t.reshape(t.shape[0] * axes["n"], -1, t.shape[-1])
    raise ValueError(pattern)


class Mlp(nn.Module):
    def __init__(self, in_features, hidden_features=None, out_features=None, act_layer=nn.GELU, drop=0.0):
        super().__init__()
        out_features = out_features or in_features
        hidden_features = hidden_features or in_features
        self.fc1 = nn.Linear(in_features, hidden_features)
        self.act = act_layer()
        self.fc2 = nn.Linear(hidden_features, out_features)
        self.drop = nn.Dropout(drop)

    def forward(self, x):
        x = self.fc1(x)
        x = self.act(x)
        x = self.fc2(x)
        x = self.drop(x)
        return x


class GeneralAttention(nn.Module):
    def __init__(self, dim, num_heads=8, qkv_bias=False, qk_scale=None, attn_drop=0.0, proj_drop=0.0, attn_head_dim=None):
        super().__init__()
        self.num_heads = num_heads
        head_dim = dim // num_heads
        self.scale = qk_scale or head_dim**-0.5
        self.q = nn.Linear(dim, dim, bias=qkv_bias)
        self.kv = nn.Linear(dim, dim * 2, bias=qkv_bias)
        self.attn_drop = nn.Dropout(attn_drop)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(proj_drop)

    def forward(self, x, context=None):
        B, T1, C = x.shape
        context = x if context is None else context
        T2 = context.shape[1]
        q = self.q(x).reshape(B, T1, self.num_heads, -1).transpose(1, 2)
        kv = self.kv(context).reshape(B, T2, 2, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        k, v = kv[0], kv[1]
        attn = (q * self.scale) @ k.transpose(-2, -1)
        attn = self.attn_drop(attn.softmax(dim=-1))
        x = (attn @ v).transpose(1, 2).reshape(B, T1, -1)
        return self.proj_drop(self.proj(x))


class LGBlock(nn.Module):
    def __init__(self, dim, num_heads, mlp_ratio=4.0, qkv_bias=False, qk_scale=None, drop=0.0, attn_drop=0.0, drop_path=0.0, init_values=None, act_layer=nn.GELU, norm_layer=nn.LayerNorm, attn_head_dim=None, first_attn_type="self", third_attn_type="cross", attn_param_sharing_first_third=False, attn_param_sharing_all=False, no_second=False, no_third=False):
        super().__init__()
        assert first_attn_type in ["self", "cross"]
        self.first_attn_type = first_attn_type
        self.third_attn_type = third_attn_type
        self.first_attn_norm0 = norm_layer(dim)
        self.first_attn = GeneralAttention(dim=dim, num_heads=num_heads, qkv_bias=qkv_bias, qk_scale=qk_scale, attn_drop=attn_drop, proj_drop=drop, attn_head_dim=attn_head_dim)
        self.no_second = no_second
        if not no_second:
            self.second_attn_norm0 = norm_layer(dim)
            self.second_attn = GeneralAttention(dim=dim, num_heads=num_heads, qkv_bias=qkv_bias, qk_scale=qk_scale, attn_drop=attn_drop, proj_drop=drop, attn_head_dim=attn_head_dim)
        self.no_third = no_third
        if not no_third:
            self.third_attn_norm0 = norm_layer(dim)
            if self.third_attn_type == "cross":
                self.third_attn_norm1 = norm_layer(dim)
            self.third_attn = GeneralAttention(dim=dim, num_heads=num_heads, qkv_bias=qkv_bias, qk_scale=qk_scale, attn_drop=attn_drop, proj_drop=drop, attn_head_dim=attn_head_dim)
        self.drop_path = nn.Identity()
        self.norm2 = norm_layer(dim)
        mlp_hidden_dim = int(dim * mlp_ratio)
        self.mlp = Mlp(in_features=dim, hidden_features=mlp_hidden_dim, act_layer=act_layer, drop=drop)
        self.gamma_0, self.gamma_1, self.gamma_2 = None, None, None

    def forward(self, x, b):
        bn = x.shape[0]
        n = bn // b  # number of local regions
        if self.gamma_1 is None:
            ## perform local (intra-region) self-attention
            if self.first_attn_type == "self":
                x = x + self.drop_path(self.first_attn(self.first_attn_norm0(x)))
            ## perform global (inter-region) self-attention
            if not self.no_second:
                # messenger_tokens: representative tokens
                messenger_tokens = rearrange(x[:, 0].clone(), "(b n) c -> b n c", b=b)  # attn on 'n' dim
                messenger_tokens = messenger_tokens + self.drop_path(self.second_attn(self.second_attn_norm0(messenger_tokens)))
                x[:, 0] = rearrange(messenger_tokens, "b n c -> (b n) c")
            else:  # for usage in the third attn
                messenger_tokens = rearrange(x[:, 0].clone(), "(b n) c -> b n c", b=b)  # attn on 'n' dim
            ## perform local-global interaction
            if not self.no_third:
                local_tokens = rearrange(x[:, 1:].clone(), "(b n) s c -> b (n s) c", b=b)  # NOTE: n merges into s (not b), (B, N*(S-1), D)
                local_tokens = local_tokens + self.drop_path(self.third_attn(self.third_attn_norm0(local_tokens), context=self.third_attn_norm1(messenger_tokens)))
                x[:, 1:] = rearrange(local_tokens, "b (n s) c -> (b n) s c", n=n)
            # FFN layer
            x = x + self.drop_path(self.mlp(self.norm2(x)))
        else:
            raise NotImplementedError
        return x


class VisionTransformer(nn.Module):
    """stands for modeling_finetune.py's model: 2 blocks over already embedded local regions"""

    def __init__(self, embed_dim=32, depth=2, num_heads=4, num_classes=7, norm_layer=partial(nn.LayerNorm, eps=1e-6)):
        super().__init__()
        self.patch_embed = nn.Linear(48, embed_dim)
        self.blocks = nn.ModuleList([LGBlock(dim=embed_dim, num_heads=num_heads, norm_layer=norm_layer) for i in range(depth)])
        self.norm = norm_layer(embed_dim)
        self.head = nn.Linear(embed_dim, num_classes)

    def forward(self, x):
        b = x.shape[0]
        x = self.patch_embed(x)  # (B, N*S, C)
        x = x.reshape(b * 4, 5, -1)  # (B*N, S, C), 4 regions of 1 messenger + 4 tokens
        for blk in self.blocks:
            x = blk(x, b)
        x = x.reshape(b, -1, x.shape[-1])
        return self.head(self.norm(x.mean(1)))


model = VisionTransformer()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
criterion = torch.nn.CrossEntropyLoss()
model.train()
for step in range(2):
    samples = torch.randn(4, 20, 48)
    targets = torch.randint(0, 7, (4,))
    output = model(samples)
    loss = criterion(output, targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
