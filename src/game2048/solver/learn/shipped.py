"""The shipped weights: a training run as it is committed to the repository, and the cache play maps.

A shipped file is ``MAGIC``, the header's length (8 bytes, little-endian),
the header (JSON), then one xz stream (``lzma``) to the end of the file. The
header holds ``FORMAT``; ``run``, the run's own header (``Run.header()``:
counters, settings, random-number states, curve, everything a run resumes
from, and its ``stages``); ``scales``, one per tuple table (four a stage);
``nonzero``, each table's count of int16 weights that are not 0; and the
stream's length and SHA-256.

The stream holds the weights as int16: weight ``w`` of table ``k`` is
``round(w / scales[k])`` (to nearest, ties to even), ``scales[k] = max|w| /
steps`` in float32, so each weight comes back within half a step of what it
was (and float32's own rounding), however large (float16 would not do:
weights pass its 65,504). ``steps`` (the header's, at most 32,767) is how
finely a table is cut: an export uses ``STEPS``, 1,023, which plays as the
float weights do and compresses to half of 32,767's size (docs/solver.md,
*Shipping*); the reader needs only the scales. First come the four tables' masks, one bit a
weight, set where its int16 is not 0
(``numpy.packbits``, little bit order), then the nonzero int16 values, table
after table, little-endian. Most of a network's weights are 0 (boards its
games never reach), and the masks make the stream smaller and quicker to
compress than the plain tables.

A patch carries a later stage of the same run on the shipped file it was
made on: the same layout with ``PATCH_FORMAT``, the base file's own scales,
and in its stream, for each weight that moved by half a step or more, how many
steps it moved (int16). ``on`` in its header is the digest of the weights it
applies to (``chain_digest``), so patches go on only in their order and only
on their own base. A patch may add stages: each new stage's tables are the
last stage's of the weights before it (in their steps and scales), plus the
steps they moved. The weights package holds the base file and its patches
(``network.patch-1``, ``-2``, ...: ``installed_chain``); a patch of a session's
training is a few MB where a whole file is 17.7 MB, so the repository holds
many stages in the room of one (docs/solver.md, *Patches*). A weight comes
back exactly as a whole file with the base's scales would give it, half a step
at most from its trained value.

Play maps the weights instead of decompressing them in every process:
``open_mapped`` decompresses a shipped file once into a checkpoint file
(``checkpoint``'s format: raw float32 from a page boundary) in the user
cache directory, named by the SHA-256 of the shipped header (which holds
the stream's hash), and maps it read-only; later calls, in this process or
another, check it and map it, so server workers share one copy in the page
cache. The weights are the same floats every time (each is an int16 times
a float32 scale, rounded once), so play from them is deterministic.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import math
import os
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from . import checkpoint
from .checkpoint import Run
from .ntuple import TABLE_SIZE, TUPLES

MAGIC = b"G2048W16"
FORMAT = "4x6-tuple int16 masked xz 1"
#: A patch's format: the same layout, the steps each weight moved since the weights it is on.
PATCH_FORMAT = "4x6-tuple int16 patch xz 1"
#: The name of the file in the ``game2048_weights`` package.
FILE_NAME = "network.weights"
#: Patches beside it: ``network.patch-1``, ``network.patch-2``, ... applied in that order.
PATCH_PREFIX = "network.patch-"
#: The xz preset of an export (xz's own default).
PRESET = 6
#: The steps from 0 to a table's largest weight in an export; int16 holds up to ``MAX_STEPS``.
STEPS = 1023
MAX_STEPS = 32767
_MASK_BYTES = TABLE_SIZE // 8


class NotInstalled(LookupError):
    """No shipped weights here: ``game2048-weights`` is not installed, or holds no weights file."""


class Corrupt(ValueError):
    """A file that is not shipped weights, is cut short, or does not match its own header."""


def quantise(table: np.ndarray, steps: int = STEPS) -> tuple[float, np.ndarray, np.ndarray]:
    """One table as its scale, the mask of its int16 weights that are not 0, and those weights, in order.

    Each weight is ``round(w / scale)``, ``scale = max|w| / steps`` in
    float32; a table of zeros has scale 0. ValueError if a weight is not
    finite or ``steps`` is not 1 to ``MAX_STEPS``.
    """
    if not 1 <= steps <= MAX_STEPS:
        raise ValueError(f"steps must be 1 to {MAX_STEPS}, got {steps}")
    where = np.flatnonzero(table)
    nonzero = table[where]
    peak = float(max(nonzero.max(), -nonzero.min())) if nonzero.size else 0.0
    if not math.isfinite(peak):
        raise ValueError("a weight is not finite")
    scale = float(np.float32(peak) / np.float32(steps))
    mask = np.zeros(table.size, dtype=bool)
    if scale == 0.0:
        return 0.0, mask, np.zeros(0, dtype="<i2")
    values = np.clip(np.rint(nonzero.astype(np.float64) / scale), -steps, steps).astype("<i2")
    kept = values != 0
    mask[where[kept]] = True
    return scale, mask, values[kept]


def write(run: Run, path: Path, preset: int = PRESET, steps: int = STEPS) -> dict[str, Any]:
    """Write ``run`` to ``path`` as shipped weights, atomically (a temporary file, then a rename).

    Returns the header written. ValueError if a weight is not finite or
    ``steps`` is out of range (``quantise``).
    """
    tables = [quantise(table, steps) for table in run.weights]
    header = {"format": FORMAT, "run": run.header(), "steps": steps,
              "scales": [scale for scale, _, _ in tables]}
    return _write(path, header, [(mask, values) for _, mask, values in tables], preset)


def _write(path: Path, header: dict[str, Any], tables: list[tuple[np.ndarray, np.ndarray]],
           preset: int) -> dict[str, Any]:
    """Write ``header`` and the tables' masks and int16 values as one xz stream; the header gains
    ``nonzero``, ``bytes`` and ``sha256``."""
    compressor = lzma.LZMACompressor(format=lzma.FORMAT_XZ, preset=preset)
    parts = [np.packbits(mask, bitorder="little") for mask, _ in tables] + [v for _, v in tables]
    stream = b"".join([*(compressor.compress(part) for part in parts), compressor.flush()])
    header = {**header, "nonzero": [int(values.size) for _, values in tables], "bytes": len(stream),
              "sha256": hashlib.sha256(stream).hexdigest()}
    checkpoint.write_atomically(path, MAGIC, json.dumps(header).encode(), stream)
    return header


def write_patch(run: Run, chain: list[Path], path: Path, preset: int = PRESET) -> dict[str, Any]:
    """Write ``run`` to ``path`` as a patch on the shipped ``chain`` (a weights file and its patches
    so far, in order): each weight's move since then, in steps of the base file's scales.

    Returns the header written. ValueError where a patch cannot say it (a weight not finite, a
    table the base had all at 0 that now has weights, a weight past the int16 range of its
    table's steps): then export a whole file. Corrupt if the chain is damaged.
    """
    before = read_chain(chain)
    have, tables_now = len(before.weights), len(run.weights)
    if tables_now < have:
        raise ValueError(f"the run has {tables_now // TUPLES} stage(s), the weights it would patch "
                         f"{have // TUPLES}: a patch cannot take stages away")
    scales = read_header(chain[-1])["scales"]
    scales = scales + [scales[_promoted(k, have)] for k in range(have, tables_now)]
    tables = []
    for k, scale in enumerate(scales):
        new, old = run.weights[k], before.weights[_promoted(k, have)]
        if not np.all(np.isfinite(new)):
            raise ValueError("a weight is not finite")
        if scale == 0.0:
            if new.any():
                raise ValueError(f"table {k} was all 0 in the base and has weights now: export a whole file")
            tables.append((np.zeros(new.size, dtype=bool), np.zeros(0, dtype="<i2")))
            continue
        steps = np.rint(new.astype(np.float64) / scale)
        if np.abs(steps).max() > MAX_STEPS:
            raise ValueError(f"a weight of table {k} outgrew the base's int16 steps: export a whole file")
        moved = steps - np.rint(old.astype(np.float64) / scale)
        mask = moved != 0
        tables.append((mask, moved[mask].astype("<i2")))
    header = {"format": PATCH_FORMAT, "on": chain_digest(chain), "run": run.header(), "scales": scales}
    return _write(path, header, tables, preset)


def _promoted(k: int, have: int) -> int:
    """Table ``k`` of a network, on weights of ``have`` tables: itself, or for a stage they do not
    have yet, the same tuple's table in their last stage (which a new stage starts from)."""
    return k if k < have else have - TUPLES + k % TUPLES


def _head(f: BinaryIO, path: Path) -> tuple[dict[str, Any], bytes]:
    """The header of the shipped file open as ``f`` (left at the stream's start) and its raw bytes."""
    if f.read(len(MAGIC)) != MAGIC:
        raise Corrupt(f"{path} is not game2048 shipped weights")
    size = int.from_bytes(f.read(8), "little")
    raw = f.read(size)
    try:
        header = json.loads(raw)
        known = header["format"] in (FORMAT, PATCH_FORMAT)
    except (ValueError, TypeError, KeyError):
        raise Corrupt(f"{path}: the header of the shipped weights is damaged or cut short") from None
    if not known:
        raise Corrupt(f"{path}: unknown shipped weights format {header['format']!r}")
    return header, raw


def read_header(path: Path) -> dict[str, Any]:
    """The header of the shipped weights at ``path`` (``run`` is its run's counters, settings and curve)."""
    with open(path, "rb") as f:
        return _head(f, path)[0]


def read(path: Path) -> Run:
    """The run shipped at ``path``, its weights decompressed into memory (writable: training goes on from it).

    Corrupt if the file is not shipped weights, is cut short, or its stream
    does not match the header's length and hash.
    """
    header, tables = _contents(path)
    if header["format"] == PATCH_FORMAT:
        raise Corrupt(f"{path} is a patch: it is read with the weights it patches (read_chain)")
    weights = np.zeros((len(tables), TABLE_SIZE), dtype=np.float32)
    for k, (mask, values) in enumerate(tables):
        weights[k][mask] = np.multiply(values, np.float32(header["scales"][k]), dtype=np.float32)
    return _run(path, header, weights)


def read_chain(chain: list[Path]) -> Run:
    """The run of a weights file and its patches, in order (``installed_chain``): the file's weights
    with each patch applied, and the last one's counters, settings and curve. Corrupt if a file
    is damaged, or a patch was made on other weights than the ones before it in ``chain``."""
    run = read(chain[0])
    scales = read_header(chain[0])["scales"]
    digest = chain_digest(chain[:1])
    for path in chain[1:]:
        header, tables = _contents(path)
        if header["format"] != PATCH_FORMAT:
            raise Corrupt(f"{path} is a whole weights file, not a patch: it cannot follow {chain[0]}")
        have = len(scales)
        if len(tables) < have:
            raise Corrupt(f"{path} has fewer stages than the weights before it")
        scales = scales + [scales[_promoted(k, have)] for k in range(have, len(tables))]
        if header.get("on") != digest or header["scales"] != scales:
            raise Corrupt(f"{path} patches other weights than the ones before it (out of order, or "
                          "another base)")
        if len(tables) > have:  # new stages: copies of the last one, which the patch then moves
            run.weights = run.weights[[_promoted(k, have) for k in range(len(tables))]]
        for k, (mask, moved) in enumerate(tables):
            if scales[k] == 0.0 and moved.size:
                raise Corrupt(f"{path} moves weights of table {k}, which its base has all at 0")
            scale = np.float32(scales[k])
            table = run.weights[k]
            steps = np.rint(table[mask].astype(np.float64) / scales[k]) + moved
            table[mask] = np.multiply(steps, scale, dtype=np.float32)
        run = _run(path, header, run.weights)
        digest = _chained(digest, path)
    return run


def chain_digest(chain: list[Path]) -> str:
    """What names the weights of ``chain``: the SHA-256 of the file's header (which holds its
    stream's hash), then of each patch's header after the digest before it."""
    with open(chain[0], "rb") as f:
        digest = hashlib.sha256(_head(f, chain[0])[1]).hexdigest()
    for path in chain[1:]:
        digest = _chained(digest, path)
    return digest


def _chained(digest: str, patch: Path) -> str:
    with open(patch, "rb") as f:
        return hashlib.sha256(digest.encode() + _head(f, patch)[1]).hexdigest()


def _contents(path: Path) -> tuple[dict[str, Any], list[tuple[np.ndarray, np.ndarray]]]:
    """The checked header of the shipped file (or patch) at ``path`` and each table's mask and int16
    values. Corrupt if it is cut short, damaged or of another network."""
    with open(path, "rb") as f:
        header, _ = _head(f, path)
        stream = f.read()
    try:
        length, digest = int(header["bytes"]), header["sha256"]
        scales = [float(s) for s in header["scales"]]
        nonzero = [int(n) for n in header["nonzero"]]
        run_format = header["run"]["format"]
        tables = checkpoint.weight_bytes(header["run"]) // (4 * TABLE_SIZE)
    except (ValueError, TypeError, KeyError, AttributeError):
        raise Corrupt(f"{path}: the header of the shipped weights is missing fields") from None
    if len(stream) < length:
        raise Corrupt(f"{path} is cut short: {len(stream):,} of its {length:,} bytes of weights")
    if len(stream) > length or hashlib.sha256(stream).hexdigest() != digest:
        raise Corrupt(f"{path} is damaged: its weights do not match the hash in its header")
    if run_format != checkpoint.FORMAT or len(scales) != tables or len(nonzero) != tables:
        raise Corrupt(f"{path}: the header describes another network ({run_format!r})")
    try:
        return header, _decode(stream, nonzero)
    except (lzma.LZMAError, ValueError) as exc:
        raise Corrupt(f"{path}: the weights do not decode ({exc})") from None


def _run(path: Path, header: dict[str, Any], weights: np.ndarray) -> Run:
    fields = dict(header["run"])
    del fields["format"]
    fields.pop("stages", None)
    try:
        return Run(weights=weights, **fields)
    except TypeError:
        raise Corrupt(f"{path}: the header's run has fields this version does not know") from None


def _decode(stream: bytes, nonzero: list[int]) -> list[tuple[np.ndarray, np.ndarray]]:
    raw = lzma.decompress(stream, format=lzma.FORMAT_XZ)
    count = len(nonzero)
    if len(raw) != count * _MASK_BYTES + 2 * sum(nonzero):
        raise ValueError("the stream's length is not the header's")
    masks = np.frombuffer(raw, dtype=np.uint8, count=count * _MASK_BYTES).reshape(count, _MASK_BYTES)
    tables = []
    offset = count * _MASK_BYTES
    for k in range(count):
        mask = np.unpackbits(masks[k], bitorder="little").view(bool)
        if int(np.count_nonzero(mask)) != nonzero[k]:
            raise ValueError(f"table {k}'s mask does not count {nonzero[k]:,} weights")
        tables.append((mask, np.frombuffer(raw, dtype="<i2", count=nonzero[k], offset=offset)))
        offset += 2 * nonzero[k]
    return tables


def installed() -> Path:
    """The weights file of the installed ``game2048_weights`` package; NotInstalled if there is none."""
    try:
        import game2048_weights  # type: ignore[import-not-found]
    except ImportError:
        raise NotInstalled(
            "no shipped weights: the game2048-weights distribution is not installed"
            " (from a checkout: pip install ./weights)"
        ) from None
    path = Path(game2048_weights.path())
    if not path.is_file():
        raise NotInstalled(f"game2048-weights is installed but holds no weights file ({path} is missing)")
    return path


def installed_chain() -> list[Path]:
    """The installed weights file and the patches beside it, in the order they apply
    (``network.patch-1``, ``-2``, ...). NotInstalled as ``installed``."""
    return chain_of(installed())


def chain_of(base: Path) -> list[Path]:
    """The weights file ``base`` and the patches in its folder (``network.patch-1``, ``-2``, ...),
    in the order they apply."""
    numbered = []
    for patch in base.parent.glob(PATCH_PREFIX + "*"):
        number = patch.name[len(PATCH_PREFIX):]
        if number.isdigit():
            numbered.append((int(number), patch))
    return [base, *(patch for _, patch in sorted(numbered))]


def default_cache_dir() -> Path:
    """Where ``open_mapped`` keeps decompressed weights: the user cache directory's ``learn`` folder."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("game2048")) / "learn"


def open_mapped(path: Path | list[Path] | None = None, *, cache_dir: Path | None = None) -> Run:
    """The run shipped at ``path`` (a file, or a file and its patches; default: the installed
    weights and patches, ``installed_chain``), its weights mapped read-only.

    The first call decompresses the file into ``cache_dir`` (default:
    ``default_cache_dir()``) as ``<hash>.ckpt``, written to a temporary file
    and renamed, and removes the cache of any other shipped file there; every
    call after that, in any process, only checks the cache (its header, its
    length, the CRC-32 of its weights, 0.1 s) and maps it. A cache that fails
    a check is built again. NotInstalled if ``path`` is None and no weights
    are installed; Corrupt if the shipped file is damaged.
    """
    chain = installed_chain() if path is None else [path] if isinstance(path, Path) else list(path)
    digest = chain_digest(chain)
    folder = cache_dir or default_cache_dir()
    cache = folder / f"{digest[:32]}.ckpt"
    run = _checked(cache, digest)
    if run is not None:
        return run
    folder.mkdir(parents=True, exist_ok=True)
    with _exclusive(folder / "build.lock"):  # N workers starting at once: one builds, the rest wait for it
        run = _checked(cache, digest)
        if run is None:
            _build(chain, cache, digest)
            run = checkpoint.load(cache, writable=False)
    return run


def _checked(cache: Path, digest: str) -> Run | None:
    """The cache file mapped read-only if it is whole and holds the shipped file ``digest``; else None."""
    try:
        header, offset = checkpoint.read_header(cache)
        extra = header.get("extra") or {}
        if extra.get("source") != digest or cache.stat().st_size != offset + checkpoint.weight_bytes(header):
            return None
        run = checkpoint.load(cache, writable=False)
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    if zlib.crc32(run.weights) != extra.get("crc32"):
        return None
    return run


def _build(chain: list[Path], cache: Path, digest: str) -> None:
    run = read_chain(chain)
    part = cache.with_suffix(".part")
    extra = {"source": digest, "crc32": zlib.crc32(run.weights), "from": [str(p) for p in chain]}
    checkpoint.save(run, part, extra=extra)
    os.replace(part, cache)
    for other in cache.parent.glob("*.ckpt"):
        if other != cache:
            with suppress(OSError):  # mapped, on Windows; on POSIX a process mapping it keeps its pages
                other.unlink()


@contextmanager
def _exclusive(lock: Path) -> Iterator[None]:
    """Hold an advisory lock on ``lock``, waiting for it (no lock where ``fcntl`` is missing)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    with open(lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
