"""A training run on disk: the network's weights, its counters and its learning curve, in one file.

The file is ``MAGIC``, the header's length (8 bytes, little-endian), the
header (JSON: counters, settings, random-number states, curve, the games of
the window not yet in the curve; and, in a file another module writes, that
module's own ``extra`` entry), zero padding to a multiple of 4,096 bytes,
then the weights as raw little-endian float32, table after table (4 x 16^6,
268 MB, for each of the network's ``stages``: ``ntuple``), and for a run
that learns by temporal coherence (``coherence``) its accumulators E and A
after them, a weight's two side by side (the header says so:
``accumulators``). The
weights start on a page boundary, so a reader can map them instead of
copying. A
save writes a temporary file beside the target and renames it over the
target: a reader, or a run cut off mid-save, only ever sees a whole
checkpoint.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from .ntuple import MAX_STAGES, TABLE_SIZE, TUPLES

MAGIC = b"G2048NT1"
FORMAT = "4x6-tuple td0 float32"
FILE_NAME = "network.ckpt"
LOCK_NAME = "train.lock"
_PAGE = 4096


def default_dir() -> Path:
    """Where training keeps its checkpoint and log: the user data directory's ``learn`` folder."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("game2048")) / "learn"


def new_weights(stages: int = 1) -> np.ndarray:
    """An untrained network: every weight 0."""
    return np.zeros((stages * TUPLES, TABLE_SIZE), dtype=np.float32)


def stages_of(weights: np.ndarray) -> int:
    """The stages of a network's weights (``ntuple``: four tables each)."""
    return weights.shape[0] // TUPLES


def add_stages(run: Run, stages: int) -> None:
    """Give ``run`` ``stages`` stages, each new one a copy of its last (weight promotion: a stage
    starts from what the network knew of those boards, and from there learns them alone).
    ValueError past ``MAX_STAGES`` or below the stages it has."""
    have = stages_of(run.weights)
    if not have <= stages <= MAX_STAGES:
        raise ValueError(f"a network of {have} stage(s) can have {have} to {MAX_STAGES} stages, not {stages}")
    if stages > have:
        last = run.weights[TUPLES * (have - 1):]
        run.weights = np.concatenate([run.weights, *[last] * (stages - have)])
        if run.accumulators is not None:  # a new stage's weights have taken no step yet
            grown = new_accumulators(run.weights)
            grown[: run.accumulators.shape[0]] = run.accumulators
            run.accumulators = grown


def new_accumulators(weights: np.ndarray) -> np.ndarray:
    """Temporal coherence's E and A for ``weights``, every weight before its first step."""
    return np.zeros((*weights.shape, 2), dtype=np.float32)


@dataclass
class Run:
    """Everything a training run needs to go on exactly where it stopped, and what it has measured.

    ``rng`` holds one SplitMix64 state per training thread. ``curve`` has one
    row per ``window`` games from the empty board (see ``train.curve_row``;
    restarted games, ``restart``, train but are not in the curve);
    ``pending_scores`` and ``pending_tops`` are the scores and largest
    exponents of those games since the last row. With ``coherence`` each
    weight learns at its own rate (``ntuple.train_games``), from its
    ``accumulators``: E and A, shaped ``weights.shape + (2,)``, kept in the
    checkpoint but not in shipped weights (a run resumed from those starts
    them again, each weight's first step at the full ``alpha``).
    """

    weights: np.ndarray
    alpha: float = 0.1
    #: The share of games restarted from a late position of the game before (``ntuple.train_games``).
    restart: float = 0.0
    seed: int = 0
    window: int = 10_000
    games: int = 0
    moves: int = 0
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    rng: list[int] = field(default_factory=list)
    curve: list[dict[str, float]] = field(default_factory=list)
    pending_scores: list[int] = field(default_factory=list)
    pending_tops: list[int] = field(default_factory=list)
    #: Temporal coherence learning: each weight's step scaled by |E| / A, its own steps' coherence.
    coherence: bool = False
    accumulators: np.ndarray | None = field(default=None, repr=False, compare=False)

    def header(self) -> dict[str, Any]:
        """The run's counters, settings and curve (no arrays): what a checkpoint or a shipped file
        stores beside the weights."""
        kept = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in _ARRAYS}
        return {"format": FORMAT, "stages": stages_of(self.weights), **kept}

    def learning_state(self) -> np.ndarray:
        """What ``ntuple.train_games`` takes as ``tc``: the accumulators with ``coherence`` (made
        the first time), else a placeholder that means plain TD(0)."""
        if not self.coherence:
            return _PLAIN
        if self.accumulators is None or self.accumulators.shape[:-1] != self.weights.shape:
            self.accumulators = new_accumulators(self.weights)
        return self.accumulators


_ARRAYS = ("weights", "accumulators")
_PLAIN = np.zeros((1, 1, 2), dtype=np.float32)


def save(run: Run, path: Path, extra: dict[str, Any] | None = None) -> None:
    """Write ``run`` to ``path`` atomically (a temporary file, flushed, then renamed over ``path``).

    ``extra`` goes into the header as it is (``read_header`` returns it; ``load`` leaves it out).
    """
    values = run.header() if extra is None else {**run.header(), "extra": extra}
    tc = run.accumulators if run.coherence else None
    if tc is not None:
        values["accumulators"] = True
    header = json.dumps(values).encode()
    start = len(MAGIC) + 8 + len(header)
    body = [np.ascontiguousarray(run.weights, dtype="<f4").data]
    if tc is not None:
        body.append(np.ascontiguousarray(tc, dtype="<f4").data)
    write_atomically(path, MAGIC, header, b"\0" * (-start % _PAGE), *body)


def write_atomically(path: Path, magic: bytes, header: bytes, *body: bytes | memoryview) -> None:
    """Write ``magic``, the header's length (8 bytes, little-endian), ``header`` and ``body`` to
    ``path``: to a temporary file beside it, flushed, then renamed over it, so a reader (or a write
    cut off midway) only ever sees a whole file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(magic)
        f.write(len(header).to_bytes(8, "little"))
        f.write(header)
        for part in body:
            f.write(part)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def read_header(path: Path) -> tuple[dict[str, Any], int]:
    """The header of the checkpoint at ``path`` and the byte offset of its weights."""
    with open(path, "rb") as f:
        if f.read(len(MAGIC)) != MAGIC:
            raise ValueError(f"{path} is not a game2048 learning checkpoint")
        size = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(size))
    if header.get("format") != FORMAT:
        raise ValueError(f"{path}: unknown checkpoint format {header.get('format')!r}")
    start = len(MAGIC) + 8 + size
    return header, start + (-start % _PAGE)


def weight_bytes(header: dict[str, Any]) -> int:
    """The bytes of weights a run's header (``Run.header``) describes; ValueError if its stages are
    not 1 to ``MAX_STAGES``."""
    stages = header.get("stages", 1)
    if type(stages) is not int or not 1 <= stages <= MAX_STAGES:
        raise ValueError(f"a network has 1 to {MAX_STAGES} stages, not {stages!r}")
    return 4 * stages * TUPLES * TABLE_SIZE


def load(path: Path, *, writable: bool = True) -> Run:
    """The run saved at ``path``: its weights read into memory, or mapped read-only if not ``writable``."""
    header, offset = read_header(path)
    count = weight_bytes(header) // 4
    # the accumulators follow the weights; a read-only reader (to play, to export) has no use for them
    stored = header.pop("accumulators", False) is True and writable
    if writable:
        flat = np.fromfile(path, dtype="<f4", count=count * (3 if stored else 1), offset=offset)
    elif path.stat().st_size >= offset + 4 * count:
        flat = np.memmap(path, dtype="<f4", mode="r", offset=offset, shape=(count,))
    else:
        flat = np.zeros(0, dtype="<f4")
    if flat.size != count * (3 if stored else 1):
        raise ValueError(f"{path} is cut short")
    weights = flat[:count].reshape(-1, TABLE_SIZE)
    accumulators = flat[count:].reshape(-1, TABLE_SIZE, 2) if stored else None
    del header["format"]
    header.pop("stages", None)
    header.pop("extra", None)
    return Run(weights=weights, accumulators=accumulators, **header)


class Busy(RuntimeError):
    """Another training run holds the folder."""


@contextmanager
def claim(folder: Path) -> Iterator[None]:
    """Hold ``folder`` for one training run: Busy if another process holds it.

    An advisory lock (``flock``) on ``LOCK_NAME`` in the folder, holding the
    owner's process id; the system drops it when the process ends, however it
    ends. Two runs saving over one checkpoint would each throw away the
    other's training. (No lock where ``fcntl`` is missing, as on Windows.)
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK_NAME, "a+") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.seek(0)
            owner = f.read().strip() or "?"
            raise Busy(f"another training run (process {owner}) is using {folder}") from None
        f.truncate(0)
        f.write(str(os.getpid()))
        f.flush()
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
