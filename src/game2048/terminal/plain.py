"""``game2048 play`` on a terminal that cannot redraw its screen (``TERM=dumb``): one board a turn.

The same session and keys as the full screen, read a line at a time: type
one or more keys (``hhj``, ``w``, ``u``) and Enter; the board is printed
again after them, as plain text.
"""

from __future__ import annotations

from collections.abc import Callable

from .screen import HELP, press
from .session import Session


def board_text(session: Session, ranked: bool) -> str:
    """The title line, the board (``.`` for empty) and the session's message."""
    state, n = session.state, session.size
    title = f"2048  {n}x{n}   score {state.score}   best {session.best}   undo {state.undos_left}"
    if ranked:
        title += "   ranked" if state.ranked else "   unranked"
    width = max(len(str(v)) for row in state.board for v in row)
    rows = [" ".join(str(v or ".").rjust(width) for v in row) for row in state.board]
    return "\n".join([title, *rows, *([session.message] if session.message else [])])


def run_plain(session: Session, ranked: bool, read: Callable[[str], str] = input,
              write: Callable[[str], None] = print) -> None:
    """The key loop, a line at a time, until q or the end of input."""
    write("This terminal cannot redraw the screen: type keys, then Enter. " + HELP.replace("arrows, ", ""))
    while True:
        write(board_text(session, ranked))
        try:
            line = read("> ")
        except EOFError:
            session.quit()
            return
        for key in line.strip().lower():
            pressed = press(session, key)
            if pressed == "quit":
                return
            if pressed == "new":
                try:
                    sure = read("Start a new game? (y/n) ").strip().lower()
                except EOFError:
                    sure = ""
                if sure == "y":
                    session.new_game()
                break
