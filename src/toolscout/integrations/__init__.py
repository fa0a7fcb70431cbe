"""Tool search inside agent frameworks: PydanticAI, LangChain / LangGraph and the OpenAI
Agents SDK.

Each integration is its own module and imports its framework; importing `toolscout` or this
package imports none. Without the framework installed, importing the module raises
`MissingExtraError` naming the extra (`pip install 'toolscout[pydantic-ai]'`).

- `toolscout.integrations.pydantic_ai` (`toolscout[pydantic-ai]`)
- `toolscout.integrations.langchain` (`toolscout[langchain]`)
- `toolscout.integrations.openai_agents` (`toolscout[openai-agents]`)
"""
