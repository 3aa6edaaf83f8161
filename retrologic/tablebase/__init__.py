"""Retrograde tablebases (shared/seeds/leapfrog-retrograde-analysis.txt).

retrograde  the generic retrograde solver over an indexed game graph (leapfrog §2–§3);
index       signatures and the position index of an endgame (symmetry-reduced);
moves       chess moves and unmoves on the index (the game graph of one endgame);
table       tables, the library of built endgames, probes and their files;
plot        plots of a table's statistics (matplotlib, optional);
checker     the independent check of a built table against chess rules (python-chess moves).
"""
