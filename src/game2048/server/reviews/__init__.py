"""Reviews of finished games: queued once, made by background workers, kept."""
