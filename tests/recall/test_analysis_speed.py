"""The fast paths of ``analyze`` (no path scan without "/" or ".", memoized ASCII words)
give exactly what the plain algorithm gives: checked against that algorithm, written out
here as it was before the fast paths, over generated texts and queries."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.lanes import lanes, run_property
from waymarks.recall import analysis
from waymarks.recall.analysis import Analysis, analyze

PIECES = ["the", "billing", "service", "port", "8443", "/etc/app.toml", "conf/x-2.toml",
          "and/or", "CI/CD", "ci/cd", "src/app", "A/µ", "数据库/缓存", "db/config.toml里",
          "main.py:12", "README.md", "do you remember", "what", "数据库", "端口", "还记得",
          "吗", "カタカナ", "한국어", "\"is it on?\"", "“真的吗？”", "```code```", "\n", "+ added",
          "Caroline's", "A", "x", ".", "/", "e.g.", "v2.1", "~/notes/todo.md", "I", "tabs",
          "running", "ＦＵＬＬ", "ﬁle", "Straße"]


def plain_analyze(text: str, *, query: bool = False) -> Analysis:
    folded = analysis.fold(text)
    pasted_spans = analysis._pasted_spans(folded)
    quoted_spans = [] if query else [m.span() for m in analysis._QUOTED_QUESTION.finditer(folded)]
    features: dict[str, None] = {}
    literals: set[str] = set()
    pasted: set[str] = set()
    quoted_only: dict[str, None] = {}

    def add(feature: str, position: int) -> None:
        if analysis._inside(position, quoted_spans):
            if feature not in features:
                quoted_only[feature] = None
            return
        features[feature] = None
        quoted_only.pop(feature, None)

    masked = list(folded)
    typed = text if len(text) == len(folded) else ""
    for match in analysis._PATH.finditer(folded):
        # the rules of what a path match is (its span past CJK run into it, words joined
        # by slashes), not fast paths: the same functions
        start, end = analysis._path_span(match)
        raw = folded[start:end]
        reading = analysis._slash_reading(raw, typed[start:end], query)
        if reading == "words" or analysis._url_port(folded, start, raw):
            continue
        literal = analysis._literal_features(raw, query)
        if not literal:
            continue
        for feature in literal:
            add(feature, start)
        in_paste = analysis._inside(start, pasted_spans) or bool(
            analysis._LINE_REF.search(raw.rstrip(").,;:")))
        (pasted if in_paste else literals).update(literal[:1])
        if reading == "both":
            continue
        masked[start:end] = " " * (end - start)
    rest = "".join(masked)
    if query:
        rest = analysis._blank_framing(rest)
    for match in analysis._WORDS.finditer(rest):
        for word in analysis._split_scripts(match.group(0)):
            key = analysis.word_feature(word)
            if key is not None:
                add(key, match.start())
    for feature in quoted_only:
        features.pop(feature, None)
    return Analysis(tuple(features), frozenset(literals), frozenset(pasted - literals),
                    tuple(quoted_only))


TEXTS = st.lists(st.sampled_from(PIECES), max_size=14).map(" ".join) | st.text(max_size=60)


def _analyze_equals_the_plain_algorithm(text: str, query: bool) -> None:
    assert analyze(text, query=query) == plain_analyze(text, query=query)
    # twice: the second answer comes from the memo
    assert analyze(text, query=query) == plain_analyze(text, query=query)


@lanes(quick=50, long=400)
def test_analyze_equals_the_plain_algorithm(examples: int) -> None:
    run_property(examples, _analyze_equals_the_plain_algorithm, TEXTS, st.booleans())
