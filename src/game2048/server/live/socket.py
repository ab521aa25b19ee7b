"""The WebSocket ``/api/games/{id}/play``: the HTTP requests of a game in play, one message each.

Each client message is a JSON object with an ``op``:

- ``{"op": "moves", "token", "at", "moves"}`` answers like ``POST .../moves``;
- ``{"op": "state", "token"}`` like ``POST .../state``;
- ``{"op": "finish", "token", "name", "log"?, "helped"?}`` like ``POST .../finish``.

Each answer echoes ``op`` and carries exactly the HTTP answer's fields, or
``{"op", "status", "error"}`` (the HTTP status and error) for a refusal. The
socket stays open after a refusal; a message that is not JSON, or not one of
these, gets a 422 answer of the same shape. Answers come in the order of the
messages, so a client may send moves before the last answer is in.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, ValidationError

from ...limits import MAX_LOG, MAX_MOVES
from ..api.deps import count_request, replay_charge
from ..api.schemas import MAX_TOKEN, FinishIn, FinishOut, MovesIn, PositionOut, StateOut, TokenIn, answer
from ..config import MAX_MESSAGE
from ..errors import ClientError, describe_validation
from ..limits.address import client_address
from ..records.records import check_name
from . import mover as live

router = APIRouter()
log = logging.getLogger(__name__)

_REQUESTS: dict[str, type[BaseModel]] = {"moves": MovesIn, "state": TokenIn, "finish": FinishIn}


@router.websocket("/api/games/{game_id}/play")
async def play_socket(websocket: WebSocket, game_id: str) -> None:
    await websocket.accept()
    app = websocket.app
    client = client_address(websocket)
    limit = MAX_MESSAGE  # as uvicorn's ws_max_size: the same refusal under any server
    while True:
        try:
            message = await websocket.receive()
        except WebSocketDisconnect:
            return
        if message["type"] == "websocket.disconnect":
            return
        text = message.get("text")
        if text is None:
            answer: dict[str, Any] = {"op": None, "status": 422, "error": "send JSON text messages"}
        elif len(text.encode()) > limit:
            answer = {"op": None, "status": 413, "error": f"the message is over the {limit} byte limit"}
        else:
            answer = await _answer(app, client, game_id[:64], text)
        try:
            await websocket.send_text(json.dumps(answer, separators=(",", ":")))
        except (WebSocketDisconnect, RuntimeError):
            return


async def _answer(app: Any, client: str, game_id: str, text: str) -> dict[str, Any]:
    op = None
    try:
        try:
            data = json.loads(text)
        except ValueError:
            raise ClientError(422, "the message is not valid JSON") from None
        if not isinstance(data, dict):
            raise ClientError(422, "the message must be a JSON object with an op")
        op = data.pop("op", None)
        if op == "moves" and _plain_moves(data):
            # the hot path: a well-formed move needs no schema machinery (the schema's own checks,
            # written out) and, on SQLite, no thread (a move takes less than handing it to one)
            if app.state.store.in_process:
                return {"op": op, **answer(_play_moves(app, client, game_id, data))}
            return {"op": op, **answer(await run_in_threadpool(_play_moves, app, client, game_id, data))}
        model = _REQUESTS.get(op) if isinstance(op, str) else None
        if model is None:
            op = op if isinstance(op, str) and len(op) <= 16 else None
            raise ClientError(422, "op must be 'moves', 'state' or 'finish'")
        try:
            body = model.model_validate(data)
        except ValidationError as exc:
            raise ClientError(422, describe_validation(exc.errors())) from None
        if op == "moves" and app.state.store.in_process:
            # an SQLite move takes well under a millisecond in this process: handing it to a
            # thread would cost more than the move itself
            fields = _run(app, client, game_id, op, body)
        else:
            fields = await run_in_threadpool(_run, app, client, game_id, op, body)
    except ClientError as exc:
        return {"op": op, "status": exc.status} | exc.body()
    except Exception:  # as over HTTP: a fault of ours is a 500, and the socket stays usable
        log.exception("unhandled error on the play socket")
        return {"op": op, "status": 500, "error": "internal error; nothing was stored"}
    return {"op": op, **fields}


def _plain_moves(data: dict[str, Any]) -> bool:
    """Whether ``data`` is a moves request ``MovesIn`` would take as it is (else it checks and says why)."""
    token, at, moves = data.get("token"), data.get("at"), data.get("moves")
    return (type(token) is str and len(token) <= MAX_TOKEN and type(at) is int and 0 <= at <= MAX_LOG
            and type(moves) is str and 1 <= len(moves) <= MAX_MOVES
            and type(data.get("skip_illegal", False)) is bool)


def _play_moves(app: Any, client: str, game_id: str, data: dict[str, Any]) -> live.Position:
    count_request(app, "moves", client)
    state = app.state
    return live.play(state.store, state.secret, game_id, token=data["token"], at=data["at"],
                     moves=data["moves"], charge=replay_charge(app, client),
                     skip_illegal=data.get("skip_illegal", False))


def _run(app: Any, client: str, game_id: str, op: str, body: Any) -> dict[str, Any]:
    # counted here, off the event loop: with REDIS_URL the count is a round trip to Redis
    count_request(app, "games" if op == "finish" else "moves", client)
    state = app.state
    charge = replay_charge(app, client)
    if op == "moves":
        p = live.play(state.store, state.secret, game_id, token=body.token, at=body.at, moves=body.moves,
                      charge=charge, skip_illegal=body.skip_illegal)
        return answer(p)
    if op == "state":
        now = live.state(state.store, state.secret, game_id, token=body.token)
        return StateOut(**PositionOut.of(now.position).model_dump(), log=now.log).model_dump()
    name = check_name(body.name)  # before any work: a bad name is not a bad game
    with state.cpu_budget.spend(client, "finish"):  # the finish's replay counts as over HTTP
        done = live.finish(state.store, state.sessions, state.secret, game_id, token=body.token, name=name,
                           log=body.log, helped=body.helped, charge=charge)
    state.answers.clear()
    return FinishOut(**vars(done)).model_dump()
