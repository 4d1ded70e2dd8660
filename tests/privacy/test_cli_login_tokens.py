"""A token a CLI logs in or publishes with, given as an argument where no flag or
assignment names it (``cargo login TOKEN``, ``ngrok authtoken TOKEN``, ``ngrok config
add-authtoken TOKEN``) or after a short flag (``twine upload -u __token__ -p TOKEN``,
``poetry publish -p TOKEN``, ``doctl auth init -t TOKEN``): each went out in clear. The
token goes; a variable, a bare command (it prompts) and a sentence stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, shape_tests

PW = "Xk9vT2pQ" + "7mLwR4sZ"

#: each holds PW once: what stays is the text with PW redacted
LOGINS = [
    f"cargo login {PW}",
    f"cargo login --registry my-registry {PW}",
    f"ngrok authtoken {PW}",
    f"ngrok config add-authtoken {PW}",
    f"twine upload -u __token__ -p {PW} dist/*",
    f"poetry publish --build -u __token__ -p {PW}",
    f"doctl auth init -t {PW}",
]

STAYS = """cargo login
cargo login $CARGO_REGISTRY_TOKEN
run cargo login to sign in
ngrok config add-authtoken $NGROK_AUTHTOKEN
twine upload -p $PYPI_TOKEN dist/*
doctl auth init -t ${DO_TOKEN}""".splitlines()


def test_the_cli_refuses_to_keep_it(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, f"publish: cargo login {PW}", PW)


test_the_token_is_redacted, test_a_variable_or_a_prompt_stays = shape_tests(
    [(text, text.replace(PW, "[REDACTED:secret]")) for text in LOGINS], STAYS)
