"""A credential's name followed by the environment, access, rotation or version it is for
(``SESSION_SECRET_PROD``, ``GITHUB_TOKEN_RO``, ``API_KEY_V2``), and Rails'
``SECRET_KEY_BASE``: the assignment rule read a name only when it ended in the
credential's word, so these values were stored and sent to remote models in clear. Each
test failed before the fix; the names beside them that hold no credential stay."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.inprocess import waymarks
from waymarks.core.secrets import redact

#: a Rails secret_key_base is 128 hex digits
HEX = "4d1f7a9c3b2e8f6a0d5c4b3a2e1f0d9c" * 4
QUALIFIED = [
    f"SECRET_KEY_BASE={HEX}",
    f"secret_key_base: {HEX}",
    "SESSION_SECRET_PROD=Xq9vT2mLp4RzAb12CdEf34",
    "GITHUB_TOKEN_RO=Xq9vT2mLp4RzAb12CdEf34",
    'API_KEY_V2="Xq9vT2mLp4RzAb12"',
    "DB_PASSWORD_STAGING=Tr0ub4dor&3x",
    "export DB_PASS_OLD=Xq9vT2mLp4Rz",
    # two qualifiers, and the camel case of JSON, JavaScript and YAML configurations: these
    # still went out in clear after the one-qualifier, underscore-only rule
    "API_KEY_PROD_V2=Xq9vT2mLp4RzAb12CdEf34",
    f"SECRET_KEY_BASE_PROD={HEX}",
    "AUTH_TOKEN_STAGING_2=Xq9vT2mLp4RzAb12",
    'apiKeyProd: "Xq9vT2mLp4RzAb12CdEf34"',
    '"sessionSecretV2": "Xq9vT2mLp4RzAb12CdEf34"',
    'githubTokenRo = "Xq9vT2mLp4RzAb12CdEf34"',
    "dbPasswordStaging: Tr0ub4dor&3x",
    "token.prod.v2: Xq9vT2mLp4RzAb12CdEf34",
    # three qualifiers or more, and a year or a date as the version: still in clear after
    # the two-qualifier rule, whose version was three digits at most
    "DB_PASSWORD_PROD_ADMIN_V2=Xq9vT2mLp4Rz",
    "API_KEY_PROD_RO_BACKUP_V3=Xq9vT2mLp4RzAb12CdEf34",
    "GITHUB_TOKEN_2024=Xq9vT2mLp4RzAb12CdEf34",
    "API_KEY_20240101=Xq9vT2mLp4RzAb12CdEf34",
    'dbPasswordProdAdminV2: "Xq9vT2mLp4Rz"',
]
UNCHANGED = [
    "TOKEN_TTL=3600", "PASSWORD_FILE=/run/secrets/pw", "password_v2: str",
    "token_1 = None", "TOKEN_BASE_URL=https://auth.example.com",
    "bypass_prod=Xq9vT2mLp4Rz", "the token_prod: see the vault", "SECRET_KEY_BASE_DUMMY=1",
    "tokenTtl: 3600", "passwordFile: /run/secrets/pw", "tokenProd: str", "secretBase = None",
    "tokenProducer = make()", "API_KEY_PROD_URL=https://api.example.com", "token_1_2 = 3",
    "TOKEN_2024_TTL=3600", "API_KEY_PROD_V2_URL=https://api.example.com",
]


@pytest.mark.parametrize("text", QUALIFIED)
def test_a_qualified_credential_name_is_read_as_its_name(text: str) -> None:
    redacted, count = redact(text)
    value = re.split(r"[=:]\s*", text)[-1].strip().strip('"')
    assert len(value) >= 8
    assert count == 1 and value not in redacted and "[REDACTED:secret]" in redacted
    assert redact(redacted) == (redacted, 0)


@pytest.mark.parametrize("text", UNCHANGED)
def test_names_beside_them_that_hold_none_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_the_real_cli_refuses_a_rails_secret_key_base(home: Path, project: Path) -> None:
    done = waymarks("--home", str(home), "--cwd", str(project), "--json", "memory", "add",
                    f"Production runs with SECRET_KEY_BASE={HEX}", cwd=project)
    assert done.returncode == 2, done.stdout
    assert json.loads(done.stdout)["code"] == "credential"
    assert HEX not in done.stdout + done.stderr


def test_the_real_cli_refuses_a_name_with_two_qualifiers_and_a_camel_cased_one(
        home: Path, project: Path) -> None:
    for text in ("Production deploy uses API_KEY_PROD_V2=Xq9vT2mLp4RzAb12CdEf34",
                 'The web config sets apiKeyLive: "Xq9vT2mLp4RzAb12CdEf35"'):
        done = waymarks("--home", str(home), "--cwd", str(project), "--json", "memory",
                        "add", text, cwd=project)
        assert done.returncode == 2, done.stdout
        assert json.loads(done.stdout)["code"] == "credential"
        assert "Xq9vT2mLp4RzAb12CdEf3" not in done.stdout + done.stderr


@pytest.mark.parametrize("name", ["SESSION_KEY", "DEPLOY_KEY", "JWT_KEY", "APP_KEY", "CLIENT_KEY",
                                  "LICENSE_KEY", "HMAC_KEY", "WEBHOOK_KEY", "SERVICE_KEY",
                                  "storageKey", "csrf_key"])
def test_a_key_named_for_what_it_signs_or_opens_is_a_credentials_name(name: str) -> None:
    """``SESSION_KEY=…`` in a .env, ``DEPLOY_KEY: …`` in a CI file, Laravel's ``APP_KEY``:
    a ``key`` counted only after api, access, secret, private, signing, encryption,
    master, account or auth, and these values went to remote models in clear."""
    redacted, count = redact(f"{name}=Xq9vT2mLp4RzAb12CdEf34")
    assert count == 1 and "Xq9vT2mLp4RzAb12CdEf34" not in redacted


@pytest.mark.parametrize("text", ["PRIMARY_KEY=id", "CACHE_KEY=user_profile", "SORT_KEY=created_at",
                                  "APP_KEY_PATH=/etc/app.key", "client_key: str",
                                  "session_key = request.session.session_key"])
def test_other_keys_stay(text: str) -> None:
    assert redact(text) == (text, 0)


@pytest.mark.parametrize("text", [
    'storage_key = "avatars/2024/user-123.png"',  # an object's key in a bucket
    "The upload's storage_key: uploads/2024/avatar_7.png",
    "client_key: certs/client-2024.key",  # the key file's path
    "private_key: keys/prod/signing.pem",
    'DEPLOY_KEY="ci/deploy_ed25519.pub"',
])
def test_a_relative_path_to_a_file_is_no_credential(text: str) -> None:
    """With ``STORAGE_KEY``, ``CLIENT_KEY`` and ``DEPLOY_KEY`` credential names, a path
    relative to a folder (an object key in a bucket, a key file's place) was their value,
    six characters mixing letters, digits and symbols, and ``memory add`` refused a note
    naming it; an absolute path stayed. A path of names ending in a file's extension
    is one too; a random segment in it still makes it a secret."""
    assert redact(text) == (text, 0)


def test_a_random_segment_in_a_relative_path_still_goes() -> None:
    redacted, count = redact('storage_key = "Xq9vT2mLp4RzAb12/x.png"')
    assert count == 1 and "Xq9vT2mLp4RzAb12" not in redacted
