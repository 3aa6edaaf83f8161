"""Legality: static proofs that no game reaches a position.

reason        `Reason`, the record every rule returns (rule name, sentence);
rules         the count, check, state and retro-stalemate rules, and `reasons()`, the one entry;
static_cages  Retractor 2's static cages (shared/seeds/retractor2-cages.html): frozen units,
              sealed homes, region and king arguments.
tempo         tempo parity: no capture, every unit's move count of a known parity, so the side
              to move is fixed (the initial array with Black to move is illegal).
"""
