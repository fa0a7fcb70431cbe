"""A LangChain agent whose tools sit behind toolscout (`pip install 'toolscout[langchain]'`).

    python examples/langchain_agent.py          # a scripted chat model: no key, no network
    python examples/langchain_agent.py --real   # OpenAI (needs OPENAI_API_KEY and
                                                # `pip install langchain-openai`)

The settings come from `examples/toolscout.yaml`, the file the CLI and the gateway read too.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent_tools import ANSWER, QUESTION, SCRIPT, TOOLS
from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool

from toolscout.config import load_config
from toolscout.integrations.langchain import ToolScoutMiddleware

CONFIG = Path(__file__).with_name("toolscout.yaml")


class ScriptedChatModel(BaseChatModel):
    """Plays `SCRIPT`, one call per step, then answers; prints the tools of each request."""

    step: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable[Any, AIMessage]:
        return self.bind(tools=[convert_to_openai_tool(tool) for tool in tools], **kwargs)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        if isinstance(messages[-1], ToolMessage):
            print(f"  -> {messages[-1].text}")
        print("tools sent:", ", ".join(tool["function"]["name"] for tool in kwargs["tools"]))
        if self.step == len(SCRIPT):
            reply = AIMessage(content=ANSWER)
        else:
            name, arguments = SCRIPT[self.step]
            print(f"model calls {name}({arguments})")
            reply = AIMessage(
                content="",
                tool_calls=[{"name": name, "args": arguments, "id": f"call_{self.step}"}],
            )
        self.step += 1
        return ChatResult(generations=[ChatGeneration(message=reply)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", action="store_true", help="use OpenAI instead of a script")
    real = parser.parse_args().real
    if real and not os.environ.get("OPENAI_API_KEY"):
        sys.exit("--real needs OPENAI_API_KEY (and `pip install langchain-openai`)")
    model: BaseChatModel | str = "openai:gpt-4.1-mini" if real else ScriptedChatModel()

    settings = load_config(CONFIG).tool_search
    agent = create_agent(model, tools=TOOLS, middleware=[ToolScoutMiddleware(settings)])
    state = agent.invoke({"messages": [{"role": "user", "content": QUESTION}]})
    print("answer:", state["messages"][-1].text)


if __name__ == "__main__":
    main()
