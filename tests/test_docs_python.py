"""The Python sessions of README.md and docs/*.md (the ```python blocks holding `>>>`
prompts) run as doctests, each from a fresh directory: a document's example is a test, so it
stays true."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"```python\n(.*?)```", re.S)
# the documents that show a Python session, and how many examples each holds (a session
# dropped from a document, or a block the pattern no longer finds, fails here)
SESSIONS = {"README.md": 4, "docs/lastmove.md": 5, "docs/spg.md": 4, "docs/tablebase.md": 8,
            "docs/puzzle4x4.md": 6}


def examples(name: str) -> list[doctest.DocTest]:
    """The doctests of one document's Python blocks (`name` relative to the repository)."""
    text = (ROOT / name).read_text()
    parser = doctest.DocTestParser()
    # each block's line in the document, so that a failure names the document's line
    return [parser.get_doctest(match.group(1), {}, f"{name}[{i}]", str(ROOT / name),
                               text.count("\n", 0, match.start(1)))
            for i, match in enumerate(BLOCK.finditer(text)) if ">>>" in match.group(1)]


def test_every_document_with_a_session_is_listed():
    """A document that gains a Python session is run too."""
    documents = [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    shown = {str(path.relative_to(ROOT)) for path in documents
             if examples(str(path.relative_to(ROOT)))}
    assert shown == set(SESSIONS)


@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_document_python_session(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)       # the tablebase example writes its tables where it runs
    tests = examples(name)
    runner = doctest.DocTestRunner()
    for test in tests:
        runner.run(test)
    summary = runner.summarize(verbose=False)
    assert summary.failed == 0
    assert sum(len(test.examples) for test in tests) == SESSIONS[name]
