"""A learned evaluator for 4x4: an n-tuple network trained by TD(0) on afterstates.

``ntuple`` holds everything compiled (the network, training games, players),
``train`` the training loop (threads, curve, checkpoints), ``checkpoint``
the file a run lives in, ``play`` the network as a player (``best_move``,
seeded games, ``evaluate``). ``game2048 learn`` trains and ``game2048
learn-eval`` measures; see the "Learned evaluator" section of ``docs/solver.md``.
"""
