"""Deductions about a position's history as SAT/CP queries: captures, pawn structure, promotions.

model    the history model: units, fates, capture and promotion variables (the encoding);
query    problem-file constraints compiled onto the model;
cnf      the CNF backend (PySAT, Glucose) with DRUP proofs; cpsat: the CP-SAT backend;
witness  decoding a model into a readable history and checking it;
deduce   `deduce()`: claims proved (with a DRUP certificate) or refuted (with a witness);
drup     the DRUP checker, independent of the solver (imports nothing of the engine).
"""
