"""Language-model agents over any OpenAI-compatible chat-completions endpoint (extra ``llm``).

``make_agent("react", env=env, model="...", base_url="http://127.0.0.1:8000/v1")``. The ``openai``
SDK is imported only when such an agent is built; ``import sre_gym`` never imports it.
"""

from __future__ import annotations

import importlib
from typing import Any

# name -> (module under sre_gym.agents.llm, class, the budget keywords its constructor takes)
_AGENTS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "react": ("react", "ReactAgent", ("max_steps", "max_tokens")),
    "rag": ("rag", "RagAgent", ()),
    "keep-llm": ("keep_llm", "KeepLlmAgent", ("max_steps", "max_tokens")),
    "orbit": ("orbit", "OrbitAgent", ("max_steps", "max_tokens")),
}
LLM_AGENTS = tuple(_AGENTS)


def make_llm_agent(
    name: str,
    env: Any,
    *,
    model: str,
    base_url: str | None = None,
    api_key: str | None = None,
    price: tuple[float, float] | None = None,
    max_steps: int = 10,
    max_tokens: int = 150_000,
    **client_options: Any,
) -> Any:
    """An LLM agent by name. ``price`` is (input, output) dollars per million tokens; the client
    options (``timeout_s``, ``max_retries``, ``backoff_s``, ``http_client``) go to ``ModelClient``."""
    from sre_gym.agents.llm.client import ModelClient, Price

    if name not in LLM_AGENTS:
        raise ValueError(f"unknown LLM agent {name!r}; available: {', '.join(LLM_AGENTS)}")
    if env is None:
        raise ValueError(f"the {name} agent needs env= (it runs its calls inside the invocation)")
    if not model:
        raise ValueError(f"the {name} agent needs model=")
    client = ModelClient(
        model,
        base_url,
        api_key=api_key,
        price=Price(*price) if price is not None else None,
        **client_options,
    )
    module, cls, budget = _AGENTS[name]
    agent_class = getattr(importlib.import_module(f"sre_gym.agents.llm.{module}"), cls)
    limits = {"max_steps": max_steps, "max_tokens": max_tokens}
    return agent_class(env, client, **{k: limits[k] for k in budget})
