"""`Catalog.sync`: a catalog brought up to a wanted list in one step, and what it changed."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator

import pytest

from toolscout.catalog import Catalog, SyncReport, Tool
from toolscout.errors import CatalogFormatError, DuplicateToolError, ToolDefinitionError
from toolscout.search import ToolIndex

from .tool_examples import make_tool


def ids(catalog: Catalog) -> list[str]:
    return [tool.id for tool in catalog]


def state(catalog: Catalog) -> tuple[int, list[Tool]]:
    """What a bad sync must leave as it was: the version and the very tool objects."""
    return catalog.version, list(catalog)


class TestWhatChanges:
    def test_the_report_names_each_change_and_the_version_moves_once(self) -> None:
        catalog = Catalog([make_tool("a"), make_tool("b"), make_tool("c")])
        kept_a, version = catalog["a"], catalog.version
        report = catalog.sync(
            [make_tool("d"), make_tool("b", description="Better words."), make_tool("a")]
        )
        assert report == SyncReport(added=("d",), replaced=("b",), removed=("c",), unchanged=("a",))
        assert catalog.version == version + 1
        assert catalog["a"] is kept_a
        assert catalog["b"].description == "Better words."

    def test_kept_tools_keep_their_place_and_new_ones_go_at_the_end(self) -> None:
        catalog = Catalog([make_tool("a"), make_tool("b"), make_tool("c")])
        catalog.sync([make_tool("e"), make_tool("c"), make_tool("d"), make_tool("a")])
        assert ids(catalog) == ["a", "c", "e", "d"]

    def test_the_same_tools_again_change_nothing(self) -> None:
        catalog = Catalog([make_tool("a"), make_tool("b")])
        before = state(catalog)
        report = catalog.sync([make_tool("a"), make_tool("b")])
        assert report == SyncReport(unchanged=("a", "b"))
        assert state(catalog) == before

    def test_a_new_handler_replaces_the_tool(self) -> None:
        catalog = Catalog([make_tool("a").model_copy(update={"handler": print})])
        report = catalog.sync([make_tool("a").model_copy(update={"handler": repr})])
        assert report.replaced == ("a",)
        assert catalog["a"].handler is repr

    def test_any_shape_is_accepted(self) -> None:
        catalog = Catalog()
        report = catalog.sync([{"name": "get_weather", "description": "Weather for a city."}])
        assert (report.added, ids(catalog)) == (("get_weather",), ["get_weather"])

    def test_an_empty_list_empties_the_catalog(self) -> None:
        catalog = Catalog([make_tool("a"), make_tool("b")])
        assert catalog.sync([]).removed == ("a", "b")
        assert len(catalog) == 0


class TestNamespaces:
    def test_syncing_one_namespace_leaves_the_others_alone(self) -> None:
        catalog = Catalog([make_tool("x", namespace="mail"), make_tool("plain")])
        catalog.add([make_tool("a", namespace="files"), make_tool("y", namespace="mail")])
        others = [catalog["mail__x"], catalog["plain"], catalog["mail__y"]]
        report = catalog.sync([make_tool("b")], namespace="files")
        assert report == SyncReport(added=("files__b",), removed=("files__a",))
        assert ids(catalog) == ["mail__x", "plain", "mail__y", "files__b"]
        assert [catalog["mail__x"], catalog["plain"], catalog["mail__y"]] == others
        assert all(a is b for a, b in zip(others, [catalog[t.id] for t in others], strict=True))

    def test_tools_without_a_namespace_get_the_synced_one(self) -> None:
        catalog = Catalog()
        catalog.sync([make_tool("a"), make_tool("b", namespace="files")], namespace="files")
        assert ids(catalog) == ["files__a", "files__b"]

    def test_without_a_namespace_the_whole_catalog_is_synced(self) -> None:
        catalog = Catalog([make_tool("a", namespace="mail"), make_tool("plain")])
        report = catalog.sync([make_tool("b", namespace="files")])
        assert report == SyncReport(added=("files__b",), removed=("mail__a", "plain"))


class TestBadInput:
    def test_duplicate_ids_change_nothing(self) -> None:
        catalog = Catalog([make_tool("a")])
        before = state(catalog)
        with pytest.raises(DuplicateToolError, match="tool 'b' appears twice in the catalog"):
            catalog.sync([make_tool("b"), make_tool("c"), make_tool("b", description="Again.")])
        assert state(catalog) == before

    def test_a_tool_of_another_namespace_changes_nothing(self) -> None:
        catalog = Catalog([make_tool("a", namespace="files")])
        before = state(catalog)
        with pytest.raises(
            ToolDefinitionError,
            match="tool 'mail__x' is in namespace 'mail', not 'files': syncing namespace "
            "'files' takes only its own tools",
        ):
            catalog.sync([make_tool("b"), make_tool("x", namespace="mail")], namespace="files")
        assert state(catalog) == before

    def test_an_id_taken_in_another_namespace_changes_nothing(self) -> None:
        catalog = Catalog([make_tool("x", namespace="mail").model_copy(update={"id": "x"})])
        before = state(catalog)
        with pytest.raises(DuplicateToolError, match="tool id 'x' is already taken by a tool of"):
            catalog.sync(
                [make_tool("x", namespace="files").model_copy(update={"id": "x"})],
                namespace="files",
            )
        assert state(catalog) == before

    def test_an_unreadable_definition_changes_nothing(self) -> None:
        catalog = Catalog([make_tool("a")])
        before = state(catalog)
        with pytest.raises(CatalogFormatError):
            catalog.sync([make_tool("b"), 42])
        assert state(catalog) == before


@pytest.fixture
def frequent_thread_switches() -> Iterator[None]:
    """Let the interpreter switch threads as often as it can, so that a reader gets to run
    between any two steps a writer takes."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(interval)


@pytest.mark.usefixtures("frequent_thread_switches")
class TestSearchDuringSync:
    def test_a_search_sees_the_old_catalog_or_the_new_one_never_a_mix(self) -> None:
        def files(*names: str, words: str) -> list[Tool]:
            return [make_tool(name, description=f"Work on a file: {words}.") for name in names]

        # Both lists share a tool (changed in the second), and each has tools of its own.
        old = files("read", "write", "remove", words="local disk")
        new = [*files("read", words="cloud bucket"), *files("upload", "share", words="cloud")]
        expected = ({tool.id for tool in old}, {tool.id for tool in new})
        catalog = Catalog(old)
        index = ToolIndex(catalog, "bm25", threshold=0)
        syncing = threading.Event()
        seen: list[set[str]] = []

        def search_until_done() -> None:
            while True:
                done = not syncing.is_set()
                seen.append({hit.tool.id for hit in index.search("file", k=10)})
                if done:
                    return

        def sync_back_and_forth() -> None:
            for _ in range(400):
                catalog.sync(new)
                catalog.sync(old)

        syncing.set()
        reader = threading.Thread(target=search_until_done)
        reader.start()
        sync_back_and_forth()
        syncing.clear()
        reader.join()
        mixed = [found for found in seen if found not in expected]
        assert mixed == []

    def test_code_run_during_a_sync_sees_the_old_catalog(self) -> None:
        """Sync compares handlers with `==`, which runs the handler's own code: a search made
        there, in the middle of the sync, still finds the catalog as it was."""
        seen: list[set[str]] = []

        class Handler:
            def __call__(self) -> None: ...

            def __eq__(self, other: object) -> bool:
                seen.append({hit.tool.id for hit in index.search("file", k=10)})
                return other is self

            __hash__ = object.__hash__

        def tool(name: str) -> Tool:
            return make_tool(name, description="Work on a file.").model_copy(
                update={"handler": Handler()}
            )

        catalog = Catalog([tool("read"), tool("write")])
        index = ToolIndex(catalog, "bm25", threshold=0)
        report = catalog.sync([tool("read"), tool("upload")])
        # Pydantic may compare a tool's handler more than once; each time, the old catalog.
        assert seen and all(found == {"read", "write"} for found in seen)
        assert (report.replaced, report.removed, report.added) == (
            ("read",),
            ("write",),
            ("upload",),
        )
        assert {hit.tool.id for hit in index.search("file", k=10)} == {"read", "upload"}
