"""ToolRegistry.args_schemas(): built once, shared, rebuilt after every register."""

from __future__ import annotations

from tao.action.registry import ToolRegistry
from tao.contracts import ToolSpec


def _spec(name: str, prop: str) -> ToolSpec:
    return ToolSpec(
        name=name,
        description=f"{name} tool",
        args_schema={"type": "object", "properties": {prop: {"type": "string"}}},
    )


def test_args_schemas_is_shared_until_a_tool_is_registered() -> None:
    reg = ToolRegistry()
    reg.register(_spec("a_tool", "x"), lambda x: {"x": x})
    first = reg.args_schemas()
    assert reg.args_schemas() is first  # no rebuild per plan
    assert first == {"a_tool": {"type": "object", "properties": {"x": {"type": "string"}}}}
    reg.register(_spec("b_tool", "y"), lambda y: {"y": y})
    second = reg.args_schemas()
    assert set(second) == {"a_tool", "b_tool"} and set(first) == {"a_tool"}
    reg.register_http([_spec("a_tool", "z")], "http://127.0.0.1:9")  # a contract replaced
    assert reg.args_schemas()["a_tool"]["properties"] == {"z": {"type": "string"}}
