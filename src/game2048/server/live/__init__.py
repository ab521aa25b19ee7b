"""Games in play: the one mover (``mover``), the stores that keep games between moves (``stores``),
what the server issues (``seeds``) and the WebSocket (``socket``).
"""
