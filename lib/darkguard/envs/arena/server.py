"""One local Flask server for the arena apps (and a user's static site), on 127.0.0.1 only.

Per-episode state: the first request of an episode to an app carries its conditions
(`/shop/?dp=p1_w`, as TrickyArena switches patterns with a query string); the server creates a
fresh state, sets the cookie `dg_episode_<app>` and redirects to the same URL without `dp`, so the
switch never stays in the address bar an agent reads. A new browser context (no cookie) is a new
episode. Views reach their episode through `episode()`. A second origin (another port) serves the
apps' partner blueprints; `partner_url(path)` links there and carries the episode across.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from flask import Flask, abort, g, redirect, request, send_from_directory
from jinja2 import ChoiceLoader, FileSystemLoader
from werkzeug.serving import make_server

from darkguard.envs.arena.apps import ArenaApp, registry

HOST = "127.0.0.1"
EPISODE_PARAM = "dg_ep"  # carries an episode to the second origin
MAX_EPISODES = 1024
TEMPLATES = Path(__file__).parent / "apps" / "templates"


@dataclass
class Episode:
    id: str
    app: str
    conditions: frozenset[str]
    state: Any
    extra: dict = field(default_factory=dict)

    def on(self, condition: str) -> bool:
        """Whether the episode's app runs with `condition` switched on."""
        return condition in self.conditions


class Episodes:
    """The live episodes of a server, oldest dropped beyond `MAX_EPISODES`."""

    def __init__(self, apps: dict[str, ArenaApp]) -> None:
        self.apps = apps
        self._live: OrderedDict[str, Episode] = OrderedDict()
        self._lock = threading.Lock()

    def new(self, app: str, conditions: Iterable[str]) -> Episode:
        conds = frozenset(conditions)
        unknown = conds - self.apps[app].conditions
        if unknown:
            abort(400, f"unknown condition(s) {sorted(unknown)} of app {app}")
        ep = Episode(uuid.uuid4().hex, app, conds, self.apps[app].new_state(conds))
        with self._lock:
            self._live[ep.id] = ep
            while len(self._live) > MAX_EPISODES:
                self._live.popitem(last=False)
        return ep

    def get(self, episode_id: str | None) -> Episode | None:
        with self._lock:
            return self._live.get(episode_id or "")


def episode() -> Episode:
    """The episode of the current request (in an app's view)."""
    return g.dg_episode


def local_next(default: str, *, query_too: bool = False) -> str:
    """The submitted form's `next` path (or the query's, with `query_too`) when it is a local
    one, else `default`: where an app's view returns after a form."""
    source = request.values if query_too else request.form
    target = source.get("next", "")
    return target if target.startswith("/") and not target.startswith("//") else default


def partner_url(path: str) -> str:
    """An absolute URL on the second origin that continues the current episode."""
    origin = g.dg_partner_origin
    sep = "&" if "?" in path else "?"
    return f"{origin}{path}{sep}{urlencode({EPISODE_PARAM: episode().id})}"


def main_url(path: str) -> str:
    """An absolute URL on the main origin (from a partner page) that continues the episode."""
    sep = "&" if "?" in path else "?"
    return f"{g.dg_main_origin}{path}{sep}{urlencode({EPISODE_PARAM: episode().id})}"


def _cookie(app: str) -> str:
    return f"dg_episode_{app}"


def _bind_episodes(flask_app: Flask, episodes: Episodes, apps_by_blueprint: dict[str, str]):
    @flask_app.before_request
    def _open_episode():
        app = apps_by_blueprint.get(request.blueprint or "")
        g.dg_partner_origin = flask_app.config.get("DG_PARTNER_ORIGIN", "")
        g.dg_main_origin = flask_app.config.get("DG_MAIN_ORIGIN", "")
        if app is None:
            return None
        carried = episodes.get(request.args.get(EPISODE_PARAM))
        current = episodes.get(request.cookies.get(_cookie(app)))
        if "dp" in request.args:
            conditions = [c for v in request.args.getlist("dp") for c in v.split("_") if c]
            ep = episodes.new(app, conditions)
        elif carried is not None:
            ep = carried
        elif current is not None:
            g.dg_episode = current
            return None
        else:
            ep = episodes.new(app, ())
        g.dg_episode = ep
        if "dp" in request.args or EPISODE_PARAM in request.args:
            args = [
                (k, v)
                for k, vs in request.args.lists()
                for v in vs
                if k not in ("dp", EPISODE_PARAM)
            ]
            target = request.path + (f"?{urlencode(args)}" if args else "")
            response = redirect(target, code=303 if request.method == "POST" else 302)
            response.set_cookie(_cookie(app), ep.id, httponly=True, samesite="Lax")
            return response
        g.dg_set_cookie = (app, ep.id)
        return None

    @flask_app.after_request
    def _remember_episode(response):
        pending = g.get("dg_set_cookie")
        if pending:
            response.set_cookie(_cookie(pending[0]), pending[1], httponly=True, samesite="Lax")
        return response


def _quiet(flask_app: Flask) -> Flask:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    flask_app.logger.setLevel(logging.ERROR)
    return flask_app


def create_app(names: Iterable[str] | None = None) -> tuple[Flask, Flask | None]:
    """The main Flask app (every arena app under `/<name>`) and the second origin's app (partner
    blueprints), or None when no app has a partner. Both share one episode store."""
    apps = registry()
    chosen = {n: apps[n] for n in (names or apps)}
    episodes = Episodes(chosen)
    main = Flask("darkguard.arena", template_folder=str(TEMPLATES))
    main.config["DG_EPISODES"] = episodes
    for app in chosen.values():
        main.register_blueprint(app.blueprint, url_prefix=f"/{app.name}")

    @main.get("/")
    def _index():
        links = "".join(f'<li><a href="/{n}/">{a.title or n}</a></li>' for n, a in chosen.items())
        return f"<!doctype html><title>Arena</title><ul>{links}</ul>"

    _bind_episodes(main, episodes, {a.blueprint.name: a.name for a in chosen.values()})
    partners = [a for a in chosen.values() if a.partner is not None]
    partner = None
    if partners:
        partner = Flask("darkguard.arena.partner", template_folder=str(TEMPLATES))
        for app in partners:
            partner.register_blueprint(app.partner, url_prefix=f"/{app.name}")
        _bind_episodes(partner, episodes, {a.partner.name: a.name for a in partners})
    return _quiet(main), (_quiet(partner) if partner else None)


def site_app(folder: Path) -> Flask:
    """A user's static site: files of `folder`, `index.html` for a folder path."""
    folder = Path(folder).resolve()
    app = Flask("darkguard.arena.site", static_folder=None)

    @app.get("/", defaults={"path": ""})
    @app.get("/<path:path>")
    def _file(path: str):
        target = folder / path
        if target.is_dir():
            path = f"{path.rstrip('/')}/index.html".lstrip("/")
        return send_from_directory(folder, path)

    return _quiet(app)


class _Thread:
    def __init__(self, app: Flask) -> None:
        self.server = make_server(HOST, 0, app, threaded=True)
        self.origin = f"http://{HOST}:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(timeout=5)


class Served:
    """Serve the arena apps (or a site folder) on 127.0.0.1, free ports, in background threads:

    >>> with Served() as served:
    ...     served.origin  # 'http://127.0.0.1:PORT'
    """

    def __init__(self, apps: Iterable[str] | None = None, site: Path | None = None) -> None:
        if site is not None:
            main, partner = site_app(site), None
        else:
            main, partner = create_app(apps)
        main.jinja_loader = ChoiceLoader([main.jinja_loader, FileSystemLoader(str(TEMPLATES))])
        self._main = _Thread(main)
        self._partner = _Thread(partner) if partner else None
        self.origin = self._main.origin
        self.partner_origin = self._partner.origin if self._partner else None
        for app in (main, partner):
            if app is not None:
                app.config["DG_PARTNER_ORIGIN"] = self.partner_origin or ""
                app.config["DG_MAIN_ORIGIN"] = self.origin

    def __enter__(self) -> Served:
        self._main.start()
        if self._partner:
            self._partner.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._main.stop()
        if self._partner:
            self._partner.stop()
