"""Example requests of the workplace domain (at most ten per tool and language), written from the
tool descriptions, with real values (``training.derive`` finds them in the text), plus the words
requests use for enum values (:data:`VALUE_WORDS`) and the cues after which a reason follows."""

from __future__ import annotations

from tao.contracts.domain import RequestExample

ME = "<ME>"
X = RequestExample.of


def C(text: str, lang: str, *steps: tuple[str, dict]) -> RequestExample:
    return RequestExample(text=text, lang=lang, steps=tuple(steps))


_LEAVE: tuple[RequestExample, ...] = (
    # get_leave_balance
    X("我还剩几天年假", "zh", "get_leave_balance", employee_id=ME, leave_type="annual"),
    X("查一下我的假期余额", "zh", "get_leave_balance", employee_id=ME),
    X("E104233还有多少天病假", "zh", "get_leave_balance", employee_id="E104233", leave_type="sick"),
    X("看看E208871的剩余假期", "zh", "get_leave_balance", employee_id="E208871"),
    X("我的事假还有几天", "zh", "get_leave_balance", employee_id=ME, leave_type="personal"),
    X(
        "how many annual leave days do I have left",
        "en",
        "get_leave_balance",
        employee_id=ME,
        leave_type="annual",
    ),
    X("show my leave balance", "en", "get_leave_balance", employee_id=ME),
    X(
        "how much sick leave does E104233 have",
        "en",
        "get_leave_balance",
        employee_id="E104233",
        leave_type="sick",
    ),
    X(
        "remaining vacation days for E208871",
        "en",
        "get_leave_balance",
        employee_id="E208871",
        leave_type="annual",
    ),
    X("check my personal leave balance", "en", "get_leave_balance", employee_id=ME, leave_type="personal"),
    # request_leave
    X(
        "我要请年假，2026-05-06到2026-05-08",
        "zh",
        "request_leave",
        employee_id=ME,
        leave_type="annual",
        start_date="2026-05-06",
        end_date="2026-05-08",
    ),
    X(
        "帮我申请病假 2026-04-13 至 2026-04-14",
        "zh",
        "request_leave",
        employee_id=ME,
        leave_type="sick",
        start_date="2026-04-13",
        end_date="2026-04-14",
    ),
    X(
        "给E104233提交事假，从2026-06-01到2026-06-02",
        "zh",
        "request_leave",
        employee_id="E104233",
        leave_type="personal",
        start_date="2026-06-01",
        end_date="2026-06-02",
    ),
    X(
        "我想休假，2026-07-20到2026-07-24，年假",
        "zh",
        "request_leave",
        employee_id=ME,
        leave_type="annual",
        start_date="2026-07-20",
        end_date="2026-07-24",
    ),
    X(
        "book annual leave for me from 2026-05-06 to 2026-05-08",
        "en",
        "request_leave",
        employee_id=ME,
        leave_type="annual",
        start_date="2026-05-06",
        end_date="2026-05-08",
    ),
    X(
        "I need sick leave 2026-04-13 to 2026-04-14",
        "en",
        "request_leave",
        employee_id=ME,
        leave_type="sick",
        start_date="2026-04-13",
        end_date="2026-04-14",
    ),
    X(
        "file a personal leave request for E104233 from 2026-06-01 until 2026-06-02",
        "en",
        "request_leave",
        employee_id="E104233",
        leave_type="personal",
        start_date="2026-06-01",
        end_date="2026-06-02",
    ),
    X(
        "I'd like to take vacation 2026-07-20 through 2026-07-24",
        "en",
        "request_leave",
        employee_id=ME,
        leave_type="annual",
        start_date="2026-07-20",
        end_date="2026-07-24",
    ),
    # list_leave_requests
    X("我提交过的请假申请", "zh", "list_leave_requests", employee_id=ME),
    X("看看我还在审批中的请假", "zh", "list_leave_requests", employee_id=ME, status="pending"),
    X("E104233的请假记录", "zh", "list_leave_requests", employee_id="E104233"),
    X("我哪些假被批了", "zh", "list_leave_requests", employee_id=ME, status="approved"),
    X("list my leave requests", "en", "list_leave_requests", employee_id=ME),
    X(
        "which of my leave requests are still pending",
        "en",
        "list_leave_requests",
        employee_id=ME,
        status="pending",
    ),
    X("show the leave history of E104233", "en", "list_leave_requests", employee_id="E104233"),
    X("my approved time off requests", "en", "list_leave_requests", employee_id=ME, status="approved"),
    # cancel_leave_request
    X("撤销请假申请LV-204511", "zh", "cancel_leave_request", leave_id="LV-204511"),
    X("把LV-318820这个假取消掉", "zh", "cancel_leave_request", leave_id="LV-318820"),
    X("我不休了，取消请假单LV-104233", "zh", "cancel_leave_request", leave_id="LV-104233"),
    X("cancel leave request LV-204511", "en", "cancel_leave_request", leave_id="LV-204511"),
    X("withdraw my time off LV-318820", "en", "cancel_leave_request", leave_id="LV-318820"),
    X("please retract the leave application LV-104233", "en", "cancel_leave_request", leave_id="LV-104233"),
    # get_payslip
    X("我2026-03的工资条", "zh", "get_payslip", employee_id=ME, month="2026-03"),
    X("查一下2026-02的薪资明细", "zh", "get_payslip", employee_id=ME, month="2026-02"),
    X("E104233在2026-01实发多少工资", "zh", "get_payslip", employee_id="E104233", month="2026-01"),
    X("我2025-12扣了多少税", "zh", "get_payslip", employee_id=ME, month="2025-12"),
    X("show my payslip for 2026-03", "en", "get_payslip", employee_id=ME, month="2026-03"),
    X("what was my net pay in 2026-02", "en", "get_payslip", employee_id=ME, month="2026-02"),
    X("salary statement of E104233 for 2026-01", "en", "get_payslip", employee_id="E104233", month="2026-01"),
    X(
        "how much tax was deducted from my pay in 2025-12",
        "en",
        "get_payslip",
        employee_id=ME,
        month="2025-12",
    ),
)

_TRAVEL: tuple[RequestExample, ...] = (
    # search_flights
    X(
        "查2026-05-06从上海到北京的航班",
        "zh",
        "search_flights",
        origin="上海",
        destination="北京",
        date="2026-05-06",
    ),
    X(
        "2026-06-10深圳飞成都有什么机票",
        "zh",
        "search_flights",
        origin="深圳",
        destination="成都",
        date="2026-06-10",
    ),
    X(
        "帮我看看2026-04-20北京去杭州的商务舱",
        "zh",
        "search_flights",
        origin="北京",
        destination="杭州",
        date="2026-04-20",
        cabin="business",
    ),
    X(
        "flights from Shanghai to Beijing on 2026-05-06",
        "en",
        "search_flights",
        origin="Shanghai",
        destination="Beijing",
        date="2026-05-06",
    ),
    X(
        "find me a flight Shenzhen to Chengdu 2026-06-10",
        "en",
        "search_flights",
        origin="Shenzhen",
        destination="Chengdu",
        date="2026-06-10",
    ),
    X(
        "business class flights London to Paris on 2026-04-20",
        "en",
        "search_flights",
        origin="London",
        destination="Paris",
        date="2026-04-20",
        cabin="business",
    ),
    # book_flight
    X("订航班FLT-583021", "zh", "book_flight", flight_id="FLT-583021", employee_id=ME),
    X("给E104233订FLT-220417这班飞机", "zh", "book_flight", flight_id="FLT-220417", employee_id="E104233"),
    X("就订FLT-901266这个机票吧", "zh", "book_flight", flight_id="FLT-901266", employee_id=ME),
    X("book flight FLT-583021 for me", "en", "book_flight", flight_id="FLT-583021", employee_id=ME),
    X("reserve FLT-220417 for E104233", "en", "book_flight", flight_id="FLT-220417", employee_id="E104233"),
    X("get me a seat on FLT-901266", "en", "book_flight", flight_id="FLT-901266", employee_id=ME),
    # search_hotels
    X("北京2026-05-06入住住3晚的酒店", "zh", "search_hotels", city="北京", check_in="2026-05-06", nights=3),
    X("查一下杭州2026-06-10的酒店", "zh", "search_hotels", city="杭州", check_in="2026-06-10"),
    X(
        "帮我找成都的宾馆，2026-04-20入住，2晚",
        "zh",
        "search_hotels",
        city="成都",
        check_in="2026-04-20",
        nights=2,
    ),
    X(
        "hotels in Beijing checking in 2026-05-06 for 3 nights",
        "en",
        "search_hotels",
        city="Beijing",
        check_in="2026-05-06",
        nights=3,
    ),
    X("find a hotel in Paris from 2026-06-10", "en", "search_hotels", city="Paris", check_in="2026-06-10"),
    X(
        "where can I stay in Chengdu on 2026-04-20, 2 nights",
        "en",
        "search_hotels",
        city="Chengdu",
        check_in="2026-04-20",
        nights=2,
    ),
    # book_hotel
    X("订酒店HTL-40213", "zh", "book_hotel", hotel_id="HTL-40213", employee_id=ME),
    X("给E104233预订HTL-51877", "zh", "book_hotel", hotel_id="HTL-51877", employee_id="E104233"),
    X("就住HTL-33090吧，帮我订", "zh", "book_hotel", hotel_id="HTL-33090", employee_id=ME),
    X("book hotel HTL-40213 for me", "en", "book_hotel", hotel_id="HTL-40213", employee_id=ME),
    X(
        "reserve a room at HTL-51877 for E104233",
        "en",
        "book_hotel",
        hotel_id="HTL-51877",
        employee_id="E104233",
    ),
    X("take the HTL-33090 offer", "en", "book_hotel", hotel_id="HTL-33090", employee_id=ME),
    # get_trip
    X("出差行程TRP-582210的详情", "zh", "get_trip", trip_id="TRP-582210"),
    X("TRP-104233这趟出差一共花多少", "zh", "get_trip", trip_id="TRP-104233"),
    X("看看TRP-330918的行程状态", "zh", "get_trip", trip_id="TRP-330918"),
    X("show the itinerary of trip TRP-582210", "en", "get_trip", trip_id="TRP-582210"),
    X("what's the total cost of TRP-104233", "en", "get_trip", trip_id="TRP-104233"),
    X("status of business trip TRP-330918", "en", "get_trip", trip_id="TRP-330918"),
    # cancel_trip
    X("取消出差TRP-582210", "zh", "cancel_trip", trip_id="TRP-582210"),
    X("TRP-104233这趟不去了，全部退掉", "zh", "cancel_trip", trip_id="TRP-104233"),
    X("把行程TRP-330918取消", "zh", "cancel_trip", trip_id="TRP-330918"),
    X("cancel trip TRP-582210", "en", "cancel_trip", trip_id="TRP-582210"),
    X("the TRP-104233 trip is off, cancel all bookings", "en", "cancel_trip", trip_id="TRP-104233"),
    X("call off business trip TRP-330918", "en", "cancel_trip", trip_id="TRP-330918"),
    # chains
    C(
        "查2026-05-06上海到北京的航班，订最便宜的那班",
        "zh",
        ("search_flights", {"origin": "上海", "destination": "北京", "date": "2026-05-06"}),
        ("book_flight", {"flight_id": "${t1.flight_id}", "employee_id": ME}),
    ),
    C(
        "find hotels in Paris from 2026-06-10 and book the cheapest",
        "en",
        ("search_hotels", {"city": "Paris", "check_in": "2026-06-10"}),
        ("book_hotel", {"hotel_id": "${t1.hotel_id}", "employee_id": ME}),
    ),
    C(
        "我最近一条请假申请取消掉",
        "zh",
        ("list_leave_requests", {"employee_id": ME}),
        ("cancel_leave_request", {"leave_id": "${t1.leave_id}"}),
    ),
    C(
        "cancel my latest pending leave request",
        "en",
        ("list_leave_requests", {"employee_id": ME, "status": "pending"}),
        ("cancel_leave_request", {"leave_id": "${t1.leave_id}"}),
    ),
)

EXAMPLES: tuple[RequestExample, ...] = _LEAVE + _TRAVEL

VALUE_WORDS: dict[str, dict[str, list[str]]] = {
    "leave_type": {
        "annual": ["年假", "休假", "vacation", "annual leave", "holiday"],
        "sick": ["病假", "sick leave", "sick"],
        "personal": ["事假", "personal leave"],
        "parental": ["产假", "陪产假", "育儿假", "parental leave", "maternity", "paternity"],
    },
    "status": {
        "pending": ["审批中", "待审批", "pending"],
        "approved": ["批了", "已批准", "approved"],
        "rejected": ["被拒", "驳回", "rejected"],
        "cancelled": ["已取消", "cancelled"],
    },
    "cabin": {
        "economy": ["经济舱", "economy"],
        "premium": ["超级经济舱", "premium economy"],
        "business": ["商务舱", "business class"],
    },
}

TEXT_CUES = (r"原因是", r"理由[:：]?", r"reason[:：]", r"because")
