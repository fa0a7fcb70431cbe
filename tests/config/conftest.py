"""Fixtures of the config tests: the real redis-server of the store tests."""

from tests.state.conftest import redis_url

__all__ = ["redis_url"]
