"""Fixtures of the xfer Python tests: peer processes and engine pairs,
always torn down (killed, closed) so that nothing outlives a test."""

import pytest

from support import EnginePair, PeerProcess


@pytest.fixture
def spawn_peer():
    """spawn_peer(transport, size, io_timeout=10.0) -> a started PeerProcess, killed at teardown."""
    peers = []

    def spawn(transport, size, io_timeout=10.0):
        peer = PeerProcess(transport, size, io_timeout)
        peers.append(peer)
        return peer

    yield spawn
    for peer in peers:
        peer.close()


@pytest.fixture
def make_pair():
    """make_pair(transport, setup=None, io_timeout=10.0) -> EnginePair, closed at teardown."""
    pairs = []

    def make(transport, setup=None, io_timeout=10.0):
        pair = EnginePair(transport, setup, io_timeout)
        pairs.append(pair)
        return pair

    yield make
    for pair in pairs:
        pair.close()
