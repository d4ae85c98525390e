"""Serving the desk: uvicorn on a socket bound to this machine, until Ctrl-C.

The socket is bound here, before uvicorn starts, so ``--port 0`` (any free port) still
prints the real URL, and a port already taken is one clear error. uvicorn turns
Ctrl-C (or SIGTERM) into a graceful shutdown: open progress streams get a few
seconds, then the app's lifespan ends, which stops the running command's whole
process group (:meth:`sim.desk.jobs.Jobs.shutdown`); nothing the desk started outlives it.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

from sim.desk.guard import new_token

GRACEFUL_S = 3
"""Seconds open connections (a page's progress stream) get to close on shutdown."""


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (``port`` 0: any free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.listen(64)
    return sock


def serve(
    workspace: Path, host: str, port: int, echo: Callable[[str], None], token: str | None = None
) -> None:
    """Serve the desk over ``workspace`` until interrupted; ``echo`` prints its URL."""
    import uvicorn  # deferred: the optional web extra

    from sim.desk.app import make_app  # deferred: loads starlette

    token = token or new_token()
    sock = bind(host, port)
    port = sock.getsockname()[1]
    names = {host, "127.0.0.1", "localhost"} if host in ("127.0.0.1", "localhost") else {host}
    try:
        app = make_app(workspace, token, tuple(sorted(names)))
    except BaseException:  # a workspace it cannot make: nothing is served
        sock.close()
        raise
    shown = f"[{host}]" if ":" in host else host
    echo(f"omensim desk: workspace {Path(workspace).resolve()}")
    echo(f"open  http://{shown}:{port}/?token={token}")
    echo("(Ctrl-C stops the desk and any question it is answering)")
    config = uvicorn.Config(
        app, log_level="warning", timeout_graceful_shutdown=GRACEFUL_S, lifespan="on"
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn raises Ctrl-C again once it has shut down
        pass
    finally:
        sock.close()
    echo("omensim desk: stopped")
