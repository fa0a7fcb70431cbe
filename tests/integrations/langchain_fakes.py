"""A scripted LangChain chat model: it plays tool calls and records the tools it was sent."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr

Step = list[tuple[str, dict[str, Any]]] | str
"""One model turn: the tool calls to make, or the final text."""


class ScriptedChatModel(BaseChatModel):
    """Answers each request with the next step of the script; `bind_tools` formats the tools
    as OpenAI's chat API would receive them, and each request's tool names are recorded."""

    steps: list[Step]
    _script: Iterator[Step] = PrivateAttr()
    _tools_seen: list[list[str]] = PrivateAttr(default_factory=list)
    _results: list[tuple[str, str]] = PrivateAttr(default_factory=list)

    def model_post_init(self, context: Any) -> None:
        self._script = iter(self.steps)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def tools_seen(self) -> list[list[str]]:
        return self._tools_seen

    def returned(self, name: str) -> list[str]:
        return [content for tool, content in self._results if tool == name]

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools], **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self._tools_seen.append([tool["function"]["name"] for tool in kwargs.get("tools", [])])
        answered = len(messages)
        while answered and isinstance(messages[answered - 1], ToolMessage):
            answered -= 1
        self._results += [
            (message.name or "", message.text)
            for message in messages[answered:]
            if isinstance(message, ToolMessage)
        ]
        step = next(self._script)
        if isinstance(step, str):
            reply = AIMessage(content=step)
        else:
            reply = AIMessage(
                content="",
                tool_calls=[
                    {"name": name, "args": args, "id": f"call_{len(self._tools_seen)}_{i}"}
                    for i, (name, args) in enumerate(step)
                ],
            )
        return ChatResult(generations=[ChatGeneration(message=reply)])
