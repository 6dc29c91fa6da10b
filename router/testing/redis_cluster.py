"""Start and stop a throwaway Redis Cluster (three primaries, no replicas) on loopback ports.

Each node is a :class:`~router.testing.redis_server.RedisServer` in cluster mode; ``redis-cli
--cluster create`` assigns the 16384 slots. ``url`` is the runtime's cluster URL form
(``redis+cluster://127.0.0.1:PORT/0``, see :mod:`router.redis_client`).
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from dataclasses import dataclass, field

from router.testing.redis_server import RedisServer, RedisServerMissing


def _cluster_port() -> int:
    """A free port P whose cluster-bus port P + 10000 is free too (and below 65536)."""
    for _ in range(200):
        with socket.socket() as a:
            a.bind(("127.0.0.1", 0))
            port = a.getsockname()[1]
            if port + 10000 > 65535:
                continue
            with socket.socket() as b:
                try:
                    b.bind(("127.0.0.1", port + 10000))
                except OSError:
                    continue
            return port
    raise RuntimeError("no free port pair for a cluster node")


@dataclass
class RedisClusterServer:
    """Three cluster-mode redis-server processes joined into one cluster."""

    size: int = 3
    nodes: list[RedisServer] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.nodes[0].port}/0"

    def start(self, timeout_s: float = 30.0) -> RedisClusterServer:
        cli = shutil.which("redis-cli")
        if cli is None:
            raise RedisServerMissing("redis-cli not found on PATH; install it (apt-get install redis-server)")
        args = [
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            "--cluster-node-timeout",
            "2000",
        ]
        self.nodes = [
            RedisServer(port=_cluster_port(), extra_args=list(args)).start() for _ in range(self.size)
        ]
        addrs = [f"127.0.0.1:{n.port}" for n in self.nodes]
        out = subprocess.run(
            [cli, "--cluster", "create", *addrs, "--cluster-replicas", "0", "--cluster-yes"],
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
        if out.returncode != 0:
            self.close()
            raise RuntimeError(f"redis-cli --cluster create failed: {out.stdout[-800:]} {out.stderr[-800:]}")
        deadline = time.monotonic() + timeout_s
        for n in self.nodes:  # every node must see all slots served before clients connect
            while True:
                info = subprocess.run(
                    [cli, "-p", str(n.port), "cluster", "info"], capture_output=True, text=True, timeout=5
                ).stdout
                if "cluster_state:ok" in info:
                    break
                if time.monotonic() > deadline:
                    self.close()
                    raise RuntimeError(f"cluster not ok on port {n.port}: {info[:300]}")
                time.sleep(0.1)
        return self

    def close(self) -> None:
        for n in self.nodes:
            n.close()
        self.nodes = []

    def __enter__(self) -> RedisClusterServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
