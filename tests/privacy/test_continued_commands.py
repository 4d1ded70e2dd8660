"""A command written over several lines, each but the last ending in ``\\`` (AWS's docs
write every example so: ``aws secretsmanager create-secret \\`` then ``--name …`` and
``--secret-string …`` on lines of their own): the rules reading a command's flags looked
for them on its first line only, so the password or secret on a later line went to the
model in clear, and a pin holding it was stored. Read on the lines a ``\\`` continues the
command to; a line no ``\\`` continues to is another command."""

from __future__ import annotations

import pytest

from tests.privacy.digests import assert_one_secret_redacted
from waymarks.core.secrets import redact

PW = "Xk9mQ2pL7vR3tY8w"
RED = "[REDACTED:secret]"

#: (the command's lines, its secret's place as ``{}``)
CASES: list[str] = [
    "aws secretsmanager create-secret \\\n    --name MyTestSecret \\\n"
    "    --secret-string '{}'",
    "aws ssm put-parameter \\\n  --name /db/pw --type SecureString \\\r\n  --value {}",
    'gh secret set DEPLOY \\\n  --body "{}"',
    "az keyvault secret set \\\n  --vault-name v --name db \\\n  --value {}",
    "docker login \\\n  -u ci -p {} ghcr.io",
    "mysql -u root \\\n  -p{} app",
    "curl -X POST \\\n  -u admin:{} https://api.example.com",
    "smbclient //srv/share \\\n  -U admin%{}",
]


@pytest.mark.parametrize("shape", CASES)
def test_a_secret_on_a_continued_line_is_redacted(shape: str) -> None:
    assert_one_secret_redacted(shape.format(PW), shape.format(RED))


@pytest.mark.parametrize("text", [
    "docker login ghcr.io\n  -p {} is how the old docs wrote it",
    "mysql -u root\n-p{}",
    "curl -X POST https://x \\\n  -d 'a=b'; echo -u ci:{}",
])
def test_a_line_no_backslash_continues_to_is_another_command(text: str) -> None:
    assert redact(text.format(PW)) == (text.format(PW), 0)
