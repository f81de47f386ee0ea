"""The REPL's view of the schemas: omp's own shapes are accepted, wrong ones still refused."""

from __future__ import annotations

from rpcspy.interactive.schema import CommandSchema

OMP = CommandSchema("omp")
TODOS = {"type": "set_todos", "phases": [{"name": "Ship", "tasks": [{"content": "write", "status": "pending"},
                                                                     {"content": "test", "status": "in_progress"}]}]}


def test_omps_set_todos_is_accepted() -> None:
    """omp checks `name`/`tasks` and each task's `content`/`status` (isTodoPhase); no ids."""
    assert OMP.problems(TODOS) == []
    assert CommandSchema(None).problems(TODOS) == []


def test_a_wrong_todo_status_is_refused() -> None:
    bad = {"type": "set_todos", "phases": [{"name": "Ship", "tasks": [{"content": "x", "status": "done"}]}]}
    [problem] = OMP.problems(bad)
    assert "status" in problem and "in_progress" in problem
