"""Cages (shared/seeds/hwa-cages-in-retrograde-analysis.txt): configurations no retraction frees.

rules    zone, restriction models and prune rules of the cage search (§3, §4.2);
entry    a verified cage's record, its library-file form, and a match of one in a position;
search   the verifier: an exhaustive retraction search of the extensions (Hwa's Algorithm 1);
index    the library's sub-board index (per-square lists: a lookup costs the position's units);
library  the verified-cage library: its TOML entries, matching, re-verification before use and
         learning new cages with every board of their closed sets (§3, bootstrapping); it
         imports search, never the other way round;
collection  collection files verified in order, learning as they go (`cage --collection`);
checker  the independent checker of cage proofs and counterexamples (may import the core
         position and retraction generator, never search, library or rules).
"""
