"""A real MCP server for the tests, written with the official SDK's MCPServer (mcp 2.x's FastMCP).

    python mcp_inventory_server.py                 # stdio
    python mcp_inventory_server.py --http PORT     # streamable HTTP at http://127.0.0.1:PORT/mcp

Six tools over an in-memory inventory, one per annotation case: two read-only, a non-destructive
non-idempotent write, an idempotent write, a destructive delete, and one without any annotations.
Every call is appended to ``$MCP_CALL_LOG`` (when set), so a test can prove a call never arrived.
"""

from __future__ import annotations

import os
import sys
from typing import Literal

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

app = MCPServer("inventory")
ITEMS: dict[str, dict] = {
    "A1": {"sku": "A1", "name": "kettle", "price": 25.0, "notes": []},
    "B2": {"sku": "B2", "name": "teapot", "price": 12.5, "notes": []},
}


def _log(tool: str) -> None:
    path = os.environ.get("MCP_CALL_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(tool + "\n")


class Item(BaseModel):
    sku: str
    name: str
    price: float
    notes: list[str]


class ItemList(BaseModel):
    count: int
    skus: list[str]


class Ack(BaseModel):
    ok: bool
    sku: str


@app.tool(annotations=ToolAnnotations(readOnlyHint=True))
def list_items(max_price: float = 1000.0) -> ItemList:
    """List the SKUs of items at or under a price."""
    _log("list_items")
    skus = sorted(s for s, i in ITEMS.items() if i["price"] <= max_price)
    return ItemList(count=len(skus), skus=skus)


@app.tool(annotations=ToolAnnotations(readOnlyHint=True))
def get_item(sku: str = Field(pattern=r"^[A-Z][0-9]$")) -> Item:
    """One item by SKU."""
    _log("get_item")
    if sku not in ITEMS:
        raise ValueError(f"no item {sku}")
    return Item(**ITEMS[sku])


@app.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False))
def add_note(sku: str, note: str) -> Ack:
    """Append a note to an item (not idempotent: each call appends)."""
    _log("add_note")
    ITEMS[sku]["notes"].append(note)
    return Ack(ok=True, sku=sku)


@app.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=True))
def set_price(sku: str, price: float = Field(gt=0)) -> Ack:
    """Set an item's price (idempotent)."""
    _log("set_price")
    ITEMS[sku]["price"] = price
    return Ack(ok=True, sku=sku)


@app.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True))
def delete_item(sku: str) -> Ack:
    """Delete an item for good."""
    _log("delete_item")
    ITEMS.pop(sku, None)
    return Ack(ok=True, sku=sku)


@app.tool()
def export_report(fmt: Literal["csv", "json"] = "json") -> str:
    """Export a report (no annotations: MCP's defaults say it may be destructive)."""
    _log("export_report")
    return f"report.{fmt}"


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        app.run()
