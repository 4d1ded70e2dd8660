"""A Wi-Fi network's passphrase, as an embedded or a Linux developer pastes it:
wpa_supplicant.conf's ``psk="…"`` (``psk`` names a pre-shared key, no name any rule
read), NetworkManager's ``nmcli dev wifi connect SSID password …`` and ``nmcli con
modify … wifi-sec.psk …`` (a keyword then a space), and ``wpa_passphrase SSID …``. Each
went to the model in clear and a pin holding it was stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.privacy.digests import assert_one_secret_redacted, assert_pin_refused
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4nB7cD"
R = "[REDACTED:secret]"

#: texts with the passphrase as ``{}``
CASES: list[str] = [
    'network={{\n    ssid="HomeNet"\n    psk="{}"\n    key_mgmt=WPA-PSK\n}}',
    "network={{\n\tssid=\"Lab\"\n\tpsk={}\n}}",
    "WIFI_PSK={}",
    "nmcli dev wifi connect HomeNet password {}",
    "sudo nmcli device wifi connect 'Lab 5G' password '{}' ifname wlan0",
    "nmcli con modify Lab wifi-sec.key-mgmt wpa-psk wifi-sec.psk {}",
    "wpa_passphrase HomeNet {} >> /etc/wpa_supplicant/wpa_supplicant.conf",
]

UNCHANGED: list[str] = [
    "wpa_passphrase HomeNet < passphrase.txt",
    "nmcli dev wifi connect HomeNet --ask",
    'network={\n    ssid="Cafe"\n    key_mgmt=NONE\n}',
    "nmcli dev wifi connect HomeNet password $WIFI_PASSWORD",
    "The psk is derived from the passphrase and the SSID.",
]


@pytest.mark.parametrize("template", CASES)
def test_the_passphrase_is_redacted(template: str) -> None:
    assert_one_secret_redacted(template.format(PW), template.format(R))


@pytest.mark.parametrize("text", UNCHANGED)
def test_a_line_holding_none_stays(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f'pi wifi: network={{ ssid="HomeNet" psk="{PW}" }}', PW)
