"""The shared HTTP server's key: a bearer token every request must carry.

Served beyond loopback -- the way a team shares one memory -- the MCP
endpoint reads and writes the memory for whoever reaches the port. So
listening beyond loopback requires a token (``--token-file`` or
``$WIKIMEM_MCP_TOKEN``) unless the user says ``--no-auth`` in so many
words; on loopback a token is optional and used when given. Every HTTP
request then needs ``Authorization: Bearer <token>``; anything else is
answered 401 with ``WWW-Authenticate: Bearer`` before the MCP app sees it.
The token is compared in constant time (:func:`hmac.compare_digest`) and
never logged, echoed or put in an error message. The SDK's own Host and
Origin checks (a DNS-rebinding page gets 421/403) stay as they are, inside.
"""

from __future__ import annotations

import hmac
import json
import os
import re
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from pathlib import Path
from typing import Any

__all__ = ["MIN_TOKEN_LENGTH", "TOKEN_ENV", "BearerAuth", "read_token"]

#: The environment variable a token may come from (``--token-file`` wins).
TOKEN_ENV = "WIKIMEM_MCP_TOKEN"
#: Shorter tokens are refused: a guessable key is no key.
MIN_TOKEN_LENGTH = 16
# What an HTTP header can carry unchanged: visible ASCII, no spaces.
_TOKEN_RE = re.compile(r"[\x21-\x7e]+")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def read_token(token_file: str | os.PathLike[str] | None = None, environ: Mapping[str, str] | None = None) -> str | None:
    """The token from ``token_file`` (its text, trimmed), else from :data:`TOKEN_ENV`; ``None`` when neither.

    Raises ``ValueError`` (naming the file or the variable, never the
    token) for one that cannot be a bearer token: empty, shorter than
    :data:`MIN_TOKEN_LENGTH`, or holding spaces or non-ASCII.
    """
    if token_file is not None:
        try:
            text = Path(token_file).read_text("utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"cannot read the token file {token_file}: {exc}") from None
        return _checked(text, f"the token file {token_file}")
    text = (os.environ if environ is None else environ).get(TOKEN_ENV, "").strip()
    return _checked(text, f"${TOKEN_ENV}") if text else None


def _checked(token: str, where: str) -> str:
    if not _TOKEN_RE.fullmatch(token):
        raise ValueError(f"{where} does not hold a token: one line of visible ASCII without spaces")
    if len(token) < MIN_TOKEN_LENGTH:
        raise ValueError(f"the token in {where} is shorter than {MIN_TOKEN_LENGTH} characters: "
                         "make a longer one (e.g. python -c 'import secrets; print(secrets.token_urlsafe(32))')")
    return token


class BearerAuth:
    """ASGI middleware: pass on requests that carry the token, answer the rest 401 (a websocket: closed)."""

    def __init__(self, app: App, token: str) -> None:
        self.app = app
        self._token = token.encode("ascii")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan" or self._carries_token(scope):
            await self.app(scope, receive, send)  # lifespan events carry no request
            return
        if scope["type"] != "http":  # a websocket, or a scope type to come: closed, never passed on unguarded
            await send({"type": "websocket.close", "code": 1008})
            return
        body = json.dumps({"error": "unauthorized", "error_description": "this memory server needs "
                           "'Authorization: Bearer <token>' (the token it was started with)"}).encode("utf-8")
        await send({"type": "http.response.start", "status": 401, "headers": [
            (b"www-authenticate", b'Bearer realm="wikimem"'), (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode("ascii"))]})
        await send({"type": "http.response.body", "body": body})

    def _carries_token(self, scope: Scope) -> bool:
        value = next((v for k, v in scope.get("headers", ()) if k.lower() == b"authorization"), b"")
        scheme, _, credentials = bytes(value).strip().partition(b" ")
        # Compared even when the scheme is wrong, so the time taken says nothing about which part failed.
        matches = hmac.compare_digest(credentials.strip(), self._token)
        return scheme.lower() == b"bearer" and matches
