"""A PydanticAI agent whose tools sit behind toolscout (`pip install 'toolscout[pydantic-ai]'`).

    python examples/pydantic_ai_agent.py          # a scripted model: no key, no network
    python examples/pydantic_ai_agent.py --real   # OpenAI (needs OPENAI_API_KEY)

The settings come from `examples/toolscout.yaml`, the file the CLI and the gateway read too.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from agent_tools import ANSWER, QUESTION, SCRIPT, TOOLS
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel

from toolscout.config import load_config
from toolscout.integrations.pydantic_ai import ToolScout

CONFIG = Path(__file__).with_name("toolscout.yaml")


def scripted_model() -> FunctionModel:
    """Plays `SCRIPT`, one call per step, then answers; prints the tools of each request."""
    steps = iter(SCRIPT)

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        for part in messages[-1].parts:
            if isinstance(part, ToolReturnPart):
                print(f"  -> {part.model_response_str()}")
        print("tools sent:", ", ".join(tool.name for tool in info.function_tools))
        step = next(steps, None)
        if step is None:
            return ModelResponse(parts=[TextPart(ANSWER)])
        name, arguments = step
        print(f"model calls {name}({arguments})")
        return ModelResponse(parts=[ToolCallPart(name, arguments)])

    return FunctionModel(respond)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", action="store_true", help="use OpenAI instead of a script")
    real = parser.parse_args().real
    if real and not os.environ.get("OPENAI_API_KEY"):
        sys.exit("--real needs OPENAI_API_KEY (and `pip install 'pydantic-ai-slim[openai]'`)")
    model: Model | str = "openai:gpt-4.1-mini" if real else scripted_model()

    settings = load_config(CONFIG).tool_search
    agent = Agent(model, tools=TOOLS, capabilities=[ToolScout(settings)])
    result = agent.run_sync(QUESTION)
    print("answer:", result.output)


if __name__ == "__main__":
    main()
