"""Properties every store keeps, whatever the sequence of saves."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolscout.state import ThreadStore

THREADS = st.sampled_from(["alice", "bob", "user:1", "用户"])
SAVES = st.lists(
    st.tuples(THREADS, st.lists(st.sampled_from([f"tool_{n}" for n in range(8)]), max_size=5)),
    max_size=25,
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(saves=SAVES)
def test_any_interleaving_of_saves_gives_first_occurrence_order_per_thread(
    store: ThreadStore, saves: list[tuple[str, list[str]]]
) -> None:
    store.clear_all()  # one store serves every example
    expected: dict[str, list[str]] = {}
    for thread, ids in saves:
        store.save(thread, ids)
        recorded = expected.setdefault(thread, [])
        recorded += [tool_id for tool_id in dict.fromkeys(ids) if tool_id not in recorded]
    for thread in ("alice", "bob", "user:1", "用户"):
        assert store.load(thread) == expected.get(thread, [])
    assert store.stats().threads == sum(1 for ids in expected.values() if ids)
