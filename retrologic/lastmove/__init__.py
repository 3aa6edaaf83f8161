"""Last-move problems: which last moves (or last n plies) can have led to a position.

search  candidates, their refutation by a retraction tree down to static rules and cages,
        their support by a retraction line (Hwa's extension principle);
cages   cage discovery and re-verification for the refutation tree's leaves.
"""
