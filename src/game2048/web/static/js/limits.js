// The bounds of records and requests, as the server states them (game2048.limits):
// tests/vectors/limits.json binds the two. The rules' own facts (sizes, targets,
// letters, undos, seeds) are the engine's.
export const MAX_LOG = 200000;
export const MAX_MOVES = 64;
export const NAME_MAX = 24;
export const GAME_ID = /^[A-Za-z0-9_-]{1,64}$/;
