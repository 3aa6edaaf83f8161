"""Question kind `cage`: verify that a partial position is a cage (Hwa), with a checkable proof
or a counterexample line; `retrologic cage BOARD` on the command line, `--learn` to add a newly
verified cage to the library; `retrologic cage --collection FILE [--learn]` to verify a file of
boards in order, learning as it goes (retrologic.cages.collection)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from retrologic.console import add_limit_arguments, emit, options_from
from retrologic.errors import EXIT_MISMATCH, InputError
from retrologic.options import SolveOptions, budget_of
from retrologic.problemfile import Problem, resolve_path
from retrologic.result import Result, Verdict
from retrologic.schema import Field, parse_squares

if TYPE_CHECKING:
    from retrologic.cages.library import Library
    from retrologic.cages.search import CageResult
    from retrologic.certformat import Destination

KIND = "cage"
POSITION = "partial"


def _zone(value: Any) -> Any:
    if value == "auto":
        return value
    if isinstance(value, str):
        raise ValueError("must be \"auto\" or a list of squares")
    parse_squares(value)
    return value


def _model(value: str) -> str:
    from retrologic.cages.rules import MODELS
    if value not in MODELS:
        raise ValueError(f"must be one of {', '.join(MODELS)}")
    return value


QUESTION = {
    "zone": Field((str, list), default="auto", check=_zone,
                  doc='"auto" (occupied squares and their king-move neighbours) or a list of squares'),
    "frozen": Field(list, default=[], check=lambda v: (parse_squares(v), v)[1],
                    doc="units that never moved (added to position.frozen)"),
    "model": Field(str, default="lines", check=_model,
                   doc='"lines" (line checks through emptied squares, verifies Figure 5) or "plain"'),
    "library": Field(bool, default=False, doc="use every cage of encodings/cages as a known cage"),
    "with_position": Field(str, default="", doc="a full position (FEN) containing the board: the "
                           "SAT engine (cages.sat) takes the pawn-capture facts its history model "
                           "proves (no lemmas, no library)"),
}
EXPECT = {"cage", "model", "states", "zone", "lemmas_used", "escape", "line", "line_length"}


def _library(paths: list[Path]) -> Library | None:
    from retrologic.cages.library import load_library
    return load_library(paths) if paths else None


def solve(problem: Problem, options: SolveOptions) -> Result:
    """Verify the problem's cage under its zone, frozen units, constraints and lemmas."""
    from retrologic.cages import search as cage
    from retrologic.cages.library import DEFAULT_DIR
    from retrologic.cages.rules import restrictions_from
    from retrologic.position import Position
    q = problem.question
    try:
        rules, never = restrictions_from(problem.constraints, problem.position)
    except InputError as e:
        raise e.located(problem.path) from None
    if q["with_position"]:
        return _solve_sat(problem, options, rules, never)
    paths = [resolve_path(problem, p) for p in problem.lemmas]
    if q["library"]:
        paths.append(DEFAULT_DIR)
    try:
        library = _library(paths)
        frozen = list(q["frozen"])
        start = cage.start_position(problem.position, frozen)
        start = Position(start.placement, None, start.castling, None, start.frozen | never, True)
        result = cage.verify(start, None if q["zone"] == "auto" else q["zone"], rules, library,
                             model=q["model"], budget=budget_of(options),
                             progress=options.progress)
    except InputError as e:
        raise e.located(problem.path, "question") from None
    out = result.to_result()
    out.position = result.start         # for pictures (issue #20)
    if options.certificate_dir and result.verdict != Verdict.UNKNOWN:
        _record(out, _write(result, _stating_constraints(options.certificate_dir, problem)))
    return out


def _stating_constraints(directory: Any, problem: Problem) -> Destination | None:
    """The destination of a problem file's certificate, its question stating the problem's
    constraints as `restrict` texts (the checker holds a proof to no more than they assume)."""
    from retrologic.certformat import destination
    dest = destination(directory, problem)
    if dest is None:
        return None
    restrict = [c["expr"] if isinstance(c, dict) else str(c) for c in problem.constraints]
    return dest.stating(question={**dest.meta.get("question", {}), "restrict": restrict})


def _solve_sat(problem: Problem, options: SolveOptions, rules: list, never: int) -> Result:
    """A cage problem with `question.with_position`: the SAT engine with the position's facts."""
    from retrologic.cages import search as cage
    from retrologic.cages.sat import verify_sat
    from retrologic.position import Position
    q = problem.question
    if problem.lemmas or q["library"]:
        raise InputError("with_position uses the SAT engine, which takes no known cages",
                         file=str(problem.path), field="question.with_position", value=q["with_position"])
    try:
        start = cage.start_position(problem.position, list(q["frozen"]))
        start = Position(start.placement, None, start.castling, None, start.frozen | never, True)
        result = verify_sat(start, None if q["zone"] == "auto" else q["zone"], rules,
                            model=q["model"], with_position=q["with_position"],
                            budget=budget_of(options), progress=options.progress)
    except InputError as e:             # the field of the file that states what is at fault
        raise e.located(problem.path, _stated_in(problem, e)) from None
    out = result.to_result()
    if options.certificate_dir and result.verdict != Verdict.UNKNOWN:
        from retrologic.certformat import destination
        dest = destination(options.certificate_dir, problem)  # type: ignore[arg-type]
        _record(out, _write(result, dest))
    return out


def _stated_in(problem: Problem, e: InputError) -> str | None:
    """Where a problem file states what the SAT engine refused (`e.field`): a restriction is a
    [[constraint]], a frozen unit in the position table or else the question's (a never_moved
    constraint also freezes, but the question is where to look first)."""
    import chess
    if e.field == "restrictions":
        e.field = None
        return "constraint"
    if e.field == "frozen" and str(e.value) in chess.SQUARE_NAMES and \
            problem.position.frozen & chess.BB_SQUARES[chess.parse_square(str(e.value))]:
        return "position"
    return "question"


NOT_WRITTEN = "certificate: not written (it would pass the size cap `check` reads)"


def _write(result: CageResult, dest: Destination | None) -> str | None:
    """Write the proof or counterexample to a retrologic.certformat.Destination (given: the
    caller has a certificate directory); its path, or None when it would pass `check`'s size
    cap (a closed set of millions of positions: a file `check` refuses is not written)."""
    from retrologic.certificate import MAX_CERT_BYTES
    assert dest is not None
    cert = result.certificate()     # named by its type: cage-proof, -counterexample, -sat-proof
    path = dest.write(cert, cert["type"], MAX_CERT_BYTES)
    return None if path is None else str(path)


def _record(out: Result, path: str | None, shown: bool = False) -> None:
    """The certificate's path in the details (None: not written, said in the text), and in
    the text when `shown` (the command line prints it)."""
    out.details["certificate"] = path
    if path is None:
        out.lines.append(NOT_WRITTEN)
    elif shown:
        out.lines.append(f"certificate: {path}")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("board", metavar="BOARD", nargs="?",
                   help="a board-only placement (a partial position); or give --collection")
    p.add_argument("--collection", metavar="FILE",
                   help="verify every board of a collection file in order (one per line, see "
                   "docs/cages.md); with --learn each new cage and its closed set's boards are "
                   "learned for the boards after it")
    p.add_argument("--zone", metavar="SQ,...", help="the zone (default: occupied squares and their "
                   "king-move neighbours)")
    p.add_argument("--frozen", metavar="SQ,...", help="units that never moved")
    p.add_argument("--plain", action="store_true",
                   help="the paper's model only (no line checks through emptied squares)")
    p.add_argument("--restrict", action="append", default=[], metavar="EXPR",
                   help='a restriction, e.g. \'pawn_captures(either, from_file="d", to_file="e") == 0\''
                   " or 'never_moved(\"g1\")' (repeatable)")
    p.add_argument("--library", action="append", default=[], metavar="DIR|FILE",
                   help="known cages to use (repeatable; with --learn the first is written to)")
    p.add_argument("--learn", action="store_true",
                   help="add the cage to the library when verified (default encodings/cages)")
    p.add_argument("--name", help="name of the learned cage (default: from the board, with a "
                   "hash of it that tells apart boards differing only in letter case)")
    p.add_argument("--source", default="", help="where the learned cage comes from")
    p.add_argument("--start-only", action="store_true",
                   help="learn only each cage's start board, not the other boards of its closed "
                   "set (for comparison)")
    p.add_argument("--engine", choices=("fast", "explicit", "sat"), default=None,
                   help="the search engine: fast (default; bitboard tuples, cages.fast), "
                   "explicit (the reference search of cages.search) or sat (k-induction with "
                   "pysat, cages.sat; uses no known cages: --library only with --learn, and "
                   "learns the board alone); also with --learn and --collection")
    p.add_argument("--with-position", metavar="FEN", default=None,
                   help="the full position the board is part of: pawn-capture facts its history "
                   "model proves enter the SAT engine's formula (implies --engine sat)")
    add_limit_arguments(p)
    from retrologic.pictures import output as pictures
    pictures.add_arguments(p)


def run(args: argparse.Namespace) -> int:
    if (args.board is None) == (args.collection is None):
        raise InputError("give a BOARD or --collection FILE (one of them)", field="board",
                         value=args.board or args.collection)
    engine = getattr(args, "engine", None)
    if getattr(args, "with_position", None) is not None:
        if engine not in (None, "sat"):
            raise InputError("--with-position needs --engine sat", field="--engine", value=engine)
        if args.collection is not None:
            raise InputError("--with-position applies to one BOARD", field="--with-position",
                             value=args.with_position)
        engine = "sat"
    if engine == "sat" and args.library and not args.learn:
        raise InputError("the SAT engine uses no known cages (--library only with --learn: "
                         "where the cage is written)", field="--library", value=args.library[0])
    if args.collection is not None:
        return _run_collection(args, engine or "auto")
    if engine == "sat" and not args.learn:
        return _run_sat(args)
    from retrologic.cages import collection
    from retrologic.cages.library import DEFAULT_DIR, MAX_NAME, check_text, default_name
    model = "plain" if args.plain else "lines"
    lib_paths = [Path(p) for p in args.library]
    if args.learn:
        if lib_paths and not lib_paths[0].is_dir():
            raise InputError("--learn writes to a directory: give one as the first --library",
                             field="--library", value=args.library[0])
        if args.name is not None:
            check_text(args.name, "--name", limit=MAX_NAME)
        check_text(args.source, "--source")
    if args.learn and not lib_paths and DEFAULT_DIR.is_dir():
        lib_paths = [DEFAULT_DIR]
    library = _library(lib_paths)
    options = options_from(args)
    zone = args.zone
    path = None
    if args.learn:                  # the SAT engine: its board is learned alone (no closed set)
        name = args.name or default_name(args.board)
        directory = lib_paths[0] if lib_paths and lib_paths[0].is_dir() else DEFAULT_DIR
        if engine == "sat":
            from retrologic.cages.sat import verify_sat
            result = verify_sat(args.board, zone, args.restrict, model=model, frozen=args.frozen,
                                with_position=args.with_position, budget=budget_of(options),
                                progress=options.progress)
        else:
            result = collection.verify_with(engine or "auto", args.board, zone, args.restrict,
                                            library, model=model, frozen=args.frozen,
                                            budget=budget_of(options), progress=options.progress)
        if result.proved:
            from retrologic.cages.library import Library
            _, path = collection.learn_result(result, name, library or Library(), directory,
                                              members=not args.start_only, source=args.source)
    else:
        result = collection.verify_with(engine or "auto", args.board, zone, args.restrict, library,
                                        model=model, frozen=args.frozen, budget=budget_of(options),
                                        progress=options.progress)
    out = result.to_result()
    if options.certificate_dir and result.verdict != Verdict.UNKNOWN:
        _record(out, _write_cli(result, options.certificate_dir, args.board, zone,
                                args.frozen or [], model, args.restrict), shown=True)
    from retrologic.pictures import output as pictures
    pictures.save(out, result.start, args)
    status = emit(out, args)
    if args.learn and engine == "sat" and path is not None:
        print("learned from a SAT proof: the board alone (no closed set); the library verifies "
              "it again with the explicit engine before its first use", file=sys.stderr)
    if args.learn:
        if path is not None:
            print(f"learned: {path}", file=sys.stderr)
        elif result.proved:
            print("not learned: the position contains a known cage", file=sys.stderr)
        else:
            print("not learned: the cage was not verified", file=sys.stderr)
            return EXIT_MISMATCH
    return status


def _run_sat(args: argparse.Namespace) -> int:
    """`retrologic cage BOARD --engine sat [--with-position FEN]`: the SAT engine (cages.sat)."""
    from retrologic.cages.sat import verify_sat
    if args.library:
        raise InputError("the SAT engine uses no known cages", field="--library", value=args.library[0])
    options = options_from(args)
    model = "plain" if args.plain else "lines"
    try:
        result = verify_sat(args.board, args.zone, args.restrict, model=model, frozen=args.frozen,
                            with_position=args.with_position, budget=budget_of(options),
                            progress=options.progress)
    except InputError as e:             # the engine names a problem file's fields
        e.field = {"frozen": "--frozen", "restrictions": "--restrict"}.get(e.field or "", e.field)
        raise
    out = result.to_result()
    if options.certificate_dir and result.verdict != Verdict.UNKNOWN:
        path = _write_cli(result, options.certificate_dir, args.board,  # type: ignore[arg-type]
                          args.zone, args.frozen or [], model, args.restrict)
        _record(out, path, shown=True)
    return emit(out, args)


def _write_cli(result: CageResult, directory: Any, board: str, zone: Any, frozen: Any,
               model: str, restrict: list[str]) -> str | None:
    """Write a command-line question's certificate; returns its path (None: not written)."""
    from retrologic.certformat import as_destination
    question = {"kind": "cage", "zone": zone or "auto", "frozen": frozen, "model": model,
                "restrict": list(restrict)}
    return _write(result, as_destination(directory, question=question, position={"board": board}))


def _run_collection(args: argparse.Namespace, engine: str = "auto") -> int:
    """`retrologic cage --collection FILE`: one verdict line per board, then a summary (or one
    JSON object). Known cages: the --library paths (none by default); with --learn new cages
    are learned as the run goes and, when the first --library is a directory, written there
    (one file each, atomically, as soon as learned). Exit: 1 if an expect= was not met, 130 if
    interrupted, 4 if a board stayed unknown, else 0. `engine`: every board's engine
    (collection.verify_with; the SAT engine uses no known cages)."""
    import json

    from retrologic.cages import collection
    from retrologic.cages.library import Library
    from retrologic.console import EXIT_INTERRUPTED
    from retrologic.errors import EXIT_OK, EXIT_UNKNOWN
    if args.zone or args.frozen or args.restrict or args.plain or args.name:
        raise InputError("with --collection, give zone, frozen squares, restrictions, model and "
                         "name per board in the file", field="--collection", value=args.collection)
    items = collection.load(args.collection)
    lib_paths = [Path(p) for p in args.library]
    library = _library(lib_paths) or Library()
    directory = lib_paths[0] if args.learn and lib_paths and lib_paths[0].is_dir() else None
    if args.learn and lib_paths and directory is None:
        raise InputError("--learn writes to a directory: give one as the first --library",
                         field="--library", value=args.library[0])
    options = options_from(args)
    certs = options.certificate_dir

    def report(o: collection.Outcome) -> None:
        if certs and o.result.verdict != Verdict.UNKNOWN:
            o.certificate = _write_cli(o.result, certs, o.item.board, o.item.zone,
                                       list(o.item.frozen), o.item.model, list(o.item.restrict))
        if not args.json:
            unwritten = certs and o.result.verdict != Verdict.UNKNOWN and o.certificate is None
            print(collection.line_of(o) + ("; " + NOT_WRITTEN if unwritten else ""), flush=True)

    done = collection.run(items, library, learn=args.learn, members=not args.start_only,
                          directory=directory, timeout=options.timeout, nodes=options.nodes,
                          source=args.source or str(args.collection), report=report,
                          engine=engine, progress=options.progress)
    summary = done.summary()
    if args.json:
        print(json.dumps({"collection": str(args.collection), "boards": [
            {"line": o.item.line, "board": o.item.board, "verdict": o.result.verdict,
             "engine": getattr(o.result, "engine", "sat"),
             "states": o.result.states, "elapsed_ms": round(o.result.elapsed * 1000, 3),
             "reason": o.result.reason, "lemmas_used": [e.name for e in o.result.lemmas],
             "learned": o.entry.name if o.entry else None,
             "members": len(o.entry.members) if o.entry else 0,
             "file": str(o.path) if o.path else None, "expect": o.item.expect, "met": o.met,
             "certificate": o.certificate}
            for o in done.outcomes], "summary": summary}, indent=2), flush=True)
    else:
        print(collection.summary_line(done), flush=True)
    if summary["not_met"]:
        return EXIT_MISMATCH
    if done.interrupted:
        return EXIT_INTERRUPTED
    return EXIT_UNKNOWN if summary["unknown"] else EXIT_OK
