"""Passwords administrators' commands take as an argument, no flag or separator naming
them: ipmitool's ``user set password ID PASSWORD`` (a BMC user's, as server vendors'
guides write it) and Windows' ``net user NAME PASSWORD /add`` went to the model in clear,
and a claim holding it was stored; so did one ``openssl passwd`` hashes (``usermod -p
$(openssl passwd -6 …)``) and one Grafana's or Drush's password reset sets. Given no
password (``*``), the command asks for it; a reference or a mask holds none; ``net user``
with no switch after its value is judged as prose is ("the net user count rose")."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests

PW = "Xk9vTq2mWz8rLp4nB7cD"
R = "[REDACTED:secret]"

#: texts with the password as ``{}``
TEMPLATES: list[str] = [
    "ipmitool user set password 2 {}",
    "ipmitool -I lanplus -H bmc-07 -U admin -E user set password 3 '{}' 20",
    "sudo ipmitool user set password 2 {} && ipmitool user enable 2",
    # in a sentence that goes on: judged as prose, a random one goes
    "reset it with ipmitool user set password 2 {} then power-cycle the BMC",
    "net user svc_build {} /add /y",
    "NET USER backup {} /ADD /DOMAIN",
    'net user "Build Agent" "{}" /add',
    'cmd /c "net user svc_build {} /add"',
    "net user administrator {}",
    # a password hashed or reset by its tool: these went out in clear
    "usermod -p $(openssl passwd -6 {}) app",
    "openssl passwd -1 -salt xyz '{}'",
    "grafana-cli admin reset-admin-password {}",
    'grafana cli --homepath /usr/share/grafana admin reset-admin-password "{}"',
    "drush user:password admin {}",
    "drush upwd editor '{}'",
]

UNCHANGED: list[str] = [
    "ipmitool user set password 2",
    "ipmitool user set password 2 $BMC_PASSWORD",
    "ipmitool user set password 2 ********",
    "ipmitool user set name 2 operator",
    "ipmitool user list 1",
    "ipmitool user set password 2 and then reboot",
    "net user admin * /add",
    "net user admin /delete",
    "net user guest /active:no",
    "net user admin %ADMIN_PASSWORD% /add",
    "net user admin $env:ADMIN_PASSWORD /add",
    "the net user count rose",
    "Net user growth was 12 this week",
    "openssl passwd -6 -stdin",
    "openssl passwd -apr1 -in pw.txt",
    "drush user:password admin",
    "drush upwd admin $ADMIN_PASSWORD",
    "openssl passwd is what hashes it",
]

test_the_password_is_redacted, test_a_line_holding_none_stays = shape_tests(
    [(t.format(PW), t.format(R)) for t in TEMPLATES], UNCHANGED)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"bmc: ipmitool user set password 2 {PW}", PW)
