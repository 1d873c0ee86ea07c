import socket
from pathlib import Path

from redline.runtime.servers import LocalNats


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def test_local_nats_restarts_on_the_same_port(tmp_path: Path) -> None:
    server = LocalNats(tmp_path / "nats")
    server.start()
    try:
        port = server.port
        assert _accepts(port)
        server.stop()
        assert not server.running
        assert not _accepts(port)
        server.start()
        assert server.port == port
        assert _accepts(port)
        assert (tmp_path / "nats" / "jetstream").is_dir()
    finally:
        server.stop()
