"""Four gaps a review found in what reaches a remote model (README listed them as known):
a quoted value with spaces lost only its first word, a quoted value with an escape inside
was cut there, escaped quotes in a tool call's JSON ``arguments`` hid a password flag, and
a base64 ``text/plain`` document went out as an opaque blob."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from tests.privacy.test_sanitize import LOCAL, LOCAL_SPAN, ok, run
from waymarks.core.secrets import credential_kinds, redact
from waymarks.planner.sanitize.fast import quick

GHP = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


# -- quoted values: to the closing quote --------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ('password = "correct horse battery staple"', 'password = "[REDACTED:secret]"'),
    ("db_password: 'my long pass phrase 42'", "db_password: '[REDACTED:secret]'"),
    ('{"api_key": "see the vault", "n": 1}', '{"api_key": "[REDACTED:secret]", "n": 1}'),
    ('--password "two words here" --verbose', '--password "[REDACTED:secret]" --verbose'),
    # an escape inside: the value runs on past it
    ('api_key = "abc\\"Xy9kLmN0pq"', 'api_key = "[REDACTED:secret]"'),
    ('token: "S3cr3t\\u0021Pass"', 'token: "[REDACTED:secret]"'),
    # JSON holding JSON: escaped quotes open and close it, its own are escaped twice
    ('{"arguments": "{\\"password\\": \\"correct horse \\\\\\"x\\\\\\" y\\"}"}',
     '{"arguments": "{\\"password\\": \\"[REDACTED:secret]\\"}"}'),
    # (a second re-review) one word among symbols, another quote inside, a backticked one
    ('"password": "hunter2 !!"', '"password": "[REDACTED:secret]"'),
    ('password = "@@@ hunter2"', 'password = "[REDACTED:secret]"'),
    ("db_password = 'Xy9\"Q7z!kk'", "db_password = '[REDACTED:secret]'"),
    ("export PGPASSWORD='S3cr3t pa\"ss'", "export PGPASSWORD='[REDACTED:secret]'"),
    ("PASSWORD=`S3cr3tXyz1`", "PASSWORD=`[REDACTED:secret]`"),
    # (a third) a value starting with an escape: a shell's \$
    ('export DB_PASSWORD="\\$uper5ecretP4ss"', 'export DB_PASSWORD="[REDACTED:secret]"'),
    ("token = '\\'Xk9mQ2zz7'", "token = '[REDACTED:secret]'"),
])
def test_a_quoted_value_goes_whole(text: str, expected: str) -> None:
    assert redact(text)[0] == expected
    assert redact(expected)[0] == expected  # idempotent


@pytest.mark.parametrize("text", [
    'password: "${DB_PASSWORD}"', 'secret: "{{ secrets.deploy }}"',
    'api_key: "<your key here>"', '{"token_label": "Access token"}',
    'prompt_password = "Enter your password:"', 'password = "**** ****"',
    'the password is "correct horse"',  # prose: no separator after the name
    'password = "a" + "b c"',  # a closed value, then code
    # (a re-review) separators, placeholders, Markdown code spans, strings in JSON
    'token = ", ".join(tokens)', 'sep_token = " | "', 'token = "TODO: fill me in"',
    "Set `GITHUB_TOKEN=` in the env and then run `make deploy` again.",
    "Pass `--token ` then run `deploy.sh` once more.",
    '{"command": "grep -rn \'token: \' src/", "description": "Find where \'src\' sets it"}',
    # (a third) code building a line, and backticked code (a shell's command, Markdown)
    'msg = \'password: "\' + pw + \'"\'', 'print("token: \'" + t + "\'")',
    "PASSWORD=`cat /run/secrets/db`", "token = `git rev-parse HEAD`",
    "- `token`: `the access token for the API`",
    "password: `correct horse battery staple`",
])
def test_what_names_no_secret_stays(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_write_naming_a_passphrase_is_refused_by_its_kind() -> None:
    assert credential_kinds('The staging password = "correct horse battery staple".') \
        == ["secret"]


# -- tool-call arguments: read decoded ----------------------------------------------------


def tool_call(arguments: str) -> dict[str, Any]:
    return {"model": "gpt-4.1", "messages": [
        {"role": "user", "content": "run it"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "bash", "arguments": arguments}}]}]}


def arguments_of(payload: dict[str, Any]) -> Any:
    return json.loads(payload["messages"][1]["tool_calls"][0]["function"]["arguments"])


@pytest.mark.parametrize(("command", "secret"), [
    ('mysql -uroot -p"S3cret pw" shop', "S3cret"),
    ("curl -u deploy:\"Hunter2x9\" https://x.test", "Hunter2x9"),
    ("smbclient //h/s -U \"me%Pa55word\"", "Pa55word"),
    (f"echo {GHP[:20]}\u200b{GHP[20:]}", GHP[20:]),  # \u200b: an escape, ensure_ascii
])
def test_a_credential_escapes_hid_in_arguments_is_redacted(command: str, secret: str) -> None:
    arguments = json.dumps({"command": command, "timeout": 30})
    assert secret in arguments or "\\u200b" in arguments
    outcome = run(tool_call(arguments))
    assert outcome.payload is not None and outcome.redacted_values >= 1
    decoded = arguments_of(outcome.payload)  # still JSON, the rest as it was
    assert secret not in decoded["command"] and "[REDACTED:" in decoded["command"]
    assert decoded["timeout"] == 30


def test_arguments_with_escapes_and_no_credential_are_the_same_string() -> None:
    arguments = json.dumps({"path": "a.py", "text": 'print("hi")\n\tdone\u00e9'})
    out = ok(tool_call(arguments))
    assert out["messages"][1]["tool_calls"][0]["function"]["arguments"] is arguments


def test_the_fast_path_sends_escaped_arguments_to_the_full_walk() -> None:
    from waymarks.core.secrets import might_contain_secret

    hidden = json.dumps({"c": "mysql\t-uroot\t-pS3cret99 shop"})  # tabs escaped: \\t
    assert not might_contain_secret(hidden)  # the raw text passes the pre-test
    message = tool_call(hidden)["messages"][1]
    assert not quick(message, might_contain_secret)
    assert "S3cret99" not in arguments_of(ok(tool_call(hidden)))["c"]
    plain = tool_call(json.dumps({"c": "ls -la"}))["messages"][1]
    assert quick(plain, might_contain_secret)


# -- base64 text documents ----------------------------------------------------------------


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def document(media_type: str, data: str) -> dict[str, Any]:
    return {"model": "claude-x", "system": "s", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "read this"},
        {"type": "document", "source": {"type": "base64", "media_type": media_type,
                                        "data": data}}]}]}


def source_of(payload: dict[str, Any]) -> dict[str, Any]:
    blocks = payload["messages"][0]["content"]
    return blocks[1]["source"] if len(blocks) > 1 else {}


@pytest.mark.parametrize("media_type", ["text/plain", "text/markdown; charset=utf-8",
                                        "application/json"])
def test_a_base64_text_document_is_read_and_encoded_again(media_type: str) -> None:
    outcome = run(document(media_type, b64(f"notes\ntoken: {GHP}\nend")))
    assert outcome.payload is not None and outcome.redacted_values == 1
    source = source_of(outcome.payload)
    assert source["media_type"] == media_type
    text = base64.b64decode(source["data"]).decode()
    assert GHP not in text and text.startswith("notes\ntoken: [REDACTED:")


def test_a_local_only_span_in_a_base64_document_is_withheld() -> None:
    outcome = run(document("text/plain", b64(f"public part {LOCAL_SPAN} more")))
    assert outcome.payload is not None and outcome.removed_blocks == 1
    text = base64.b64decode(source_of(outcome.payload)["data"]).decode()
    assert "home address" not in text and text.startswith("public part")
    # a local provider gets it without the tags
    local = ok(document("text/plain", b64(f"public part {LOCAL_SPAN} more")), "ollama")
    assert "home address" in base64.b64decode(source_of(local)["data"]).decode()


def test_a_clean_base64_document_is_kept_as_it_is() -> None:
    data = b64("nothing to see here\n")
    payload = document("text/plain", data)
    out = ok(payload)
    assert source_of(out)["data"] is data


@pytest.mark.parametrize("data", ["not base64 at all!", b64("x")[:-1]])
def test_a_text_document_that_cannot_be_read_is_withheld(data: str) -> None:
    outcome = run(document("text/plain", data))
    assert outcome.payload is not None and outcome.removed_blocks == 1
    assert data not in json.dumps(outcome.payload)


def test_binary_documents_and_images_stay_opaque() -> None:
    pdf = document("application/pdf", "JVBERi0xLjQK")
    assert source_of(ok(pdf))["data"] == "JVBERi0xLjQK"


def test_a_text_file_as_a_data_uri_is_read_too() -> None:
    uri = "data:text/plain;base64," + b64(f"key {GHP}")
    payload = {"model": "gpt-4.1", "messages": [{"role": "user", "content": [
        {"type": "file", "file": {"filename": "a.txt", "file_data": uri}}]}]}
    out = ok(payload)
    shown = out["messages"][0]["content"][0]["file"]["file_data"]
    assert shown.startswith("data:text/plain;base64,")
    assert GHP not in base64.b64decode(shown.split(",", 1)[1]).decode()
    image = "data:image/png;base64,iVBORw0KGgo="
    kept = {"model": "gpt-4.1", "messages": [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": image}}]}]}
    assert ok(kept)["messages"][0]["content"][0]["image_url"]["url"] == image


def test_for_a_local_provider_nothing_is_decoded_or_changed() -> None:
    payload = tool_call(json.dumps({"c": "mysql -p\"S3cret\""}))
    out = ok(payload, "ollama", LOCAL)
    assert out["messages"][1]["tool_calls"][0]["function"]["arguments"] \
        == payload["messages"][1]["tool_calls"][0]["function"]["arguments"]


# -- a re-review of the above ---------------------------------------------------------------


def test_arguments_keep_their_numbers_keys_and_spacing_when_one_string_is_redacted() -> None:
    arguments = ('{"c": "mysql -u root -p\\"S3cret99\\"", "c": "ls",  "n": 1E5, '
                 '"big": 1e400, "z": -0}')
    out = ok(tool_call(arguments))["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert "S3cret99" not in out and "[REDACTED:" in out
    assert out.endswith('"c": "ls",  "n": 1E5, "big": 1e400, "z": -0}')


def test_arguments_cut_short_are_read_too() -> None:
    arguments = '{"c": "mysql -u root -p\\"S3cret99\\"", "more": "trunc'
    out = ok(tool_call(arguments))["messages"][1]["tool_calls"][0]["function"]["arguments"]
    assert "S3cret99" not in out and out.endswith('"more": "trunc')


def test_an_escaped_slash_takes_the_full_walk_alone_or_not() -> None:
    from waymarks.core.secrets import might_contain_secret

    url = "https://hooks.slack.com/services/TDd9X8vl9/BMnAy6LqY/iracnqhbvr9j7b1slQf6XQq6"
    raw = json.dumps({"c": "curl -X POST " + url}).replace("/", "\\/")
    message = tool_call(raw)["messages"][1]
    assert not quick(message, might_contain_secret)
    assert "iracnqhbvr9j7b1slQf6XQq6" not in json.dumps(ok(tool_call(raw)))


@pytest.mark.parametrize("head", ["DATA:text/plain;base64,", "data:Text/Plain;base64,",
                                  "data:text/plain;BASE64,"])
def test_a_data_uri_is_read_in_any_case(head: str) -> None:
    payload = {"model": "gpt-4.1", "messages": [{"role": "user", "content": [
        {"type": "file", "file": {"filename": "a.txt", "file_data": head + b64(f"k {GHP}")}}]}]}
    shown = ok(payload)["messages"][0]["content"][0]["file"]["file_data"]
    assert shown.startswith(head) and GHP not in base64.b64decode(shown[len(head):]).decode()


def test_a_latin1_or_utf16_or_wrapped_text_document_is_read_and_kept_in_its_encoding() -> None:
    latin = "Jos\u00e9;M\u00e1laga;token: " + GHP + "\n"
    for codec in ("latin-1", "utf-16"):
        data = base64.b64encode(latin.encode(codec)).decode()
        out = run(document("text/csv", data))
        assert out.payload is not None and out.redacted_values == 1, codec
        text = base64.b64decode(source_of(out.payload)["data"]).decode(codec)
        assert text.startswith("Jos\u00e9;M\u00e1laga;token: [REDACTED:"), codec
    wrapped = "\n".join(b64(f"token: {GHP}")[i:i + 8] for i in range(0, 60, 8))
    out = run(document("text/plain", wrapped))
    assert out.payload is not None and out.redacted_values == 1
    # a local provider gets a blob nothing can read as it is
    assert source_of(ok(document("text/plain", "not base64 at all!"), "ollama"))["data"] \
        == "not base64 at all!"


def test_string_literals_are_found_in_one_pass_and_an_open_one_ends_the_scan() -> None:
    """A second re-review: an expression tried from every quote took time quadratic in a
    call cut inside a string (100 KB: 22 s a request, each time the history was sent)."""
    from waymarks.planner.sanitize.walker import _string_literals

    text = '{"a": "x\\"y", "b": 1, "c": "open \\" and'
    assert [text[s:e] for s, e in _string_literals(text)] == ['"a"', '"x\\"y"', '"b"', '"c"']
    cut = json.dumps({"path": "a.py", "content": 'print("password %d" % i)\n' * 5000})[:60_000]
    assert len(list(_string_literals(cut))) == 3  # path, a.py, content: the rest is open
    assert ok(tool_call(cut))["messages"][1]["tool_calls"][0]["function"]["arguments"] == cut


@pytest.mark.parametrize("codec", ["utf-32", "utf-16-le"])
def test_text_with_nul_bytes_in_no_known_encoding_is_withheld_not_read_as_latin1(
        codec: str) -> None:
    """A second re-review: UTF-32, and UTF-16 without a byte-order mark, read as Latin-1
    had a NUL between every two characters, where no rule matches: the token went out."""
    data = base64.b64encode(f"Donn\u00e9es\nkey {GHP}\n".encode(codec)).decode()
    out = run(document("text/plain", data))
    assert out.payload is not None and GHP not in json.dumps(out.payload)
    if codec == "utf-32":  # a byte-order mark: read
        assert out.redacted_values == 1
    else:
        assert out.removed_blocks == 1


def test_a_stray_quote_in_arguments_that_are_not_json_hides_no_later_line() -> None:
    """A third re-review: literals paired across lines after a stray quote, so an
    escaped token on a later line went out."""
    arguments = 'Reply to "Bob\n{"note": "ghp\\u005f' + GHP[4:] + '"}'
    out = run(tool_call(arguments))
    assert out.payload is not None and out.redacted_values == 1
    assert GHP[4:] not in json.dumps(out.payload)


def test_a_utf8_document_with_a_stray_nul_is_read_not_dropped() -> None:
    data = base64.b64encode(b"line1\nline2\x00\n").decode()
    out = run(document("text/plain", data))
    assert out.payload is not None and out.removed_blocks == 0
    assert source_of(out.payload)["data"] == data
