"""The AI assistant (spec 4.5): the streaming wellness chat with tools, its conversations, and the OpenAI-compatible
proxy; both reach the LLM through providers/ (the openai SDK against a configured server, or the local assistant)."""
