"""Password flags of administrators' tools that no rule read: the password went to the
model in clear and a pin holding it was stored. ``ipmitool -P`` (a BMC's password, as
every server vendor's guide writes the command; ``-E`` and ``-f`` name where it is kept);
``ssh-keygen -N`` and ``-P`` (a private key's new and old passphrase, as scripts make a
deploy key: an empty ``-N ""`` holds none); lftp's ``-u USER,PASSWORD`` (on its command
line, or its script's ``open -u …``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_one_secret_redacted, assert_pin_refused
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4nB7cD"
R = "[REDACTED:secret]"

#: texts with the password as ``{}``
CASES: list[str] = [
    "ipmitool -I lanplus -H 10.0.0.9 -U admin -P {} power status",
    "ipmitool -H bmc-07 -U ADMIN -P '{}' chassis power cycle",
    "ipmitool -I lanplus -H 10.0.0.9 -U root -P{} sol activate",
    "ssh-keygen -t ed25519 -N '{}' -f ~/.ssh/deploy_key -C deploy",
    "ssh-keygen -p -f id_rsa -N {}",
    # the new passphrase after an old one named by a variable, and quoted glued to its flag
    # (as getopt takes it): both went out in clear
    'ssh-keygen -p -f id_rsa -P "$OLD_PASS" -N {}',
    "ssh-keygen -t ed25519 -N'{}' -f ~/.ssh/deploy_key",
    'ssh-keygen -t ed25519 -N"{}" -f ~/.ssh/deploy_key',
    "lftp -u deploy,{} sftp://files.example.com",
    "lftp -e 'mirror -R dist /var/www' -u 'deploy,{}' ftp.example.com",
    # a script of several commands before the flag (a CI's deploy step writes it so)
    'lftp -e "set ftp:ssl-allow no; mirror -R dist /public_html; quit" -u deploy,{} ftp.host',
    "lftp -p 2121 -e 'mirror -R dist /www; bye' --user=deploy,{} ftp.example.com",
    "open -u deploy,{} ftp.example.com",
    # the MQTT clients' -P and influx setup's -p: these went out in clear
    "mosquitto_pub -h mqtt.internal -u ops -P {} -t alerts -m hi",
    "mosquitto_sub -u ops -P '{}' -t 'sensors/#'",
    "influx setup -u admin -p {} -o acme -b metrics -f",
]

UNCHANGED: list[str] = [
    "ipmitool -I lanplus -H 10.0.0.9 -U admin -E power status",
    "ipmitool -I lanplus -H 10.0.0.9 -U admin -f /root/.ipmi_pass power status",
    "ipmitool -I lanplus -H 10.0.0.9 -U admin -P $IPMI_PASSWORD power status",
    'ssh-keygen -t ed25519 -N "" -f ~/.ssh/deploy_key',
    'ssh-keygen -t ed25519 -N"" -f ~/.ssh/deploy_key',
    'ssh-keygen -p -f id_rsa -P "$OLD_PASS" -N "$NEW_PASS"',
    "ssh-keygen -t rsa -b 4096 -f id_rsa -C ops@example.com",
    "ssh -N -L 5432:db:5432 bastion",
    "lftp -u deploy sftp://files.example.com",
    "lftp -u deploy,$FTP_PASSWORD sftp://files.example.com",
    'lftp -e "mirror -R dist /www; quit" -u "$FTP_USER,$FTP_PASSWORD" ftp.example.com',
    'lftp -e "mirror -R dist /www; quit" ftp.example.com; ssh -u deploy,Xk9vTq2mWz8rLp4n host',
    "with open(path) as f: rows = load(f, strict=True)",
    "mosquitto_sub -h mqtt.internal -p 8883 -t alerts",
    "influx query -p 8086 'from(bucket: \"m\")'",
]


@pytest.mark.parametrize("template", CASES)
def test_the_password_is_redacted(template: str) -> None:
    assert_one_secret_redacted(template.format(PW), template.format(R))


@pytest.mark.parametrize("text", UNCHANGED)
def test_a_line_holding_none_stays(text: str) -> None:
    assert redact(text) == (text, 0)


def test_both_passphrases_of_a_change_are_redacted() -> None:
    """``ssh-keygen -p -P OLD -N NEW`` changes a key's passphrase: the old one was
    redacted and the new one, after it, went out in clear."""
    from waymarks.planner.sanitize import sanitize

    old = "Qw3rTy7uIo9pAs2dFg5h"
    text = f"ssh-keygen -p -f ~/.ssh/id_ed25519 -P {old} -N {PW}"
    kept = f"ssh-keygen -p -f ~/.ssh/id_ed25519 -P {R} -N {R}"
    assert redact(text) == (kept, 2)
    outcome = sanitize({"messages": [{"role": "user", "content": text}]}, "anthropic")
    assert outcome.payload["messages"][0]["content"] == kept


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"bmc: ipmitool -H bmc-07 -U admin -P {PW} power on", PW)
