"""A container's environment as a tool prints it: ``docker inspect``'s ``"Env": [ … ]``,
``kubectl describe pod``'s ``Environment:`` block, a Compose file's ``environment:``. A
credential there under a name that says nothing of one (``TOKEN_X``, ``SESSION_X``) went
to the model in clear and a pin holding it was stored; the settings every official image
prints there (versions, digests, a GPG key's ID, flags) must stay, as they did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.privacy.digests import assert_one_secret_redacted, assert_pin_refused
from waymarks.core.secrets import redact

PW = "Xk9vTq2mWz8rLp4nB7cD"
HEX = "a3f94c1e" * 8  # ``openssl rand -hex 32``

#: what ``docker inspect`` prints under ``"Env"`` for official images (python, postgres,
#: redis, php, nginx, ruby, eclipse-temurin, CUDA, rabbitmq: its key ID written ``0x…``)
#: and a pod: none is a credential
IMAGE_SETTINGS = [
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8",
    "GPG_KEY=7169605F62C751356D054A26A821E680E5FA6305", "PYTHON_VERSION=3.12.4",
    "PYTHON_SHA256=f6d419a6d8743ab26700801b4908d26d97e8b986e14f95de31b32de2b0e79554",
    "GOSU_VERSION=1.17", "PG_MAJOR=16", "PG_VERSION=16.1-1.pgdg120+1",
    "PGDATA=/var/lib/postgresql/data", "REDIS_VERSION=7.2.4",
    "REDIS_DOWNLOAD_URL=http://download.redis.io/releases/redis-7.2.4.tar.gz",
    "REDIS_DOWNLOAD_SHA=8d104c26a154b29fd67d6568b4f375212212ad41e0c2caa3d66480e78dbd3b59",
    "NGINX_VERSION=1.25.3", "PKG_RELEASE=1~bookworm",
    "PHPIZE_DEPS=autoconf dpkg-dev file g++ gcc libc-dev make pkg-config re2c",
    "PHP_CFLAGS=-fstack-protector-strong -fpic -fpie -O2 -D_LARGEFILE_SOURCE",
    "PHP_LDFLAGS=-Wl,-O1 -pie", "JAVA_HOME=/opt/java/openjdk", "JAVA_VERSION=jdk-21.0.1+12",
    "JAVA_OPTS=-Xmx512m", "RUBY_DOWNLOAD_SHA256=" + "96518814d9832bb9" * 4,
    "NV_CUDNN_PACKAGE=libcudnn8=8.9.6.50-1+cuda12.2", "HOSTNAME=web-6d4cf56db6-x7k2p",
    "KUBERNETES_PORT=tcp://10.96.0.1:443", "GIT_COMMIT=9fceb02d0ae598e95dc970b74767f19372d61af8",
    "REQUEST_ID=01HQ3Z9X7Y8W6V5T4S3R2Q1P0N", "SERVICE_NAME=MyServiceV2Production",
    "INSTANCE_ID=3f2504e0-4f89-11d3-9a0c-0305e82c3301",
    "RABBITMQ_PGP_KEY_ID=0x0A9AF2115F4687BD29803A206B73A36E6026DFCA",
]

CASES: list[tuple[str, str]] = [
    ('"Env": [\n    "PATH=/usr/local/bin:/usr/bin",\n    "TOKEN_X=' + PW + '",\n'
     '    "NODE_VERSION=18.17.0"\n],',
     '"Env": [\n    "PATH=/usr/local/bin:/usr/bin",\n    "TOKEN_X=[REDACTED:secret]",\n'
     '    "NODE_VERSION=18.17.0"\n],'),
    ('{"Env":["HOME=/root","SESSION_X=' + HEX + '"],"Cmd":["node"]}',
     '{"Env":["HOME=/root","SESSION_X=[REDACTED:secret]"],"Cmd":["node"]}'),
    ("    Environment:\n      DB_HOST:    postgres\n      SESSION_X:  " + PW + "\n"
     "      POD_NAME:   web-1 (v1:metadata.name)\n    Mounts:\n",
     "    Environment:\n      DB_HOST:    postgres\n      SESSION_X:  [REDACTED:secret]\n"
     "      POD_NAME:   web-1 (v1:metadata.name)\n    Mounts:\n"),
    ("    environment:\n      - TZ=Europe/Berlin\n      - SIGNING=" + PW + "\n",
     "    environment:\n      - TZ=Europe/Berlin\n      - SIGNING=[REDACTED:secret]\n"),
    ('    environment:\n      SIGNING: "' + PW + '"\n',
     '    environment:\n      SIGNING: "[REDACTED:secret]"\n'),
]

UNCHANGED: list[str] = [
    '"Env": ' + json.dumps(IMAGE_SETTINGS, indent=4),
    '"Env":' + json.dumps(IMAGE_SETTINGS, separators=(",", ":")),
    "    Environment:\n" + "".join(
        "      {}:  {}\n".format(*entry.split("=", 1)) for entry in IMAGE_SETTINGS)
    + "    Mounts:\n",
    "    Environment:  <none>\n    Mounts:  <none>\n",
    "    Environment:\n      DB_PASSWORD:  <set to the key 'password' in secret 'db'>"
    "  Optional: false\n",
    '"Env": ["DB_URL=${DATABASE_URL}", "SESSION_X=$SESSION_SECRET"]',
]


@pytest.mark.parametrize(("text", "kept"), CASES)
def test_a_generated_value_under_a_neutral_name_is_redacted(text: str, kept: str) -> None:
    assert_one_secret_redacted(text, kept)


@pytest.mark.parametrize("text", UNCHANGED)
def test_an_images_settings_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_pin_holding_one_is_refused(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f'docker inspect shows "Env": ["TOKEN_X={PW}"]', PW)
