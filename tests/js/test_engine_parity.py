"""The browser engine replays random records of every size exactly like the Python engine.

Records are random games (seeded, half with integer and half with secret
seeds, every size, random legal moves with undos mixed in, one in four with a
letter changed so that it may be a bad record); one Node process replays them
all with ``static/js/engine.js`` and the two engines must agree field by
field, down to the position of a bad record's fault.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from game2048 import Game, RecordError, replay

NODE = shutil.which("node")
ENGINE = Path(__file__).resolve().parents[2] / "src" / "game2048" / "web" / "static" / "js" / "engine.js"

SCRIPT = """
import fs from 'node:fs';
const { replay, RecordError } = await import(process.argv[1]);
const records = JSON.parse(fs.readFileSync(0, 'utf8'));
const out = records.map(([size, seed, log]) => {
  try {
    const g = replay(size, seed, log);
    return { board: g.board, score: g.score, over: g.over, won: g.won, undos_left: g.undosLeft,
             max_tile: g.maxTile, ranked: g.ranked };
  } catch (e) {
    if (e instanceof RecordError) return { error: e.position };
    throw e;
  }
});
process.stdout.write(JSON.stringify(out));
"""


def python_result(size: int, seed: int, log: str) -> dict[str, object]:
    try:
        g = replay(size, seed, log)
    except RecordError as e:
        return {"error": e.position}
    return {"board": g.board, "score": g.score, "over": g.over, "won": g.won, "undos_left": g.undos_left,
            "max_tile": g.max_tile, "ranked": g.ranked}


def random_record(rnd: random.Random, size: int) -> tuple[int, int | str, str]:
    # half with integer seeds (SplitMix64), half with secret seeds (keyed BLAKE2b)
    seed: int | str = rnd.randrange(2**53) if rnd.random() < 0.5 else f"{rnd.getrandbits(128):032x}"
    game = Game(size, seed)
    for _ in range(rnd.randrange(400)):
        if game.over:
            break
        if rnd.random() < 0.02:
            game.undo()
        else:
            game.move(rnd.choice(game.legal_moves()))
    log = game.log
    if log and rnd.random() < 0.25:
        i = rnd.randrange(len(log))
        log = log[:i] + rnd.choice("UDLRZX") + log[i + 1:]
    return size, seed, log


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_js_replay_matches_python_on_random_records():
    rnd = random.Random(4096)
    batch = [random_record(rnd, size) for size in (3, 4, 5, 6) for _ in range(30)]
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", SCRIPT, ENGINE.as_uri()],
        input=json.dumps(batch), capture_output=True, text=True, timeout=120, check=True,
    )
    got = json.loads(done.stdout)
    assert any("error" in r for r in got) and any(r.get("over") for r in got)
    for record, js in zip(batch, got, strict=True):
        assert js == python_result(*record), record
