"""A password written in Chinese characters after a Chinese password's noun and its verb
(``core/secret_prose.py``, ``PROSE_CJK_WORDS``): Chinese words then digits ("解压密码是
芝麻开花2031") or parts joined by ``-``/``_``, two in Chinese ("口令：绿色-海豚-周五-17"). The
rules read an ASCII value only, and each went to a remote model in clear. Digits before a
unit or a step, versions, and words alone stay."""

from __future__ import annotations

from pathlib import Path

from tests.privacy.digests import assert_pin_refused, stated_tests

STATED: list[tuple[str, str]] = [
    ("归档包的解压密码是 山高水长1987", "山高水长1987"),
    ("共享盘口令：红色-狐狸-周二-58", "红色-狐狸-周二-58"),
    ("会议室平板密码为 春眠不觉晓#66，别外传", "春眠不觉晓#66"),
    ("测试环境 密码设置为 北京_上海_广州_09", "北京_上海_广州_09"),
    ("老系统的密码已经改成 天天向上2030。", "天天向上2030"),
]

UNCHANGED: list[str] = [
    "密码为 16位，字母数字混合",
    "密码是 身份证后6位",
    "密码是 第3步生成的那个",
    "密码设置为必填",
    "密码是 v1.2.3版本的格式",
    "密码为 2024 年统一重置",
    "口令：见运维手册第2章",
]

test_a_password_in_chinese_characters_is_redacted, test_its_look_alikes_stay = stated_tests(
    STATED, UNCHANGED)


def test_the_cli_refuses_a_pin_stating_one(tmp_path: Path) -> None:
    assert_pin_refused(tmp_path, "备份盘的口令是 青山绿水2029", "青山绿水2029")
