"""Flask test-client helpers shared by the arena app tests (no browser)."""

from __future__ import annotations

import functools

from bs4 import BeautifulSoup


def soup(response) -> BeautifulSoup:
    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


def get(client, path: str) -> BeautifulSoup:
    r = client.get(path)
    assert r.status_code == 200, path
    return soup(r)


def post(client, path: str, data: dict) -> BeautifulSoup:
    r = client.post(path, data=data, follow_redirects=True)
    assert r.status_code == 200, path
    return soup(r)


def start_episode(app, dp: str = "", *, name: str):
    """A fresh client in a new episode of app `name` (with conditions `dp`) and its first page."""
    client = app.test_client()
    r = client.get(f"/{name}/?dp={dp}" if dp else f"/{name}/", follow_redirects=True)
    assert r.status_code == 200
    return client, soup(r)


def episode_state(client, *, name: str):
    """The episode state behind the client's cookie for app `name`."""
    cookie = client.get_cookie(f"dg_episode_{name}")
    return client.application.config["DG_EPISODES"].get(cookie.value).state


def helpers_for(name: str):
    """(start, state) bound to app `name`."""
    return (
        functools.partial(start_episode, name=name),
        functools.partial(episode_state, name=name),
    )
