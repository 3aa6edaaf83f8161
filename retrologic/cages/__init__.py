"""Cages (shared/seeds/hwa-cages-in-retrograde-analysis.txt): configurations no retraction frees.

rules    zone, restriction models and prune rules of the cage search (§3, §4.2);
search   the verifier: an exhaustive retraction search of the extensions (Hwa's Algorithm 1);
library  the verified-cage library, its TOML entries and matching (§5, bootstrapping);
checker  the independent checker of cage proofs and counterexamples (may import the core
         position and retraction generator, never search or library).
"""
