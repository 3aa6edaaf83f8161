"""The version of retrologic, in a module of its own: the modules that stamp it (certificates,
cage proofs, `retrologic --version`) import it from here, not from the package's __init__ (the
lazy public API, which imports them: that would be an import cycle)."""

__version__ = "0.1.0"
