"""An upstream's tools in the catalog: which are offered, and how a new listing changes only
what differs. And the pieces of HTTP authentication that need no server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from toolscout.catalog import Catalog
from toolscout.config import ConfigError
from toolscout.gateway import UpstreamSettings
from toolscout.gateway.auth import check_exposure, is_loopback, load_tokens
from toolscout.gateway.config import AuthSettings
from toolscout.gateway.tools import offered_tools


def definition(name: str, description: str = "", **schema: Any) -> types.Tool:
    return types.Tool(
        name=name,
        description=description or f"The {name} tool.",
        input_schema={"type": "object", **schema},
    )


def offer(
    definitions: list[types.Tool], *, pinned: tuple[str, ...] = (), **settings: Any
) -> tuple[list[str], list[str]]:
    offered, skipped = offered_tools(
        definitions,
        namespace="ns",
        settings=UpstreamSettings(command="server", pinned=pinned, **settings),
        pinned=frozenset(pinned),
        handler=lambda name: lambda **arguments: None,
        deferred=True,
    )
    return [entry.tool.id for entry in offered], skipped


class TestOfferedTools:
    def test_include_and_exclude_globs_choose_the_tools(self) -> None:
        names = ["create_issue", "delete_issue", "list_repos", "get_issue"]
        ids, _ = offer([definition(n) for n in names], include=["*issue*"], exclude=["delete_*"])
        assert ids == ["ns__create_issue", "ns__get_issue"]

    def test_pinned_tools_are_not_deferred(self) -> None:
        offered, _ = offered_tools(
            [definition("a"), definition("b")],
            namespace="ns",
            settings=UpstreamSettings(command="server", pinned=["b"]),
            pinned=frozenset({"b"}),
            handler=lambda name: None,
            deferred=True,
        )
        assert [(e.tool.id, e.tool.pinned, e.tool.deferred) for e in offered] == [
            ("ns__a", False, True),
            ("ns__b", True, False),
        ]

    def test_what_cannot_be_offered_is_said(self) -> None:
        definitions = [definition("twice"), definition("twice"), definition("fine")]
        ids, skipped = offer(definitions, pinned=("absent",))
        assert ids == ["ns__twice", "ns__fine"]
        assert skipped == [
            "'twice' is listed twice; the first is kept",
            "pinned tool 'absent' is not among the server's tools",
        ]

    def test_the_server_s_other_keys_are_kept_as_metadata(self) -> None:
        tool = definition("stats").model_copy(
            update={"title": "Stats", "output_schema": {"type": "object"}}
        )
        offered, _ = offered_tools(
            [tool],
            namespace="ns",
            settings=UpstreamSettings(command="server", tags=["data"]),
            pinned=frozenset(),
            handler=lambda name: None,
            deferred=True,
        )
        assert offered[0].tool.metadata == {"title": "Stats", "outputSchema": {"type": "object"}}
        assert offered[0].tool.tags == ("data",)
        assert offered[0].definition is tool


class TestNamespaceSync:
    def tools(self, *definitions: types.Tool) -> list[Any]:
        offered, _ = offered_tools(
            definitions,
            namespace="ns",
            settings=UpstreamSettings(command="server"),
            pinned=frozenset(),
            handler=lambda name: None,
            deferred=True,
        )
        return [entry.tool for entry in offered]

    def test_only_what_differs_is_added_changed_or_removed(self) -> None:
        catalog = Catalog([{"name": "other", "description": "Another namespace's tool."}])
        first = self.tools(definition("a"), definition("b"), definition("c"))
        report = catalog.sync(first, namespace="ns")
        assert report.added == ("ns__a", "ns__b", "ns__c")
        kept_a, kept_b = catalog["ns__a"], catalog["ns__b"]
        version = catalog.version

        second = self.tools(definition("a"), definition("b", "Changed."), definition("d"))
        report = catalog.sync(second, namespace="ns")
        assert (report.added, report.replaced, report.removed, report.unchanged) == (
            ("ns__d",),
            ("ns__b",),
            ("ns__c",),
            ("ns__a",),
        )
        assert catalog["ns__a"] is kept_a
        assert catalog["ns__b"] is not kept_b
        assert catalog["ns__b"].description == "Changed."
        assert [tool.id for tool in catalog] == ["other", "ns__a", "ns__b", "ns__d"]
        assert catalog.version == version + 1  # one step, however many changes

    def test_the_same_tools_again_change_nothing(self) -> None:
        catalog = Catalog()
        catalog.sync(self.tools(definition("a"), definition("b")), namespace="ns")
        version = catalog.version
        report = catalog.sync(self.tools(definition("a"), definition("b")), namespace="ns")
        assert (report.added, report.replaced, report.removed, report.unchanged) == (
            (),
            (),
            (),
            ("ns__a", "ns__b"),
        )
        assert catalog.version == version


class TestAuthentication:
    def test_tokens_come_from_the_environment_and_the_file(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("GATEWAY_TOKENS", "one, two  ci: three")
        (tmp_path / "tokens").write_text("# team\nalice: four\n\nfive # laptop\none\n")
        settings = AuthSettings(tokens_env="GATEWAY_TOKENS", tokens_file=tmp_path / "tokens")
        assert load_tokens(settings) == {
            "one": "GATEWAY_TOKENS[1]",
            "two": "GATEWAY_TOKENS[2]",
            "three": "ci",
            "four": "alice",
            "five": "tokens:4",
        }

    def test_one_token_cannot_have_two_names(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("GATEWAY_TOKENS", "alice:tok-1")
        (tmp_path / "tokens").write_text("bob: tok-1\n")
        settings = AuthSettings(tokens_env="GATEWAY_TOKENS", tokens_file=tmp_path / "tokens")
        with pytest.raises(ConfigError, match="one token is given two names, alice and bob"):
            load_tokens(settings)

    def test_an_empty_token_file_is_an_error(self, tmp_path: Path) -> None:
        (tmp_path / "tokens").write_text("# nobody yet\n")
        with pytest.raises(ConfigError, match="holds no token; write one token per line"):
            load_tokens(AuthSettings(tokens_file=tmp_path / "tokens"))

    @pytest.mark.parametrize(
        ("host", "loopback"),
        [
            ("127.0.0.1", True),
            ("127.0.1.1", True),
            ("localhost", True),
            ("LOCALHOST", True),
            ("::1", True),
            ("[::1]", True),
            ("0:0:0:0:0:0:0:1", True),
            ("0.0.0.0", False),
            ("::", False),
            ("192.168.1.10", False),
            ("gateway.internal", False),
        ],
    )
    def test_loopback_addresses(self, host: str, loopback: bool) -> None:
        assert is_loopback(host) is loopback

    def test_serving_beyond_loopback_needs_a_token(self) -> None:
        check_exposure("127.0.0.1", {})
        check_exposure("0.0.0.0", {"token": "alice"})
        with pytest.raises(ConfigError, match=r"refusing to serve HTTP on 0\.0\.0\.0"):
            check_exposure("0.0.0.0", {})
