"""The one-time compile of the numba kernels, said out loud.

The first solver use in a fresh installation compiles its kernels (about
30 s of CPU); numba keeps them on disk, and later processes load them in
about a second. ``announce`` prints a line on standard error before such a
compile and its time after it, and says nothing when numba's cache already
holds the kernels.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

#: The solver's numba modules (their kernels compile on first call).
SOLVER_SOURCES = tuple(Path(__file__).with_name(name) for name in ("bitboard.py", "expectimax.py"))


def cache_is_cold(sources: Sequence[Path]) -> bool:
    """True if numba's cache has no kernels for one of ``sources`` newer than that file.

    It looks where numba would: ``NUMBA_CACHE_DIR``, the ``__pycache__`` beside
    the source, or the user-wide cache; only file names and times, nothing is
    loaded. When numba's layout is not the expected one, it answers False.
    """
    try:
        from numba.core import caching

        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # its name before numba 0.61
        locators = list(impl._locator_classes)
    except (ImportError, AttributeError):
        return False

    def placeholder() -> None:  # numba's locators read a line number from a function
        pass

    for source in sources:
        locator = None
        for cls in locators:
            locator = cls.from_function(placeholder, str(source))
            if locator is not None:
                break
        if locator is None:
            return False  # numba cannot cache here: each process compiles, nothing to announce once
        folder = Path(locator.get_cache_path())
        built = source.stat().st_mtime
        if not any(index.stat().st_mtime >= built for index in folder.glob(f"{source.stem}.*.nbi")):
            return True
    return False


@contextmanager
def announce(what: str, sources: Sequence[Path]) -> Iterator[None]:
    """Around a compile of ``sources``: one line on stderr, and its time when done."""
    print(f"game2048: compiling {what} once for this installation (about 30 s of CPU; "
          "later runs load it from numba's cache)...", end="", file=sys.stderr, flush=True)
    start = time.perf_counter()
    try:
        yield
    finally:
        print(f" done in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)


_checked = False


def ensure_compiled() -> None:
    """Before the first search of the process: if numba must compile the solver, say so and do it now.

    Cheap when the cache is warm (a few file times, once per process); the
    kernels then load on first call as usual.
    """
    global _checked
    if _checked:
        return
    _checked = True
    if cache_is_cold(SOLVER_SOURCES):
        from .search import warm_up

        with announce("the solver", SOLVER_SOURCES):
            warm_up()
