"""Finished games: records and who may see them, leaderboards, practice records and player names."""
