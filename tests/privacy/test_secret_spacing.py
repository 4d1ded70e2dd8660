"""A planning and privacy review: credentials the rules missed because of the spaces
around them (each test failed before its fix)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.inprocess import waymarks
from waymarks.core.secrets import find_secrets, redact

#: spaces that do not end a line: no-break, narrow no-break, figure, ideographic, thin
SPACES = ["\u00a0", "\u202f", "\u2007", "\u3000", "\u2009"]
SHAPES = [
    ("Call the billing API with Authorization: Bearer{s}sk9Qx2LmP4vT7nR1wZ8yK3", "bearer",
     "sk9Qx2LmP4vT7nR1wZ8yK3"),
    ("deploy --token{s}Qx2LmP4vT7nR1wZ8", "secret", "Qx2LmP4vT7nR1wZ8"),
    ("Authorization: Basic{s}dXNlcjpwYXNzd29yZA==", "basic-auth", "dXNlcjpwYXNzd29yZA"),
    ("Authorization:{s}token{s}Qx2LmP4vT7nR1wZ8abc", "auth-token", "Qx2LmP4vT7nR1wZ8abc"),
    # the name = value rule (a re-read: the space before its separator was still ASCII)
    ("Use this: DB_PASSWORD{s}= Xq9vT2mLp4Rz", "secret", "Xq9vT2mLp4Rz"),
    ('{{"password"{s}:{s}"Xq9vT2mLp4Rz"}}', "secret", "Xq9vT2mLp4Rz"),
    ("api_key{s}:{s}Xq9vT2mLp4Rz", "secret", "Xq9vT2mLp4Rz"),
]


@pytest.mark.parametrize("space", SPACES, ids=lambda c: f"U+{ord(c):04X}")
@pytest.mark.parametrize(("shape", "kind", "value"), SHAPES, ids=[s[1] for s in SHAPES])
def test_a_space_that_does_not_end_a_line_still_leads_to_a_credential(
        space: str, shape: str, kind: str, value: str) -> None:
    """``Bearer`` or ``--token`` followed by a no-break space (text pasted from a rich
    editor or a chat) was neither refused at write nor redacted: the rules wanted an
    ASCII space or a tab."""
    text = shape.format(s=space)
    assert [span.kind for span in find_secrets(text)] == [kind]
    redacted, count = redact(text)
    assert count == 1 and value not in redacted and f"[REDACTED:{kind}]" in redacted


def test_a_line_break_is_no_such_space() -> None:
    """Only ``Bearer``'s own rule takes a token alone on the next line (and only as the
    whole line); the flag's value is never read across a line end."""
    assert find_secrets("deploy --token\u2028Qx2LmP4vT7nR1wZ8") == []
    assert find_secrets("the --token\nQx2LmP4vT7nR1wZ8 is elsewhere") == []


def test_a_pin_with_a_no_break_space_after_bearer_is_refused(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    env = {"WAYMARKS_HOME": str(home), "WAYMARKS_SEMANTIC": "off"}
    done = waymarks("pin", "--", SHAPES[0][0].format(s="\u00a0"), env=env, cwd=project)
    assert done.returncode == 2 and "credential (bearer)" in done.stdout + done.stderr
    plan = waymarks("--json", "plan", "--prompt", "billing API", env=env, cwd=project)
    assert plan.returncode == 0 and "sk9Qx2LmP4vT7nR1wZ8yK3" not in plan.stdout
    assert json.loads(plan.stdout)["manifest"]["entries"] == []


TOKEN_HEAD, TOKEN_TAIL = "ghp_A1b2C3d4E5f6G7h8I9j0", "K1l2M3n4O5p6Q7r8"


@pytest.mark.parametrize(("text", "expected"), [
    # a Markdown hard break: two spaces end the first line
    (f"The release upload uses the CI token {TOKEN_HEAD}  \n{TOKEN_TAIL}\n",
     "The release upload uses the CI token [REDACTED:github-token]\n"),
    # a list item's continuation, indented
    (f"- token {TOKEN_HEAD}\n  {TOKEN_TAIL}\n- next\n",
     "- token [REDACTED:github-token]\n- next\n"),
    # a quotation's
    (f"> token {TOKEN_HEAD}\n> {TOKEN_TAIL}  \n> more\n",
     "> token [REDACTED:github-token]  \n> more\n"),
    (f"token {TOKEN_HEAD}\t\r\n\t{TOKEN_TAIL}\r\nend", "token [REDACTED:github-token]\r\nend"),
], ids=["hard-break", "indented", "quoted", "tabs-crlf"])
def test_the_tail_of_a_wrapped_credential_goes_with_it_past_spaces_and_quotes(
        text: str, expected: str) -> None:
    """The tail had to start its line right after the break that ended the credential: a
    hard break, an indented or a quoted continuation sent it whole."""
    assert redact(text) == (expected, 1)


@pytest.mark.parametrize("after", [
    "  Deploy tomorrow", "> Done", "  v1.2.3", "  indented12345 code", "> OTHER=value1",
    "- abc12345xyz", "  12345678",
])
def test_an_ordinary_indented_or_quoted_line_after_a_credential_stays(after: str) -> None:
    text = f"token {TOKEN_HEAD}{TOKEN_TAIL}  \n{after}\nend"
    assert redact(text) == (f"token [REDACTED:github-token]  \n{after}\nend", 1)


def test_a_docs_passage_sends_no_tail_of_a_wrapped_credential(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    env = {"WAYMARKS_HOME": str(home), "WAYMARKS_SEMANTIC": "off"}
    assert waymarks("trust", str(project), env=env, cwd=project).returncode == 0
    docs = project / "docs" / "engineering"
    docs.mkdir(parents=True)
    (docs / "release.md").write_text("# Release upload\n\nThe release upload uses the CI "
                                     f"token {TOKEN_HEAD}  \n{TOKEN_TAIL}\n")
    plan = waymarks("plan", "--prompt", "release upload token", env=env, cwd=project)
    assert plan.returncode == 0 and "[REDACTED:github-token]" in plan.stdout
    assert TOKEN_TAIL not in plan.stdout and TOKEN_HEAD not in plan.stdout


@pytest.mark.parametrize("text", [
    "Le token\u00a0: expire\u00a0? Non, il dure une heure.",
    "La cl\u00e9 secret\u00a0: \u00ab\u00a0valeur\u00a0\u00bb est un exemple.",
    "token\u00a0: aucun\u00a0; voir\u00a0: doc",
    "Le token\u00a0: ghp-style\u00a0\u2014 \u00e0 renouveler",
])
def test_french_typography_is_no_credential(text: str) -> None:
    """A re-read: once a name's gap took a no-break space, an unquoted value ran on
    across the no-break spaces French typography puts before ``:``, ``?`` and ``;``
    (``\\s`` under ``re.ASCII`` does not take them): sentences were refused and
    redacted that the same words with ASCII spaces never were."""
    assert find_secrets(text) == [] == find_secrets(text.replace("\u00a0", " "))
    assert redact(text) == (text, 0)


@pytest.mark.parametrize("text", [
    "token：Xq9vT2mLp4RzAb12",
    "我的 password：Xq9vT2mLp4RzAb12，别外传",
    "API_KEY＝Xq9vT2mLp4RzAb12",
    "api_key： Xq9vT2mLp4RzAb12",
    'DB_PASSWORD＝"Xq9vT2mLp4RzAb12"',
])
def test_a_fullwidth_colon_or_equals_sign_separates_a_name_from_its_value(text: str) -> None:
    """A Chinese or Japanese input method writes ``：`` and ``＝``: after a credential's name
    they went unread (``token：Xq9v…`` stored and sent in clear), while ``密码：…`` after a
    Chinese noun went."""
    redacted, count = redact(text)
    assert count == 1 and "Xq9vT2mLp4RzAb12" not in redacted and "[REDACTED:secret]" in redacted
    assert "别外传" in redacted or "，" not in text  # a full-width comma ends the value
    assert redact(redacted) == (redacted, 0)


@pytest.mark.parametrize("text", ["token：见保险库", "密钥：在 Vault 里", "password：str"])
def test_what_follows_a_fullwidth_colon_is_judged_as_any_value(text: str) -> None:
    assert redact(text) == (text, 0)


@pytest.mark.parametrize("text", [
    "token：请向管理员申请访问权限",
    "- token：每小时自动刷新一次",
    "API_KEY：在控制台的设置页面生成",
    "api_key:在设置页面生成新的密钥",
    "--token 请向运维同学申请",
    "パスワード password：管理者に問い合わせてください",
])
def test_chinese_or_japanese_words_after_a_credentials_name_stay(text: str) -> None:
    """With ``：`` a separator, what a Chinese note says after a credential's name ("token：
    请向管理员申请访问权限", ask the admin for it) was read as its value, six characters
    or more of no ASCII word, and ``memory add`` refused the note: a bare value is no
    ideograph, kana or hangul (those are words); a value before them still goes."""
    assert redact(text) == (text, 0)


def test_a_value_glued_to_chinese_words_still_goes() -> None:
    redacted, count = redact("token：Xq9vT2mLp4RzAb12别外传")
    assert count == 1 and redacted == "token：[REDACTED:secret]别外传"
    # letters and digits typed full-width (an input method left in that mode) are a value
    redacted, count = redact("password=Ｐａｓｓｗ０ｒｄ１２３４（生产）")
    assert count == 1 and redacted == "password=[REDACTED:secret]（生产）"
