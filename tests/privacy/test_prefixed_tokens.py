"""A service's token known by its prefix and a random body where no vendor rule fits:
a SendGrid key of other lengths ("fix: remove hardcoded sendgrid key SG.x7Fq….Wk3m… from
settings.py"), a prefix no rule knows ("set DEPLOY_KEY after rotation (new value
dk_83hf9Qz2LmXr7Tn)", a key's word before Perplexity's ``pplx-``). Each went to a remote
model in clear at eaddfd3d. Names in code, hashes, UUIDs, slugs and versions stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_kept_from_provider, assert_pin_refused, shape_tests

SG = "SG.x7Fq2LpRt9.Wk3mNz8VbYc1Hd4Jg6Ts0Ae5Ru"
S = "[REDACTED:secret]"

test_each_token_goes_on_every_path, test_each_look_alike_stays = shape_tests([
    ("chore(ci): set DEPLOY_KEY after rotation (new value dk_83hf9Qz2LmXr7Tn)",
     f"chore(ci): set DEPLOY_KEY after rotation (new value {S})"),
    ("the perplexity api key is pplx-Ab3dE5fG7hJ9kL1mN3pQ5rS7 for now",
     f"the perplexity api key is {S} for now"),
    ("render token rnd_Xk2Lm9Pq4Rt7Vw1Zy", f"render token {S}"),
    ("ak_Qm3x8ZkL2pR7vT1n goes in the worker's env", f"{S} goes in the worker's env"),
    ("shippo_live_Qm3x8ZkL2pR7vT1nW9yB4c in the worker", f"{S} in the worker"),
], [
    "get_userAccountById2 test_parseHTTPHeaders my_variableName1 self._private_thing",
    "run-0412 step-12000 sha-4f2a9c1d a7Bc9dEf2 build_2024abcDEF123",
    "tok_1a2b3c4d5e6f7a8b uuid-5d0c6f3e8a1b4e2f9c7d api_v2_endpointHandler3",
    "test_a_pin_holding_a_device_code_is_refused_by_the_cli",
    "the bucket id is 5d0c6f3e-8a1b-4e2f-9c7d-1a2b3c4d5e6f, see terraform output",
    "SG.abcdefghijkl.mnopqrstuvwxyzabcd is a made-up placeholder",
    "checkpoint is at s3://ml-artifacts/ckpt/run-0412/step-12000/",
    "the tool call toolu_01A09q90qw90lq917835lq9 answered msg_01XFDUDYJgAACzvnptvVoYEL",
    "refund customer cus_N3x9Lm2Kq8Rt7Vw1 for the token plan",
    'REF = "src_Kj59fRSoXsDjAV8F"',
    "the run mytool_Qm3x8ZkL2pR7vT1n finished",
])


def test_a_pin_holding_a_prefixed_token_is_refused_by_the_cli(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "new value dk_83hf9Qz2LmXr7Tn for the deploy job",
                       "dk_83hf9Qz2LmXr7Tn")


def test_a_stored_sendgrid_key_is_kept_from_a_remote_model(tmp_path: Path) -> None:
    assert_kept_from_provider(tmp_path, f"remove the hardcoded sendgrid key {SG}", SG,
                              "sendgrid", "[REDACTED:sendgrid-key]")


def test_a_sendgrid_key_of_other_lengths_is_redacted_whole() -> None:
    from waymarks.core.secrets import credential_kinds, redact

    text = f"fix: remove hardcoded sendgrid key {SG} from settings.py"
    assert redact(text) == (
        "fix: remove hardcoded sendgrid key [REDACTED:sendgrid-key] from settings.py", 1)
    assert credential_kinds(text) == ["sendgrid-key"]
