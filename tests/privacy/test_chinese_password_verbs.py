"""A password stated in Chinese with a verb of setting before 为/成 ("密码设置为 hunter22",
"密码更新为 hunter22", "密码重置成了 qwe123") or 是 then a colon ("密码是：hunter22"): after
96eaf6b2 only 设为/改为/改成 were read, so each of these went out of redact() unchanged
(0 spans), as at ec5c421f. Their look-alikes, a rule or a format set, stay."""

from __future__ import annotations

from tests.privacy.digests import stated_tests

#: (text, its password): the password alone is redacted
PASSWORDS = [("密码是：hunter22", "hunter22"), ("密码设置为 hunter22", "hunter22"),
             ("密码更新为 hunter22", "hunter22"), ("密码重置成了 qwe123", "qwe123"),
             ("密码修改为 abc12345", "abc12345"), ("登录密码变成了 hunter22", "hunter22"),
             ("密碼設置為 hunter22", "hunter22"), ("WiFi 密码更改为 Tr0ub4dor&3", "Tr0ub4dor&3")]

test_each_password_goes, test_each_rule_stays = stated_tests(PASSWORDS, [
    "密码设置为必填", "密码更新为每 90 天一次", "密码设置为 8 位以上", "密码更新为 sha256 哈希",
    "密码修改为 v2 格式", "密码设置为 bcrypt 加密", "密码是：见 Vault", "密码长度设置为 12 位",
    "密码策略更新为 v2", "密码重置为默认值", "密码变为空", "密码更新为 argon2id",
    "密码是：必填项", "密码设置为 16 个字符", "密码更新为 2024 版策略", "密码重置成功",
])
