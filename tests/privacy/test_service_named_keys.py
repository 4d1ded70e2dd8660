"""PagerDuty's and Datadog's keys labelled only by their service's name: "pagerduty key
y_Nb…", "pagerduty integration key <32 hex>", "PagerDuty routing key: R0…", "datadog
key <32 hex>", "Datadog: <32 hex>". Each was kept by ``memory add`` and shown to a remote
provider in clear (reproduced with the real CLI on 85ebbbd2): a key's noun counted only
after api, access, secret, … and the bare noun's rule knew no service. The value goes when
it reads as random, as after any bare noun; unlabelled keys stay (a 20-character token or
32 hex alone is not distinctive: an MD5 digest is 32 hex too)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_kept_from_provider, assert_pin_refused
from waymarks.core.secret_pretest import might_contain_secret
from waymarks.core.secrets import redact

PD = "y_NbAkKc66ry" + "YTWUXYEu"
HEX = "1b2c3d4e5f6a7b8c" + "9d0e1f2a3b4c5d6e"
G = "[REDACTED:secret]"


@pytest.mark.parametrize(("text", "kept"), [
    (f"pagerduty key {PD}", f"pagerduty key {G}"),
    (f"pagerduty: {PD}", f"pagerduty: {G}"),
    (f"PagerDuty {PD} for alerts", f"PagerDuty {G} for alerts"),
    (f"the pagerduty key is {PD}", f"the pagerduty key is {G}"),
    (f"pagerduty integration key {HEX}", f"pagerduty integration key {G}"),
    ("PagerDuty routing key: R0123456789ABCDEF" + "0123456789ABCDE", f"PagerDuty routing key: {G}"),
    (f"datadog key {HEX}", f"datadog key {G}"),
    (f"Datadog: {HEX}", f"Datadog: {G}"),
    (f"the datadog application key is {HEX}7f8a9b0c", f"the datadog application key is {G}"),
])
def test_a_key_named_by_its_service_is_redacted(text: str, kept: str) -> None:
    assert might_contain_secret(text)
    assert redact(text) == (kept, 1)


@pytest.mark.parametrize("text", [
    "routing key orders.created", "the routing key is user.signup.v2",
    "datadog agent configuration reference", "pagerduty: see the vault",
    "PagerDuty escalation policy for the payments team",
    "Datadog dashboards showing p99 latency", "the integration key is stored in the vault",
    f"use {PD} for alerts", f"md5 {HEX}",  # unlabelled: not distinctive enough
])
def test_look_alikes_and_unlabelled_values_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_the_cli_refuses_to_keep_one(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"pagerduty key {PD} for the payments service", PD)


def test_a_stored_one_never_reaches_a_remote_provider(tmp_path: Path) -> None:
    assert_kept_from_provider(tmp_path, f"zanzibar alerts use datadog key {HEX}", HEX,
                              "zanzibar alerts", G)
