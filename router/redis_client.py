"""One place that turns a Redis URL into a client: a single primary or a Redis Cluster.

``redis://host:port/0`` (or ``rediss://``, ``unix://``) → ``redis.Redis`` / ``redis.asyncio.Redis``;
``redis+cluster://host:port`` (or ``rediss+cluster://``) → ``redis.cluster.RedisCluster`` /
``redis.asyncio.cluster.RedisCluster``, which discovers the other nodes from the one named,
follows MOVED/ASK redirections and keeps one pool per node. Every store of the runtime (sessions,
idempotency records and locks, breakers, the token-second bucket, cooldowns, the replica
heartbeat, memory) builds its client here, so one URL switches the whole fleet to a cluster.

The key layout is cluster-ready: single-key commands, and every multi-key script or transaction
keeps its keys under one hash tag (one slot). A cluster has only database 0. Blocking connection
pools are a single-server notion: on a cluster ``max_connections`` bounds each node's pool and a
caller past it gets an error instead of waiting.

The clients are typed as the single-server classes: for single-slot use both offer the same
command surface (get/set/eval/scripts/pipelines), which is all the runtime uses.
"""

from __future__ import annotations

from typing import Any, cast

import redis
import redis.asyncio as aredis

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}


def is_cluster(url: str) -> bool:
    """Whether ``url`` names a Redis Cluster (``redis+cluster://`` / ``rediss+cluster://``)."""
    return url.split("://", 1)[0].lower() in CLUSTER_SCHEMES


def _plain(url: str) -> str:
    scheme, rest = url.split("://", 1)
    return f"{CLUSTER_SCHEMES[scheme.lower()]}://{rest}"


def _cluster_kwargs(kw: dict[str, Any]) -> dict[str, Any]:
    out = dict(kw)
    out.pop("db", None)  # a cluster has database 0 only
    return out


def sync_client(url: str, **kw: Any) -> redis.Redis:
    """A synchronous client for ``url`` (single server or cluster)."""
    if is_cluster(url):
        from redis.cluster import RedisCluster

        return cast(redis.Redis, RedisCluster.from_url(_plain(url), **_cluster_kwargs(kw)))
    return redis.Redis.from_url(url, **kw)


def async_client(url: str, **kw: Any) -> aredis.Redis:
    """An asyncio client for ``url`` (single server or cluster; a cluster client reads the slot
    map before its first command picks a node, :class:`_SlotMapFirst`)."""
    if is_cluster(url):
        return cast(aredis.Redis, _SlotMapFirst.from_url(_plain(url), **_cluster_kwargs(kw)))
    return aredis.Redis.from_url(url, **kw)


class _SlotMapFirst(aredis.RedisCluster):
    """redis-py's asyncio cluster client, initialised (slot map and nodes) before a command is
    routed. redis-py's own client routes a first command to the startup node and initialises
    inside it: in a cold burst the others were routed there too, and the startup node, dropped from
    the node cache by the initialisation, has its connections closed under them (a burst of 50
    first commands: 17 ``'NoneType' object has no attribute 'writelines'`` in 100 bursts, none
    with this)."""

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        if self._initialize:
            await self.initialize()  # once (redis-py holds a lock): the others wait here
        return await super().execute_command(*args, **kwargs)


def sync_blocking_client(url: str, *, max_connections: int, pool_wait_s: float, **kw: Any) -> redis.Redis:
    """A synchronous client whose callers wait up to ``pool_wait_s`` for a pooled connection (on a
    cluster: a per-node pool of ``max_connections``)."""
    if is_cluster(url):
        return sync_client(url, max_connections=max_connections, **kw)
    pool = redis.BlockingConnectionPool.from_url(
        url, max_connections=max_connections, timeout=pool_wait_s, **kw
    )
    return redis.Redis(connection_pool=pool)


def async_blocking_client(url: str, *, max_connections: int, pool_wait_s: float, **kw: Any) -> aredis.Redis:
    """The asyncio twin of :func:`sync_blocking_client` (the client owns and closes its pool)."""
    if is_cluster(url):
        return async_client(url, max_connections=max_connections, **kw)
    pool = aredis.BlockingConnectionPool.from_url(
        url, max_connections=max_connections, timeout=pool_wait_s, **kw
    )
    return aredis.Redis.from_pool(pool)
