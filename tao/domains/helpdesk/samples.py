"""Real response bodies of the helpdesk tools: what the mock service (:mod:`.mock`, seed 7) answers
for the calls in :data:`SAMPLE_CALLS` (``tests/tao/domains/test_helpdesk_samples.py`` replays them
and compares). Loading the domain checks each against its tool's response schema and observation
rules (:mod:`tao.domains.samples`)."""

from __future__ import annotations

from typing import Any

SAMPLE_CALLS: dict[str, list[dict[str, Any]]] = {
    "find_employee": [{"name": "Alice Chen"}, {"email": "zhang.wei@corp.example.com"}],
    "get_employee": [{"employee_id": "E100000"}, {"employee_id": "E120555"}],
    "reset_password": [{"employee_id": "E100000", "system": "vpn"}],
    "create_ticket": [{"employee_id": "E100000", "category": "hardware", "summary": "电脑开不了机"}],
    "get_ticket": [{"ticket_id": "TCK-160816"}],
    "list_tickets": [{"employee_id": "E108222"}, {"employee_id": "E108222", "status": "closed"}],
    "list_devices": [{"employee_id": "E104111"}],
    "request_device_replacement": [{"asset_tag": "AT-57931", "reason": "battery drains fast"}],
}
"""Tool -> the arguments of each sample's call (on a fresh ``HelpdeskData.generate()``, in this order)."""

_T1 = {"ticket_id": "TCK-160816", "status": "waiting", "summary": "VPN disconnects", "assignee": "Li Ming"}
_T2 = {
    "ticket_id": "TCK-554710",
    "status": "closed",
    "summary": "laptop battery drains fast",
    "assignee": "IT Desk",
}
_T3 = {
    "ticket_id": "TCK-325127",
    "status": "resolved",
    "summary": "laptop battery drains fast",
    "assignee": "Sam Turner",
}

RESPONSE_SAMPLES: dict[str, list[Any]] = {
    "find_employee": [
        {"employee_id": "E120555", "name": "Alice Chen", "email": "alice.chen@corp.example.com"},
        {"employee_id": "E100000", "name": "张伟", "email": "zhang.wei@corp.example.com"},
    ],
    "get_employee": [
        {
            "employee_id": "E100000",
            "name": "张伟",
            "email": "zhang.wei@corp.example.com",
            "department": "Engineering",
            "manager_id": "E112333",
            "location": "Shanghai HQ",
        },
        {
            "employee_id": "E120555",
            "name": "Alice Chen",
            "email": "alice.chen@corp.example.com",
            "department": "Marketing",
            "manager_id": "E132888",
            "location": "Shanghai HQ",
        },
    ],
    "reset_password": [{"reset_id": "RST-438588", "system": "vpn"}],
    "create_ticket": [{"ticket_id": "TCK-355231", "status": "open"}],
    "get_ticket": [_T1],
    "list_tickets": [{"tickets": [_T1, _T2, _T3], "count": 3}, {"tickets": [_T2], "count": 1}],
    "list_devices": [
        {
            "devices": [
                {"asset_tag": "AT-57931", "model": "MacBook Pro 14", "type": "laptop"},
                {"asset_tag": "AT-86387", "model": "iPhone 15", "type": "phone"},
            ],
            "count": 2,
        }
    ],
    "request_device_replacement": [{"request_id": "REQ-362173", "ticket_id": "TCK-365593"}],
}
"""Tool -> the bodies the mock service returned for :data:`SAMPLE_CALLS`."""
