"""A bare "pass" names a password after a credential's owner ("db pass is s3cr3t!", "my
pass is hunter2") or starting its clause ("pass is hunter2"); after any other word it is a
ticket, a permit or a compiler's round, whose number stays. After 96eaf6b2 made "pass" a
password's noun, "The boarding pass is BA2490.", "The LLVM pass is mem2reg.", "use mem2reg
as the pass" lost their values to ``[REDACTED:secret]`` (10 of 88 look-alikes written for
the review, 0 at ec5c421f)."""

from __future__ import annotations

from tests.privacy.digests import stated_tests

#: (text, its password): the password alone is redacted
PASSWORDS = [("db pass is s3cr3t!", "s3cr3t!"), ("pass is hunter2", "hunter2"),
             ("my pass is hunter2", "hunter2"), ("the wifi pass is hunter22", "hunter22"),
             ("Note: pass is hunter22", "hunter22"), ("vpn pass -> hunter22", "hunter22"),
             ("set the wifi pass to hunter22", "hunter22"),
             ("use hunter22 as the vpn pass.", "hunter22")]

test_each_password_goes, test_each_ticket_or_round_stays = stated_tests(PASSWORDS, [
    "My bus pass is MB12345.", "The boarding pass is BA2490.", "Your day pass is ticket42.",
    "The ski pass is season2024.", "The hall pass is room12.", "The LLVM pass is mem2reg.",
    "The pass is mem2reg.", "The final pass -> codegen2", "use mem2reg as the pass",
    "The compiler pass is opt3.", "the first pass is slow",
])
