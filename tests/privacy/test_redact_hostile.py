"""redact() on hostile text costs what ordinary text of its shape costs: a rule that tries
a run of characters several ways (a ``printf`` format's ``%`` taken for any of the run's)
made 100 KB of them cost more than a second. CPU time of the same call on text of the same
shape that holds no such run is the yardstick (a ratio: no wall clock, no machine speed)."""

from __future__ import annotations

import time

from waymarks.core.secrets import redact


def _cpu(text: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        redact(text)
        best = min(best, time.process_time() - start)
    return best


def test_a_printf_format_of_percent_signs_costs_what_one_of_letters_costs() -> None:
    def shaped(char: str) -> str:  # 100 KB of printf formats piped into passwd
        return ("printf '" + char * 256 + "' ") * 370 + "| passwd deploy"

    hostile, plain = _cpu(shaped("%")), _cpu(shaped("a"))
    # before: 1.24 s against 0.065 s (19 times); a format is read to its first ``%`` now
    assert hostile < 4 * plain, (hostile, plain)
    # and the rule still reads a format whose first ``%`` comes late
    assert redact("printf '" + "x" * 200 + "%s\\n' Xk9vTq2mWz8rLp4n | passwd deploy")[0] \
        == "printf '" + "x" * 200 + "%s\\n' [REDACTED:secret] | passwd deploy"


def test_refused_add_masks_glued_cost_what_spaced_ones_cost() -> None:
    # a reference masked (refused) read to 4 KB at each ``::add-mask::`` glued after it:
    # 100 KB cost 334 ms against 41 ms for the same apart by spaces; it ends before the next
    hostile = _cpu(("::add-mask::$" * 7700)[:100_000])
    plain = _cpu(("::add-mask::$ " * 7200)[:100_000])
    assert hostile < 3 * plain, (hostile, plain)
    assert redact("::add-mask::$T::add-mask::Xk9vTq2mWz8rLp4n") \
        == ("::add-mask::$T::add-mask::[REDACTED:secret]", 1)


def test_commands_that_print_a_secret_cost_what_other_commands_cost() -> None:
    # 100 KB of ``pass show`` each with its value (secret_printed): each read once
    value = "Xk9vT2pQ" + "7mLwR4sZ"
    hostile = ("$ pass show x\n" + value + "\n") * 3200
    assert redact(hostile)[1] == 3200
    plain = ("$ pass list x\n" + value + "\n") * 3200
    assert _cpu(hostile) < 20 * _cpu(plain) + 0.2


def test_glued_names_cost_what_names_with_short_values_cost() -> None:
    # each ``secret`` of ``secret=secret=…`` took the next name as its value, which was
    # judged (and declined) 14,286 times: 100 KB cost 0.65 s of CPU against 0.07 s for
    # ``secret=x `` repeated (0.31 s for ``secret:``); a name's own word is refused as a
    # value by the expression now
    plain = _cpu("secret=x " * 11_112)
    for unit in ("secret=", "secret:", "api_key=", "token:"):
        hostile = _cpu(unit * (100_000 // len(unit)))
        assert hostile < 5 * plain, (unit, hostile, plain)  # before: 9x; now ~2-3x
    # and a value after such a run is still found, a name's own word still a value's part
    assert redact("secret=secret=Xk9vTq2mWz8rLp4n") == ("secret=secret=[REDACTED:secret]", 1)
    assert redact("secret:token:Xk9vTq2mWz8rLp4n")[0] == "secret:token:[REDACTED:secret]"
    assert redact("DB_PASSWORD=hunter2secret") == ("DB_PASSWORD=[REDACTED:secret]", 1)
