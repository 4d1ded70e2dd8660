"""A helper's socket past the Unix address limit is reached without moving the process's
working directory (:func:`waymarks.spawn.sockets.at_socket`): the MCP server and the
inspector ask helpers' status from one thread while others resolve relative paths."""

import os
import socket
import sys
import threading
from pathlib import Path

import pytest

from waymarks.spawn.sockets import SHORT_ADDRESS, at_socket, probe


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/fd is Linux's")
def test_a_long_socket_path_is_bound_and_reached_without_a_change_of_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    path = str(deep / "helper.sock")
    assert len(path) > SHORT_ADDRESS
    monkeypatch.chdir(tmp_path)
    seen: list[str] = []

    def bind_watching(server: socket.socket):
        def use(address: str) -> None:
            seen.append(os.getcwd())
            server.bind(address)
        return use

    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        at_socket(path, bind_watching(server))
        server.listen(1)
        assert (deep / "helper.sock").exists()

        def answer() -> None:
            connection, _ = server.accept()
            with connection:
                connection.recv(64)
                connection.sendall(b"alive\n")

        thread = threading.Thread(target=answer)
        thread.start()
        assert probe(path, 5.0) is True
        thread.join(5)
    finally:
        server.close()
    assert seen == [str(tmp_path)]
    assert os.getcwd() == str(tmp_path)


def test_a_helper_socket_appears_only_once_it_listens(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A socket's path is there from ``bind``, but a client is refused until ``listen``:
    a hook that came in that window ran its whole request in its own process. The helper's
    socket is bound under another name and renamed into place once it listens; a dead
    helper's socket is replaced in one step, and a failed start leaves no other name."""
    from waymarks.spawn import sockets

    path = tmp_path / "helper.sock"
    path.write_text("a dead helper's leftover")
    seen: list[bool] = []
    real_listen = socket.socket.listen

    def listen_watching(self: socket.socket, *args: int) -> None:
        seen.append(path.exists() and not path.is_file())  # the new socket already there?
        real_listen(self, *args)

    monkeypatch.setattr(socket.socket, "listen", listen_watching)
    server = sockets.listen(str(path))
    try:
        assert seen == [False]
        assert path.is_socket() and oct(path.stat().st_mode & 0o777) == "0o600"
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sockets.at_socket(str(path), client.connect)  # reached at once, by its own name
        client.close()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["helper.sock"]
    finally:
        server.close()

    def refused(self: socket.socket, *args: int) -> None:
        raise OSError("listen failed")

    monkeypatch.setattr(socket.socket, "listen", refused)
    with pytest.raises(OSError, match="listen failed"):
        sockets.listen(str(tmp_path / "other.sock"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["helper.sock"]
