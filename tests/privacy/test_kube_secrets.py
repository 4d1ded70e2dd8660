"""A Kubernetes Secret's ``data:`` holds its values in base64, which no rule read through:
``DATABASE_URL: <base64 of postgres://admin:PASSWORD@…>`` and a ``.dockerconfigjson``
went to a remote model in clear, and ``memory add`` stored them. Ordinary base64 in YAML
(a ConfigMap's, a certificate's) must stay."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from tests.privacy.test_header_credentials import _cli, _plan_of_a_ledger_holding
from waymarks.core.secrets import redact

PASSWORD = "S3cr3tPw9"


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


URL = b64(f"postgres://admin:{PASSWORD}@db:5432/app")
DOCKER = b64(json.dumps({"auths": {"registry.example.com": {
    "username": "ci", "password": PASSWORD, "auth": b64(f"ci:{PASSWORD}")}}}))
CERT = b64("-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n")
KEY = b64("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B\n-----END PRIVATE KEY-----\n")
MANIFEST = (f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ntype: Opaque\n"
            f"data:\n  DATABASE_URL: {URL}\n  LOG_TOKEN: \"{b64('t0k-9f8e7d')}\"\n")


@pytest.mark.parametrize("text", [
    MANIFEST,
    # as ``kubectl get secret -o yaml`` writes it: data before kind
    f"apiVersion: v1\ndata:\n  DATABASE_URL: {URL}\nkind: Secret\nmetadata:\n  name: app\n",
    f"apiVersion: v1\nkind: Secret\ntype: kubernetes.io/dockerconfigjson\n"
    f"data:\n  .dockerconfigjson: {DOCKER}\n",
    # an item of ``kubectl get secrets -o yaml``'s List
    f"apiVersion: v1\nitems:\n- apiVersion: v1\n  data:\n    DATABASE_URL: {URL}\n"
    f"  kind: Secret\n  metadata:\n    name: app\nkind: List\n",
    f"kind: \"Secret\"\r\ndata:\r\n    DATABASE_URL: {URL}\r\n",
    # as ``kubectl get secret -o json`` writes it, and compact JSON with its kind first
    json.dumps({"apiVersion": "v1", "data": {"DATABASE_URL": URL, "user": b64("admin")},
                "kind": "Secret", "metadata": {"name": "app", "labels": {"a": "b"}}},
               indent=4),
    json.dumps({"kind": "Secret", "metadata": {"labels": {"a": "b"}},
                "data": {".dockerconfigjson": DOCKER}}),
    # the copy ``kubectl apply`` keeps in an annotation, a JSON string inside the JSON
    json.dumps({"kind": "Secret", "metadata": {"annotations": {
        "kubectl.kubernetes.io/last-applied-configuration": json.dumps(
            {"apiVersion": "v1", "data": {"DATABASE_URL": URL}, "kind": "Secret"})}}}),
])
def test_the_data_of_a_secret_manifest_is_redacted(text: str) -> None:
    redacted, count = redact(text)
    assert count >= 1 and "[REDACTED:kubernetes-secret]" in redacted
    assert URL not in redacted and DOCKER not in redacted and "data" in redacted
    assert "kind" in redacted and "Secret" in redacted  # the manifest around it stays
    assert redact(redacted) == (redacted, 0)


def test_a_tls_secret_holding_a_private_key_goes_whole() -> None:
    text = f"kind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.crt: {CERT}\n  tls.key: {KEY}\n"
    redacted, _ = redact(text)
    assert CERT not in redacted and KEY not in redacted


@pytest.mark.parametrize("text", [
    # a ConfigMap's data, in its own document beside a Secret's stringData
    f"kind: ConfigMap\ndata:\n  logo: {b64('hello world')}\n---\nkind: Secret\n"
    "stringData:\n  LOG_LEVEL: debug\n",
    f"kind: ConfigMap\ndata:\n  logo: {b64('hello world')}\n",
    # a Secret holding only a CA's certificate: public
    f"apiVersion: v1\nkind: Secret\ndata:\n  ca.crt: {CERT}\n",
    # the data of something nested in it, not the Secret's own
    f"kind: Secret\nspec:\n  data:\n    logo: {b64('hello world')}\n",
    # values that are not base64: not a Secret's data
    "kind: Secret\ndata:\n  level: debug\n  mode: fast\n",
    "The Secret object keeps its data: base64 values, one per key.",
    # JSON: a ConfigMap's data beside a Secret in a List, a Secret's CA, a nested data
    json.dumps({"items": [{"kind": "Secret", "metadata": {}},
                          {"data": {"logo": b64("hello world")}, "kind": "ConfigMap"}]}),
    json.dumps({"kind": "Secret", "data": {"ca.crt": CERT}}),
    json.dumps({"kind": "Secret", "spec": {"data": {"logo": b64("hello world")}}}),
    json.dumps({"note": json.dumps({"kind": "ConfigMap", "data": {"a": b64("hello")}}),
                "kind": "Secret"}),
])
def test_ordinary_yaml_and_base64_stay(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_secret_manifest_is_refused_by_the_cli_and_redacted_in_a_plan(
        home: Path, project: Path) -> None:
    manifest = f"kind: Secret\ndata:\n  DATABASE_URL: {URL}\n"
    answer = json.loads(_cli(home, project, "--json", "memory", "add",
                             f"The staging login secret:\n{manifest}", expect=2))
    assert answer["code"] == "credential", answer
    assert not list((home / "sessions").rglob("*.jsonl"))  # nothing was written
    plan = _plan_of_a_ledger_holding(home, project, "\n" + manifest)
    assert URL not in plan and "[REDACTED:kubernetes-secret]" in plan


def test_only_the_values_of_a_secrets_data_are_redacted_its_keys_stay() -> None:
    """The block went whole (``data:⏎  [REDACTED:kubernetes-secret]``): the names of the
    entries, which say what the Secret holds and what a model may need to reason about
    (``DATABASE_URL``, ``LOG_TOKEN``), went with their values."""
    redacted, count = redact(MANIFEST)
    assert count == 2 and URL not in redacted and b64("t0k-9f8e7d") not in redacted
    assert "  DATABASE_URL: [REDACTED:kubernetes-secret]\n" in redacted
    assert '  LOG_TOKEN: "[REDACTED:kubernetes-secret]"\n' in redacted
    assert redact(redacted) == (redacted, 0)


CUT = URL[:-7]  # a paste cut inside the last value: no longer base64 as it stands


@pytest.mark.parametrize("text", [
    f"kind: Secret\nmetadata:\n  name: app\ndata:\n  user: {b64('admin')}\n  DB: {CUT}",
    f"kind: Secret\ndata:\n  DB: {CUT}",
    f'kind: Secret\ndata:\n  user: {b64("admin")}\n  DB: "{CUT}',
    json.dumps({"kind": "Secret", "data": {"user": b64("admin"), "DB": URL}})[:-10],
    json.dumps({"kind": "Secret", "data": {"DB": URL}}, indent=4)[:-12],
])
def test_a_secret_manifest_cut_inside_its_data_keeps_nothing_of_it(text: str) -> None:
    """A manifest pasted cut short inside its ``data:`` (a terminal's scrollback, a chat's
    limit) went out whole: the last value, cut, was no base64, so the block was no
    Secret's data, the complete values before it included."""
    redacted, count = redact(text)
    assert count >= 1 and CUT[:20] not in redacted and b64("admin") not in redacted
    assert redact(redacted) == (redacted, 0)


@pytest.mark.parametrize("text", [
    f"kind: Secret\ndata:\n  # the app's database\n  DATABASE_URL: {URL}\n",
    f"kind: Secret\ndata:\n  API: {{{{ .Values.api | b64enc }}}}\n  DATABASE_URL: {URL}\n",
    f"kind: Secret\ndata:\n  EMPTY: \"\"\n  DATABASE_URL: {URL}\n",
])
def test_a_comment_or_a_template_in_a_secrets_data_hides_no_value(text: str) -> None:
    """A comment line, a chart's template or an empty value among the entries ended the
    block or made it no Secret's data: the base64 values beside it went out in clear."""
    redacted, _ = redact(text)
    assert URL not in redacted and "DATABASE_URL: [REDACTED:kubernetes-secret]" in redacted
    assert redact(redacted) == (redacted, 0)


@pytest.mark.parametrize("text", [
    f"kind: Secret\ndata:\n  DATABASE_URL: {URL} # rotated 2026-11\n",
    f"kind: Secret\ndata:\n  DATABASE_URL: \"{URL}\"  # from vault\r\n  user: {b64('admin')}\n",
    f"kind: Secret\ndata:\n  cfg: |  # a block scalar\n    {URL}\n  n: {b64('admin')} # x\n",
])
def test_a_secrets_value_followed_by_a_comment_is_redacted(text: str) -> None:
    """Read value by value, an entry with a YAML comment after its value (``KEY: BASE64 #
    rotated``) was no value: it went out in clear, where the block went whole before."""
    redacted, count = redact(text)
    assert count >= 1 and URL not in redacted and b64("admin") not in redacted, redacted
    assert "# " in redacted and redact(redacted) == (redacted, 0)  # the comment stays


@pytest.mark.parametrize("text", [
    # a manifest's stringData: plain text, every value the Secret's
    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\nstringData:\n"
    f"  api: {PASSWORD}x\n  MY_CREDS: \"{PASSWORD}y\"\n  conn: postgres://app@db/app\n",
    # loose: the block alone, as a chat or a chart's values file quotes it (stringData is a
    # Secret's field only: no other kind has one)
    f"stringData:\n  db: {PASSWORD}x\n  other: '{PASSWORD}y'\n",
    f"  stringData:\n    db: {PASSWORD}x   # rotated\n    cfg: |\n      {PASSWORD}y\n",
    json.dumps({"kind": "Secret", "stringData": {"db": f"{PASSWORD}x", "other": f"{PASSWORD}y"}}),
])
def test_every_value_of_a_secrets_string_data_is_redacted(text: str) -> None:
    """``stringData:`` was read as plain assignments are: a value under a key that names
    no credential (``api``, ``db``, ``MY_CREDS``) went to the model in clear, though every
    value there is the Secret's."""
    redacted, _ = redact(text)
    assert PASSWORD not in redacted and "[REDACTED:kubernetes-secret]" in redacted, redacted
    assert "stringData" in redacted and ("db" in redacted or "api" in redacted)  # keys stay
    assert redact(redacted) == (redacted, 0)


@pytest.mark.parametrize("text", [
    "stringData:\n  url: \"{{ .Values.url }}\"\n  pw: ${DB_PASSWORD}\n  empty: \"\"\n",
    "Use stringData: for plain values, data: for base64.",
])
def test_templates_and_prose_about_string_data_stay(text: str) -> None:
    assert redact(text) == (text, 0)


@pytest.mark.parametrize("text", [
    # a ConfigMap's data, then a Secret, joined with no ``---`` (two fragments in one note)
    f"kind: ConfigMap\ndata:\n  logo: {b64('hello world')}\n  level: debug\nkind: Secret\n"
    f"data:\n  ca.crt: {CERT}\n",
    f"data:\n  logo: {b64('hello world')}\ndef load(path):\n    return path\nkind: Secret\n"
    f"data:\n  ca.crt: {CERT}\n",
    # a Secret's only certificate, cut by the text's end
    f"kind: Secret\ndata:\n  ca.crt: {CERT[:11]}",
])
def test_a_configmaps_data_beside_a_secret_and_a_cut_certificate_stay(text: str) -> None:
    """Read value by value, a ConfigMap's data before a Secret's kind (in a text joining
    them without ``---``) was taken for the Secret's, and a certificate cut by the text's
    end for a secret: the kind nearest the data in its own object decides, and a cut PEM
    head is a PEM's."""
    assert redact(text) == (text, 0)


EC_KEY = b64("-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n"
             "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fSeQ6tF1a"
             "Y/PuoAoGCCqGSM49\nAwEHoUQDQgAE\n-----END EC PRIVATE KEY-----\n")


@pytest.mark.parametrize("text", [
    f"apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.crt: {CERT}\n"
    f"  tls.key: {EC_KEY}\n",
    f"users:\n- name: admin\n  user:\n    client-key-data: {EC_KEY}\n",
])
def test_an_ec_key_written_after_its_curve_parameters_is_a_private_key(text: str) -> None:
    """``openssl ecparam -genkey`` writes the curve's ``EC PARAMETERS`` block before the
    key: base64-encoded (a TLS Secret's ``tls.key``, kubeconfig's ``client-key-data``) its
    first armour line named no private key, and the key went out in clear, the Secret's
    values read as certificates only."""
    redacted, count = redact(text)
    assert count >= 1 and EC_KEY not in redacted and EC_KEY[:40] not in redacted, redacted


@pytest.mark.parametrize("text", [
    f"kind: Secret\ndata: # base64, rotated monthly\n  DATABASE_URL: {URL}\n",
    f"apiVersion: v1\ndata:  # values\r\n  DATABASE_URL: {URL}\r\nkind: Secret\r\n",
])
def test_a_comment_on_a_secrets_data_line_hides_no_value(text: str) -> None:
    """``data: # …`` (a comment after the block's key) was no data block: every value under
    it went out in clear."""
    redacted, count = redact(text)
    assert count == 1 and URL not in redacted and "# " in redacted
    assert redact(redacted) == (redacted, 0)


@pytest.mark.parametrize("text", [
    f'kind: Secret\ndata:\n  "DATABASE_URL": {URL}\n',
    f"kind: Secret\ndata:\n  'tls.key': {KEY}\n  user: {b64('admin')}\n",
])
def test_a_quoted_key_in_a_secrets_data_hides_no_value(text: str) -> None:
    """A key written in quotes (``"DATABASE_URL": …``, as YAML allows and some generators
    write) made its line no entry: the block ended before it, or was none, and the
    values went out in clear."""
    redacted, count = redact(text)
    assert count >= 1 and URL not in redacted and KEY not in redacted, redacted
    assert b64("admin") not in redacted and redact(redacted) == (redacted, 0)


@pytest.mark.parametrize("text", [
    f"apiVersion: v1\nkind: Secret\nmetadata: {{name: app}}\ndata: {{DATABASE_URL: {URL}, "
    f"user: {b64('admin')}}}\n",
    f"data: {{\"DATABASE_URL\": \"{URL}\", 'user': '{b64('admin')}'}}\nkind: Secret\n",
    f"items:\n- kind: Secret\n  data: {{DATABASE_URL: {URL}, user: {b64('admin')}}}\n",
])
def test_a_secrets_data_in_flow_style_is_redacted(text: str) -> None:
    """``data: {KEY: BASE64, …}``, YAML's flow style on one line, was no data block: its
    values went to the model in clear."""
    redacted, count = redact(text)
    assert count == 2 and URL not in redacted and b64("admin") not in redacted, redacted
    assert "DATABASE_URL" in redacted and "user" in redacted  # the keys stay
    assert redact(redacted) == (redacted, 0)


@pytest.mark.parametrize("text", [
    f"kind: ConfigMap\ndata: {{logo: {b64('hello world')}, level: debug}}\n",
    f"kind: Secret\ndata: {{ca.crt: {CERT}}}\n",
    "data: {mode: fast}\nkind: Secret\n",
])
def test_flow_style_data_of_another_kind_or_of_certificates_stays(text: str) -> None:
    assert redact(text) == (text, 0)


def test_a_secret_s_flow_data_over_several_lines_goes() -> None:
    """A flow block may span lines (``data: {`` then one entry a line, then ``}``, as
    written by hand or by a formatter): read on its first line only, it was no block, and
    its values went to the model in clear."""
    manifest = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata: {\n"
                "  DATABASE_URL: cG9zdGdyZXM6Ly91OnBAaDo1NDMyL2Q=,\n"
                "  \"user\": \"YWRtaW4=\"\n}\n")
    redacted, count = redact(manifest)
    assert count == 2 and "cG9zdGdy" not in redacted and "YWRtaW4" not in redacted
    assert "DATABASE_URL: [REDACTED:kubernetes-secret]," in redacted
