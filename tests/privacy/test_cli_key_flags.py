"""A key given to a command line's flag named for what it opens: the Azure CLI's
``--account-key`` (``az storage blob upload --account-key …``), MinIO's ``--secret-key``,
datadog-ci's ``--app-key``, a ``--master-key``: their values went out in clear (the flag
rule read ``--password``, ``--token``, ``--secret`` and ``--api-key`` only). A path, a
reference, a public key's ID (``--signing-key``) and a flag naming a file stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests

PW = "Xk9vT2pQ7mLwR4sZ"

#: each holds PW once, a flag's value: what stays is the text with PW redacted
GIVEN = [
    f"az storage blob upload --account-key {PW} --account-name st -f a.txt",
    f'az storage container list --account-name st --account-key "{PW}"',
    f"mc admin user add local --secret-key {PW}",
    f"datadog-ci sourcemaps upload ./dist --app-key {PW}",
    f"meili --master-key={PW}",
    f"meilisearch --master-key {PW} --env production",
    f"tool --client-key '{PW}'",
]

#: what stays: a path, a reference, a public key's ID, a file flag
UNCHANGED = """ssh-agent --private-key ~/.ssh/id_ed25519
git commit --gpg-sign --signing-key ABCDEF12
az storage blob upload --account-key $AZURE_STORAGE_KEY --account-name st
aws iam create-access-key --user-name ci
tool --api-key-file ./secrets/api.key
tool --access-key-id AKIA-NOT-SHOWN-HERE""".splitlines()


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"upload: az storage blob upload --account-key {PW}", PW)


test_the_key_is_redacted, test_a_path_or_reference_stays = shape_tests(
    [(text, text.replace(PW, "[REDACTED:secret]")) for text in GIVEN], UNCHANGED)
