"""A login's password the other rules read as a name: parts joined by dots ("vpn creds:
jli / ferret.Mango.88", "旧密码 … 已经停用，新密码 Xin_Mima.2026"), and a user and password
said to still work ("Unifi controller: ubnt / ubnt still works on the old AP"). Each went
to a remote model in clear at eaddfd3d. Files, domains, attributes, versions, and pairs
of words that are no login ("read/write still works", "linux/arm64 works") stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_kept_from_provider, assert_pin_refused, stated_tests

STATED: list[tuple[str, str]] = [
    ("vpn creds: jli / ferret.Mango.88", "ferret.Mango.88"),
    ("旧密码 Lao-mima-01 已经停用，新密码 Xin_Mima.2026", "Xin_Mima.2026"),
    ("the password is ferret.Mango.88", "ferret.Mango.88"),
    ("账号 ops / Blue.Whale.2024，别外传", "Blue.Whale.2024"),
    ("Unifi controller: ubnt / ubnt still works on the old AP in the garage", "ubnt / ubnt"),
    ("pi / raspberry works fine on the lab board", "raspberry"),
    ("the camera's admin/admin still lets you in", "admin/admin"),
]

UNCHANGED: list[str] = [
    "read/write still works",
    "linux/arm64 works now",
    "CI/CD works",
    "input/output works",
    "TCP/IP works",
    "and/or works",
    "Node/npm works",
    "the password is in config.Prod2.yaml",
    "login: bob / api.Example2.com",
    "see docs/Setup.v2.md for the password",
    "the password is v1.2.3-Beta4",
    "homelab: pihole on 192.168.1.2, proxmox on .10, unifi controller on .5:8443",
    "bumped fastapi to 0.110.1 and pydantic to 2.6.4, no breaking changes",
]

test_the_password_is_redacted, test_its_look_alikes_stay = stated_tests(STATED, UNCHANGED)


def test_a_pin_holding_a_dotted_password_is_refused_by_the_cli(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "vpn creds: jli / ferret.Mango.88", "ferret.Mango.88")


def test_a_stored_pair_that_works_is_kept_from_a_remote_model(tmp_path: Path) -> None:
    assert_kept_from_provider(tmp_path, "Unifi controller: ubnt / ubnt still works",
                              "ubnt / ubnt", "Unifi", "[REDACTED:secret]")
