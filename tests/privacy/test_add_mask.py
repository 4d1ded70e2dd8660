"""What a GitHub Actions step masks in its log, ``echo "::add-mask::VALUE"``: the step says
the value is a secret, yet a CI log pasted with its commands echoed (``run: echo
"::add-mask::…"``, a debug log, the workflow file itself) sent it in clear. The value goes;
a reference (``$TOKEN``, ``${{ steps.x.outputs.pw }}``) stays."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests

PW = "Xk9vT2pQ7mLwR4sZ"

#: each holds PW once, the masked value: what stays is the text with PW redacted
MASKED = [
    f"::add-mask::{PW}",
    f'echo "::add-mask::{PW}"',
    f"##[group]Run echo '::add-mask::{PW}'\n##[endgroup]",
    f"      - run: echo \"::add-mask::{PW}\" && ./deploy.sh",
]

UNCHANGED = """echo "::add-mask::$TOKEN"
echo "::add-mask::${{ steps.login.outputs.password }}"
use ::add-mask:: to hide a value in the log""".splitlines()


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"CI log: ::add-mask::{PW}", PW)


test_the_masked_value_is_redacted, test_a_reference_stays = shape_tests(
    [(text, text.replace(PW, "[REDACTED:secret]")) for text in MASKED], UNCHANGED)
