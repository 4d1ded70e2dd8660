"""``memory list --key`` with no letter or digit (``--key ''``: a script's unset variable)
matched nothing and said "No memory items in this session." of a session that had some:
``memory add --key`` refuses such a key, and the listing refuses it too now. So with
``memory search ""``, which said "No claim matches."."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from waymarks.service.app import Waymarks


@pytest.mark.parametrize("key", ["", "  ", "!!", "-"])
def test_a_key_with_no_letter_or_digit_is_refused(home: Path, project: Path, run_main: Any,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 key: str) -> None:
    with Waymarks(home, cwd=str(project)) as app:
        app.remember("The database port is 5433.", key="db-port")
    monkeypatch.chdir(project)
    monkeypatch.setitem(os.environ, "WAYMARKS_CLI_HELPER", "off")
    said = run_main("--home", str(home), "memory", "list", "--key", key, expect=2)
    assert said["code"] == "usage" and "a key needs a letter or a digit" in said["message"]
    text = run_main("--home", str(home), "memory", "list", "--key", key, expect=2, text=True)
    assert "No memory items" not in text
    listed = run_main("--home", str(home), "memory", "list", "--key", "DB Port")
    assert [item["key"] for item in listed["items"]] == ["db-port"]


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_search_is_a_usage_error(home: Path, project: Path, run_main: Any,
                                          monkeypatch: pytest.MonkeyPatch, query: str) -> None:
    """``memory search ""`` said "No claim matches." (exit 0) where ``recall ""`` is a
    usage error: a script's empty variable looked like a search that found nothing."""
    with Waymarks(home, cwd=str(project)) as app:
        app.remember("The database port is 5433.", key="db-port")
    monkeypatch.chdir(project)
    monkeypatch.setitem(os.environ, "WAYMARKS_CLI_HELPER", "off")
    said = run_main("--home", str(home), "memory", "search", query, expect=2)
    assert said["code"] == "usage" and "give the words to search for" in said["message"]
    found = run_main("--home", str(home), "memory", "search", "database", "port")
    assert found["results"][0]["key"] == "db-port"
