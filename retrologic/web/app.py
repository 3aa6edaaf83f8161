"""The Flask application of `retrologic serve` (issue #20, item 4).

Routes: `GET /` the page; `POST /jobs` (JSON: text, question, moves, plies, timeout) starts a
job and answers its id, or `{"error": one line}` with status 400 for bad input; `GET
/jobs/ID` the job as retrologic.web.views shows it (the page polls it); `GET
/jobs/ID/certificates/NAME` downloads a certificate. Every error is one JSON line, never a
traceback (Flask's debugger is never on).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask, abort, jsonify, render_template, request, send_file
from werkzeug.exceptions import HTTPException

from retrologic.errors import InputError, RetroError
from retrologic.web import problemtext, views
from retrologic.web.jobs import Jobs, parse_timeout

HERE = Path(__file__).resolve().parent


def create_app(jobs: Jobs | None = None) -> Flask:
    """The application, with its jobs (a fresh Jobs in a temporary directory by default)."""
    app = Flask("retrologic.web", template_folder=str(HERE / "templates"),
                static_folder=str(HERE / "static"))
    app.config["MAX_CONTENT_LENGTH"] = 2 * problemtext.MAX_TEXT
    app.extensions["retrologic.jobs"] = jobs if jobs is not None else Jobs()

    def the_jobs() -> Jobs:
        return app.extensions["retrologic.jobs"]

    @app.get("/")
    def index() -> str:
        return render_template("index.html", questions=list(problemtext.QUESTIONS))

    @app.post("/jobs")
    def start() -> Any:
        # a chunked body (no Content-Length) is cut at the cap without a word: werkzeug's
        # stream stops there, so a body that fills the cap is one that went past it
        if len(request.get_data(cache=True)) >= app.config["MAX_CONTENT_LENGTH"]:
            abort(413)
        try:
            data = request.get_json(silent=True)
        except RecursionError:                  # nested deeper than the decoder goes
            data = None
        if not isinstance(data, dict):
            return jsonify(error="the request is not a JSON object"), 400
        for key, value in data.items():      # a JSON escape like \ud800 is no UTF-8 text
            if not isinstance(value, str):
                continue
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return jsonify(error=f"'{str(key)[:20]}' holds a lone surrogate (not text)"), 400
        try:
            plies_text = data.get("plies") or 1
            try:
                if isinstance(plies_text, (bool, float)):   # int() would take True and 1.5
                    raise ValueError
                plies = int(plies_text)
            except (TypeError, ValueError):
                raise InputError("a whole number", field="plies", value=plies_text) from None
            timeout = parse_timeout(data.get("timeout"))
            pasted = problemtext.from_page(data.get("text", ""), str(data.get("question", "")),
                                           str(data.get("moves") or ""), plies)
            job = the_jobs().start(pasted, timeout)
        except RetroError as e:
            return jsonify(error=str(e).splitlines()[0][:300]), 400
        return jsonify(id=job.id, state=job.state), 202

    @app.get("/jobs/<job_id>")
    def show(job_id: str) -> Any:
        job = the_jobs().jobs.get(job_id)
        if job is None:
            abort(404)
        return jsonify(views.job_view(job))

    @app.get("/jobs/<job_id>/certificates/<path:name>")
    def certificate(job_id: str, name: str) -> Any:
        job = the_jobs().jobs.get(job_id)
        path = None if job is None else views.certificate_path(job, name)
        if path is None:
            abort(404)
        return send_file(path, mimetype="application/json", as_attachment=True,
                         download_name=Path(name).name)

    @app.errorhandler(HTTPException)
    def http_error(e: HTTPException) -> Any:
        return jsonify(error=f"{e.code} {e.name}"), e.code

    @app.errorhandler(Exception)
    def internal(e: Exception) -> Any:   # never a traceback on the page
        return jsonify(error=f"internal error: {type(e).__name__}: {str(e)[:200]}"), 500

    return app
