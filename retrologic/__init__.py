"""retrologic: retrograde chess analysis built on constraint solvers.

Verdicts are *proved*, *refuted* (with a counterexample) or *unknown* (with the limit hit);
every proof is an artifact that `retrologic check` can verify independently.

The Python API (retrologic/api.py, imported on first use so `import retrologic` stays fast):
`retractions`, `is_legal`, `verify_cage`, `deduce`, `last_move`, `solve_spg`, each taking a
python-chess Board, a FEN or a board string and returning a `Result` (`to_json()`, `verdict`:
a `Verdict`). Bad input raises `InputError`.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING, Any as _Any

from retrologic.version import __version__

# public name -> the module that defines it, imported when the name is first used (PEP 562)
_LAZY = {
    "retractions": "retrologic.api",
    "is_legal": "retrologic.api",
    "verify_cage": "retrologic.api",
    "deduce": "retrologic.api",
    "last_move": "retrologic.api",
    "solve_spg": "retrologic.api",
    "Result": "retrologic.result",
    "Verdict": "retrologic.result",
    "InputError": "retrologic.errors",
}

__all__ = ["__version__", "retractions", "is_legal", "verify_cage", "deduce", "last_move",
           "solve_spg", "Result", "Verdict", "InputError"]        # = _LAZY and the version

if _TYPE_CHECKING:
    from retrologic.api import deduce, is_legal, last_move, retractions, solve_spg, verify_cage
    from retrologic.errors import InputError
    from retrologic.result import Result, Verdict


def __getattr__(name: str) -> _Any:
    """Import a public name's module on first use and keep the name in this module."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'retrologic' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names (loaded or not) and the submodules imported so far."""
    return sorted({*__all__, *(n for n in globals() if not n.startswith("_"))})
