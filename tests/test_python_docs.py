"""docs/python.md stays true: its notebook, API and training-loop examples run as written."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "python.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def block(containing: str) -> str:
    (code,) = [b for b in BLOCKS if containing in b]
    return code


@pytest.mark.parametrize("marker", ["theme=\"dark\"", "replay(game.size"])
def test_the_notebook_and_api_examples_run(marker):
    exec(compile(block(marker), str(DOC), "exec"), {})


def test_the_training_loop_runs_and_its_reward_grows():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block("for update in range"), str(DOC), "exec"), {"__name__": "docs"})
    rewards = [float(x) for x in re.findall(r"mean reward per step ([\d.]+)", out.getvalue())]
    assert len(rewards) == 3 and rewards[-1] > rewards[0]


def test_the_gymnasium_examples_run_in_order():
    """The single env, its encodings and rgb_array frames, then the vector env with its actions and masks."""
    names: dict = {}
    for marker in ('render_mode="ansi"', "frame = env.render()", "action_space.sample()"):
        exec(compile(block(marker), str(DOC), "exec"), names)
    assert names["obs"].shape == (1024, 4, 4) and names["masks"].shape == (1024, 4)
    assert names["frame"].shape == (256, 256, 3)


def test_the_notebook_stepping_example_runs():
    names: dict = {}
    exec(compile(block("Steps.of(game)"), str(DOC), "exec"), names)
    assert len(names["steps"]) == len(names["game"].log) + 1


def test_the_module_functions_the_docs_name_exist():
    from game2048.svg import readable

    assert readable("#ffffff", "#ffffff") in ("#000000", "#ffffff")
