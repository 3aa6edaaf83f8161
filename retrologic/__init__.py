"""retrologic: retrograde chess analysis built on constraint solvers.

Verdicts are *proved*, *refuted* (with a counterexample) or *unknown* (with the limit hit);
every proof is an artifact that `retrologic check` can verify independently.
"""

__version__ = "0.1.0"
