"""Census of 4x4 capture puzzle starts: is every one solvable?

Work is cut into shards: an index range of the symmetry-reduced set (puzzle4x4.index), or a
seeded batch of random starts. Each finished shard is written as JSON in the output directory
(atomically: a temporary file, then a rename), so an interrupted census resumes where it
stopped; the summary is read back from the shard files, each read once (an unreadable one is
run again).
Shards run on all local cores (multiprocessing) or on a Dask cluster (optional dependency,
imported only when asked for: `pip install "retrologic[cluster]"`).

Limits: the time limit and Ctrl-C (retrologic.limits) stop the census between shards and, in
this process, inside one; pool workers ignore SIGINT and are terminated by the parent, which
keeps every shard finished before the stop.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from retrologic import files
from retrologic.puzzle4x4 import game as p4
from retrologic.puzzle4x4 import index as idx
from retrologic.errors import InputError
from retrologic.limits import Budget, LimitHit

MEMO_CAP = 300_000          # the failed-position memo shared along a shard is cleared past this
POLL = 0.1                  # seconds between two looks at the limits while waiting for shards
SHARD_BYTES = 64 * 1024 * 1024  # a shard file larger than this is not one of ours
MAX_SHARDS = 1_000_000      # shards a census may list (the whole set: 612,973 at the default)
READ_CHECK = 256            # shard files read between two looks at the limits


def _solve_all(items: Iterable[tuple[int, int]], budget: Budget | None = None) -> dict[str, Any]:
    """Solve (index, key) starts, sharing the memo of unsolvable positions along the batch."""
    failed: set[int] = set()
    starts = solvable = nodes = 0
    unsolvable = []
    t0, c0 = time.perf_counter(), time.process_time()
    for i, key in items:
        solver = p4.Solver(failed=failed, budget=budget)
        if solver.solve(key) is None:
            unsolvable.append({"index": i, "board": p4.to_string(key)})
        else:
            solvable += 1
        starts += 1
        nodes += solver.nodes
        if len(failed) > MEMO_CAP:
            failed.clear()
    return {"starts": starts, "solvable": solvable, "unsolvable": unsolvable, "nodes": nodes,
            **_clock(t0, c0)}


def _clock(t0: float, c0: float) -> dict[str, float]:
    """Wall and CPU seconds since (t0, c0): on a shared machine the two differ."""
    return {"seconds": round(time.perf_counter() - t0, 3),
            "cpu_seconds": round(time.process_time() - c0, 3)}


ENGINES = ("auto", "python", "numba")
_FAST = None


def _fast():
    """The compiled kernel of this process (built once), or None without numba."""
    global _FAST
    if _FAST is None:
        from retrologic.puzzle4x4 import fast
        if not fast.available():
            return None
        _FAST = fast.FastSolver()
        _FAST.census(0, 2)                           # compile, or load the cached kernel, now:
        _FAST.solve([p4.parse("K3/k3/4/4")])         # not inside the first shard's clock
    return _FAST


def _engine(engine: str):
    if engine not in ENGINES:
        raise InputError(f"must be one of {', '.join(ENGINES)}", field="engine", value=engine)
    if engine == "python":
        return None
    kernel = _fast()
    if kernel is None and engine == "numba":
        raise InputError("numba is not installed: pip install 'retrologic[fast]'", field="engine",
                         value=engine)
    return kernel


def _check_engines(engines: set[str]) -> None:
    from retrologic.puzzle4x4 import fast
    for engine in engines:
        if engine not in ENGINES:
            raise InputError(f"must be one of {', '.join(ENGINES)}", field="engine", value=engine)
        if engine == "numba" and not fast.available():
            raise InputError("numba is not installed: pip install 'retrologic[fast]'",
                             field="engine", value=engine)


def _confirm(found: list[tuple[int, int]]) -> list[dict[str, Any]]:
    """The Python solver re-solves every start the kernel called unsolvable (they must agree)."""
    out = []
    for i, key in found:
        if p4.Solver().solve(key) is not None:
            raise AssertionError(f"kernel and solver disagree on {p4.to_string(key)}")
        out.append({"index": i, "board": p4.to_string(key)})
    return out


def index_shard(lo: int, hi: int, engine: str = "python",
                budget: Budget | None = None) -> dict[str, Any]:
    """Solve every representative start with lo <= index < hi (LimitReached at `budget`'s
    time limit or on Ctrl-C: the shard is then unfinished)."""
    kernel = _engine(engine)
    if kernel is None:
        return {"kind": "index", "lo": lo, "hi": hi, "engine": "python",
                **_solve_all(idx.starts(lo, hi), budget)}
    t0, c0 = time.perf_counter(), time.process_time()
    res = kernel.census(lo, hi) if budget is None else kernel.census(lo, hi, budget)
    bad = [(i, dict(idx.starts(i, i + 1))[i]) for i in res["unsolvable_indices"]]
    return {"kind": "index", "lo": lo, "hi": hi, "engine": "numba", "starts": res["starts"],
            "solvable": res["solvable"], "unsolvable": _confirm(bad), "nodes": res["nodes"],
            **_clock(t0, c0)}


def sample_shard(seed: int, number: int, size: int, engine: str = "python",
                 budget: Budget | None = None) -> dict[str, Any]:
    """Solve `size` uniformly random starts (shard `number` of the sample seeded `seed`); the
    index is that of the start's orbit representative."""
    rng = random.Random(f"{seed}:{number}")
    keys = [p4.random_start(rng) for _ in range(size)]
    kernel = _engine(engine)
    if kernel is None:
        res = _solve_all(((-1, k) for k in keys), budget)
    else:
        t0, c0 = time.perf_counter(), time.process_time()
        ok, nodes = kernel.solve(keys) if budget is None else kernel.solve(keys, budget)
        res = {"starts": size, "solvable": int(ok.sum()),
               "unsolvable": _confirm([(-1, k) for k, good in zip(keys, ok.tolist()) if not good]),
               "nodes": int(nodes.sum()), **_clock(t0, c0)}
    for u in res["unsolvable"]:
        u["index"] = idx.index_of(p4.parse(u["board"]))
    return {"kind": "sample", "seed": seed, "number": number, "size": size,
            "engine": "python" if kernel is None else "numba", **res}


def _run_task(task: tuple, budget: Budget | None = None) -> dict[str, Any]:
    if task[0] == "index":
        return index_shard(task[1], task[2], task[3], budget)
    return sample_shard(task[1], task[2], task[3], task[4], budget)


def _name(task: tuple) -> str:
    if task[0] == "index":
        return f"index-{task[1]:011d}-{task[2]:011d}.json"
    return f"sample-{task[1]}-{task[2]:06d}-{task[3]}.json"


def index_tasks(lo: int, hi: int, shard: int, engine: str = "auto") -> list[tuple]:
    """Index shards covering [lo, hi), aligned to multiples of `shard` so reruns share files."""
    if not 0 <= lo < hi <= idx.SIZE:
        raise InputError(f"the index range must lie in [0, {idx.SIZE}]", field="range",
                         value=f"{lo}:{hi}")
    if shard < 1:
        raise InputError("must be positive", field="shard-size", value=shard)
    _check_shards(-(-hi // shard) - lo // shard, shard)
    tasks = []
    a = lo
    while a < hi:
        b = min(hi, (a // shard + 1) * shard)
        tasks.append(("index", a, b, engine))
        a = b
    return tasks


def sample_tasks(count: int, seed: int, shard: int, engine: str = "auto") -> list[tuple]:
    """Shards of a random sample of `count` starts."""
    if count < 1:
        raise InputError("must be positive", field="sample", value=count)
    if shard < 1:
        raise InputError("must be positive", field="shard-size", value=shard)
    _check_shards(-(-count // shard), shard)
    return [("sample", seed, n, min(shard, count - n * shard), engine)
            for n in range((count + shard - 1) // shard)]


def _check_shards(count: int, shard: int) -> None:
    """InputError when a census would list more than MAX_SHARDS shards: the list alone would
    not fit in memory or time (fuzz seed 2919: `--sample 10**20 --shard-size 4` ran on)."""
    if count > MAX_SHARDS:
        raise InputError(f"makes {count:,} shards, more than {MAX_SHARDS:,}: give a larger "
                         "--shard-size or fewer starts", field="shard-size", value=shard)


def _local(tasks: list[tuple], workers: int, budget: Budget) -> Iterator[tuple[tuple, dict]]:
    """(task, result) of each shard as it finishes: here, or in a pool of `workers` processes.
    LimitHit at the budget's time limit or on Ctrl-C, after the shards already finished. The
    compiled kernel always runs in a pool, even of one: its compilation and its calls do not
    look at Python's signals, so the parent must be free to terminate it."""
    if workers <= 1 and all(t[-1] == "python" for t in tasks):
        for t in tasks:
            budget.check_now()
            yield t, _run_task(t, budget)
        return
    import multiprocessing
    # the pool's exit terminates the workers, also when the consumer stops early (LimitHit)
    with multiprocessing.get_context("spawn").Pool(max(workers, 1),
                                                    initializer=_ignore_sigint) as pool:
        results = pool.imap_unordered(_task_pair, tasks)
        while True:
            why = budget.expired()
            try:   # after a stop, only the shards already finished are taken
                item = results.next(timeout=0 if why else POLL)
            except multiprocessing.TimeoutError:
                if why:
                    raise LimitHit(why) from None
                continue
            except StopIteration:
                return
            yield item


def _ignore_sigint() -> None:
    """Pool workers ignore Ctrl-C (a terminal sends it to the whole process group): the
    parent decides, and terminates them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _task_pair(task: tuple) -> tuple[tuple, dict[str, Any]]:
    return task, _run_task(task)


def _dask(tasks: list[tuple], address: str, workers: int, budget: Budget):
    """Run shards on a Dask cluster: `address` is a scheduler ('tcp://host:8786') or 'local'."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise InputError("Dask is not installed: pip install 'retrologic[cluster]'",
                         field="dask", value=address) from None
    cluster = None
    if address == "local":
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    else:
        try:
            client = Client(address, timeout=20)
        except OSError as e:
            raise InputError(f"cannot reach the Dask scheduler: {e}", field="dask",
                             value=address) from None
    try:
        futures = {client.submit(_task_pair, t, pure=False): t for t in tasks}
        pending = as_completed(futures)
        while not pending.is_empty():
            if pending.has_ready():
                for fut in pending.next_batch(block=False):
                    yield fut.result()
                continue
            why = budget.expired()
            if why:
                client.cancel(list(futures))
                raise LimitHit(why)
            time.sleep(POLL)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run(tasks: list[tuple], out_dir: str | Path, *, workers: int | None = None,
        dask: str | None = None, timeout: float | None = None,
        progress: Callable[[str], None] | None = None,
        budget: Budget | None = None) -> dict[str, Any]:
    """Run the shards not yet in `out_dir` and return the summary of all of them. At the time
    limit of `budget` (default: one of `timeout` seconds) or on Ctrl-C the run stops, keeps
    every finished shard and says why in the summary's "stopped"."""
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create the output directory: {e.strerror}", field="out",
                         value=str(out)) from None
    workers = workers or os.cpu_count() or 1
    _check_engines({t[-1] for t in tasks})     # fail before any work is started
    budget = budget if budget is not None else Budget(timeout)
    finished, unread, stopped = _read_finished(tasks, out, budget)
    todo = [] if stopped else [t for t in tasks if _name(t) not in finished]
    t0 = time.monotonic()
    done_starts = 0
    source: Iterator[tuple[tuple, dict]] = iter(())   # nothing to run: no pool, no cluster
    if todo:
        source = _dask(todo, dask, workers, budget) if dask else _local(todo, workers, budget)
    try:
        for n, (task, res) in enumerate(source, 1):
            with files.refused_writes("the shard", file=str(out / _name(task)), field="--out"):
                files.atomic_write_text(out / _name(task), json.dumps(res) + "\n")
            finished[_name(task)] = res
            done_starts += res["starts"]
            elapsed = time.monotonic() - t0
            if progress:
                progress(f"shard {n}/{len(todo)} ({len(tasks) - len(todo)} done before): "
                         f"{done_starts} starts in {elapsed:.1f} s, {done_starts / max(elapsed, 1e-9):.0f}/s"
                         + (f", {len(res['unsolvable'])} unsolvable" if res["unsolvable"] else ""))
    except LimitHit as e:
        stopped = e.reason
    except KeyboardInterrupt:   # the hard stop (limits.HARD_STOP_AFTER): keep what is finished
        stopped = "interrupted"
    finally:
        if hasattr(source, "close"):
            source.close()
    summary = _summary(tasks, finished, unread)
    summary["run"] = {"workers": workers, "runner": f"dask {dask}" if dask else "local",
                      "new_starts": done_starts, "seconds": round(time.monotonic() - t0, 3),
                      "rate_per_s": round(done_starts / max(time.monotonic() - t0, 1e-9), 1)}
    if stopped:
        summary["stopped"] = stopped
    return summary


def _summary(tasks: list[tuple], finished: dict[str, dict[str, Any]],
             unread: int = 0) -> dict[str, Any]:
    """The census summary of the finished shards' results (by file name); `unread` shard files
    were there but not read before a limit, and count as missing."""
    starts = solvable = nodes = 0
    seconds = cpu = 0.0
    unsolvable: list[dict[str, Any]] = []
    missing = 0
    for t in tasks:
        res = finished.get(_name(t))
        if res is None:
            missing += 1
            continue
        starts += res["starts"]
        solvable += res["solvable"]
        nodes += res["nodes"]
        seconds += res["seconds"]
        cpu += res.get("cpu_seconds", res["seconds"])
        unsolvable.extend(res["unsolvable"])
    rate = starts / cpu if cpu else 0.0
    summary: dict[str, Any] = {
        "shards": len(tasks), "shards_missing": missing, "complete": missing == 0,
        "starts": starts, "solvable": solvable, "unsolvable_count": len(unsolvable),
        "unsolvable": unsolvable, "nodes": nodes, "worker_seconds": round(seconds, 3),
        "cpu_seconds": round(cpu, 3),
        "starts_per_cpu_second": round(rate, 1),
        "whole_set": idx.CANONICAL,
        "whole_set_cpu_days": round(idx.CANONICAL / rate / 86400, 1) if rate else None,
    }
    if unread:
        summary["shards_unread"] = unread
    if tasks and tasks[0][0] == "index":
        summary["range"] = [tasks[0][1], tasks[-1][2]]
    else:
        summary["sample"] = sum(t[3] for t in tasks)
        summary["seed"] = tasks[0][1] if tasks else None
    return summary


def _read_finished(tasks: list[tuple], out: Path,
                   budget: Budget) -> tuple[dict[str, dict[str, Any]], int, str]:
    """The finished shards' results by file name, each file read once; when `budget` runs out
    first, also how many shard files were left unread and why (reading 600,000 shards takes a
    minute or more: a summary cut by the limit says so rather than overrunning it)."""
    present = _present(out)
    finished: dict[str, dict[str, Any]] = {}
    reads = 0
    for n, t in enumerate(tasks):
        name = _name(t)
        if name not in present:
            continue
        reads += 1
        why = budget.expired() if reads % READ_CHECK == 0 else None
        if why:
            return finished, sum(1 for u in tasks[n:] if _name(u) in present), why
        res = _read_shard(out / name)
        if res is not None:
            finished[name] = res
    return finished, 0, ""


def _present(out: Path) -> set[str]:
    """The names in the output directory, listed once: a census of 600,000 shards must not try
    to open each missing file (28 s of a 2 s time limit on `--all`)."""
    try:
        return set(os.listdir(out))
    except OSError:
        return set()


def _read_shard(path: Path) -> dict[str, Any] | None:
    """A shard file's result, or None when it is missing or not a finished shard (truncated,
    foreign or damaged: it is then run again)."""
    try:
        res = json.loads(files.read_text(path, limit=SHARD_BYTES, what="census shard"))
    except (InputError, ValueError, RecursionError):
        return None
    keys = {"starts": int, "solvable": int, "nodes": int, "seconds": (int, float),
            "unsolvable": list}
    if not isinstance(res, dict) or any(not isinstance(res.get(k), t) for k, t in keys.items()):
        return None
    return res


def stderr_progress(text: str) -> None:
    print(f"\r\x1b[K{text}", end="", file=sys.stderr, flush=True)
