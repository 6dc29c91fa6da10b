"""Synthetic tool-response bodies for the soft observation check (labels of tao.observe.soft).

Written from general knowledge of how services fail (web-server and CDN error pages, framework
stack traces, cloud-vendor JSON error envelopes in zh and en, client-library network errors,
truncated or garbled payloads) plus normal results for ``ok``. Each body is a *message* of a
label wrapped in a *format* (JSON envelope, XML, HTML page, plain text, stack trace), with
random ids, paths, hosts and request ids. Never derived from the labelled evaluation set.

``family`` names the message template, so a calibration split can hold out whole families.
"""

from __future__ import annotations

import json
import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass

R = random.Random


@dataclass
class Sample:
    body: str
    status_code: int | None
    label: str
    family: str
    lang: str


def _rid(r: R) -> str:
    k = r.random()
    if k < 0.4:
        return (
            str(uuid.UUID(int=r.getrandbits(128))).upper()
            if r.random() < 0.5
            else str(uuid.UUID(int=r.getrandbits(128)))
        )
    if k < 0.7:
        return "".join(r.choice("0123456789abcdef") for _ in range(r.choice((16, 24, 32))))
    return "".join(r.choice(string.ascii_uppercase + string.digits) for _ in range(r.choice((12, 20))))


def _host(r: R) -> str:
    return r.choice(
        [
            "api",
            "gateway",
            "svc",
            "orders",
            "pay",
            "inventory",
            "weather",
            "mail",
            "search",
            "user",
            "auth",
            "cdn",
        ]
    ) + r.choice(
        [".example.com", ".internal", ".svc.cluster.local", ".example.cn", "-prod.example.net", ":8080", ""]
    )


def _path(r: R) -> str:
    seg = r.choice(["v1", "v2", "api/v1", "api", "open/v3", "rest/2.0"])
    res = r.choice(
        ["orders", "users", "items", "weather", "invoices", "tickets", "files", "products", "shipments"]
    )
    tail = r.choice(["", f"/{r.randint(1, 999999)}", f"/{_rid(r)[:12]}", "/search", "/status"])
    return f"/{seg}/{res}{tail}"


def _ip(r: R) -> str:
    return ".".join(str(r.randint(1, 254)) for _ in range(4))


def _ts(r: R) -> str:
    return f"2026-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}T{r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}Z"


def _field(r: R) -> str:
    return r.choice(
        [
            "email",
            "user_id",
            "page_size",
            "start_date",
            "quantity",
            "city",
            "amount",
            "phone",
            "order_id",
            "limit",
            "currency",
            "name",
            "end_time",
            "PageSize",
            "RegionId",
            "sku",
            "address.zip",
            "items[0].qty",
        ]
    )


# ---- messages per label: (family, lang, texts, typical status codes, vendor codes) ---------------

MSG: dict[str, list[tuple[str, str, list[str], list[int], list[str]]]] = {
    "network_issue": [
        (
            "conn_refused",
            "en",
            [
                "connect ECONNREFUSED {ip}:{port}",
                "Connection refused",
                "dial tcp {ip}:{port}: connect: connection refused",
                "Failed to establish a new connection: [Errno 111] Connection refused",
                "java.net.ConnectException: Connection refused (Connection refused)",
            ],
            [502, 503, 0],
            ["ECONNREFUSED", "ConnectionError"],
        ),
        (
            "conn_reset",
            "en",
            [
                "read ECONNRESET",
                "Connection reset by peer",
                "socket hang up",
                "upstream prematurely closed connection while reading response header from upstream",
                "recv failure: Connection reset by peer",
                "broken pipe",
                "EPIPE: write after end",
            ],
            [502, 0],
            ["ECONNRESET", "EPIPE"],
        ),
        (
            "timeout",
            "en",
            [
                "upstream request timeout",
                "Gateway Timeout",
                "The upstream server timed out",
                "context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
                "ETIMEDOUT",
                "Read timed out. (read timeout=30)",
                "java.net.SocketTimeoutException: connect timed out",
                "The operation timed out",
                "upstream connect error or disconnect/reset before headers. reset reason: connection timeout",
                "Request timeout: the origin web server timed out responding to this request",
            ],
            [504, 408, 524, 0],
            ["ETIMEDOUT", "RequestTimeout", "GatewayTimeout"],
        ),
        (
            "dns",
            "en",
            [
                "getaddrinfo ENOTFOUND {host}",
                "dial tcp: lookup {host}: no such host",
                "Temporary failure in name resolution",
                "Name or service not known",
                "Could not resolve host: {host}",
                "DNS resolution failed for {host}",
            ],
            [502, 0],
            ["ENOTFOUND", "EAI_AGAIN"],
        ),
        (
            "bad_gateway",
            "en",
            [
                "Bad Gateway",
                "The proxy server received an invalid response from an upstream server.",
                "no healthy upstream",
                "upstream connect error or disconnect/reset before headers. reset reason: connection failure",
                "Web server is down",
                "Connection timed out",
                "The web server reported a bad gateway error.",
                "origin is unreachable",
                "SSL handshake failed",
                "TLS handshake timeout",
                "ssl.SSLError: [SSL: WRONG_VERSION_NUMBER]",
                "certificate verify failed: unable to get local issuer certificate",
                "network is unreachable",
                "No route to host",
            ],
            [502, 504, 520, 521, 522, 523, 525, 526, 0],
            ["BadGateway", "UpstreamError"],
        ),
        (
            "net_zh",
            "zh",
            [
                "网络连接超时，请稍后重试",
                "连接被拒绝",
                "网关超时",
                "上游服务连接失败",
                "网络异常，请检查网络连接",
                "请求超时",
                "服务连接中断，请重试",
                "域名解析失败",
                "与服务器的连接已断开",
                "后端服务响应超时",
                "网络不可达",
                "读取响应超时",
                "SSL 握手失败",
                "代理服务器无法连接上游服务",
            ],
            [502, 504, 0, 200],
            ["NetworkError", "Timeout", "GatewayTimeout", "ServiceUnavailable.Timeout", "10060"],
        ),
    ],
    "auth_failed": [
        (
            "unauth",
            "en",
            [
                "Unauthorized",
                "Invalid API key provided: {key}",
                "Incorrect API key provided",
                "The access token expired",
                "Invalid authentication credentials",
                "Authentication required",
                "Bad credentials",
                "invalid_token: The access token provided is expired, revoked, malformed, or invalid",
                "Missing Authorization header",
                "JWT expired",
                "Signature verification failed",
                "The request signature we calculated does not match the signature you provided.",
                "The security token included in the request is invalid.",
                "Token has been revoked",
                "Login required",
                "Session expired, please sign in again",
                "Request had invalid authentication credentials.",
                "invalid_client",
                "invalid_grant",
                "unauthorized_client",
            ],
            [401, 403, 200],
            [
                "Unauthorized",
                "InvalidAccessKeyId",
                "SignatureDoesNotMatch",
                "InvalidToken",
                "UNAUTHENTICATED",
                "invalid_api_key",
                "AuthFailure",
            ],
        ),
        (
            "forbidden",
            "en",
            [
                "Forbidden",
                "Access denied",
                "You don't have permission to access this resource.",
                "The caller does not have permission",
                "User is not authorized to perform: {action} on resource: {arn}",
                "Insufficient scope",
                "This action requires the 'admin' role",
                "Resource not accessible by integration",
                "IP address not in whitelist",
                "Access Denied",
                "Permission denied",
            ],
            [403, 401],
            [
                "AccessDenied",
                "Forbidden",
                "PERMISSION_DENIED",
                "AccessDeniedException",
                "UnauthorizedOperation",
            ],
        ),
        (
            "auth_zh",
            "zh",
            [
                "签名验证失败",
                "访问令牌已过期",
                "AccessKey 无效",
                "身份验证失败，请重新登录",
                "无权访问该资源",
                "认证失败：无效的 token",
                "登录已失效，请重新登录",
                "用户未授权",
                "请求签名不匹配",
                "没有操作权限",
                "API 密钥错误",
                "权限不足，拒绝访问",
                "您的账号无权限执行此操作",
                "鉴权失败",
                "令牌无效或已过期",
                "IP 不在白名单中",
            ],
            [401, 403, 200],
            [
                "InvalidAccessKeyId.NotFound",
                "SignatureDoesNotMatch",
                "AuthFailure.SignatureExpire",
                "Forbidden.RAM",
                "InvalidToken",
                "40001",
                "401",
            ],
        ),
    ],
    "rate_limited": [
        (
            "rate_en",
            "en",
            [
                "Too Many Requests",
                "Rate limit exceeded",
                "You have exceeded your rate limit. Try again in {n} seconds.",
                "API rate limit exceeded for {ip}.",
                "Throttling: Rate exceeded",
                "Request was throttled. Expected available in {n} seconds.",
                "quota exceeded",
                "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute'",
                "slow down",
                "Too many requests, please slow down",
                "You are being rate limited.",
                "Concurrent request limit reached",
                "Daily request limit reached",
                "Retry after {n} seconds",
                "ratelimited",
                "Requests per second limit exceeded",
                "TooManyRequestsException",
                "ProvisionedThroughputExceededException",
            ],
            [429, 503, 403, 200],
            [
                "TooManyRequests",
                "Throttling",
                "RateLimitExceeded",
                "RESOURCE_EXHAUSTED",
                "rate_limit_exceeded",
                "SlowDown",
                "ThrottlingException",
                "RequestLimitExceeded",
            ],
        ),
        (
            "rate_zh",
            "zh",
            [
                "请求过于频繁，请稍后再试",
                "调用频率超过限制",
                "访问频率过高",
                "接口调用次数已达上限",
                "流量控制：请求被限流",
                "请求太频繁了，请 {n} 秒后重试",
                "超出每秒请求数限制",
                "当日调用量已用完",
                "触发限流",
                "并发请求数超限",
                "您的操作过于频繁",
                "配额不足",
            ],
            [429, 200, 403, 503],
            [
                "Throttling.User",
                "RequestLimitExceeded",
                "LimitExceeded",
                "45009",
                "Throttling",
                "FlowControl",
            ],
        ),
    ],
    "not_found": [
        (
            "nf_en",
            "en",
            [
                "Not Found",
                "The requested URL {path} was not found on this server.",
                "Resource not found",
                "No such key",
                "The specified key does not exist.",
                "User {id} not found",
                "Order {id} does not exist",
                "No record found with id {id}",
                "Cannot GET {path}",
                "404 page not found",
                "The requested resource could not be found",
                "Requested entity was not found.",
                'No route matches [GET] "{path}"',
                "Object not found",
                "The specified bucket does not exist",
                "Unknown endpoint",
                "Page not found",
                "Item has been deleted",
                "Gone",
            ],
            [404, 410, 200, 400],
            [
                "NotFound",
                "NoSuchKey",
                "ResourceNotFoundException",
                "NOT_FOUND",
                "resource_missing",
                "NoSuchBucket",
                "EntityNotFound",
            ],
        ),
        (
            "nf_zh",
            "zh",
            [
                "资源不存在",
                "订单不存在",
                "用户不存在",
                "找不到该记录",
                "请求的页面不存在",
                "未找到指定的资源",
                "指定的实例不存在",
                "该商品已下架或不存在",
                "查询结果为空：未找到对应数据",
                "文件不存在",
                "接口不存在",
                "对象已被删除",
            ],
            [404, 200, 400],
            ["NotFound", "InvalidInstanceId.NotFound", "ResourceNotFound", "EntityNotExist", "404", "40400"],
        ),
    ],
    "data_corrupted": [
        (
            "corrupt_msg",
            "en",
            [
                "Unexpected end of JSON input",
                "checksum mismatch",
                "CRC32 check failed",
                "invalid UTF-8 sequence",
                "malformed response body",
                "Expecting value: line 1 column 1 (char 0)",
                "Unterminated string starting at: line 1 column {n}",
                "invalid character '<' looking for beginning of value",
                "gzip: invalid header",
                "premature EOF",
                "Content-Length mismatch",
                "Data integrity error: digest mismatch",
                "truncated payload",
                "unexpected EOF while parsing",
            ],
            [200, 500, 502],
            ["ChecksumMismatch", "InvalidDigest", "BadDigest", "DataCorruption"],
        ),
        (
            "corrupt_zh",
            "zh",
            [
                "数据校验失败",
                "响应数据格式错误",
                "数据包不完整",
                "解析响应失败：JSON 格式错误",
                "文件已损坏",
                "校验和不匹配",
                "数据编码异常",
            ],
            [200, 500],
            ["DataCorrupted", "InvalidFormat"],
        ),
    ],
    "server_error": [
        (
            "ise_en",
            "en",
            [
                "Internal Server Error",
                "An unexpected error occurred",
                "Something went wrong",
                "Internal error",
                "The server encountered an internal error and was unable to complete your request.",
                "Service Unavailable",
                "The service is temporarily unavailable",
                "Server is under maintenance",
                "An internal error has occurred. Please try again later.",
                "We encountered an internal error. Please try again.",
                "Unhandled exception",
                "Backend error",
                "NullPointerException",
                "database connection pool exhausted",
                "deadlock detected",
                "out of memory",
                "Internal failure",
            ],
            [500, 503, 500, 500, 200],
            [
                "InternalError",
                "InternalServerError",
                "INTERNAL",
                "ServiceUnavailable",
                "InternalFailure",
                "server_error",
                "api_error",
            ],
        ),
        (
            "ise_zh",
            "zh",
            [
                "服务器内部错误",
                "系统繁忙，请稍后再试",
                "服务暂时不可用",
                "内部错误",
                "系统异常，请联系管理员",
                "服务器开小差了",
                "服务维护中",
                "未知错误",
                "数据库异常",
                "服务内部异常，请稍后重试",
            ],
            [500, 503, 200],
            ["InternalError", "InternalError.System", "ServiceUnavailable", "-1", "50000", "SystemError"],
        ),
    ],
    "validation_error": [
        (
            "val_en",
            "en",
            [
                "The {field} field is required.",
                "Invalid value for parameter {field}",
                "{field} must be a valid email address",
                "Missing required parameter: {field}",
                "Invalid request: {field} must be between 1 and 100",
                "Bad Request",
                "Validation failed",
                "value is not a valid integer",
                "Unprocessable Entity",
                "Invalid date format for {field}, expected YYYY-MM-DD",
                "{field}: ensure this value has at most 64 characters",
                "Parameter {field} is malformed",
                "The request body is invalid",
                "Request payload too large",
                "Invalid JSON in request body",
                "field required",
                "Input should be a valid string",
                "Unknown field '{field}'",
                "must not be null",
            ],
            [400, 422, 413, 200],
            [
                "InvalidParameter",
                "ValidationError",
                "INVALID_ARGUMENT",
                "invalid_request_error",
                "MissingParameter",
                "InvalidParameterValue",
                "BadRequest",
                "ValidationException",
            ],
        ),
        (
            "val_zh",
            "zh",
            [
                "参数 {field} 不能为空",
                "参数格式错误",
                "请求参数不合法",
                "{field} 的取值超出范围",
                "缺少必填参数：{field}",
                "手机号格式不正确",
                "日期格式错误，应为 YYYY-MM-DD",
                "参数校验失败",
                "无效的参数值",
                "请求体格式错误",
                "字段 {field} 长度超出限制",
                "金额必须大于 0",
            ],
            [400, 422, 200],
            [
                "InvalidParameter",
                "MissingParameter",
                "InvalidParameterValue",
                "40003",
                "ParamError",
                "InvalidParameter.Format",
            ],
        ),
    ],
}

REASON = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    408: "Request Timeout",
    410: "Gone",
    413: "Payload Too Large",
    422: "Unprocessable Entity",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
    520: "Web server is returning an unknown error",
    521: "Web server is down",
    522: "Connection timed out",
    523: "Origin is unreachable",
    524: "A timeout occurred",
    525: "SSL handshake failed",
    526: "Invalid SSL certificate",
}


def _fill(r: R, text: str) -> str:
    return text.format(
        ip=_ip(r),
        port=r.choice([80, 443, 3306, 6379, 8080, 5432, 9200]),
        host=_host(r),
        n=r.randint(1, 3600),
        key="sk-" + "*" * 20 + _rid(r)[:4],
        path=_path(r),
        id=r.randint(1000, 99999999),
        field=_field(r),
        action=r.choice(["s3:GetObject", "dynamodb:Query", "ecs:DescribeInstances"]),
        arn=f"arn:aws:s3:::bucket-{r.randint(1, 999)}/*",
    )


# ---- formats ------------------------------------------------------------------------------------


def _json_env(r: R, msg: str, code: str, status: int) -> str:
    rid = _rid(r)
    shapes: list[Callable[[], object]] = [
        lambda: {"error": {"code": status, "message": msg, "status": code.upper()}},
        lambda: {"error": {"type": code, "message": msg, "code": code.lower()}},
        lambda: {"Code": code, "Message": msg, "RequestId": rid, "HostId": _host(r)},
        lambda: {"Response": {"Error": {"Code": code, "Message": msg}, "RequestId": rid}},
        lambda: {
            "code": r.choice([status, -1, 1, 40001, 50000, int(status) * 100]),
            "msg": msg,
            "data": None,
        },
        lambda: {"errcode": r.randint(40000, 50000), "errmsg": msg},
        lambda: {"success": False, "errorCode": code, "errorMessage": msg, "traceId": rid},
        lambda: {"message": msg},
        lambda: {"error": msg},
        lambda: {"detail": msg},
        lambda: {"errors": [{"code": code, "message": msg}]},
        lambda: {"__type": f"com.amazonaws.service#{code}", "message": msg},
        lambda: {
            "type": f"https://example.com/probs/{code.lower()}",
            "title": REASON.get(status, "Error"),
            "status": status,
            "detail": msg,
        },
        lambda: {
            "timestamp": _ts(r),
            "status": status,
            "error": REASON.get(status, "Error"),
            "message": msg,
            "path": _path(r),
        },
        lambda: {"status": "error", "error_code": code, "error_message": msg, "request_id": rid},
        lambda: {"ok": False, "error": code.lower(), "message": msg},
        lambda: {"ret": r.choice([-1, 1, 2]), "msg": msg, "request_id": rid},
        lambda: {"status": {"code": status, "message": msg}, "data": {}},
    ]
    obj = r.choice(shapes)()
    return json.dumps(obj, ensure_ascii=r.random() < 0.2, indent=r.choice([None, None, 2, 4]))


def _xml(r: R, msg: str, code: str, status: int) -> str:
    rid = _rid(r)
    return r.choice(
        [
            f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code><Message>{msg}</Message><RequestId>{rid}</RequestId></Error>',
            f'<?xml version="1.0" encoding="UTF-8"?>\n<ErrorResponse><Error><Type>Sender</Type><Code>{code}</Code><Message>{msg}</Message></Error><RequestId>{rid}</RequestId></ErrorResponse>',
            f"<error><status>{status}</status><message>{msg}</message></error>",
            f'<?xml version="1.0"?><Response><Errors><Error><Code>{code}</Code><Message>{msg}</Message></Error></Errors><RequestID>{rid}</RequestID></Response>',
        ]
    )


def _html(r: R, msg: str, status: int) -> str:
    reason = REASON.get(status, "Error")
    k = r.randrange(6)
    if k == 0:
        return f"<html>\r\n<head><title>{status} {reason}</title></head>\r\n<body>\r\n<center><h1>{status} {reason}</h1></center>\r\n<hr><center>nginx/1.{r.randint(18, 27)}.{r.randint(0, 9)}</center>\r\n</body>\r\n</html>\r\n"
    if k == 1:
        return (
            f'<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">\n<html><head>\n<title>{status} {reason}</title>\n</head><body>\n<h1>{reason}</h1>\n'
            f"<p>{msg}</p>\n<hr>\n<address>Apache/2.4.{r.randint(40, 62)} (Ubuntu) Server at {_host(r)} Port 443</address>\n</body></html>\n"
        )
    if k == 2:
        return (
            f'<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8"><title>{reason} | {_host(r)} | Cloudflare</title></head>\n<body><div id="cf-wrapper">'
            f'<h1><span class="cf-error-type">Error</span> <span class="cf-error-code">{status}</span></h1><p>{msg}</p>'
            f"<p>Ray ID: <strong>{_rid(r)[:16]}</strong> &bull; {_ts(r)}</p></div></body>\n</html>"
        )
    if k == 3:
        return (
            f'<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n<title>{msg}</title>\n<style>body{{font-family:sans-serif}}</style>\n</head>\n<body>\n'
            f'<div class="error"><h2>{status}</h2><p>{msg}</p><a href="/">{r.choice(["返回首页", "Back to home"])}</a></div>\n</body>\n</html>'
        )
    if k == 4:
        return (
            f"<html><head><title>Error {status}</title></head><body><h2>HTTP ERROR {status} {reason}</h2><table><tr><th>URI:</th><td>{_path(r)}</td></tr>"
            f'<tr><th>MESSAGE:</th><td>{msg}</td></tr></table><hr/><a href="https://eclipse.org/jetty">Powered by Jetty:// 9.4.{r.randint(10, 54)}</a></body></html>'
        )
    return (
        f'<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN"><html xmlns="http://www.w3.org/1999/xhtml"><head><title>IIS {status}</title></head>'
        f'<body><div id="header"><h1>Server Error</h1></div><div id="content"><h2>{status} - {reason}.</h2><h3>{msg}</h3></div></body></html>'
    )


_TRACES = {
    "py": lambda r, m, exc: (
        f'Traceback (most recent call last):\n  File "/app/{r.choice(["views", "handlers", "service"])}.py", line {r.randint(10, 900)}, in {r.choice(["get", "handle", "dispatch"])}\n'
        f'    result = {r.choice(["client", "db", "repo"])}.{r.choice(["fetch", "query", "get"])}(request)\n  File "/usr/lib/python3.11/site-packages/{r.choice(["requests", "sqlalchemy", "urllib3"])}/api.py", line {r.randint(10, 900)}, in fetch\n'
        f"    raise {exc}(msg)\n{exc}: {m}\n"
    ),
    "java": lambda r, m, exc: (
        f"{exc}: {m}\n\tat com.example.{r.choice(['order', 'user', 'pay'])}.service.{r.choice(['OrderService', 'UserService', 'Client'])}.{r.choice(['find', 'call', 'load'])}({r.choice(['OrderService', 'Client'])}.java:{r.randint(20, 500)})\n"
        f"\tat org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:{r.randint(800, 900)})\n\tat javax.servlet.http.HttpServlet.service(HttpServlet.java:{r.randint(600, 800)})\n\t... {r.randint(20, 80)} more\n"
    ),
    "node": lambda r, m, exc: (
        f"{exc}: {m}\n    at {r.choice(['Object.<anonymous>', 'processTicksAndRejections', 'Router.handle'])} (/srv/app/{r.choice(['index', 'server', 'routes/api'])}.js:{r.randint(1, 400)}:{r.randint(1, 60)})\n"
        f"    at Layer.handle [as handle_request] (/srv/app/node_modules/express/lib/router/layer.js:95:5)\n    at next (/srv/app/node_modules/express/lib/router/route.js:{r.randint(100, 150)}:13)\n"
    ),
    "go": lambda r, m, exc: (
        f"panic: {m}\n\ngoroutine {r.randint(1, 999)} [running]:\nmain.handler(0xc000{r.randint(100000, 999999)})\n\t/go/src/app/main.go:{r.randint(10, 300)} +0x{r.randint(16, 999):x}\nnet/http.HandlerFunc.ServeHTTP(...)\n"
    ),
}
_EXC = {
    "network_issue": [
        "requests.exceptions.ConnectionError",
        "urllib3.exceptions.MaxRetryError",
        "java.net.ConnectException",
        "java.net.SocketTimeoutException",
        "Error",
        "httpx.ConnectTimeout",
        "aiohttp.ClientConnectorError",
    ],
    "server_error": [
        "RuntimeError",
        "KeyError",
        "java.lang.NullPointerException",
        "TypeError",
        "java.lang.IllegalStateException",
        "sqlalchemy.exc.OperationalError",
        "ZeroDivisionError",
        "AttributeError",
    ],
    "data_corrupted": [
        "json.decoder.JSONDecodeError",
        "SyntaxError",
        "UnicodeDecodeError",
        "com.fasterxml.jackson.core.JsonParseException",
        "zlib.error",
    ],
    "auth_failed": [
        "PermissionError",
        "AuthenticationError",
        "org.springframework.security.access.AccessDeniedException",
    ],
    "not_found": [
        "FileNotFoundError",
        "ObjectDoesNotExist",
        "javax.persistence.EntityNotFoundException",
        "NoSuchKey",
    ],
    "validation_error": [
        "ValueError",
        "pydantic.ValidationError",
        "IllegalArgumentException",
        "ValidationError",
    ],
    "rate_limited": ["RateLimitError", "ThrottlingException", "TooManyRequestsError"],
}


def _plain(r: R, msg: str, status: int, code: str) -> str:
    return r.choice(
        [
            msg,
            msg,
            f"{status} {REASON.get(status, 'Error')}: {msg}",
            f"error: {msg}",
            f"{code}: {msg}",
            f"{msg}\n",
            f"[{_ts(r)}] ERROR {msg} (request_id={_rid(r)})",
            f"{REASON.get(status, 'Error')}",
        ]
    )


def _wrap(r: R, label: str, msg: str, code: str, status: int) -> str:
    k = r.random()
    if label == "network_issue" and k < 0.3:
        return _html(r, msg, status if status >= 500 else 502)
    if k < 0.45:
        return _json_env(r, msg, code, status)
    if k < 0.55:
        return _xml(r, msg, code, status)
    if k < 0.7:
        return _html(r, msg, status if status >= 400 else 500)
    if k < 0.82 and label in _EXC:
        return r.choice(list(_TRACES.values()))(r, msg, r.choice(_EXC[label]))
    return _plain(r, msg, status, code)


# ---- data_corrupted: damaged payloads -----------------------------------------------------------


def _ok_obj(r: R) -> object:
    keys = [
        "order_id",
        "status",
        "user_id",
        "items",
        "total",
        "city",
        "temperature",
        "humidity",
        "created_at",
        "name",
        "price",
        "count",
        "data",
        "list",
        "page",
        "next_cursor",
        "email",
        "forecast",
        "amount",
        "currency",
        "tracking_no",
        "message",
    ]

    def val(d: int) -> object:
        k = r.random()
        if d < 2 and k < 0.15:
            return [val(d + 1) for _ in range(r.randint(1, 4))]
        if d < 2 and k < 0.3:
            return {r.choice(keys): val(d + 1) for _ in range(r.randint(1, 5))}
        if k < 0.5:
            return r.choice(
                [
                    "shipped",
                    "delivered",
                    "pending",
                    "晴",
                    "多云",
                    "已发货",
                    "Widget",
                    "北京",
                    "Shanghai",
                    "success",
                    "ok",
                    "active",
                    _ts(r),
                    f"2026{r.randint(10**13, 10**14)}",
                ]
            )
        if k < 0.8:
            return r.randint(0, 100000) if r.random() < 0.5 else round(r.uniform(0, 1000), 2)
        return r.choice([True, False, None])

    return {r.choice(keys): val(0) for _ in range(r.randint(1, 8))}


def _damaged(r: R) -> str:
    k = r.randrange(7)
    if k <= 1:  # truncated JSON
        s = json.dumps(_ok_obj(r), ensure_ascii=r.random() < 0.5, indent=r.choice([None, 2]))
        return s[: r.randint(max(2, len(s) // 4), max(3, len(s) - 2))]
    if k == 2:  # truncated XML
        items = "".join(
            f'<item id="{i}"><name>{r.choice(["Widget", "Gadget", "商品"])}</name><price>{r.randint(1, 99)}.99</price></item>'
            for i in range(r.randint(2, 6))
        )
        s = f'<?xml version="1.0" encoding="UTF-8"?>\n<response><count>{r.randint(1, 9)}</count><items>{items}</items></response>'
        return s[: r.randint(len(s) // 3, len(s) - 5)]
    if k == 3:  # mojibake
        s = json.dumps(_ok_obj(r), ensure_ascii=False)
        try:
            return s.encode("utf-8").decode("latin-1")
        except UnicodeDecodeError:
            return s + "\ufffd\ufffd"
    if k == 4:  # gbk/utf8 mix-up and replacement characters
        s = json.dumps(_ok_obj(r), ensure_ascii=False)
        return "".join(c if r.random() > 0.15 else r.choice(["\ufffd", "锟斤拷", "�"]) for c in s)
    if k == 5:  # binary junk or nul bytes
        return "".join(chr(r.randint(0, 255)) for _ in range(r.randint(20, 200)))
    # a parse error from a client library
    return r.choice(
        [
            "Unexpected token < in JSON at position 0",
            "SyntaxError: Unexpected end of JSON input",
            "JSONDecodeError: Expecting ',' delimiter: line 1 column 58 (char 57)",
            "json: cannot unmarshal string into Go value of type int",
            "XML parsing error: unclosed token: line 1, column 120",
        ]
    )


def _ok_body(r: R) -> tuple[str, int]:
    k = r.random()
    if k < 0.75:
        return json.dumps(_ok_obj(r), ensure_ascii=r.random() < 0.3, indent=r.choice([None, None, 2])), 200
    if k < 0.85:  # results that mention error words but are fine
        obj = {
            "status": r.choice(["ok", "success", "completed"]),
            "error": None,
            "errors": [],
            "message": r.choice(["ok", "success", "查询成功", "操作成功", ""]),
            "code": r.choice([0, 200, "0", "OK"]),
            "data": _ok_obj(r),
        }
        return json.dumps(obj, ensure_ascii=False), r.choice([200, 201])
    if k < 0.92:
        return (
            f'<?xml version="1.0" encoding="UTF-8"?>\n<response><status>ok</status><count>{r.randint(0, 9)}</count><name>{r.choice(["Widget", "北京"])}</name></response>',
            200,
        )
    return r.choice(
        ["OK", "success", "已发送", "Email sent", "pong", "accepted", "操作成功", "done"]
    ), r.choice([200, 202])


def generate(n: int, seed: int = 0, families: set[str] | None = None) -> list[Sample]:
    """``n`` samples, balanced over the labels (``ok`` included)."""
    r = random.Random(seed)
    out: list[Sample] = []
    labels = ["ok", *MSG]
    while len(out) < n:
        label = labels[len(out) % len(labels)]
        if label == "ok":
            body, status = _ok_body(r)
            out.append(Sample(body, status, "ok", "ok", "en"))
            continue
        if label == "data_corrupted" and r.random() < 0.6:
            out.append(Sample(_damaged(r), r.choice([200, 200, 200, 206, 500, 502]), label, "damaged", "en"))
            continue
        fams = [f for f in MSG[label] if families is None or f[0] in families] or MSG[label]
        fam, lang, texts, statuses, codes = r.choice(fams)
        msg = _fill(r, r.choice(texts))
        if r.random() < 0.25:  # two phrases of the same label
            msg = msg + r.choice(["。", ". ", "; ", "，"]) + _fill(r, r.choice(texts))
        status = r.choice(statuses)
        body = _wrap(r, label, msg, r.choice(codes), status or 502)
        out.append(Sample(body, status or None, label, fam, lang))
    return out
