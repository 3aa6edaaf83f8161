"""Shortest proof games over trajectories (shared/seeds/malikovic-spg-trajectories-coq.txt).

trajectory  unit graphs, distance maps and shortest/admissible trajectory bundles (§3–§5);
analysis    the target assignment, distance tables and the lower bound that prunes the search;
strategy    the CP-SAT strategy layer: which unit goes where, by which route (one model per length);
search      the iterative exhaustive search of games of a length, pruned by the analysis;
schedule    the CP-SAT schedule model: games of a length as step variables, listed by the solver;
solver      `solve()`: the engines per length, the verdict (shortest, unique, cooked, none);
checker     the independent replay of a proof game (python-chess alone).
"""
