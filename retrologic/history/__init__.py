"""Deductions about a position's history as SAT/CP queries: captures, pawn structure, promotions.

model    the history model: units, fates, capture and promotion variables (the encoding);
query    the predicate language on the model, and Query: assumptions and negated claims;
clauses  the model as CNF clauses and DIMACS text (no solver);
cnf      the CNF backend (PySAT, Glucose) with DRUP proofs; cpsat: the CP-SAT backend;
witness  decoding a model into a readable history and checking it;
deduce   `deduce()`: claims proved (with a DRUP certificate) or refuted (with a witness);
checker  the deduce-drup certificate checker: rebuilds the CNF (model, query, clauses) and
         checks the proof with drup; never imports cnf, cpsat, deduce or a solver;
drup     the DRUP checker, independent of the solver (imports nothing of the engine).
"""
