"""Documents, schemas and the contract used by the validator benchmark (``bench.suites.validator``).

Three ActionResult documents (JSON bytes) of a tool result: small (≈200 B order status), medium
(≈5 KB search result), large (≈500 KB order list). Every peer validates the *same bytes* against
the *same* envelope schema (ActionResult fields + the tool's response schema for parsed_data).
"""
from __future__ import annotations

import random
from typing import Any

import orjson

STR = {"type": "string"}
NUM = {"type": "number"}
INT = {"type": "integer"}


def _envelope(tool: str, response_schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["tool", "status_code", "response_time_ms", "parsed_data"],
        "properties": {"tool": {"const": tool}, "status_code": INT, "response_time_ms": NUM,
                       "parsed_data": response_schema},
    }


ORDER_STATUS = ["pending", "paid", "shipped", "in_transit", "delivered", "cancelled", "refunded"]
ORDER = {"type": "object", "required": ["order_id", "status", "amount"],
         "properties": {"order_id": {"type": "string", "pattern": "^[0-9]{18}$"},
                        "status": {"enum": ORDER_STATUS}, "amount": {"type": "number", "minimum": 0},
                        "updated_at": STR}}
SEARCH = {"type": "object", "required": ["query", "total", "results"],
          "properties": {"query": STR, "total": INT, "results": {"type": "array", "items": {
              "type": "object", "required": ["id", "title", "url", "score"],
              "properties": {"id": STR, "title": STR, "url": STR, "score": NUM, "snippet": STR,
                             "tags": {"type": "array", "items": STR}}}}}}
ORDER_LIST = {"type": "object", "required": ["orders", "count"],
              "properties": {"count": INT, "orders": {"type": "array", "items": ORDER}}}


def _rules(extra: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"name": "status_ok", "logic": {"==": [{"var": "status_code"}, 200]}},
        {"name": "fast_enough", "logic": {"<": [{"var": "response_time_ms"}, 3000]}},
        *extra,
    ]


def contract(name: str, response_schema: dict[str, Any], rules: list[dict[str, Any]],
             extract: dict[str, str]) -> dict[str, Any]:
    """A ToolSpec dict (the fields the checker reads)."""
    return {"name": name, "description": "bench", "args_schema": {}, "response_schema": response_schema,
            "observation_rules": _rules(rules), "allowed_status_codes": [200], "required_fields": [],
            "blacklist": {}, "extract": extract, "timeout_ms": 5000}


def _action(tool: str, data: Any) -> bytes:
    return orjson.dumps({"tool": tool, "status_code": 200, "response_time_ms": 87.5, "parsed_data": data})


def documents(seed: int = 0) -> dict[str, dict[str, Any]]:
    """``{size: {"doc": bytes, "schema": envelope schema, "contract": ToolSpec dict}}``."""
    rng = random.Random(seed)
    small = _action("get_order_status", {"order_id": "202405011234567890", "status": "shipped",
                                         "amount": 129.9, "updated_at": "2024-05-01T10:00:00+08:00"})
    results = [{"id": f"doc-{i}", "title": f"Result title number {i} about orders and invoices",
                "url": f"https://example.com/kb/{i}", "score": round(rng.random(), 4),
                "snippet": "A short snippet of the matching text, " * 2, "tags": ["kb", "orders", f"t{i % 5}"]}
               for i in range(20)]
    medium = _action("search_kb", {"query": "refund policy", "total": 20, "results": results})
    orders = [{"order_id": f"{202400000000000000 + i}", "status": ORDER_STATUS[i % 7],
               "amount": round(rng.uniform(1, 5000), 2), "updated_at": "2024-05-01T10:00:00+08:00"}
              for i in range(4300)]
    large = _action("list_orders", {"count": len(orders), "orders": orders})
    status_rules = [{"name": "status_known", "logic": {"!": {"in": [{"var": "data.status"}, ["unknown", "error"]]}}},
                    {"name": "amount_positive", "logic": {">=": [{"var": "data.amount"}, 0]}}]
    return {
        "small": {"doc": small, "schema": _envelope("get_order_status", ORDER),
                  "contract": contract("get_order_status", ORDER, status_rules,
                                       {"order_id": "/order_id", "status": "/status", "amount": "/amount"})},
        "medium": {"doc": medium, "schema": _envelope("search_kb", SEARCH),
                   "contract": contract("search_kb", SEARCH,
                                        [{"name": "has_results", "logic": {">": [{"var": "data.total"}, 0]}},
                                         {"name": "query_echoed", "logic": {"!!": [{"var": "data.query"}]}}],
                                        {"total": "/total", "top_id": "/results/0/id"})},
        "large": {"doc": large, "schema": _envelope("list_orders", ORDER_LIST),
                  "contract": contract("list_orders", ORDER_LIST,
                                       [{"name": "count_matches", "logic": {">=": [{"var": "data.count"}, 0]}},
                                        {"name": "has_orders", "logic": {"!!": [{"var": "data.orders.0"}]}}],
                                       {"count": "/count", "first": "/orders/0/order_id"})},
    }
