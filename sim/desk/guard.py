"""The desk's door: an access token, the local host names, and a cap on request sizes.

As Jupyter does, the desk prints a URL with a random token; a request must carry it,
in the URL (``?token=``) or in the cookie the first such request sets, else it gets a
403 page saying how to get in. The Host header must name this machine (a page on
another site cannot reach the desk by a DNS trick), and no request body may exceed
:data:`MAX_BODY` bytes. Plain ASGI middleware, so it guards every route, static files
and the progress streams alike.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

COOKIE = "omensim_desk_token"
MAX_BODY = 64 * 1024
"""Bytes a request body may hold: an edit or a form is a few hundred."""

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

REFUSED = (
    "<!doctype html><meta charset=utf-8><title>omensim desk: token needed</title>"
    "<body id=refused style='font-family:sans-serif;margin:3em'>"
    "<h1>This desk needs its access token</h1>"
    "<p>Open the desk with the URL that <code>omensim desk</code> printed: it ends in "
    "<code>?token=...</code>. Requests without that token are refused.</p></body>"
)


def new_token() -> str:
    """A random token for one desk session."""
    return secrets.token_urlsafe(24)


async def _reply(send: Send, status: int, body: str, kind: str = "text/html") -> None:
    data = body.encode()
    await send({
        "type": "http.response.start", "status": status,
        "headers": [(b"content-type", f"{kind}; charset=utf-8".encode()),
                    (b"content-length", str(len(data)).encode())],
    })  # fmt: skip
    await send({"type": "http.response.body", "body": data})


class Guard:
    """ASGI middleware: the token, the host names and the body cap around ``app``."""

    def __init__(self, app: Any, token: str, hosts: tuple[str, ...]) -> None:
        self.app = app
        self.token = token
        self.hosts = hosts

    def _token_of(self, scope: Scope) -> tuple[str | None, bool]:
        """The token the request carries, and whether it came in the URL."""
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        if query.get("token"):
            return query["token"][0], True
        headers = dict(scope.get("headers", []))
        cookie = SimpleCookie(headers.get(b"cookie", b"").decode("latin-1"))
        return (cookie[COOKIE].value if COOKIE in cookie else None), False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        host = headers.get(b"host", b"").decode("latin-1").rsplit(":", 1)[0].strip("[]")
        if host not in self.hosts:
            where = ", ".join(self.hosts)
            await _reply(send, 400, f"the desk answers only at {where}", "text/plain")
            return
        given, in_url = self._token_of(scope)
        if given is None or not secrets.compare_digest(given, self.token):
            await _reply(send, 403, REFUSED)
            return
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            await _reply(send, 413, f"a request may hold at most {MAX_BODY:,} bytes", "text/plain")
            return
        seen = 0

        async def capped() -> MutableMapping[str, Any]:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > MAX_BODY:
                raise ValueError(f"a request may hold at most {MAX_BODY:,} bytes")
            return message

        async def with_cookie(message: MutableMapping[str, Any]) -> None:
            if in_url and message["type"] == "http.response.start":
                cookie = f"{COOKIE}={self.token}; Path=/; HttpOnly; SameSite=Strict"
                message.setdefault("headers", []).append((b"set-cookie", cookie.encode()))
            await send(message)

        await self.app(scope, capped, with_cookie)
