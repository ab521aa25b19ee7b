"""A learned evaluator for 4x4: an n-tuple network trained by TD(0) on afterstates.

``ntuple`` holds everything compiled (the network, training games, players),
``train`` the training loop (threads, curve, checkpoints), ``checkpoint``
the file a run lives in, ``shipped`` the compressed int16 file a run is
committed as (and the cache play maps it from), ``play`` the network as a
player (``best_move``, seeded games, ``evaluate``). ``game2048 learn``
trains, ``game2048 learn-eval`` measures and ``game2048 learn-export``
ships; see the "Learned evaluator" section of ``docs/solver.md``.
"""
