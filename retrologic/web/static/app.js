// The page's script: start a job (POST /jobs), poll it (GET /jobs/ID) until it is finished,
// then show the verdict, the diagram, the game's frames (buttons step through them), the PGN
// and the certificates. No library; every server error is one line shown in #error.
"use strict";
const $ = (id) => document.getElementById(id);
let frames = [], frameAt = 0, polling = null;

function showFrame(k) {
  if (!frames.length) return;
  frameAt = Math.max(0, Math.min(frames.length - 1, k));
  $("frame").innerHTML = frames[frameAt][1];
  $("frame-caption").textContent = frames[frameAt][0];
}
$("first").onclick = () => showFrame(0);
$("prev").onclick = () => showFrame(frameAt - 1);
$("next").onclick = () => showFrame(frameAt + 1);
$("last").onclick = () => showFrame(frames.length - 1);

function clearJob() {
  for (const id of ["verdict", "outcome", "reason", "answer", "pgn", "progress", "state"]) $(id).textContent = "";
  for (const id of ["diagram", "frame", "certificates"]) $(id).innerHTML = "";
  $("game").hidden = true; frames = [];
}

function render(job) {
  $("job").hidden = false;
  $("job-id").textContent = job.id;
  $("state").textContent = job.state;
  $("elapsed").textContent = job.elapsed;
  // while running: the engine's node count, CPU seconds and its own last progress line
  $("progress").textContent = job.state === "running" ? (job.progress || "starting the solver") : "";
  if (job.state === "running") return;
  $("error").textContent = job.error || "";
  $("verdict").textContent = job.verdict || (job.error ? "error" : "");
  $("outcome").textContent = job.outcome ? "(" + job.outcome + ")" : "";
  $("reason").textContent = job.reason || "";
  $("answer").textContent = job.answer == null ? "" : JSON.stringify(job.answer, null, 1);
  $("diagram").innerHTML = job.diagram || "";
  $("pgn").textContent = job.pgn || "";
  frames = job.frames || [];
  $("game").hidden = !frames.length;
  showFrame(frames.length - 1);
  $("certificates").innerHTML = "";   // polls may overlap: render the list once
  for (const name of job.certificates || []) {
    const li = document.createElement("li"), a = document.createElement("a");
    a.href = "/jobs/" + job.id + "/certificates/" + encodeURIComponent(name).replace(/%2F/g, "/");
    a.textContent = "certificate: " + name; a.download = name.split("/").pop();
    li.appendChild(a); $("certificates").appendChild(li);
  }
}

async function poll(id) {
  try {
    const r = await fetch("/jobs/" + id);
    const job = await r.json();
    if (!r.ok) { $("error").textContent = job.error; clearInterval(polling); polling = null; $("run").disabled = false; return; }
    if (polling === null) return;      // a late answer to an earlier poll
    if (job.state !== "running") { clearInterval(polling); polling = null; $("run").disabled = false; }
    render(job);
  } catch (e) { $("error").textContent = "server unreachable: " + e; }
}

$("ask").onsubmit = async (ev) => {
  ev.preventDefault();
  if (polling) clearInterval(polling);
  clearJob(); $("error").textContent = "";
  const body = {text: $("text").value, question: $("question").value, moves: $("moves").value,
                plies: $("plies").value, timeout: $("timeout").value};
  $("run").disabled = true;
  try {
    const r = await fetch("/jobs", {method: "POST", headers: {"Content-Type": "application/json"},
                                    body: JSON.stringify(body)});
    const job = await r.json();
    if (!r.ok) { $("error").textContent = job.error; $("run").disabled = false; return; }
    $("job").hidden = false; $("job-id").textContent = job.id; $("state").textContent = "running";
    polling = setInterval(() => poll(job.id), 500);
  } catch (e) { $("error").textContent = "server unreachable: " + e; $("run").disabled = false; }
};
