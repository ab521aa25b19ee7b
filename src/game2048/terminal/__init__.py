"""The terminal game (``game2048 play``): a dealer seam, a session, and a curses screen.

- ``dealer``: who deals the tiles, a seeded local ``Game`` or the server's ranked game;
- ``session``: the game in play, best scores and messages, without a terminal;
- ``screen``: curses drawing and the key loop; ``scores``: best scores on disk;
- ``command``: the ``play`` command.
"""
