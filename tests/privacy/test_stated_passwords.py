"""A weak or default password stated in a sentence, a login written as user and password
side by side, and a password set or used in prose. Each of these went to a remote model in
clear at ec5c421f (``redact`` returned the text unchanged, 0 spans): "The password is
hunter2.", "root password = toor", "login with admin / admin123", "db pass is s3cr3t!",
"password -> hunter2", "set the admin password to trustno1", "use hunter2 as the
password", "登录密码改成了 qwe123", … The ordinary sentences beside them, about passwords,
tokens, logins and paths, stay as they are."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.privacy.digests import assert_kept_from_provider, shape_tests

G = "[REDACTED:secret]"

test_each_password_goes_on_every_path, test_each_look_alike_stays = shape_tests([
    # a weak password after "is": letters and digits both, or digits alone
    ("The password is hunter2.", f"The password is {G}."),
    ("my password is hunter2", f"my password is {G}"),
    ("my pwd is hunter2", f"my pwd is {G}"),
    ("the password for the admin account is letmein1",
     f"the password for the admin account is {G}"),
    ("the passcode is 9931", f"the passcode is {G}"),
    # "pass" as a noun
    ("db pass is s3cr3t!", f"db pass is {G}"),
    ("pass is hunter2", f"pass is {G}"),
    # a default password where it ends its clause
    ("root password = toor", f"root password = {G}"),
    ("root password is toor", f"root password is {G}"),
    ("the root pw = toor", f"the root pw = {G}"),
    ("admin password = admin", f"admin password = {G}"),
    ("the admin password is letmein", f"the admin password is {G}"),
    ("the router's admin password is admin", f"the router's admin password is {G}"),
    # other verbs: 's, set to, changed to, an arrow
    ("the password's hunter2", f"the password's {G}"),
    ("db password set to qwerty123", f"db password set to {G}"),
    ("password changed to hunter22", f"password changed to {G}"),
    ("password -> hunter2", f"password -> {G}"),
    ("pw -> Tr0ub4dor", f"pw -> {G}"),
    ("password \u2192 hunter2", f"password \u2192 {G}"),
    ("the password became hunter22", f"the password became {G}"),
    ("password was reset to Spring2025", f"password was reset to {G}"),
    # set ... password to, use ... as the password
    ("I set the password to hunter2", f"I set the password to {G}"),
    ("set the admin password to trustno1", f"set the admin password to {G}"),
    ("use hunter2 as the password", f"use {G} as the password"),
    ("use 'hunter22' as the wifi password.", f"use '{G}' as the wifi password."),
    # a login as user and password side by side
    ("login with admin / admin123", f"login with admin / {G}"),
    ("admin/admin123", f"admin/{G}"),
    ("creds: admin/admin123", f"creds: admin/{G}"),
    ("credentials are admin:admin123", f"credentials are admin:{G}"),
    ("login: bob / hunter22", f"login: bob / {G}"),
    ("pi:raspberry", f"pi:{G}"),
    # Chinese
    ("密码是 hunter2", f"密码是 {G}"),
    ("账号：root 密码：toor123", f"账号：root 密码：{G}"),
    ("登录密码改成了 qwe123", f"登录密码改成了 {G}"),
    ("口令为 hunter2", f"口令为 {G}"),
], [
    "The password is required", "the password is stored hashed with argon2",
    "password is too short", "reset the password via the admin page",
    "the token is refreshed every hour", "pass the value to the function",
    "admin/settings page", "PIN the dependency to 1.2.3", "The password is incorrect.",
    "the password is in 1Password", "the password is the same as staging",
    "the admin password is rotated monthly", "root password is disabled on these hosts",
    "the password is md5 hashed", "the password is admin-managed",
    "the password is admin only", "the first pass is slow", "the password -> hash step",
    "pwd -> /home/alice", "token = get_token()", "password = getpass()",
    "set the password to expire in 90 days", "reset the password to the default",
    "changed the password to satisfy the new policy",
    "use 1Password as the password manager", "use argon2id as the password hash",
    "use it as the password.", "send the password to alice99 via Signal",
    "the password's length is checked", "chown root:root /etc/app.conf",
    "chown -R postgres:postgres .", "COPY --chown=root:root app /app",
    "docker pull postgres:16-alpine", "FROM ubuntu:22.04", "image grafana:10.2.3 is pinned",
    "jenkins:lts-jdk17 is the image", "see /root/app2024 for the build",
    "https://example.com/admin/users2024", "the admin/settings2 page",
    "root / admin / viewer are the roles", "login with GitHub / Google",
    "admin:read and admin:write scopes", "user/repo names are case-insensitive",
    "username: alice", "admin / viewer roles", "log in as admin to approve",
    "mysql -u root -p", "密码是必填项", "密码存储在 Vault 中", "密码改成了大写", "密码设为必填",
    "用户名 admin 不能删除", "The PIN 1234 default must be changed", "Bank PIN 4321",
    "the password became invalid", "the password was updated to meet the policy",
    "the password for prod db: see the vault", "the token for CI: rotated monthly",
    "docker run -e POSTGRES_PASSWORD postgres", "        self.password = password",
    "pw = passwd", "password -> password",
])


def test_a_stored_one_never_reaches_a_remote_provider(tmp_path: Path) -> None:
    assert_kept_from_provider(tmp_path, "zanzibar router login admin / admin123 for guests",
                              "admin123", "zanzibar router login", G)


@pytest.mark.slow
def test_what_a_loopback_provider_receives(tmp_path: Path) -> None:
    """A person's statements holding each shape, captured by the real Stop hook and sent
    by ``waymarks evolve`` to a loopback Anthropic-compatible server: the body it received
    holds none of the passwords (each was in it at ec5c421f)."""
    from tests.evolution.fake_provider import FakeProvider, anthropic_ok, learning_home

    home, project = tmp_path / "home", tmp_path / "a"
    project.mkdir()
    said = ("From now on I prefer pnpm over npm. The staging password is hunter2. "
            "Log in to the router with admin / admin123; the root password = toor. "
            "I set the db password to qwerty123, and the wifi pw -> Tr0ub4dor. "
            "Use trustno1 as the vpn password. 登录密码改成了 qwe123")
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("\n".join(json.dumps(x) for x in [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": said}},
        {"type": "assistant", "uuid": "a1", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "Noted."}]}},
    ]) + "\n")
    answer = json.dumps({"claims": [{"kind": "preference", "content": "The person prefers pnpm",
                                     "searchTerms": ["pnpm"]}]})
    env = {**os.environ, "WAYMARKS_CC_HELPER": "off", "CLAUDE_PROJECT_DIR": "",
           "EVO_KEY": "sk-ant-test-" + "k" * 24}
    env.pop("PI_SUBAGENT_AGENT_ID", None)
    with FakeProvider([anthropic_ok(answer)]) as fake:
        learning_home(home, fake.origin, "EVO_KEY")
        hook = subprocess.run(
            [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "hook",
             "claude-code", "Stop"], input=json.dumps({
                 "session_id": "5e5e5e5e-5e5e-4e5e-8e5e-5e5e5e5e5e5e", "cwd": str(project),
                 "transcript_path": str(transcript), "hook_event_name": "Stop"}),
            env=env, cwd=project, capture_output=True, text=True, timeout=120)
        assert hook.returncode == 0, hook.stderr
        done = subprocess.run(
            [sys.executable, "-m", "waymarks.cli.main", "--home", str(home), "--json",
             "evolve"], cwd=project, capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
    [request] = fake.requests
    sent = json.dumps(request["body"], ensure_ascii=False)
    assert "pnpm" in sent and "[REDACTED:secret]" in sent
    for password in ("hunter2", "admin123", "toor", "qwerty123", "Tr0ub4dor", "trustno1",
                     "qwe123"):
        assert password not in sent, password
