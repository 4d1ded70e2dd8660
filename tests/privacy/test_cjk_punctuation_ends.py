"""A password then Chinese punctuation (。，；！？、）), as a mixed Chinese and English note
writes it: "root/toor。", "pi:raspberry，默认的", "set the password to hunter22。", "use
hunter22 as the password。" went out of redact() unchanged (0 spans) after 96eaf6b2, though
each goes with an ASCII full stop: a default password must end its clause, and the set/use
rules' values and nouns must be followed by ASCII punctuation, a space or the end."""

from __future__ import annotations

from tests.privacy.digests import stated_tests

test_each_password_goes, test_each_look_alike_stays = stated_tests([
    ("root/toor。", "toor"), ("pi:raspberry，默认的", "raspberry"),
    ("set the password to hunter22。", "hunter22"),
    ("use hunter22 as the password。", "hunter22"), ("root 密码是 toor；别外传", "toor"),
    ("the admin password is admin！", "admin"),
], [
    "set the password to expire。", "use it as the password。", "root/node18。",
    "chown root:root。", "密码是必填项。", "the password is admin only，其他人没有",
    "use 1Password as the password manager。", "guest/room101，已订",
])
