"""A lean Llama forward pass with a preallocated, per-sequence KV cache.

Hugging Face ``generate`` spends most of a small model's decode step in Python bookkeeping; this
module keeps only the arithmetic: fused QKV and gate/up projections, RMSNorm, rotary embeddings
from a precomputed table, and ``scaled_dot_product_attention`` over a cache laid out
``[batch, position, kv_heads, head_dim]``. Each row of a batch has its own cache length, and a
step may feed a different number of new tokens per row (padded), which is what jump-forward and
dynamic batching need. Weights are taken from a loaded ``LlamaForCausalLM`` (so every rope variant
transformers supports is honoured through its ``inv_freq``), and the logits match its forward.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F


@dataclass
class _Layer:
    ln_in: torch.Tensor
    qkv: torch.Tensor
    o: torch.Tensor
    ln_post: torch.Tensor
    gate_up: torch.Tensor
    down: torch.Tensor


class KVCache:
    """Per-layer key/value buffers ``[batch, capacity, kv_heads, head_dim]`` plus row lengths."""

    def __init__(
        self,
        n_layers: int,
        batch: int,
        capacity: int,
        kv_heads: int,
        head_dim: int,
        dtype: torch.dtype,
        device: torch.device,
    ) -> None:
        shape = (batch, capacity, kv_heads, head_dim)
        self.k = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(n_layers)]
        self.v = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(n_layers)]
        self.lengths = torch.zeros(batch, dtype=torch.long, device=device)
        self.capacity = capacity

    def keep(self, rows: list[int]) -> None:
        """Drop finished rows (compacts every layer's buffers)."""
        idx = torch.tensor(rows, dtype=torch.long, device=self.lengths.device)
        self.k = [t.index_select(0, idx) for t in self.k]
        self.v = [t.index_select(0, idx) for t in self.v]
        self.lengths = self.lengths.index_select(0, idx)

    def compact(self, rows: list[int]) -> None:
        """Keep ``rows`` (ascending) in slots ``0..len(rows)-1`` in place: no reallocation, so
        the freed slots at the end take new rows (continuous batching)."""
        for new, old in enumerate(rows):
            if new != old:
                n = int(self.lengths[old].item())
                for t in (*self.k, *self.v):
                    t[new, :n] = t[old, :n]
                self.lengths[new] = self.lengths[old]
        self.lengths[len(rows) :] = 0


class LeanLlama:
    """Inference-only Llama built from the weights of a transformers ``LlamaForCausalLM``."""

    def __init__(self, hf_model, max_positions: int | None = None) -> None:
        cfg = hf_model.config
        self.config = cfg
        self.n_heads = cfg.num_attention_heads
        self.kv_heads = getattr(cfg, "num_key_value_heads", None) or self.n_heads
        self.head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // self.n_heads
        self.eps = cfg.rms_norm_eps
        self.vocab_size = cfg.vocab_size
        m = hf_model.model
        p = next(hf_model.parameters())
        self.dtype, self.device = p.dtype, p.device
        self.embed = m.embed_tokens.weight.detach()
        self.norm = m.norm.weight.detach()
        self.lm_head = hf_model.lm_head.weight.detach()
        self.layers: list[_Layer] = []
        for layer in m.layers:
            a, mlp = layer.self_attn, layer.mlp
            if (
                getattr(a.q_proj, "bias", None) is not None
                or getattr(mlp.gate_proj, "bias", None) is not None
            ):
                raise ValueError("LeanLlama supports bias-free Llama projections only")
            self.layers.append(
                _Layer(
                    ln_in=layer.input_layernorm.weight.detach(),
                    qkv=torch.cat([a.q_proj.weight, a.k_proj.weight, a.v_proj.weight], 0)
                    .detach()
                    .contiguous(),
                    o=a.o_proj.weight.detach(),
                    ln_post=layer.post_attention_layernorm.weight.detach(),
                    gate_up=torch.cat([mlp.gate_proj.weight, mlp.up_proj.weight], 0).detach().contiguous(),
                    down=mlp.down_proj.weight.detach(),
                )
            )
        self.inter = self.layers[0].down.shape[1] if self.layers else 0
        rot = m.rotary_emb
        self.max_positions = int(max_positions or cfg.max_position_embeddings)
        self.table_size = self.max_positions + 256  # room for padded draft positions past the end
        pos = torch.arange(self.table_size, dtype=torch.float32, device=self.device)
        freqs = pos[:, None] * rot.inv_freq.to(self.device, torch.float32)[None, :]
        emb = torch.cat([freqs, freqs], dim=-1)
        scale = float(getattr(rot, "attention_scaling", 1.0))
        self.cos = (emb.cos() * scale).to(self.dtype)
        self.sin = (emb.sin() * scale).to(self.dtype)
        self.q_size = self.n_heads * self.head_dim
        self.kv_size = self.kv_heads * self.head_dim

    def new_cache(self, batch: int, capacity: int) -> KVCache:
        if capacity > self.table_size:
            raise ValueError(f"cache capacity {capacity} exceeds the rotary table ({self.table_size})")
        return KVCache(
            len(self.layers), batch, capacity, self.kv_heads, self.head_dim, self.dtype, self.device
        )

    def _rms(self, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        if x.dtype == torch.float32:
            return F.rms_norm(x, (x.shape[-1],), w, self.eps)  # one fused op
        xf = x.float()
        xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return w * xf.to(x.dtype)

    @staticmethod
    def _rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        half = x.shape[-1] // 2
        rot = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
        return x * cos + rot * sin

    @torch.inference_mode()
    def forward(
        self, tokens: torch.Tensor, n_new: torch.Tensor, cache: KVCache, logits_from: int = 0
    ) -> torch.Tensor:
        """Feed ``tokens [B, n]`` (row ``b`` has ``n_new[b]`` real tokens, the rest padding) at
        positions ``cache.lengths[b] + j``; returns the logits ``[B, n - logits_from, vocab]``
        (float32) of positions ``logits_from..n-1`` (earlier ones are never read, e.g. a prompt).
        Does not advance ``cache.lengths``: the caller commits how many fed tokens it keeps."""
        B, n = tokens.shape
        pos = cache.lengths[:, None] + torch.arange(n, device=self.device)[None, :]  # [B, n]
        T = int(pos.max().item()) + 1
        if T > cache.capacity:
            raise ValueError(f"sequence would exceed KV cache capacity {cache.capacity}")
        cos = self.cos[pos].unsqueeze(2)  # [B, n, 1, D]
        sin = self.sin[pos].unsqueeze(2)
        if B == 1 and n == 1:
            mask = None  # one query at the end of one row sees every cached key
        else:
            key_pos = torch.arange(T, device=self.device)
            mask = (key_pos[None, None, :] <= pos[:, :, None]).unsqueeze(1)  # [B, 1, n, T]
        rows = torch.arange(B, device=self.device)[:, None].expand(B, n)
        h = F.embedding(tokens, self.embed)
        for li, L in enumerate(self.layers):
            x = self._rms(h, L.ln_in)
            qkv = F.linear(x, L.qkv)
            qk = self._rope(
                qkv[..., : self.q_size + self.kv_size].view(
                    B, n, self.n_heads + self.kv_heads, self.head_dim
                ),
                cos,
                sin,
            )  # q and k at once
            q, k = qk[:, :, : self.n_heads], qk[:, :, self.n_heads :]
            v = qkv[..., self.q_size + self.kv_size :].view(B, n, self.kv_heads, self.head_dim)
            kc, vc = cache.k[li], cache.v[li]
            kc[rows, pos] = k
            vc[rows, pos] = v
            att = F.scaled_dot_product_attention(
                q.transpose(1, 2),
                kc[:, :T].transpose(1, 2),
                vc[:, :T].transpose(1, 2),
                attn_mask=mask,
                enable_gqa=self.kv_heads != self.n_heads,
            )
            h = h + F.linear(att.transpose(1, 2).reshape(B, n, self.q_size), L.o)
            x = self._rms(h, L.ln_post)
            gu = F.linear(x, L.gate_up)
            h = h + F.linear(F.silu(gu[..., : self.inter]) * gu[..., self.inter :], L.down)
        if logits_from:
            h = h[:, logits_from:]
        return F.linear(self._rms(h, self.norm), self.lm_head).float()

    @torch.inference_mode()
    def forward_packed(
        self, fed: list[list[int]], cache: KVCache, read_from: list[int]
    ) -> tuple[torch.Tensor, list[int]]:
        """Feed row ``b`` the tokens ``fed[b]`` at positions ``cache.lengths[b] + j`` without padding
        the linears: every projection runs on the packed real tokens only (a joining row's prompt
        costs its own tokens, not ``rows x longest``); attention is per row over its cached keys.
        Returns the logits ``[M, vocab]`` (float32) of the positions ``read_from[b]..len(fed[b])-1``
        of each row, packed, and each row's offset into them. Like :meth:`forward`, it writes the
        fed tokens' keys/values but does not advance ``cache.lengths``."""
        B = len(fed)
        lens = [len(f) for f in fed]
        n, N = max(lens), sum(lens)
        dev = self.device
        uniform = all(ln == n for ln in lens)
        row_of = torch.tensor(
            [b for b, ln in enumerate(lens) for _ in range(ln)], dtype=torch.long, device=dev
        )
        col_of = torch.tensor([j for ln in lens for j in range(ln)], dtype=torch.long, device=dev)
        base = cache.lengths[:B]
        pos = base[row_of] + col_of  # [N]
        T = int(pos.max().item()) + 1
        if T > cache.capacity:
            raise ValueError(f"sequence would exceed KV cache capacity {cache.capacity}")
        cos = self.cos[pos].unsqueeze(1)  # [N, 1, D]
        sin = self.sin[pos].unsqueeze(1)
        if B == 1 and n == 1:
            mask = None
        else:
            qpos = base[:, None] + torch.arange(n, device=dev)[None, :]  # [B, n] (padding included)
            mask = (torch.arange(T, device=dev)[None, None, :] <= qpos[:, :, None]).unsqueeze(1)
        flat_pad = None if uniform else row_of * n + col_of  # packed token -> padded [B*n] slot
        h = F.embedding(torch.tensor([t for f in fed for t in f], dtype=torch.long, device=dev), self.embed)
        for li, L in enumerate(self.layers):
            x = self._rms(h, L.ln_in)
            qkv = F.linear(x, L.qkv)  # [N, ...]
            qk = self._rope(
                qkv[:, : self.q_size + self.kv_size].view(N, self.n_heads + self.kv_heads, self.head_dim),
                cos,
                sin,
            )
            q, k = qk[:, : self.n_heads], qk[:, self.n_heads :]
            v = qkv[:, self.q_size + self.kv_size :].view(N, self.kv_heads, self.head_dim)
            kc, vc = cache.k[li], cache.v[li]
            kc[row_of, pos] = k
            vc[row_of, pos] = v
            if flat_pad is None:
                qp = q.reshape(B, n, self.n_heads, self.head_dim)
            else:
                qp = q.new_zeros((B * n, self.n_heads, self.head_dim))
                qp[flat_pad] = q
                qp = qp.view(B, n, self.n_heads, self.head_dim)
            att = F.scaled_dot_product_attention(
                qp.transpose(1, 2),
                kc[:B, :T].transpose(1, 2),
                vc[:B, :T].transpose(1, 2),
                attn_mask=mask,
                enable_gqa=self.kv_heads != self.n_heads,
            ).transpose(1, 2)  # [B, n, heads, D]
            att = att.reshape(B * n, self.q_size)
            if flat_pad is not None:
                att = att[flat_pad]
            h = h + F.linear(att, L.o)
            x = self._rms(h, L.ln_post)
            gu = F.linear(x, L.gate_up)
            h = h + F.linear(F.silu(gu[..., : self.inter]) * gu[..., self.inter :], L.down)
        offsets: list[int] = []
        read: list[int] = []
        start = 0
        for ln, r in zip(lens, read_from, strict=True):
            offsets.append(len(read))
            read.extend(range(start + r, start + ln))
            start += ln
        if len(read) != N:
            h = h[torch.tensor(read, dtype=torch.long, device=dev)]
        return F.linear(self._rms(h, self.norm), self.lm_head).float(), offsets
