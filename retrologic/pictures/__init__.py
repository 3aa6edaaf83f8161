"""Pictures of positions and answers (issue #20, item 3): SVG diagrams drawn by python-chess's
chess.svg, composed side by side or as frames of a game; PGN headers from a problem's meta."""
