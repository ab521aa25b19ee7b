"""Practice records: a game the client dealt itself, replayed and kept, never ranked."""

from __future__ import annotations

from fastapi import APIRouter, Request

from ...clients.address import client_address, network_of
from ...errors import responses
from ...records import owners, practice
from ...records import records as games
from ..deps import BODY_ERRORS, Db, Verifier, limited
from ..schemas import RecordIn, RecordKeptOut

router = APIRouter(prefix="/api")


@router.post("/records", status_code=201, response_model=RecordKeptOut,
             responses=responses(409, *BODY_ERRORS, 429), dependencies=[limited("games")])
def keep_record(body: RecordIn, request: Request, db: Db, verify: Verifier) -> RecordKeptOut:
    """Keep a practice game (a seed the client chose, offline play, a position): replayed, never ranked.

    A record that does not replay, or whose replay does not score `score`, is a
    422. The replay's CPU time counts against the client's CPU budget (429 when
    spent); a refused record costs several times its replay, and the same record
    sent again is refused at once. One address keeps at most GAME2048_PRACTICE_RECORDS
    records and GAME2048_PRACTICE_BYTES bytes a UTC day (429 beyond). A name held by
    another (its first ranked finish took it) needs its `name_key` (409 `name_held`),
    and a look-alike of a held name is refused (409 `name_confusable`); a practice
    record never takes a name for itself.
    """
    name = games.check_name(body.name)  # before the replay: a bad name is not a bad record
    owners.check(request.app.state.engine, name, body.name_key, "")
    start = None if body.start is None else (body.start.board, body.start.score)
    # what the address may store today, checked before the replay, counted once kept
    quota, weight = request.app.state.storage_quota, practice.weight(body)
    client = network_of(client_address(request))  # an IPv6 client by its /64
    quota.check(client, weight)
    with verify("record", body.size, body.seed, body.log, body.score, start):
        kept = practice.keep(db, body.size, body.seed, body.log, body.score, body.name, start=start)
    quota.count(client, weight)
    return RecordKeptOut(id=kept.id, verified=True, ranked=False, score=kept.score, max_tile=kept.max_tile)
