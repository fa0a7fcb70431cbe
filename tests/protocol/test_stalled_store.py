"""A store that stalls delays only the requests that wait for it, and reveals nothing
(issue 13, break 5): a Redis server that accepts connections and never answers, and a
SQLite file another process keeps locked."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from toolscout.errors import StoreUnavailableError
from toolscout.protocol import ToolCall, ToolSearch
from toolscout.protocol.processor import STORE_FAILED
from toolscout.state import InMemoryStore, RedisStore, SQLiteStore, ThreadStore

from ..state.stalled import locked_by_another_process, silent_redis
from .builders import make_catalog, names

STORE_TIMEOUT = 10.0  # long enough that healthy sessions finish first on a busy machine


@contextmanager
def stalled_store(kind: str, folder: Path) -> Iterator[ThreadStore]:
    if kind == "redis":
        pytest.importorskip("redis")
        with silent_redis() as url:
            store: ThreadStore = RedisStore(url, timeout=60)
            yield store
    else:
        store = SQLiteStore(folder / "state.db", timeout=60)
        with locked_by_another_process(folder / "state.db"):
            yield store
    store.close()


@pytest.fixture(params=["redis", "sqlite"])
def stalled(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ThreadStore]:
    with stalled_store(request.param, tmp_path) as store:
        yield store


def search_call(*queries: str) -> ToolCall:
    return ToolCall("search_tools", {"queries": list(queries)}, id="call_search")


async def session(search: ToolSearch, thread_id: str) -> Any:
    """One request of a session: the tool list, then a search."""
    try:
        await search.aprepare(thread_id)
    except StoreUnavailableError as error:
        return error
    return await search.aexecute(search_call("weather forecast"), thread_id)


class TestOtherSessionsDoNotWait:
    def test_sessions_on_a_healthy_store_finish_while_the_stalled_ones_wait(
        self, stalled: ThreadStore
    ) -> None:
        catalog = make_catalog()
        on_stalled = ToolSearch(catalog, store=stalled, store_timeout=STORE_TIMEOUT)
        on_healthy = ToolSearch(catalog, store=InMemoryStore())

        async def main() -> tuple[list[Any], list[Any], bool]:
            waiting = [asyncio.create_task(session(on_stalled, f"s{n}")) for n in range(10)]
            await asyncio.sleep(0.2)  # they are all waiting on the store now
            healthy = await asyncio.gather(*(session(on_healthy, f"h{n}") for n in range(10)))
            none_answered_yet = not any(task.done() for task in waiting)
            return healthy, await asyncio.gather(*waiting), none_answered_yet

        healthy, stalled_answers, none_answered_yet = asyncio.run(main())
        assert none_answered_yet
        for result in healthy:
            assert not result.is_error
            assert json.loads(result.content)["results"][0]["tools"][0]["name"] == "get_forecast"
        for answer in stalled_answers:  # each fails closed, with one clear error
            assert isinstance(answer, StoreUnavailableError)
            assert f"did not answer within {STORE_TIMEOUT:g} s" in str(answer)


class TestFailsClosed:
    def test_a_call_is_refused_with_a_sentence_and_nothing_revealed(
        self, stalled: ThreadStore
    ) -> None:
        search = ToolSearch(make_catalog(), mode="load", store=stalled, store_timeout=0.5)
        for call in (
            search_call("weather forecast"),
            ToolCall("load_tool", {"names": ["get_forecast"]}),
            ToolCall("get_forecast", {"city": "Paris"}),
        ):
            result = search.execute(call, "t1")
            assert result.is_error
            assert result.content == STORE_FAILED
            assert "forecast" not in result.content

    def test_the_tool_list_raises_a_clear_error(self, stalled: ThreadStore) -> None:
        search = ToolSearch(make_catalog(), mode="auto_load", store=stalled, store_timeout=0.5)
        with pytest.raises(StoreUnavailableError, match=r"did not answer within 0\.5 s"):
            search.prepare("t1")

    def test_proxy_mode_lists_its_tools_without_asking_the_store(
        self, stalled: ThreadStore
    ) -> None:
        search = ToolSearch(make_catalog(), mode="proxy", store=stalled, store_timeout=0.5)
        assert names(search.prepare("t1")) == ["ping", "whoami", "search_tools", "call_tool"]

    def test_a_damaged_store_fails_closed_too(self, tmp_path: Path) -> None:
        path = tmp_path / "state.db"
        store = SQLiteStore(path)
        search = ToolSearch(make_catalog(), mode="load", store=store)
        assert not search.execute(ToolCall("load_tool", {"names": ["get_forecast"]}), "t1").is_error
        store.close()  # as if the file had gone bad: every store call now raises
        result = search.execute(ToolCall("get_forecast", {"city": "Paris"}), "t1")
        assert result.is_error
        assert result.content == STORE_FAILED
