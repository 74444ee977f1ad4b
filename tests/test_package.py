"""Package-level promises: light import, registration."""

from __future__ import annotations

import subprocess
import sys


def test_import_is_light():
    code = (
        "import sys, sre_gym; "
        "heavy = [m for m in ('ray', 'kubernetes', 'matplotlib', 'pandas', 'openai', 'torch', 'mcp', 'httpx2', 'uvicorn', 'openenv', 'fastapi', 'gradio', 'fastmcp') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == ""


def test_registration_is_idempotent():
    import importlib

    import gymnasium as gym

    import sre_gym

    importlib.reload(sre_gym)
    assert gym.spec("SREMarathon-v0").entry_point == "sre_gym.envs.marathon:SREMarathonEnv"
    env = gym.make("sre_gym:SREMarathon-v0")
    assert env.unwrapped.app == "online-boutique"
