"""The 4x4 capture puzzle (shared/seeds/stanley-4x4-capture-chess-puzzle.txt).

game     the board, moves, unmoves, the solver and certificates of one puzzle;
fast     the compiled (numba) solver for the census;
index    the packed index of puzzle positions;
census   the census of all starting positions (in parallel, resumable);
rate     the solvability rate estimate by sampling;
retro    the retrograde solution of the whole game graph (tablebase.retrograde);
checker  the independent replay of puzzle certificates (python-chess alone: imports nothing
         of this package).
"""
