"""core.digests gives the digests hashlib gives, without loading OpenSSL."""

from __future__ import annotations

import hashlib

import pytest

from waymarks.core.digests import blake2b, sha256


@pytest.mark.parametrize("data", [b"", b"x", "数据库端口是 5434。".encode(), bytes(range(256)) * 9])
@pytest.mark.parametrize("size", [4, 8, 12, 32, 64])
def test_the_same_digest_as_hashlib(data: bytes, size: int) -> None:
    assert blake2b(data, digest_size=size).hexdigest() == hashlib.blake2b(
        data, digest_size=size).hexdigest()


@pytest.mark.parametrize("data", [b"", b"x", "数据库端口是 5434。".encode(), bytes(range(256)) * 9])
def test_the_same_sha256_as_hashlib(data: bytes) -> None:
    assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
    assert type(sha256(data)).__module__ != "_hashlib", "OpenSSL's own"
