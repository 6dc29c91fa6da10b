"""Small lexicons used by perception (:mod:`thought_model.entities`): relative time phrases,
month names, numbers, city gazetteer and Chinese surnames. Plain data, no logic."""
from __future__ import annotations

ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
EN_NUMBERS = {"a couple of": 2, "couple": 2, "eleven": 11, "fourteen": 14, "sixteen": 16, "eighteen": 18,
              "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90}

ZH_REL_DAY = {
    "今天": "today", "今日": "today", "今儿": "today", "当天": "today",
    "昨天": "yesterday", "昨日": "yesterday", "昨儿": "yesterday",
    "明天": "tomorrow", "明日": "tomorrow", "明儿": "tomorrow", "次日": "tomorrow",
    "后天": "day_after_tomorrow", "大后天": "in_days:3", "前天": "days_ago:2", "大前天": "days_ago:3",
    "现在": "now", "此刻": "now", "目前": "now", "当前": "now",
}
ZH_REL_PERIOD = {
    "本周": "this_week", "这周": "this_week", "这个星期": "this_week", "这星期": "this_week", "这礼拜": "this_week",
    "这个礼拜": "this_week", "本星期": "this_week",
    "上周": "last_week", "上个星期": "last_week", "上星期": "last_week", "上礼拜": "last_week",
    "上个礼拜": "last_week", "上一周": "last_week",
    "下周": "next_week", "下个星期": "next_week", "下星期": "next_week", "下礼拜": "next_week",
    "下个礼拜": "next_week", "下一周": "next_week",
    "本月": "this_month", "这个月": "this_month", "这月": "this_month", "当月": "this_month",
    "上个月": "last_month", "上月": "last_month", "上一个月": "last_month", "前一个月": "last_month",
    "下个月": "next_month", "下月": "next_month", "下一个月": "next_month",
    "今年": "this_year", "本年": "this_year", "本年度": "this_year", "去年": "last_year", "上一年": "last_year",
}
EN_REL_DAY = {
    "today": "today", "tonight": "today", "this evening": "today", "this afternoon": "today",
    "this morning": "today", "yesterday": "yesterday", "tomorrow": "tomorrow", "tmrw": "tomorrow",
    "tmr": "tomorrow", "the day after tomorrow": "day_after_tomorrow", "day after tomorrow": "day_after_tomorrow",
    "the day before yesterday": "days_ago:2", "now": "now", "right now": "now", "currently": "now",
}
EN_REL_PERIOD = {
    "this week": "this_week", "the current week": "this_week", "last week": "last_week",
    "the previous week": "last_week", "past week": "last_week", "next week": "next_week",
    "the coming week": "next_week", "this month": "this_month", "the current month": "this_month",
    "last month": "last_month", "the previous month": "last_month", "previous month": "last_month",
    "past month": "last_month", "next month": "next_month", "the coming month": "next_month",
    "this year": "this_year", "last year": "last_year", "the previous year": "last_year",
}
MONTHS_EN = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4,
    "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

_ZH_CITIES = (
    "北京 上海 广州 深圳 杭州 南京 苏州 成都 重庆 武汉 西安 天津 长沙 郑州 青岛 大连 厦门 福州 济南 合肥 "
    "昆明 贵阳 南宁 海口 三亚 沈阳 长春 哈尔滨 石家庄 太原 呼和浩特 兰州 西宁 银川 乌鲁木齐 拉萨 南昌 "
    "宁波 温州 无锡 常州 佛山 东莞 珠海 中山 惠州 汕头 烟台 威海 洛阳 开封 桂林 丽江 大理 扬州 绍兴 "
    "嘉兴 台州 泉州 漳州 徐州 南通 香港 澳门 台北 高雄"
).split()
_EN_CITIES = (
    "Beijing Shanghai Guangzhou Shenzhen Hangzhou Nanjing Suzhou Chengdu Chongqing Wuhan Xian Tianjin "
    "Changsha Zhengzhou Qingdao Dalian Xiamen Fuzhou Jinan Hefei Kunming Guiyang Nanning Haikou Sanya "
    "Shenyang Harbin Lanzhou Ningbo Wuxi Foshan Dongguan Zhuhai Guilin Lijiang Dali Yangzhou Shaoxing "
    "Tokyo Osaka Kyoto Seoul Singapore Bangkok Sydney Melbourne London Paris Berlin Munich Madrid Rome "
    "Milan Amsterdam Vienna Zurich Geneva Dublin Lisbon Prague Moscow Dubai Istanbul Toronto Vancouver "
    "Montreal Chicago Boston Seattle Austin Denver Miami Atlanta Dallas Houston Phoenix"
).split() + ["Hong Kong", "New York", "San Francisco", "Los Angeles", "Kuala Lumpur", "Ho Chi Minh City",
             "Washington", "Macau", "Taipei", "Xi'an"]
CITIES: dict[str, str] = {c: c for c in _ZH_CITIES}
CITIES.update({c.lower(): c for c in _EN_CITIES})
ZH_CITY_LIST = list(_ZH_CITIES)
EN_CITY_LIST = list(_EN_CITIES)

_SURNAMES = (
    "王 李 张 刘 陈 杨 黄 赵 吴 周 徐 孙 马 朱 胡 郭 何 高 林 罗 郑 梁 谢 宋 唐 许 韩 冯 邓 曹 彭 曾 肖 田 "
    "董 袁 潘 于 蒋 蔡 余 杜 叶 程 苏 魏 吕 丁 任 沈 姚 卢 姜 崔 钟 谭 陆 汪 范 金 石 廖 贾 夏 韦 付 方 白 "
    "邹 孟 熊 秦 邱 江 尹 薛 闫 段 雷 侯 龙 史 陶 黎 贺 顾 毛 郝 龚 邵 万 钱 严 覃 武 戴 莫 孔 向 汤 欧阳 "
    "司马 上官 诸葛 东方 慕容"
).split()
SURNAMES = "|".join(sorted(_SURNAMES, key=len, reverse=True))
# words a surname-led pattern would mistake for names
STATUS_WORDS_BLOCK = {"高铁", "金额", "周末", "方便", "余额", "江湖", "白天", "马上", "向上", "万一", "许可",
                      "任何", "方式", "程序", "高兴", "于是", "林子", "黄金", "史上", "钱包", "严重", "段落",
                      "周一", "周二", "周三", "周四", "周五", "周六", "周日", "周天", "白色", "石头", "毛巾",
                      "夏天", "江边", "龙虾", "孔子", "汤面", "戴上", "曾经", "朱红", "谢谢", "于是", "何时",
                      "高管", "高级", "李子", "黄色", "钟头", "蔡家", "程度", "高温", "方案", "全部", "苏州",
                      "金融", "余下", "向下", "史料", "万元", "马路", "严格", "雷雨", "田地", "石家庄",
                      "杭州", "温州", "常州", "徐州", "南京", "郑州"}
