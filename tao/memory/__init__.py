"""Conversation memory: a short-term rolling summary, episodic records of finished tasks and
long-term facts (explicit confirmation only), behind one interface, in-process or in Redis;
an offline CPU embedding, a per-tenant HNSW index and the ≤ 300-token distiller. See docs/memory.md."""

from tao.memory.distill import DistillConfig, Distilled, Turn, distill, fold
from tao.memory.embed import Embedder, default_embedder
from tao.memory.records import (
    Entity,
    Episode,
    Fact,
    Failure,
    Hit,
    Lifetimes,
    MemoryKeyError,
    MemoryRecord,
    Pending,
    Proposal,
    RollingSummary,
    Tier,
)
from tao.memory.store import ConfirmationError, InProcessMemory, Memory, RedisMemory

__all__ = [
    "ConfirmationError",
    "DistillConfig",
    "Distilled",
    "Embedder",
    "Entity",
    "Episode",
    "Fact",
    "Failure",
    "Hit",
    "InProcessMemory",
    "Lifetimes",
    "Memory",
    "MemoryKeyError",
    "MemoryRecord",
    "Pending",
    "Proposal",
    "RedisMemory",
    "RollingSummary",
    "Tier",
    "Turn",
    "default_embedder",
    "distill",
    "fold",
]
