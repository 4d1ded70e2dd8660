"""Feature analysis for recall (seed 004, "Conversation-aware recall"): pure unit tests."""

from __future__ import annotations

import pytest

from waymarks.recall.analysis import analyze, strip_framing, word_feature


def features(text: str, *, query: bool = False) -> tuple[str, ...]:
    return analyze(text, query=query).features


# -- stop words, filler, generic words ----------------------------------------------


@pytest.mark.parametrize("text", [
    "please tell me what the thing is, thanks",
    "ok, continue",
    "could you help me with that again now?",
    "继续",
    "谢谢",
    "我们 你们 什么 怎么",
])
def test_stop_words_and_filler_are_never_features(text: str) -> None:
    assert features(text) == ()
    assert features(text, query=True) == ()


def test_stop_words_are_removed_around_subject_words() -> None:
    assert set(features("What is the port of the SQLite database?")) == {
        "w:sqlite", "c:port", "c:database"}


@pytest.mark.parametrize("word", ["the", "and", "please", "continue", "继续", "的", "what"])
def test_word_feature_refuses_stop_and_filler_words(word: str) -> None:
    assert word_feature(word) is None


def test_single_ascii_letters_are_dropped_but_digits_kept() -> None:
    assert features("x y 7") == ("w:7",)


def test_english_words_are_stemmed_and_case_folded() -> None:
    assert features("Indexers INDEXING indexer") == features("indexer")
    assert features("SQLite SQLITE sqlite") == ("w:sqlite",)


def test_chinese_acknowledgement_is_not_a_feature() -> None:
    assert features("好的，谢谢", query=True) == ()


def test_contracted_question_words_are_stop_words() -> None:
    assert features("what's the weather?", query=True) == ("w:weather",)


# -- concepts: one feature per synonym group, across languages ------------------------


@pytest.mark.parametrize(("words", "concept"), [
    (["database", "Databases", "DB", "数据库"], "c:database"),
    (["port", "ports", "端口"], "c:port"),
    (["auth", "authentication", "login", "认证", "鉴权", "登录"], "c:auth"),
    (["timeout", "超时"], "c:timeout"),
    (["deploy", "deployment", "部署", "上线"], "c:deploy"),
])
def test_concept_synonyms_are_one_feature_across_languages(words: list[str],
                                                           concept: str) -> None:
    for word in words:
        assert features(word) == (concept,), word
    assert features(" ".join(words)) == (concept,)  # synonyms: one feature, not votes


def test_bilingual_claims_share_concept_features() -> None:
    english = set(features("The database listens on port 5433."))
    chinese = set(features("数据库端口是 5433。"))
    assert {"c:database", "c:port", "w:5433"} <= english & chinese


# -- CJK segmentation, kana and hangul bigrams ------------------------------------


def test_han_text_is_segmented_into_words_and_concepts() -> None:
    assert features("数据库端口") == ("c:database", "c:port")
    assert features("我喜欢写测试") == ("w:喜欢", "w:写", "c:test")


def test_han_words_are_not_split_into_fragments() -> None:
    found = features("天鹅湖的门票价格是 80 元。")
    assert "w:天鹅湖" in found
    assert "w:鹅" not in found and "w:天鹅" not in found


def test_kana_runs_become_bigrams() -> None:
    assert features("カタカナ") == ("w:カタ", "w:タカ", "w:カナ")


def test_hangul_runs_become_bigrams() -> None:
    assert features("한국어") == ("w:한국", "w:국어")


def test_mixed_han_and_kana_are_split_by_script() -> None:
    assert features("東京タワー") == ("w:東京", "w:タワ", "w:ワー")


def test_unknown_single_han_character_is_kept_as_a_query_subject() -> None:
    assert features("鹅呢？", query=True) == ("w:鹅",)


# -- literals -------------------------------------------------------------------------


def test_paths_are_kept_whole_with_their_filename() -> None:
    result = analyze("Look at src/app/config.py please", query=True)
    assert result.features == ("p:src/app/config.py", "f:config.py")
    assert result.literals == frozenset({"p:src/app/config.py"})
    assert not {"w:src", "w:app", "c:config", "w:py"} & set(result.features)


def test_a_repository_path_does_not_imply_its_words() -> None:
    found = features("see /work/pi-memory-evolution.", query=True)
    assert found == ("p:/work/pi-memory-evolution",)
    assert "w:memori" not in found


def test_bare_filenames_with_known_extensions_are_literals() -> None:
    result = analyze("see README.md and setup.py", query=True)
    assert result.features == ("f:readme.md", "f:setup.py")
    assert result.literals == {"f:readme.md", "f:setup.py"}


def test_a_dotted_word_with_an_unknown_extension_is_not_a_literal() -> None:
    assert not any(f.startswith(("p:", "f:")) for f in features("version 1.2 of foo.bar"))


def test_line_references_and_frame_parentheses_are_stripped_from_literals() -> None:
    assert features("src/x.py:12:4") == ("p:src/x.py", "f:x.py")
    assert features("at foo (/srv/a/b.js:1:2)")[:4] == (
        "p:/srv/a/b.js", "p:srv/a/b.js", "p:a/b.js", "f:b.js")


def test_literals_in_a_stack_frame_are_pasted_not_constraints() -> None:
    result = analyze("boom\n    at Parser.split (/srv/app/lib/parser.js:10:5)\nwhy?", query=True)
    assert "p:/srv/app/lib/parser.js" in result.features
    assert result.pasted == {"p:/srv/app/lib/parser.js"}
    assert result.literals == frozenset()


def test_literals_in_fenced_code_and_diffs_are_pasted() -> None:
    fenced = analyze('```\nopen("lib/conf/settings.toml")\n```\nwhy does it fail?', query=True)
    assert fenced.literals == frozenset() and "p:lib/conf/settings.toml" in fenced.pasted
    diff = analyze("--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\nwhat broke?",
                   query=True)
    assert diff.literals == frozenset()
    assert "p:a/src/x.py" in diff.pasted


def test_a_literal_typed_on_an_ordinary_line_stays_a_constraint() -> None:
    text = "    at f (/srv/app/x.js:1:1)\nplease fix /srv/app/x.js now"
    result = analyze(text, query=True)
    assert "p:/srv/app/x.js" in result.literals
    assert "p:/srv/app/x.js" not in result.pasted


def test_python_traceback_paths_are_pasted_not_constraints() -> None:
    trace = ('Traceback (most recent call last):\n'
             '  File "/usr/lib/python3.12/site-packages/foo/bar.py", line 12, in run\n'
             "ValueError: bad\nwhy does the tokenizer fail?")
    result = analyze(trace, query=True)
    assert result.literals == frozenset()


def test_a_file_line_col_reference_is_not_a_constraint() -> None:
    result = analyze("error at src/app/views.py:12:4 when the tokenizer splits", query=True)
    assert result.literals == frozenset()
    assert "p:src/app/views.py" in result.pasted


# -- framing removal (queries only) ---------------------------------------------------


@pytest.mark.parametrize(("query", "expected"), [
    ("Do you remember the SQLite port?", ("w:sqlite", "c:port")),
    ("Do you still recall what the port was?", ("c:port",)),
    ("remind me about the port", ("c:port",)),
    ("I forgot the SQLite port", ("w:sqlite", "c:port")),
    ("what did we decide about the cache?", ("c:cache",)),
    ("还记得数据库端口吗？", ("c:database", "c:port")),
    ("提醒我数据库端口", ("c:database", "c:port")),
    ("我们之前讨论过数据库端口", ("c:database", "c:port")),
    ("SQLite 端口是多少来着？", ("w:sqlite", "c:port")),
])
def test_recall_framing_is_not_a_query_feature(query: str, expected: tuple[str, ...]) -> None:
    assert features(query, query=True) == expected


def test_framing_is_removed_from_queries_only() -> None:
    assert "w:remind" in features("remind me about the port")
    assert "w:提醒" in features("提醒我数据库端口")
    assert "w:forgot" in features("I forgot the SQLite port")
    assert "w:decid" in features("what did we decide about the cache?")


def test_framing_around_a_literal_leaves_the_literal_whole() -> None:
    assert features("do you remember tools/remind_me.py?", query=True) == (
        "p:tools/remind_me.py", "f:remind_me.py")
    assert strip_framing("do you remember the port") .split() == ["the", "port"]


@pytest.mark.parametrize("path", ["notes/提醒我.md", "notes/还记得/todo.md"])
def test_framing_removal_does_not_rewrite_literals(path: str) -> None:
    assert "p:" + path in features("打开 " + path, query=True)


def test_technical_recall_questions_keep_the_recall_concept() -> None:
    asked = features("How does recall work?", query=True)
    assert asked != ()
    assert set(asked) <= set(features("Recall scores claims by IDF weight."))


# -- quoted questions -----------------------------------------------------------------


@pytest.mark.parametrize("text", [
    'He asked "which port?" and we said 5433',
    "He asked “which port?” and we said 5433",
    "他问「哪个端口？」然后我们说 5433",
])
def test_quoted_questions_are_set_apart(text: str) -> None:
    result = analyze(text)
    assert "c:port" in result.quoted
    assert "c:port" not in result.features
    assert "w:5433" in result.features


def test_quoted_facts_remain_ordinary_evidence() -> None:
    result = analyze('He said "the port is 5433."')
    assert "c:port" in result.features and result.quoted == ()


def test_a_word_also_outside_the_quote_is_ordinary_evidence() -> None:
    result = analyze('He asked "which port?" and the port is 5433')
    assert "c:port" in result.features and "c:port" not in result.quoted


def test_analysis_is_deterministic() -> None:
    text = "SQLite 数据库 port 5433 at src/db/conn.py — カタカナ 한국어"
    assert analyze(text) == analyze(text)
    assert analyze(text, query=True) == analyze(text, query=True)



FRAMED = [
    "Do you remember the SQLite port?", "did you recall what the timeout was",
    "what did we decide about the cache?", "What did I say on retries",
    "remind me again about the deploy", "tell me what the port is", "I forgot the staging host",
    "i don't remember the token path", "i dont remember it", "please remember that flag",
    "recall whether we pinned it", "what do you know about kafka?", "what do you recall of it",
    "还记得数据库端口吗？", "你记得部署流程吗", "我们之前讨论过缓存吗", "之前提到过端口来着",
    "提醒我一下测试命令", "数据库端口是什么来着？", "记不记得",
]
UNFRAMED = ["which service uses Kafka for event fan-out?", "what is the database port?",
            "you know the port", "remind", "telling did forge"]


@pytest.mark.parametrize("text", FRAMED + UNFRAMED)
def test_framing_is_removed_exactly_as_every_expression_removes_it(text: str) -> None:
    """The framing expressions are tried only on text holding one of their cues, and
    compiled on first use: the result is the same as trying every one, compiled now, and
    every match holds a cue (so a cue list can never hide a match)."""
    import re

    from waymarks.recall.analysis import fold
    from waymarks.recall.vocabulary import FRAMING_PATTERNS

    expected = fold(text)
    for cues, lazy_pattern in FRAMING_PATTERNS:
        pattern = re.compile(lazy_pattern.pattern)
        for match in pattern.finditer(expected):
            assert any(cue in match.group(0) for cue in cues), (match, cues)
        expected = pattern.sub(lambda m: " " * len(m.group(0)), expected)
    assert strip_framing(text) == expected.strip()
    assert (expected != fold(text)) == (text in FRAMED), "the sample is what it says"
