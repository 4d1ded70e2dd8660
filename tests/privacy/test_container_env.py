"""A container's environment entry named for a credential, its value written so the
``name_value`` rule did not read it: a comment after the name (``- name: DB_PASSWORD #
db``), a blank line between the name and ``value:``, or a block scalar, ``value: >-`` with
the secret on the line below. Each went to the model in clear and a pin holding it was
stored; each is redacted, its name kept, on ``redact``'s path and a provider's payload,
and a write holding it is refused. ``valueFrom``, a reference, a template, a phrase and
another name's value stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_one_secret_redacted, assert_pin_refused
from waymarks.core.secrets import redact

PW = "Xk9mQ2pL7vR3tY8w"
R = "[REDACTED:secret]"

#: (text with the secret as ``{}``): it must come out with the placeholder there
CASES: list[str] = [
    "env:\n  - name: DB_PASSWORD # db\n    value: {}\n",
    "env:\n  - name: DB_PASSWORD\n\n    value: {}\n",
    "env:\n  - name: DB_PASSWORD\n    value: >-\n      {}\n",
    "env:\n  - name: API_TOKEN  # rotated monthly\n\n    value: |\n      {}\n",
    "env:\r\n  - name: 'DB_PASSWORD' # db\r\n\r\n    value: >-\r\n      '{}'\r\n",
    "env:\n  - name: DB_PASSWORD\n    # rotated by the platform team\n    value: {}\n",
    "env:\n  - name: DB_PASSWORD # db\n\n    # prod only\n    value: >-\n      {}\n",
    "containerDefinitions:\n- environment:\n  - name: STRIPE_SECRET_KEY # live\n"
    "    value: \"{}\"\n",
]

UNCHANGED: list[str] = [
    "env:\n  - name: DB_PASSWORD # db\n    valueFrom:\n      secretKeyRef:\n        name: db\n"
    "        key: password\n",
    "env:\n  - name: DB_PASSWORD\n\n    value: >-\n      ${DB_PASSWORD}\n",
    "env:\n  - name: DB_PASSWORD # from the chart\n    value: \"{{ .Values.db.password }}\"\n",
    "env:\n  - name: LOG_LEVEL # verbose\n\n    value: >-\n      debugXk9mQ2pL7vR3\n",
    "- name: DB_PASSWORD # see the vault\n  value: >\n    see the vault for it\n",
    "- name: DB_PASSWORD\n  # value: Xk9mQ2pL7vR3tY8w was the old one\n  valueFrom: {}\n",
]


@pytest.mark.parametrize("template", CASES)
def test_the_entry_s_value_is_redacted(template: str) -> None:
    text, kept = template.format(PW), template.format(R)
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_what_names_no_secret_stays(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_it_is_refused(tmp_path: Path) -> None:
    """The real CLI (it stored the pin, exit 0): refused, exit 2, the value not echoed."""
    assert_pin_refused(tmp_path, f"pod env:\n- name: DB_PASSWORD # db\n  value: {PW}", PW)
