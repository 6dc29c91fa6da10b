"""Perception data of the reference domain: its id kinds, cities and the domain words that must not
be taken for names. The one list of cities: perception's gazetteer, the training value sampler
and the mock service's user data all read it from here.

Generic language facts (digits, number words, months, relative-day words, surnames) stay in
:mod:`thought_model.entities_lexicon`.
"""

from __future__ import annotations

from tao.contracts.domain import IdKind, Lexicon

_D = r"(?<![0-9A-Za-z])"
_E = r"(?![0-9A-Za-z])"

ID_KINDS = (
    IdKind("ORDER", r"(?<![0-9])[0-9]{18}(?![0-9])", "123456789012345678"),
    IdKind("USER", rf"{_D}U[0-9]{{8}}{_E}", "U12345678", ignore_case=True, upper=True),
    IdKind("INV", rf"{_D}INV[0-9]{{10}}{_E}", "INV1234567890", ignore_case=True, upper=True),
    IdKind("EXP", rf"{_D}EXP[0-9]{{8}}{_E}", "EXP12345678", ignore_case=True, upper=True),
    IdKind("ROOM", rf"{_D}R[0-9]{{3}}{_E}", "R101", ignore_case=True, upper=True),
)
"""Slot order = the order of their slot tokens in the tokenizer (``<ORDER1>`` ... ``<ROOM4>``)."""

ZH_CITIES: tuple[str, ...] = tuple(
    (
        "北京 上海 广州 深圳 杭州 南京 苏州 成都 重庆 武汉 西安 天津 长沙 郑州 青岛 大连 厦门 福州 济南 合肥 "
        "昆明 贵阳 南宁 海口 三亚 沈阳 长春 哈尔滨 石家庄 太原 呼和浩特 兰州 西宁 银川 乌鲁木齐 拉萨 南昌 "
        "宁波 温州 无锡 常州 佛山 东莞 珠海 中山 惠州 汕头 烟台 威海 洛阳 开封 桂林 丽江 大理 扬州 绍兴 "
        "嘉兴 台州 泉州 漳州 徐州 南通 香港 澳门 台北 高雄"
    ).split()
)
EN_CITIES: tuple[str, ...] = (
    *(
        "Beijing Shanghai Guangzhou Shenzhen Hangzhou Nanjing Suzhou Chengdu Chongqing Wuhan Xian Tianjin "
        "Changsha Zhengzhou Qingdao Dalian Xiamen Fuzhou Jinan Hefei Kunming Guiyang Nanning Haikou Sanya "
        "Shenyang Harbin Lanzhou Ningbo Wuxi Foshan Dongguan Zhuhai Guilin Lijiang Dali Yangzhou Shaoxing "
        "Tokyo Osaka Kyoto Seoul Singapore Bangkok Sydney Melbourne London Paris Berlin Munich Madrid Rome "
        "Milan Amsterdam Vienna Zurich Geneva Dublin Lisbon Prague Moscow Dubai Istanbul Toronto Vancouver "
        "Montreal Chicago Boston Seattle Austin Denver Miami Atlanta Dallas Houston Phoenix"
    ).split(),
    "Hong Kong",
    "New York",
    "San Francisco",
    "Los Angeles",
    "Kuala Lumpur",
    "Ho Chi Minh City",
    "Washington",
    "Macau",
    "Taipei",
    "Xi'an",
)
"""Perception's gazetteer and the training sampler's pools (zh surface = canonical name)."""
HOME_CITIES = ("北京", "上海", "广州", "深圳", "杭州", "成都", "武汉", "南京", "西安", "重庆")
"""Where the mock service's users live (a subset of :data:`ZH_CITIES`, in the mock data's order)."""

NAME_BLOCK_ZH = frozenset(
    {
        "高铁",
        "金额",
        "余额",
        "钱包",
        "万元",
        "金融",
        "苏州",
        "石家庄",
        "杭州",
        "温州",
        "常州",
        "徐州",
        "南京",
        "郑州",
    }
)
"""Domain words (and cities) that start with a surname: never a person's name."""
NAME_STOP_EN = frozenset(
    """Order Invoice Expense Weather Meeting Room Shipping Status User Profile Calendar Event Email
    Mail Hotel Meal Travel Taxi Office Project Team Weekly Daily Sync Review Lunch Dinner
    Q1 Q2 Q3 Q4""".split()
)
"""Capitalized domain nouns that never start an English name."""

CANCEL_REASON_CUES = (
    r"(?:取消|撤)(?:了|掉|单)?(?:吧|呗|哈|啊)?\s*[，,—–-]+\s*",
    r"(?<![A-Za-z])cancel(?:\s+(?:it|that|this|them|both|the order))?\s*(?:,|—|–|\s-)\s*",
)
"""The reason of a cancellation written after the ask with no cue word (``…给我撤了，地址填错了``,
``cancel it — changed my mind``); a piece that is another ask, a time or a sign-off is none
(:func:`thought_model.perception.textend.cued_text_end`)."""

LEXICON = Lexicon(
    id_kinds=ID_KINDS,
    me_kind="USER",
    cities_zh=tuple(ZH_CITIES),
    cities_en=tuple(EN_CITIES),
    name_block_zh=NAME_BLOCK_ZH,
    name_stop_en=NAME_STOP_EN,
    text_cues=CANCEL_REASON_CUES,
)
