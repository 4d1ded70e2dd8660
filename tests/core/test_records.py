"""``json_decoder``: msgspec's typed JSON decoder, made on its first ``decode``."""

from __future__ import annotations

import msgspec
import pytest

from waymarks.core.records import json_decoder


class Point(msgspec.Struct, frozen=True, rename="camel"):
    x_value: int
    label: str = ""


def test_it_decodes_and_refuses_as_msgspecs_decoder_does() -> None:
    lazy, eager = json_decoder(Point), msgspec.json.Decoder(Point)
    for data in (b'{"xValue": 1}', b'{"xValue": 2, "label": "a"}', '{"xValue": 3}'):
        assert lazy.decode(data) == eager.decode(data)
    for bad in (b'{"xValue": "1"}', b'{"label": "a"}', b"[1]"):
        with pytest.raises(msgspec.ValidationError) as lazy_error:
            lazy.decode(bad)
        with pytest.raises(msgspec.ValidationError) as eager_error:
            eager.decode(bad)
        assert str(lazy_error.value) == str(eager_error.value)
    with pytest.raises(msgspec.DecodeError):
        lazy.decode(b'{"xValue": 1')


def test_the_decoder_is_made_on_first_use_and_kept() -> None:
    lazy = json_decoder(Point)
    assert "decode" not in vars(lazy)  # nothing made yet: the type is not even read
    assert lazy.decode(b'{"xValue": 1}') == Point(1)
    kept = vars(lazy)["decode"]
    assert kept.__self__.__class__ is msgspec.json.Decoder
    lazy.decode(b'{"xValue": 2}')
    assert vars(lazy)["decode"] is kept
