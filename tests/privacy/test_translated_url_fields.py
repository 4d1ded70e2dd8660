"""A URL template whose password is the password's own noun in another language
(``core/secret_values.py``, ``_FIELD_NAMES``): "连接串格式:mysql://用户名:密码@主机:端口/库名"
went out as "…用户名:[REDACTED:url-password]@…", a format's placeholder taken for a
password (as ``user:password@host`` never was). A real password in the same place goes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from waymarks.core.secrets import credential_kinds, redact


@pytest.mark.parametrize(("text", "kept"), [
    ("mysql://root:Mima2026x@db:3306/app", "mysql://root:[REDACTED:url-password]@db:3306/app"),
    ("连接串:postgres://应用:Zq8Wm2Lp4@主库:5432/订单",
     "连接串:postgres://应用:[REDACTED:url-password]@主库:5432/订单"),
])
def test_a_urls_password_is_redacted(text: str, kept: str) -> None:
    assert redact(text) == (kept, 1)
    assert credential_kinds(text) == ["url-password"]


@pytest.mark.parametrize("text", [
    "连接串格式：postgres://用户名:密码@主机:端口/数据库",
    "格式 postgres://user:パスワード@host/db",
    "DSN: redis://:口令@127.0.0.1:6379",
    "Verbindung: mysql://benutzer:passwort@host/db",
    "formato: mysql://usuario:contraseña@servidor/base",
])
def test_a_translated_placeholder_stays(text: str) -> None:
    assert redact(text) == (text, 0)


def test_the_cli_pins_a_template(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    env = {**os.environ, "HOME": str(tmp_path), "WAYMARKS_HOME": str(tmp_path / "home"),
           "WAYMARKS_SEMANTIC": "off"}
    text = "连接串格式：mysql://用户名:密码@主机:端口/库名"
    done = subprocess.run([sys.executable, "-m", "waymarks.cli.main", "pin", "--", text],
                          cwd=project, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Pinned" in done.stdout
