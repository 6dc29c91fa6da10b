"""A small loopback TCP balancer for the replica benchmark: each accepted connection goes to the
next upstream in round-robin order and its bytes are piped both ways until either side closes
(layer 4, like a minimal HAProxy ``mode tcp`` / ``balance roundrobin``; HTTP keep-alive
connections stay on the replica they were sent to). An upstream that refuses the connection is
skipped for that connection (the next one is tried). asyncio on uvloop.

``python -m bench.balancer --port P --upstream 127.0.0.1:A --upstream 127.0.0.1:B ...``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import socket
from dataclasses import dataclass

CHUNK = 1 << 16


@dataclass(frozen=True)
class BalancerConfig:
    upstreams: tuple[tuple[str, int], ...]
    host: str = "127.0.0.1"
    port: int = 0


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


class Balancer:
    def __init__(self, config: BalancerConfig) -> None:
        if not config.upstreams:
            raise ValueError("at least one upstream")
        self.config = config
        self._next = itertools.cycle(range(len(config.upstreams)))
        self.connections = [0] * len(config.upstreams)

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        for _ in self.config.upstreams:
            i = next(self._next)
            host, port = self.config.upstreams[i]
            try:
                pair = await asyncio.open_connection(host, port)
            except OSError:
                continue
            self.connections[i] += 1
            return pair
        return None

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        up = await self._connect()
        if up is None:
            writer.close()
            return
        ureader, uwriter = up
        usock = uwriter.get_extra_info("socket")
        if usock is not None:
            usock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        await asyncio.gather(_pipe(reader, uwriter), _pipe(ureader, writer))

    async def serve(self) -> None:
        server = await asyncio.start_server(self.handle, self.config.host, self.config.port, backlog=2048)
        async with server:
            await server.serve_forever()


def _upstream(s: str) -> tuple[str, int]:
    host, _, port = s.rpartition(":")
    return host or "127.0.0.1", int(port)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.balancer", description=__doc__)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--upstream", action="append", type=_upstream, required=True, help="HOST:PORT")
    args = ap.parse_args(argv)
    bal = Balancer(BalancerConfig(tuple(args.upstream), args.host, args.port))
    try:
        import uvloop

        uvloop.run(bal.serve())
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
