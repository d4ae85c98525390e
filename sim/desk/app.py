"""The desk's pages and its small JSON API, on Starlette.

Pages: Cards (the mix's card table, edited in place into a change set), Ask (the
questions as forms, with the time each will take), an answer (live progress, then
the printed answer, its charts and the command that reproduces it), History (every
answer, two side by side, a game replayed). Every path a request names goes through
:class:`sim.desk.workspace.Workspace`, which refuses one that leaves the workspace.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from sim.data.cards import CardDataError, load_pool
from sim.data.changes import FIELDS, Changes
from sim.data.spec import SpecError
from sim.desk import answers as A
from sim.desk import changesets as CS
from sim.desk import charts
from sim.desk import questions as Q
from sim.desk.guard import Guard
from sim.desk.jobs import ENDED, Jobs
from sim.desk.workspace import ANSWERS, OutsideWorkspace, Workspace

HERE = Path(__file__).resolve().parent
TICK_S = 0.5
"""Seconds between two progress messages of a running answer."""
CARD_COLUMNS = ["kind", "name", "set", "type", "devotion", "cost", "offering", "strength",
                "copies", "keywords", "text", "source"]  # fmt: skip
"""The card table's columns, as ``omensim cards`` prints them."""

templates = Jinja2Templates(directory=str(HERE / "templates"))


def _page(request: Request, template: str, status: int = 200, **context: Any) -> Response:
    ws: Workspace = request.app.state.ws
    context.setdefault("error", None)
    context.update(
        workspace=str(ws.root), workspace_name=ws.root.name, page=template.removesuffix(".html")
    )
    return templates.TemplateResponse(request, template, context, status_code=status)


def _problem(request: Request, message: str, status: int = 400) -> Response:
    """A page saying what was refused, in one line."""
    return _page(request, "problem.html", status=status, message=message)


async def _json(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise SpecError("the request is not JSON") from None
    if not isinstance(body, dict):
        raise SpecError("the request must be a JSON object")
    return body


def _refusal(exc: Exception, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": " ".join(str(exc).split())}, status_code=status)


# --- Cards ----------------------------------------------------------------------------
async def cards(request: Request) -> Response:
    """The mix's card table with the change set's edits shown in place."""
    ws: Workspace = request.app.state.ws
    mix = request.query_params.get("mix", "aegean")
    name = request.query_params.get("set", "")
    cs = None
    try:
        if name:
            cs = CS.load(ws, name) if CS.path_of(ws, name).exists() else CS.ChangeSet(name, mix)
            mix = cs.mix
        shipped = await run_in_threadpool(lambda: load_pool(mix).frame())
        pool = (
            await run_in_threadpool(lambda: Changes.parse(cs.changes).load_pool(mix).frame())
            if cs and cs.changes else shipped
        )  # fmt: skip
    except (SpecError, CardDataError, OutsideWorkspace) as exc:
        return _problem(request, str(exc))
    columns = [c for c in CARD_COLUMNS if c in pool.columns]
    edited = {(e["card"], e["field"]): e for e in (cs.edits if cs else [])}
    rows = []
    for (_, row), (_, before) in zip(pool.iterrows(), shipped.iterrows(), strict=True):
        cells = []
        for c in columns:
            value = row[c]
            text = ", ".join(value) if isinstance(value, list | tuple) else str(value)
            edit = edited.get((row["name"], c))
            cells.append({
                "col": c, "text": text, "editable": c in FIELDS,
                "edited": edit is not None,
                "note": (f"change set {cs.name}: {edit['change']} (shipped {before[c]}, "
                         f"source {before['source']})") if edit and cs else
                        (f"shipped value; source {row['source']}" if c in FIELDS else ""),
            })  # fmt: skip
        rows.append({"name": row["name"], "cells": cells})
    return _page(
        request, "cards.html", mix=mix, columns=columns, rows=rows, change_set=cs,
        change_sets=CS.names(ws), sets=Q.sets(), fields=list(FIELDS),
    )  # fmt: skip


async def edit(request: Request) -> Response:
    """One edit of a card field, checked as ``--change`` is, saved into its change set."""
    ws: Workspace = request.app.state.ws
    try:
        body = await _json(request)
        name = str(body.get("change_set", "")).strip()
        if not name:
            raise SpecError("name a change set first (the box above the table): edits go into it")
        mix = str(body.get("mix", "aegean")).strip()
        path = CS.path_of(ws, name)
        cs = CS.load(ws, name) if path.exists() else CS.ChangeSet(name, mix)
        value = str(body.get("value", "")).strip()
        text = f"{body.get('card', '')}.{body.get('field', '')}={value}"
        new = await run_in_threadpool(cs.with_edit, text)
        await run_in_threadpool(CS.save, ws, new)
    except (SpecError, OutsideWorkspace, CardDataError) as exc:
        return _refusal(exc)
    return JSONResponse(
        {"ok": True, "changes": new.changes, "path": ws.relative(path), "change": text}
    )


# --- Ask ------------------------------------------------------------------------------
def _question(ws: Workspace, form: dict[str, Any]) -> Q.Question:
    name = str(form.get("change_set", "")).strip()
    changes: tuple[str, ...] = ()
    if form.get("kind") == "change" and name:
        cs = CS.load(ws, name)
        changes = tuple(cs.changes)
        form = {**form, "mix": cs.mix}
    return Q.from_form(form, changes)


async def ask_page(request: Request) -> Response:
    """The questions as forms."""
    ws: Workspace = request.app.state.ws
    return _page(
        request, "ask.html", kinds=Q.KINDS, bots=Q.bots(), sets=Q.sets(), fields=list(FIELDS),
        change_sets=CS.names(ws), chosen=request.query_params.get("set", ""),
        precision=Q.DEFAULT_PRECISION,
    )  # fmt: skip


def _estimate(jobs: Jobs, q: Q.Question) -> dict[str, Any]:
    """The time a question will take: the CLI's ``--plan`` where it has one, else its
    games at each bot's speed (:meth:`sim.desk.jobs.Jobs.speed`)."""
    if q.kind in Q.PLANNED:
        text = jobs.plan(q)
        got = Q.planned_games(text)
        if got is None:
            return {"error": text}
        games = min(got[0], q.games) if q.precision is not None else q.games
        seconds = Q.games_played(q, games) / got[1]
        lines = [text]
        if q.precision is None:
            lines.append(f"With the budget of {games:,} games per run: about {seconds:,.1f} s "
                         "of play, plus the kernel's start-up.")  # fmt: skip
        return {"text": "\n".join(lines), "command": Q.plan_command(q)}
    bound = "at most " if q.kind == "balance" or q.precision is not None else ""
    seconds, sources = 0.0, []
    for bot, mix, games in Q.pieces(q):
        got = jobs.speed(bot, mix)
        if isinstance(got, str):
            return {"error": f"the pilot that measures {bot}'s speed failed: {got}"}
        seconds += games / got[0]
        sources.append(f"{got[0]:,.0f} games/s ({got[1]})")
    games = Q.games_played(q, q.games)
    return {"text": f"{bound}{games:,} games, about {seconds:,.0f} s of play at "
                    f"{'; '.join(sources)}, plus the kernel's start-up."}  # fmt: skip


async def plan(request: Request) -> Response:
    """How long a question will take, before it starts."""
    try:
        q = _question(request.app.state.ws, await _json(request))
        return JSONResponse(await run_in_threadpool(_estimate, request.app.state.jobs, q))
    except (SpecError, OutsideWorkspace, FileNotFoundError) as exc:
        return _refusal(exc)


async def ask(request: Request) -> Response:
    """Queue a question; answers with its name (the page goes to the answer)."""
    try:
        q = _question(request.app.state.ws, await _json(request))
    except (SpecError, OutsideWorkspace, FileNotFoundError) as exc:
        return _refusal(exc)
    name = request.app.state.jobs.ask(q)
    return JSONResponse({"name": name, "url": f"/answers/{name}"})


# --- Answers --------------------------------------------------------------------------
def _total_games(rec: dict[str, Any]) -> int:
    """The games the answer's command writes in all, or 0 when that is not known before
    it ends (a balance race stops when it is settled)."""
    args = rec["args"]
    if "--games" not in args:
        return 0
    games = int(args[args.index("--games") + 1])
    if args[0] == "strength":
        bots = args[args.index("--tiers" if "--tiers" in args else "--panel") + 1]
        return games * len(bots.split(","))
    return {"compare": 2 * games, "mixes": 0}.get(args[0], games)


def _progress(jobs: Jobs, rec: dict[str, Any]) -> dict[str, Any]:
    folder = jobs.folder(rec["name"])
    kind = rec["question"]["kind"]
    return {
        "status": rec["status"], "done": A.games_written(folder), "total": _total_games(rec),
        "bar": jobs.bar(rec["name"]), "estimate": A.running_estimate(folder, kind),
        "error": rec.get("error"),
    }  # fmt: skip


def _record(request: Request) -> dict[str, Any]:
    return request.app.state.jobs.record(request.path_params["name"])


async def answer(request: Request) -> Response:
    """An answer: progress while it plays, then what the CLI printed and its charts."""
    jobs: Jobs = request.app.state.jobs
    try:
        rec = _record(request)
    except (OutsideWorkspace, FileNotFoundError):
        return _problem(request, f"no answer named {request.path_params['name']!r}", 404)
    folder = jobs.folder(rec["name"])
    return _page(request, "answer.html", rec=rec, **await _folder_view(request, folder, rec))


async def _folder_view(
    request: Request, folder: Path, rec: dict[str, Any] | None
) -> dict[str, Any]:
    ws: Workspace = request.app.state.ws
    kind = A.kind_of(folder) if folder.is_dir() else None
    ended = rec is None or rec["status"] in ENDED
    svgs = await run_in_threadpool(charts.for_answer, folder, kind) if kind and ended else []
    return {
        "folder": ws.relative(folder), "kind": kind, "charts": svgs,
        "runs": list(A.run_dirs(folder)) if kind else [],
        "others": [n for n in request.app.state.jobs.names() if rec is None or n != rec["name"]],
    }  # fmt: skip


def _answer_name(request: Request) -> str | None:
    """The name of the answer the URL names, or None when there is no such answer."""
    try:
        return str(_record(request)["name"])
    except (OutsideWorkspace, FileNotFoundError):
        return None


async def events(request: Request) -> Response:
    """Server-Sent Events: the answer's progress every :data:`TICK_S` until it ends."""
    jobs: Jobs = request.app.state.jobs
    name = _answer_name(request)
    if name is None:
        return _refusal(FileNotFoundError("no such answer"), 404)

    async def stream() -> AsyncIterator[str]:
        while not request.app.state.closing:
            rec = jobs.record(name)
            data = await run_in_threadpool(_progress, jobs, rec)
            yield f"data: {json.dumps(data)}\n\n"
            if rec["status"] in ENDED or await request.is_disconnected():
                return
            await asyncio.sleep(TICK_S)

    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)


async def cancel(request: Request) -> Response:
    """Stop a queued or running answer."""
    name = _answer_name(request)
    if name is None:
        return _refusal(FileNotFoundError("no such answer"), 404)
    await run_in_threadpool(request.app.state.jobs.cancel, name)
    return JSONResponse({"ok": True})


# --- History --------------------------------------------------------------------------
async def history(request: Request) -> Response:
    """Every answer in the workspace, newest first, then the answer folders the command
    line wrote into it (found by what they hold)."""
    jobs: Jobs = request.app.state.jobs
    recs = []
    for name in jobs.names():
        with contextlib.suppress(OSError, ValueError):
            recs.append(jobs.record(name))
    asked = {jobs.folder(r["name"]) for r in recs}
    found = await run_in_threadpool(A.folders, jobs.ws.root)
    others = [{"path": jobs.ws.relative(f), "kind": A.kind_of(f)} for f in found if f not in asked]
    return _page(request, "history.html", recs=recs, folders=others)


async def open_folder(request: Request) -> Response:
    """Any folder of the workspace (e.g. one the CLI wrote by hand), as an answer."""
    ws: Workspace = request.app.state.ws
    path = request.query_params.get("path", "")
    try:
        folder = ws.inside(path)
    except OutsideWorkspace as exc:
        return _problem(request, str(exc), 403)
    if not folder.is_dir() or A.kind_of(folder) is None:
        return _problem(request, f"{path!r} is not an answer folder (a run, compare, balance, "
                                 "strength or mixes folder) in the workspace", 404)  # fmt: skip
    return _page(request, "answer.html", rec=None, **await _folder_view(request, folder, None))


async def side_by_side(request: Request) -> Response:
    """Two answers' key figures and printed answers side by side."""
    jobs: Jobs = request.app.state.jobs
    recs, figures = [], []
    for key in ("a", "b"):
        name = request.query_params.get(key, "")
        try:
            rec = jobs.record(name)
        except (OutsideWorkspace, FileNotFoundError):
            return _problem(request, f"no answer named {name!r}", 404)
        recs.append(rec)
        folder = jobs.folder(name)
        figures.append(await run_in_threadpool(A.summary, folder) if folder.is_dir() else {})
    labels = list(dict.fromkeys([k for f in figures for k in f]))
    return _page(request, "compare.html", recs=recs, figures=figures, labels=labels)


async def replay(request: Request) -> Response:
    """One game of an answer's run, as ``omensim replay`` tells it."""
    ws: Workspace = request.app.state.ws
    name = request.query_params.get("answer", "")
    run = request.query_params.get("run", "run")
    game = request.query_params.get("game", "0").strip()
    try:
        folder = ws.inside(request.query_params.get("path", "")) if not name else (
            request.app.state.jobs.folder(name))  # fmt: skip
        runs = A.run_dirs(folder)
        if run not in runs:
            raise SpecError(f"no run {run!r} in this answer; it has {', '.join(runs) or 'none'}")
        if not game.isdigit():
            raise SpecError(f"game must be a whole number, got {game!r}")
    except (OutsideWorkspace, SpecError) as exc:
        return _problem(request, str(exc))
    args = ["replay", ws.relative(runs[run]), "--game", game]
    done = await run_in_threadpool(
        subprocess.run, [sys.executable, "-m", "sim.cli", *args], cwd=ws.root,
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=600,
    )  # fmt: skip
    return _page(
        request, "replay.html", args=args, text=done.stdout, failed=done.returncode != 0,
        error=done.stderr.strip().splitlines()[-1] if done.returncode else None,
        name=name, run=run, game=game, runs=list(runs), folder=ws.relative(folder),
    )  # fmt: skip


def make_app(
    workspace: Path | str, token: str, hosts: tuple[str, ...] = ("127.0.0.1", "localhost")
) -> Any:
    """The desk over ``workspace``, guarded by ``token`` (:class:`sim.desk.guard.Guard`)."""
    ws = Workspace(workspace)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.jobs = Jobs(ws)
        app.state.closing = False
        try:
            yield
        finally:
            app.state.closing = True
            await run_in_threadpool(app.state.jobs.shutdown)

    routes = [
        Route("/", cards),  # the desk opens on the card table
        Route("/cards", cards),
        Route("/api/edit", edit, methods=["POST"]),
        Route("/ask", ask_page),
        Route("/api/plan", plan, methods=["POST"]),
        Route("/api/ask", ask, methods=["POST"]),
        Route(f"/{ANSWERS}/{{name}}", answer),
        Route(f"/{ANSWERS}/{{name}}/events", events),
        Route("/api/cancel/{name}", cancel, methods=["POST"]),
        Route("/history", history),
        Route("/open", open_folder),
        Route("/compare", side_by_side),
        Route("/replay", replay),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.ws = ws
    return Guard(app, token, hosts)
