"""A question with two asks joined ("which deploy host and key?"): a claim that names the
subject and answers one of them is an answer (it recalled nothing: "key" was taken for
the subject of a short name + attribute question, and "host and port" needed both)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from waymarks.cli.main import main
from waymarks.recall.plan import direct_plan
from waymarks.recall.scoring import Candidate, Stats, score_all
from waymarks.service.app import Waymarks
from waymarks.service.outcomes import Committed


def remember(app: Waymarks, text: str) -> str:
    outcome = app.remember(text)
    assert isinstance(outcome, Committed), outcome
    return outcome.id


@pytest.fixture
def store(app: Waymarks) -> dict[str, str]:
    texts = {"host": "The deploy host is web1.", "port": "The database port is 5433.",
             "logs": "Logs are kept for 7 days."}
    return {name: remember(app, text) for name, text in texts.items()}


@pytest.mark.parametrize("query", [
    "which deploy host and key?", "deploy host or key?", "the deploy host, and the key?",
    "which deploy host and which key?", "what is the deploy host and port?",
    "deploy host & user?"])
def test_one_ask_answered_is_recalled(app: Waymarks, store: dict[str, str],
                                      query: str) -> None:
    assert app.recall(query, inherit=False).selected == [store["host"]]


def test_each_ask_answered_by_its_own_claim(app: Waymarks, store: dict[str, str]) -> None:
    key = remember(app, "The deploy key lives in the vault at secret/deploy.")
    selected = app.recall("which deploy host and key?", inherit=False).selected
    assert sorted(selected) == sorted([store["host"], key])


def test_the_subject_is_still_needed(app: Waymarks) -> None:
    """Joined asks loosen which attribute a claim says, never the subject it names."""
    remember(app, "PostgreSQL auth uses scram-sha-256 passwords.")
    remember(app, "The SQLite timeout is 5 seconds.")
    assert app.recall("SQLite auth and password?", inherit=False).selected == []
    assert app.recall("SQLite auth?", inherit=False).selected == []


def test_words_joined_without_an_attribute_are_subjects() -> None:
    assert direct_plan("which deploy host and key?").asks == frozenset({"w:host", "w:key"})
    assert direct_plan("redis and postgres?").asks == frozenset()
    assert direct_plan("which deploy host?").asks == frozenset()


def test_cli_recall_finds_the_deploy_host(home: Path, project: Path,
                                          monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    assert main(["memory", "add", "--", "The deploy host is web1."]) == 0
    capsys.readouterr()
    assert main(["--json", "recall", "which deploy host and key?"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [row["excerpt"] for row in out["rows"]] == ["The deploy host is web1."]


def test_subjects_joined_are_each_a_subject(app: Waymarks, store: dict[str, str]) -> None:
    """"redis and deploy host?" asks the host of two subjects: "redis" was taken for the one
    subject of a short question, and the deploy host refused ("does not name redis")."""
    redis = remember(app, "The Redis host is cache1.")
    remember(app, "The Redis port is 6380.")
    selected = app.recall("redis and deploy host?", inherit=False).selected
    assert sorted(selected) == sorted([store["host"], redis])
    assert direct_plan("redis and deploy host?").asks == frozenset()


def test_a_long_prompt_is_not_searched_for_joined_words() -> None:
    """Only a short question reads them: a 65 KB prompt of "and"s doubled its plan's time."""
    prompt = "the deploy host and key, the port & user or name and " * 1200
    assert len(direct_plan(prompt).focus) > 4
    assert direct_plan(prompt).asks == direct_plan(prompt).co_subjects == frozenset()


def test_chinese_joined_asks(app: Waymarks) -> None:
    """"部署主机和密钥？" ("the deploy host and key?") recalled nothing beside "部署主机是
    web1。": 密钥 (key) was demanded of the claim as a second attribute."""
    host = remember(app, "部署主机是 web1。")
    remember(app, "数据库端口是 5433。")
    for query in ("部署主机和密钥？", "部署主机、密钥？"):
        assert app.recall(query, inherit=False).selected == [host], query
    assert direct_plan("和谐的部署主机？").asks == frozenset()


#: two asks of the dev server, each claim answering one: the node claim says the version
#: by its value too ("node 20"), and the port is said of many other things in the store
TWO_ASKS = "which port and node version does the dev server use?"
DEV_PORT = "Use port 8080 for the dev server."
DEV_NODE = "The dev server runs on node 20."
OTHER_PORTS = [f"The {name} port is {port}." for name, port in (
    ("database", 5432), ("API", 9000), ("metrics", 9100), ("worker", 7000), ("admin", 8443),
    ("staging", 9443), ("ssh", 2222), ("grafana", 3000), ("mail", 587), ("redis", 6379))]


def test_each_ask_keeps_its_answer_beside_a_better_match(app: Waymarks) -> None:
    """The port's claim (0.61) was cut as below 75% of the node's (0.82), measured on the
    whole question, and the question lost its port: a claim answering an ask no claim
    within the cutoff answers is measured against the others answering it. Another
    thing's port still answers nothing."""
    port, node = remember(app, DEV_PORT), remember(app, DEV_NODE)
    for text in OTHER_PORTS:
        remember(app, text)
    assert sorted(app.recall(TWO_ASKS, inherit=False).selected) == sorted([port, node])


def test_an_answer_of_another_thing_stays_out(app: Waymarks) -> None:
    """The claim answering the other ask must hold the subject the answers within the
    cutoff hold (but the ask and the word naming it, "python" of "python version"): the
    billing database's port is no answer of the billing service's."""
    python = remember(app, "The billing service runs Python 3.12.")
    remember(app, "The billing database port is 5433.")
    remember(app, "The auth service listens on port 7000.")
    assert app.recall("which port and python version does the billing service use?",
                      inherit=False).selected == [python]


def test_learned_claims_answer_each_ask(home: Path, project: Path, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """The same among learned claims (their own, smaller store): the billing host's claim
    was cut below the claim of its Python version."""
    from tests.evolution.test_legacy_import import _memory, _write

    answers = ["The billing service runs Python 3.12.",
               "The billing service host is billing.internal."]
    others = ["The auth service host is auth.internal.", "The search host is search.internal.",
              "The gateway host is gw.internal."]
    _write(tmp_path / "legacy", [_memory(f"m{at}", "fact", text)
                                 for at, text in enumerate([*answers, *others])], [])
    monkeypatch.setenv("WAYMARKS_HOME", str(home))
    monkeypatch.chdir(project)
    assert main(["--json", "evolution", "import", str(tmp_path / "legacy")]) == 0
    capsys.readouterr()
    assert main(["--json", "recall",
                 "which host and python version does the billing service use?"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sorted(row["excerpt"] for row in out["learned"]) == sorted(answers)


def _candidate(ident: str, *body: str, aliases: tuple[str, ...] = (),
               length: int = 6, text: str = "(text)") -> Candidate:
    return Candidate(id=ident, kind="memory", status="active", origin="session:s",
                     created_at=0, text=text, body=frozenset(body),
                     aliases=frozenset(aliases), body_count=length, sequence=body)


@pytest.mark.parametrize("eligible_only", [False, True])
def test_an_ask_answered_is_cut_among_its_own_answers(eligible_only: bool) -> None:
    """The cutoff still holds among the claims answering one ask (a weaker port claim,
    its words in aliases of a long note, is cut below the dev server's port), and a
    claim answering an ask the best match answers too is measured against the best."""
    table = Stats(40, {"c:port": 30, "w:node": 3, "c:version": 5, "w:dev": 3, "c:server": 6})
    node = _candidate("node", "w:dev", "c:server", "w:node", text=DEV_NODE)
    port = _candidate("port", "c:port", "w:dev", "c:server")
    weak = _candidate("weak", "w:note", aliases=("c:port", "w:dev", "c:server"), length=60)
    scored = {s.candidate.id: s for s in score_all(
        direct_plan(TWO_ASKS), [node, port, weak], table, eligible_only=eligible_only)}
    assert scored["node"].eligible and scored["port"].eligible
    assert scored["port"].relevance < 0.75 * scored["node"].relevance
    assert scored["weak"].reason == "below 75% of the best match"
    assert scored["weak"].relevance < 0.75 * scored["port"].relevance
    both = _candidate("both", "w:dev", "c:server", "w:node", "c:port", "c:version")
    assert [s.candidate.id for s in score_all(direct_plan(TWO_ASKS), [both, port], table,
                                              eligible_only=eligible_only)
            if s.eligible] == ["both"]
