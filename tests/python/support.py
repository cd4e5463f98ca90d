"""Helpers of the xfer Python tests (fixtures are in conftest.py).

Run from a build tree with PYTHONPATH=<build>/python (ctest sets it), e.g.
    PYTHONPATH=build/py/python python3 -m pytest -q -p no:cacheprovider tests/python
"""

import contextlib
import json
import os
import pathlib
import queue
import random
import signal
import subprocess
import sys
import tempfile
import threading

import pytest

import xfer

HERE = pathlib.Path(__file__).resolve().parent
PEER_SCRIPT = HERE / "peer_target.py"

# Bound on every wait for the peer process: nothing in the suite can hang.
PEER_REPLY_TIMEOUT_S = 15.0


@contextlib.contextmanager
def raises_status(code, says=None):
    """pytest.raises(xfer.Error) that also checks the error's StatusCode and,
    when `says` is given, that its message contains it."""
    with pytest.raises(xfer.Error) as raised:
        yield raised
    assert raised.value.code == code, str(raised.value)
    if says is not None:
        assert says in str(raised.value), str(raised.value)


def pattern(seed, length):
    """The bytes peer_target.py writes for `seed` (same generator)."""
    return random.Random(seed).randbytes(length)


class PeerProcess:
    """tests/python/peer_target.py in a subprocess, driven over stdin/stdout.

    Each reply is read with a timeout (a reader thread feeds a queue), and the
    process is killed in close(), so a stuck peer fails a test instead of
    hanging the suite.
    """

    def __init__(self, transport, size, io_timeout=10.0):
        self._stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, str(PEER_SCRIPT), "--transport", transport, "--size", str(size),
             "--io-timeout", str(io_timeout)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, text=True,
            env=dict(os.environ))
        self._lines = queue.Queue()
        threading.Thread(target=self._read_lines, daemon=True).start()
        hello = self.read()
        self.listen_address = hello["listen"]
        self.region_ids = hello["regions"]

    def _read_lines(self):
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(None)  # end of output

    def read(self, timeout=PEER_REPLY_TIMEOUT_S):
        """The peer's next JSON line; fails the test on timeout, EOF or an error reply."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"peer sent nothing within {timeout} s{self._diagnostics()}")
        if line is None:
            pytest.fail(f"peer exited (status {self.process.poll()}){self._diagnostics()}")
        message = json.loads(line)
        if "error" in message:
            pytest.fail(f"peer failed: {message['error']}{self._diagnostics()}")
        return message

    def send_command(self, **command):
        """Sends one command without waiting for its reply (see read())."""
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()

    def call(self, **command):
        self.send_command(**command)
        return self.read()

    def kill(self):
        """SIGKILL: the peer gets no chance to close its connections."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=PEER_REPLY_TIMEOUT_S)

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=PEER_REPLY_TIMEOUT_S)
        self.process.stdin.close()
        self.process.stdout.close()
        self._stderr.close()

    def _diagnostics(self):
        self._stderr.seek(0)
        text = self._stderr.read().decode(errors="replace").strip()
        return f"\npeer stderr:\n{text}" if text else ""


class EnginePair:
    """Two engines in this process: `target` listens, `initiator` connects.

    Regions the target must expose are registered by `setup(target)` before the
    connection, since a peer sees only the regions registered before it
    connected.
    """

    def __init__(self, transport, setup=None, io_timeout=10.0):
        self.target = xfer.Engine(name="target", transports=[transport], io_timeout=io_timeout)
        self.initiator = xfer.Engine(name="initiator", listen="", transports=[transport],
                                     io_timeout=io_timeout)
        self.exposed = setup(self.target) if setup else None
        self.peer = self.initiator.connect(self.target.listen_address, transport=transport)
        self.target_peer = self.target.wait_for_peer(timeout=5.0)
        self.remote = {r.id: r for r in self.initiator.peer_info(self.peer).regions}

    def remote_of(self, region):
        """The initiator's view (RemoteRegion) of a region the target registered."""
        return self.remote[region.id]

    def close(self):
        self.initiator.close()
        self.target.close()
