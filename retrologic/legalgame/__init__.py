"""Legality by construction: a legal game from the initial array to a full position.

    finder   the guided search that builds the game (captures first, then placement)
    checker  the `legal-game` certificate: replayed with python-chess (python-chess and the
             core only; never the finder or the proof-game analysis)
"""
