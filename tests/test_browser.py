"""The web page in a real headless browser (issue #20, item 4): the test starts `retrologic
serve`'s application on a free port, loads the page, submits Dawson's record b6xBa7 (a FEN,
question lastmove, a short timeout: the verdict is unknown, issue #19) and a short proof game
(the TOML of problems/spg/f4-f5-nf3.toml pasted as it is), reads the verdicts from the page,
compares them with the engine's verdicts for the same input (retrologic.problem in this
process), steps through the game with the page's buttons (captions checked against
python-chess's SAN) and saves a screenshot (pytest's tmp dir; also RETROLOGIC_SCREENSHOT_DIR
when set).

Browsers, in this order (the first that starts is used):
  1. Qt WebEngine (Chromium) from PyPI wheels (PyQt6-WebEngine, in the test extra), headless
     with QT_QPA_PLATFORM=offscreen: needs no root, no apt and no download at test time;
  2. Playwright's Chromium (`python -m playwright install chromium` is run once if missing).
The test is skipped, naming what was tried and why each failed, only when none starts: a
browser that started (it evaluated JavaScript in a blank page) and then could not load our page,
found an element missing, threw a JavaScript error or timed out is a FAILURE of the page, never
a skip. While Dawson's record runs, the page's progress line (the engine's node count, from
retrologic.web.worker) is read too.
Run as a script (`python tests/test_browser.py qt URL OUTDIR STEPS.json`) it is the Qt driver,
in its own process (Qt wants the main thread and exits with its application).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
# unknown at 30 s as at 3 s (Brandis, which this test ran before, is proved in under 4 s now)
DAWSON = ROOT / "bench/lastmove-collection/dawson-record-pxb.toml"
F4_FILE = ROOT / "problems/spg/f4-f5-nf3.toml"
WAIT = 60.0             # seconds a job may take on the page

# JavaScript run in the page: fill the form and press Run; read what the page shows; press a
# game button. Each returns a JSON string (Qt hands back strings reliably).
FILL = """((b) => { const f = (id, v) => { document.getElementById(id).value = v; };
  f('text', b.text); f('question', b.question); f('moves', b.moves || '');
  f('timeout', String(b.timeout)); document.getElementById('run').click(); return '{}'; })(%s)"""
READ = """(() => { const t = (id) => document.getElementById(id).textContent;
  return JSON.stringify({state: t('state'), verdict: t('verdict'), reason: t('reason'),
    progress: t('progress'),
    answer: t('answer'), error: t('error'), outcome: t('outcome'), caption: t('frame-caption'),
    game: !document.getElementById('game').hidden,
    diagrams: document.querySelectorAll('#diagram svg').length,
    certificates: document.querySelectorAll('#certificates a').length}); })()"""
PRESS = """(() => { document.getElementById('%s').click();
  return JSON.stringify(document.getElementById('frame-caption').textContent); })()"""


STARTED = "BROWSER-STARTED"    # the Qt driver's stdout once the browser runs JavaScript


class PageFailure(AssertionError):
    """The browser runs, but our page did not behave: the test fails (never skips)."""


def finished(seen: dict[str, Any]) -> bool:
    return seen["state"] in ("done", "error") or bool(seen["error"])


def scenario(run_js, sleep, shoot, steps: list[dict[str, Any]], out: Path) -> list[dict[str, Any]]:
    """Drive the page through the steps with any browser: `run_js(code) -> str` evaluates in
    the page, `sleep(s)` lets it run, `shoot(path)` saves a screenshot."""
    seen_all = []
    for i, step in enumerate(steps):
        run_js(FILL % json.dumps(step))
        deadline = time.monotonic() + WAIT
        seen = json.loads(run_js(READ))
        progress = []       # the progress lines shown while the job ran
        running_shot = None
        while not finished(seen) and time.monotonic() < deadline:
            if seen["state"] == "running" and seen["progress"] and \
                    seen["progress"] not in progress:
                progress.append(seen["progress"])
                if "nodes searched" in seen["progress"] and running_shot is None:
                    running_shot = out / f"page-{i + 1}-running.png"    # progress shown
                    shoot(running_shot)
            sleep(0.3)
            seen = json.loads(run_js(READ))
        seen["progress_seen"] = progress
        if running_shot is not None:
            seen["running_screenshot"] = str(running_shot)
        if seen["game"]:
            seen["captions"] = [json.loads(run_js(PRESS % b)) for b in ("first", "next", "next",
                                                                         "prev", "last")]
        shot = out / f"page-{i + 1}.png"
        shoot(shot)
        seen["screenshot"] = str(shot)
        seen_all.append(seen)
    return seen_all


def qt_main(url: str, out: Path, steps: list[dict[str, Any]]) -> None:
    """The Qt WebEngine driver (run in its own process): prints the scenario's JSON."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("QTWEBENGINE_CHROMIUM_FLAGS", "--no-sandbox --disable-gpu")
    from PyQt6.QtCore import QEventLoop, QTimer, QUrl
    from PyQt6.QtWidgets import QApplication
    from PyQt6.QtWebEngineWidgets import QWebEngineView
    from PyQt6.QtWebEngineCore import QWebEnginePage
    app = QApplication([sys.argv[0]])
    errors: list[str] = []

    class Page(QWebEnginePage):
        def javaScriptConsoleMessage(self, level, message, line, source):  # noqa: N802
            if level == QWebEnginePage.JavaScriptConsoleMessageLevel.ErrorMessageLevel:
                errors.append(f"{source}:{line}: {message}")

    view = QWebEngineView()
    view.setPage(Page(view))
    view.resize(1100, 1500)

    def load(address: str) -> bool:
        loaded: list[bool] = []
        loop = QEventLoop()
        view.loadFinished.connect(lambda ok: (loaded.append(ok), loop.quit()))
        view.load(QUrl(address))
        QTimer.singleShot(30_000, loop.quit)
        loop.exec()
        view.loadFinished.disconnect()
        return bool(loaded and loaded[0])

    view.show()
    # the browser itself: a blank page that runs JavaScript (else: no browser, a skip)
    if not load("data:text/html,<p>probe</p>"):
        raise SystemExit("the browser did not load a blank page")

    def run_js(code: str) -> str:
        got: list[Any] = []
        wait = QEventLoop()
        view.page().runJavaScript(code, lambda r: (got.append(r), wait.quit()))
        QTimer.singleShot(10_000, wait.quit)
        wait.exec()
        if not got or got[0] is None:
            raise RuntimeError(f"no answer from the page to: {code[:60]}")
        return got[0]

    def sleep(seconds: float) -> None:
        wait = QEventLoop()
        QTimer.singleShot(int(seconds * 1000), wait.quit)
        wait.exec()

    if run_js("JSON.stringify(1 + 1)") != "2":
        raise SystemExit("the browser does not run JavaScript")
    print(STARTED, flush=True)      # from here on, any failure is the page's
    if not load(url):
        raise SystemExit(f"the page {url} did not load")

    def shoot(path: Path) -> None:
        sleep(0.3)
        view.grab().save(str(path))

    seen = scenario(run_js, sleep, shoot, steps, out)
    if errors:
        raise SystemExit("JavaScript error on the page: " + "; ".join(errors)[:300])
    print(json.dumps(seen), flush=True)
    app.quit()


def run_qt(url: str, out: Path, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    spec = out / "steps.json"
    spec.write_text(json.dumps(steps))
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               QTWEBENGINE_CHROMIUM_FLAGS="--no-sandbox --disable-gpu")
    done = subprocess.run([sys.executable, __file__, "qt", url, str(out), str(spec)],
                          capture_output=True, text=True, timeout=240, env=env)
    lines = [x for x in done.stdout.splitlines() if x.startswith("[")]
    if done.returncode != 0 or not lines:
        why = (f"Qt WebEngine driver failed (status {done.returncode}): "
               + (done.stderr.strip().splitlines() or ["no output"])[-1][:300])
        if STARTED in done.stdout.splitlines():
            raise PageFailure(why)          # the browser ran: the page is at fault
        raise RuntimeError(why)
    return json.loads(lines[-1])


def qt_available() -> str | None:
    """None when Qt WebEngine imports, else why not."""
    probe = subprocess.run([sys.executable, "-c", "import PyQt6.QtWebEngineWidgets"],
                           capture_output=True, text=True, timeout=60)
    return None if probe.returncode == 0 else (probe.stderr.strip().splitlines() or ["?"])[-1]


def run_playwright(url: str, out: Path, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        try:
            browser = p.chromium.launch()
        except Exception:  # noqa: BLE001 - the browser is not downloaded yet: once, then retry
            subprocess.run([sys.executable, "-m", "playwright", "install", "chromium"],
                           capture_output=True, timeout=120, check=True)
            browser = p.chromium.launch()
        page = browser.new_page(viewport={"width": 1100, "height": 1500})
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        try:                                # the browser runs: any failure is the page's
            response = page.goto(url)
            if response is None or not response.ok:
                raise PageFailure(f"the page {url} did not load: "
                                  f"{None if response is None else response.status}")
            seen = scenario(page.evaluate, lambda s: page.wait_for_timeout(s * 1000),
                            lambda path: page.screenshot(path=str(path), full_page=True),
                            steps, out)
        except PageFailure:
            raise
        except Exception as e:  # noqa: BLE001 - a timeout, a missing element, a JS exception
            raise PageFailure(f"the page misbehaved in Playwright's Chromium: "
                              f"{type(e).__name__}: {e}") from e
        finally:
            browser.close()
        if errors:
            raise PageFailure("JavaScript error on the page: " + "; ".join(errors)[:300])
        return seen


@pytest.fixture(scope="module")
def server():
    pytest.importorskip("flask", reason="the web page needs Flask (the 'web' extra)")
    from werkzeug.serving import make_server

    from retrologic.web.app import create_app
    app = create_app()
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}/"
    httpd.shutdown()
    app.extensions["retrologic.jobs"].close()


def engine_verdict(text: str, question: str, timeout: float, tmp: Path) -> Any:
    """The engine's answer to the same pasted input, in this process."""
    from retrologic import problem as problem_mod
    from retrologic.options import SolveOptions
    from retrologic.web import problemtext
    tmp.mkdir(exist_ok=True)
    path = problemtext.write(problemtext.from_page(text, question), tmp)
    return problem_mod.solve(problem_mod.load(path), SolveOptions(timeout=timeout))


def test_page_in_a_headless_browser(server, tmp_path) -> None:
    import tomllib

    import chess
    dawson_fen = tomllib.loads(DAWSON.read_text())["position"]["fen"]
    f4_text = F4_FILE.read_text()
    steps = [{"text": dawson_fen, "question": "lastmove", "timeout": 3},
             {"text": f4_text, "question": "spg", "timeout": 30}]
    tried = []
    seen = None
    why = qt_available()
    if why is None:
        try:
            seen, used = run_qt(server, tmp_path, steps), "Qt WebEngine (PyQt6-WebEngine)"
        except PageFailure as e:
            pytest.fail(f"Qt WebEngine: {e}")
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            tried.append(f"Qt WebEngine: {e}")
    else:
        tried.append(f"Qt WebEngine: {why}")
    if seen is None:
        try:
            seen, used = run_playwright(server, tmp_path, steps), "Playwright Chromium"
        except PageFailure as e:
            pytest.fail(str(e))
        except Exception as e:  # noqa: BLE001 - ImportError, no download, no browser
            tried.append(f"Playwright: {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}")
    if seen is None:
        pytest.skip("no headless browser could be started; tried: " + "; ".join(tried))
    print(f"browser: {used}")
    dawson, game = seen
    # Dawson: the page's verdict is the engine's for the same FEN and limit (unknown)
    want = engine_verdict(dawson_fen, "lastmove", 3, tmp_path / "dawson")
    assert dawson["state"] == "done", dawson
    assert dawson["verdict"] == str(want.verdict) == "unknown"
    assert "time limit 3 s" in dawson["reason"] and dawson["diagrams"] >= 1
    # while it ran, the page showed the engine's progress: nodes searched, growing from 0
    shown = [re.match(r"([\d,]+) nodes searched · CPU [\d.]+ s", p) or p
             for p in dawson["progress_seen"]]
    counts = [int(m.group(1).replace(",", "")) for m in shown if isinstance(m, re.Match)]
    assert counts and max(counts) > 0 and counts == sorted(counts), dawson["progress_seen"]
    assert {m for m in shown if isinstance(m, str)} <= {"starting the solver"}, shown
    # the proof game: the engine's verdict, the file's published answer, stepping by buttons
    want = engine_verdict(f4_text, "spg", 30, tmp_path / "spg")
    published = tomllib.loads(f4_text)["expect"]["answer"]
    assert game["verdict"] == str(want.verdict) == "proved"
    assert json.loads(game["answer"]) == want.answer == published
    assert game["outcome"] == "(met)" and game["certificates"] >= 1
    board = chess.Board()
    moves = published[0].replace("1.", "").replace("2.", "").split()
    first, second = board.parse_san(moves[0]), None
    san1 = board.san(first)
    board.push(first)
    second = board.san(board.parse_san(moves[1]))
    n = len(moves)
    assert game["captions"] == ["start", f"1.{san1} (1/{n})", f"1...{second} (2/{n})",
                                f"1.{san1} (1/{n})", game["captions"][-1]]
    assert game["captions"][-1].endswith(f"({n}/{n})")
    shot = Path(game["screenshot"])
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    keep = os.environ.get("RETROLOGIC_SCREENSHOT_DIR")
    if keep:
        for s in seen:
            for shot in (s["screenshot"], s.get("running_screenshot")):
                if shot:
                    shutil.copy(shot, Path(keep) / Path(shot).name)


def test_a_misbehaving_page_is_a_failure_not_a_skip(tmp_path) -> None:
    """The Qt driver against a page without our elements and with a JavaScript error: the
    browser started, so run_qt raises PageFailure (the main test then fails), not the
    RuntimeError that means "no browser" (a skip)."""
    import functools
    import http.server
    why = qt_available()
    if why is not None:
        pytest.skip(f"Qt WebEngine cannot be imported: {why}")
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<html><body><p>not our page</p>"
                                     "<script>undefinedFunction()</script></body></html>")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *a: None                   # type: ignore[method-assign]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with pytest.raises(PageFailure, match="no answer from the page"):
            run_qt(f"http://127.0.0.1:{httpd.server_port}/index.html", tmp_path,
                   [{"text": "x", "question": "lastmove", "timeout": 3}])
    except RuntimeError as e:       # the browser itself did not start here: nothing to show
        pytest.skip(f"Qt WebEngine did not start: {e}")
    finally:
        httpd.shutdown()


if __name__ == "__main__" and len(sys.argv) == 5 and sys.argv[1] == "qt":
    qt_main(sys.argv[2], Path(sys.argv[3]), json.loads(Path(sys.argv[4]).read_text()))
