"""The WebSocket ``/api/games/{id}/play``: the requests of a game in play, one JSON message each
(``op``: moves, state, hint, finish), answered in order with the HTTP answer's fields and ``op``,
or ``{"op", "status", "error"}`` for a refusal; a moves message may say ``"chain": true`` in place
of ``at`` (right after this socket's previous moves). The protocol, the socket's limits and its
close codes: docs/deploy.md, "Playing a ranked game". Every message goes to the runner
(``live.Runner``); this handler only reads, checks and answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import Counter
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError

from ...limits import GAME_ID_MAX, MAX_LOG, MAX_MOVES
from ..clients.address import client_address, network_of
from ..config import MAX_MESSAGE
from ..errors import STORE_DOWN, STORE_RETRY, ClientError, describe_validation, store_down
from ..http.raw_channel import channel
from ..http.readable_bodies import Unreadable, read_json
from ..live import Position, Runner
from ..live.answer import answer_text
from ..live.seeds import check_token
from .schemas import MAX_TOKEN, FinishIn, FinishOut, GameHintIn, MovesIn, PositionOut, StateOut, TokenIn

router = APIRouter()
log = logging.getLogger(__name__)

#: Seconds a new socket has to send its first message, which must hold the game's token.
FIRST_MESSAGE = 5.0

_REQUESTS: dict[str, type[BaseModel]] = {"moves": MovesIn, "state": TokenIn, "finish": FinishIn,
                                          "hint": GameHintIn}


@router.websocket("/api/games/{game_id}/play")
async def play_socket(websocket: WebSocket, game_id: str) -> None:
    app = websocket.app
    client = client_address(websocket)
    game_id = game_id[:GAME_ID_MAX]  # a refusal names it
    sockets: Counter[str] = app.state.open_sockets
    key = network_of(client)
    cap = app.state.settings.max_sockets
    if cap and sockets[key] >= cap:
        await _deny(websocket, 429, f"this address already holds {cap} open sockets; close one first", 1013)
        return
    runner: Runner = app.state.runner
    if not await runner.exists(game_id):
        await _deny(websocket, 404, f"there is no game {game_id!r}; start one with POST /api/games", 1008)
        return
    sockets[key] += 1
    try:
        with runner.seat():
            await websocket.accept()
            # the messages in a task of their own: a task that waits for a message goes out and
            # back in through every coroutine it is awaited by (each middleware's, the router's),
            # about thirty here; in a task of its own, through two (6 us a message, bench/server.md)
            await asyncio.create_task(_serve(websocket, app, client, game_id))
    finally:
        sockets[key] -= 1
        if sockets[key] <= 0:
            del sockets[key]


async def _deny(websocket: WebSocket, status: int, message: str, code: int) -> None:
    """Refuse before the handshake: an HTTP answer in the API's shape where the server can send one,
    else a close with ``code`` (1008 policy, 1013 try again later)."""
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(JSONResponse({"error": message}, status_code=status))
    else:
        await websocket.close(code=code, reason=message[:120])


async def _serve(websocket: WebSocket, app: Any, client: str, game_id: str) -> None:
    limit = MAX_MESSAGE  # as uvicorn's ws_max_size: the same refusal under any server
    secret = app.state.secret
    first = True
    chain = _Chain()
    runner = app.state.runner
    # the first message must come soon and hold the game's token; after it, silence is idle
    quiet = _Quiet(FIRST_MESSAGE)
    # the messages on the server's own channel, past the middleware (http/raw_channel.py); the
    # handshake and the close go through it
    receive, send = channel(websocket.scope) or (websocket.receive, websocket.send)
    try:
        while True:
            try:
                quiet.waiting = True
                message = await receive()
            except asyncio.CancelledError:
                if not quiet.expired:
                    raise
                asyncio.current_task().uncancel()  # type: ignore[union-attr]
                reason = "no message with the game's token in time" if first else "idle for too long"
                await _close(websocket, 1008 if first else 1000, reason)
                return
            except WebSocketDisconnect:
                return
            finally:
                quiet.heard()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None:
                answer: dict[str, Any] | str = {"op": None, "status": 422, "error": "send JSON text messages"}
            elif len(text) > limit // 4 and len(text.encode()) > limit:  # 4 bytes a character at most
                answer = {"op": None, "status": 413, "error": f"the message is over the {limit} byte limit"}
            elif first and not _holds_token(text, secret, game_id):
                answer = {"op": None, "status": 403,
                          "error": "the first message must carry this game's token"}
            else:
                answer = await _answer(runner, client, game_id, text, chain)
            out = answer if type(answer) is str else json.dumps(answer, separators=(",", ":"))
            try:
                await send({"type": "websocket.send", "text": out})
            except (WebSocketDisconnect, RuntimeError, OSError):  # gone meanwhile (OSError: uvicorn's)
                return
            if first and type(answer) is dict and answer.get("status") in (403, 413, 422):
                await _close(websocket, 1008, "the first message must carry this game's token")
                return
            if first:
                first = False
                quiet.seconds = app.state.settings.socket_idle
            quiet.heard()
    finally:
        quiet.stop()


class _Quiet:
    """The socket's silence timer: cancels the socket's task once it has waited ``seconds`` for a
    message (``expired`` then says why). One timer a socket, moved on lazily: a message only notes
    the time, where a timeout scope per message would make and cancel a timer every time. 0: never.
    """

    def __init__(self, seconds: float) -> None:
        self.loop = asyncio.get_running_loop()
        self.task = asyncio.current_task()
        self.seconds = seconds
        self.last = self.loop.time()
        self.waiting = False
        self.expired = False
        self.handle: asyncio.TimerHandle | None = self.loop.call_at(self.last + seconds, self._check)

    def heard(self) -> None:
        """A message came (or its answer went): the silence starts again from now."""
        self.waiting = False
        self.last = self.loop.time()

    def _check(self) -> None:
        self.handle = None
        if not self.seconds:
            return
        due = self.last + self.seconds
        if self.waiting and self.loop.time() >= due and self.task is not None:
            self.expired = True
            self.task.cancel()
            return
        # still busy with a message, or one came since: look again when the silence would be long enough
        self.handle = self.loop.call_at(max(due, self.loop.time() + 0.05), self._check)

    def stop(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None


def _holds_token(text: str, secret: str, game_id: str) -> bool:
    try:
        data = read_json(text, "the message")
    except Unreadable:
        return False
    token = data.get("token") if isinstance(data, dict) else None
    return isinstance(token, str) and check_token(secret, game_id, token)


async def _close(websocket: WebSocket, code: int, reason: str) -> None:
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        await websocket.close(code=code, reason=reason)


class _Chain:
    """Where this socket's last moves message left the game: the ``at`` a chained message goes on
    from, or None once a moves message was refused (or before the first one)."""

    __slots__ = ("at",)

    def __init__(self) -> None:
        self.at: int | None = None

    def follow(self, data: dict[str, Any]) -> None:
        """Give a chained moves message (``chain: true``) the ``at`` it goes on from, or refuse it."""
        chained = data.pop("chain", False)
        if chained is False:
            return
        if chained is not True:
            raise ClientError(422, "chain must be true or false")
        if "at" in data:
            raise ClientError(422, "send at or chain, not both: chain means right after this socket's "
                                   "previous moves")
        if self.at is None:
            raise ClientError(409, "an earlier moves message of this chain was refused (or there was none "
                                   "on this socket): ask for the game's state and send at",
                              code="chain_broken")
        data["at"] = self.at

    def heard(self, answer: dict[str, Any]) -> None:
        if answer.get("op") == "moves":
            self.at = answer.get("at") if "status" not in answer else None


async def _answer(runner: Runner, client: str, game_id: str, text: str,
                  chain: _Chain) -> dict[str, Any] | str:
    """The answer to one message: a dict, or for a move the answer's JSON text at once."""
    answer = await _answered(runner, client, game_id, text, chain)
    if type(answer) is Position:
        chain.at = answer.at
        return answer_text("moves", answer)
    chain.heard(answer)  # type: ignore[arg-type]
    return answer  # type: ignore[return-value]


async def _answered(runner: Runner, client: str, game_id: str, text: str,
                    chain: _Chain) -> dict[str, Any] | Position:
    op = None
    try:
        try:
            data = read_json(text, "the message")  # the rules of an HTTP body, at any depth
        except Unreadable as exc:
            raise ClientError(422, str(exc)) from None
        if not isinstance(data, dict):
            raise ClientError(422, "the message must be a JSON object with an op")
        op = data.pop("op", None)
        if op == "moves":
            chain.follow(data)
            if not _plain_moves(data):  # the schema's own checks, written out: a move needs no model
                _valid(MovesIn, data)
            return await runner.move(client, game_id, token=data["token"], at=data["at"], moves=data["moves"],
                                     skip_illegal=data.get("skip_illegal", False))
        if op not in _REQUESTS:
            op = op if isinstance(op, str) and len(op) <= 16 else None
            raise ClientError(422, "op must be 'moves', 'state', 'hint' or 'finish'")
        fields = await _other(runner, client, game_id, op, _valid(_REQUESTS[op], data))
    except ClientError as exc:
        return {"op": op, "status": exc.status} | exc.body()
    except Exception as exc:  # as over HTTP: a fault of ours is a 500, and the socket stays usable
        if store_down(exc):
            return {"op": op, "status": 503, **STORE_DOWN, "retry_after": STORE_RETRY}
        log.exception("unhandled error on the play socket")
        return {"op": op, "status": 500, "error": "internal error; nothing was stored"}
    return {"op": op, **fields}


def _valid(model: type[BaseModel], data: dict[str, Any]) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ClientError(422, describe_validation(exc.errors())) from None


def _plain_moves(data: dict[str, Any]) -> bool:
    """Whether ``data`` is a moves request ``MovesIn`` would take as it is (else it checks and says why)."""
    token, at, moves = data.get("token"), data.get("at"), data.get("moves")
    return (type(token) is str and len(token) <= MAX_TOKEN and type(at) is int and 0 <= at <= MAX_LOG
            and type(moves) is str and 1 <= len(moves) <= MAX_MOVES
            and type(data.get("skip_illegal", False)) is bool)


async def _other(runner: Runner, client: str, game_id: str, op: str, body: Any) -> dict[str, Any]:
    """A state, hint or finish message's answer fields, as the HTTP route answers them."""
    if op == "state":
        now = await runner.state(client, game_id, token=body.token, count=True)
        return StateOut(**PositionOut.of(now.position).model_dump(), log=now.log).model_dump()
    if op == "hint":
        move, scores = await runner.hint(client, game_id, token=body.token, at=body.at, count=True)
        return {"move": move, "scores": scores}
    done = await runner.finish(client, game_id, token=body.token, name=body.name, log=body.log,
                               helped=body.helped, abandoned=body.abandoned, name_key=body.name_key,
                               count=True)
    return FinishOut(**vars(done)).model_dump()
