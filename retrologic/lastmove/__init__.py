"""Last-move problems: which last moves (or last n plies) can have led to a position.

search  candidates, their refutation by a retraction tree down to static rules and cages,
        their support by a retraction line (Hwa's extension principle);
cages   cage discovery for the refutation tree's leaves (cage lemmas, the library, new cages);
checker the independent checker of last-move proofs (may import the core, legality.rules and the
        cage verifier cages.search, never search or cages of this package).
"""
