"""Shortest proof games over trajectories (shared/seeds/malikovic-spg-trajectories-coq.txt).

maps, trajectory  distance maps (§5), shortest/admissible bundles, docks and obstacles (§6–§11);
analysis          the façade of the preliminary analysis, composed of: options (BoundOptions),
                  targets, distances, assignment, routes, bound, coupling, obstruction, rules
                  (the prune as named rules), moves (the move filter), memo (named memo tables);
strategy          the CP-SAT strategy layer: which unit goes where, by which route;
search            the iterative exhaustive search of games of a length, pruned by the analysis;
geometry, schedule, listing  the CP-SAT schedule model: steps, the model, games listed by it;
status            the engines' statuses (StrEnum);
solver            `solve()`: the engines per length, the verdict (unique, cooked, none);
checker           the independent replay of a proof game (python-chess and the flat core only).
"""
