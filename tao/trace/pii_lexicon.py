"""Word lists the name and address rules of :mod:`tao.trace.redact` use (category resources, not
samples): common Western given names and surnames, pinyin surnames and syllables, street types,
place suffixes, and the JSON keys that label a person's name or address."""

from __future__ import annotations

GIVEN_NAMES = frozenset(
    """
    aaron abigail adam adrian aiden alan albert alex alexander alexandra alice alicia alison amanda amelia amy
    ana andrea andreas andrew andy angela anita ann anna anne annie anthony antonio arthur ashley
    barbara ben benjamin beth betty bob bobby brandon brenda brian bruce bryan caleb cameron carl carlos
    carmen carol caroline catherine charles charlie charlotte chloe chris christian christina christine
    christopher cindy claire claudia colin connor craig cynthia dan daniel daniela danielle david debbie
    deborah denis dennis diana diane diego dmitri donald donna doris dorothy douglas dylan ed eddie edward
    elena eli elizabeth ella ellen emily emma eric erik erin ethan eugene eva evelyn fatima felix fernando
    fiona florian francesca francesco francis frank franz fred gabriel gabriela gary george georg gerald
    gina giovanni giulia giuseppe gloria greg gregory hannah hans harold harry heather heidi helen helena
    henry holly howard ian irene isaac isabel isabella ivan jack jacob jacqueline james jamie jan jane janet
    jason javier jean jeff jeffrey jen jenna jennifer jenny jeremy jerry jesse jessica jim jimmy joan joe
    joel johann johannes john johnny jonathan jordan jorge jose josé joseph josh joshua joyce juan judith
    judy julia julian julie justin karen karl kate katherine kathleen kathryn katie katrin kayla keith
    kelly ken kenneth kevin kim kimberly klaus kyle larry laura lauren leah lena leo leon lily linda lisa
    logan lorenzo louis lucas lucia lucy luis luca lukas luke madison manuel marc marco margaret maria
    marie marina mario marion marta martha martin mary mateo matt matthew maria maría megan melissa mia
    michael michelle miguel mike mila mohammed monica nancy naomi natalie nathan nicholas nick nicole
    nikolai noah nora oliver olivia omar oscar owen pablo pamela patricia patrick paul paula pedro peter
    philip pierre priya rachel rafael rahul ralph randy raúl rebecca richard rick rita robert roberto robin
    roger ronald rosa ruth ryan sabine samantha samuel sandra sara sarah scott sean sebastian sergei sharon
    shirley sofia sophia sophie stefan stefanie stephanie stephen steve steven susan tamara tanya
    teresa terry thomas tim timothy tina todd tom tommy tony tyler valentina vanessa victor victoria
    vincent virginia walter wayne wendy william yusuf zachary zoe
    """.split()
)
"""Given names written lowercase are names only when they are not also common words; the
ambiguous ones (will, may, mark, bill, grace, ...) are left out of this list on purpose."""

SURNAMES_EN = frozenset(
    """
    adams allen anderson baker bauer becker bell brown campbell carter clark collins cook cooper davies
    davis dubois evans fischer fisher garcía garcia gonzalez gonzález green hall harris hernandez hill
    hoffmann jackson johnson jones kelly kim king koch kowalski lee lewis lopez lópez martin martinez
    martínez meyer miller mitchell moore morgan murphy müller mueller nelson nguyen parker patel perez
    pérez phillips richter roberts robinson rodriguez rodríguez rossi russo schmidt schneider schulz scott
    smith taylor thomas thompson turner walker wang weber white williams wilson wright young zimmermann
    """.split()
)

PINYIN_SURNAMES = frozenset(
    """
    wang li zhang liu chen yang huang zhao wu zhou xu sun ma zhu hu guo he gao lin luo zheng liang xie
    song tang han feng deng cao peng zeng xiao tian dong pan yuan cai jiang yu du ye cheng su wei lv lu
    ding ren shen yao cui zhong tan qin qiu xue lei hou long shi dai mo kong xiang fang bai zou meng xiong
    jin shao qian yan wan hao gong mao ouyang sima shangguan zhuge situ murong huangfu duanmu
    """.split()
)

_INITIALS = "b p m f d t n l g k h j q x zh ch sh r z c s y w".split()
_FINALS = (
    "a o e ai ei ao ou an en ang eng ong i ia ie iao iu ian in iang ing iong u ua uo uai ui uan un uang "
    "ueng v ve van vn er ue"
).split()
PINYIN_SYLLABLES = frozenset(
    [i + f for i in _INITIALS for f in _FINALS] + ["a", "o", "e", "ai", "ao", "ou", "an", "en", "ang", "er"]
)
"""Initial x final combinations (a superset of real syllables; used only after a name cue)."""

STREET_TYPES = (
    "Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Terrace|Ter"
    "|Parkway|Pkwy|Highway|Hwy|Circle|Cir|Square|Sq|Crescent|Close|Row|Mews|Alley|Trail|Walk|Grove"
)

ZH_PROVINCES = (
    "北京|天津|上海|重庆|河北|山西|辽宁|吉林|黑龙江|江苏|浙江|安徽|福建|江西|山东|河南|湖北|湖南|广东|海南|四川|贵州"
    "|云南|陕西|甘肃|青海|台湾|内蒙古|广西|西藏|宁夏|新疆|香港|澳门"
)

ZH_PLACE_SUFFIX = frozenset("山州江湖岛仓店界城村镇市省区县路街港湾桥寺楼馆园厂站口门井河峡")
"""A Chinese name candidate ending in one of these is a place (黄山, 常州, 高邮仓), not a person."""

ZH_COMMON_WORDS = frozenset(
    """
    温度 任务 华为 马上 金额 余额 方便 时间 明天 明年 文件 文档 安全 安排 安装 常见 常用 严重 项目 单位 单号
    平台 平安 付款 付费 支付 商品 商家 计划 向上 毛利 成本 成功 成为 林业 何时 高兴 高级 高铁 周末 黄金 白天
    白色 程序 江湖 史上 钱包 包裹 包括 关于 关闭 关注 申请 和平 鲁棒 信息 信用 古典 水平 能力 车辆 路线 车型 景点
    龙虾 田地 方式 方法 方案 全部 全国 东方 东西 万一 万元 宋体 元旦 齐全 于是 许可 严格 曾经 谢谢 叶子
    周报 谢啦 谢了 对方 双方 各方 官方 地方 前方 后方 多方 甲方 乙方 石头 黎明 夏天 夏季 秋天 冬天 春天 季度 孔子 米饭 苏打 余下 牛奶 江边 雷雨 段落 戴上 花园 水果 武汉 金融
    """.split()
)

NAME_KEYS = frozenset(
    """
    name full_name fullname first_name firstname last_name lastname given_name family_name surname
    customer_name customer user_name contact contact_name recipient recipient_name receiver receiver_name
    consignee attendee owner_name passenger patient display_name nickname holder cardholder card_holder
    姓名 名字 联系人 收件人 收货人 寄件人 客户 客户姓名 经办人 负责人 申请人 持卡人
    """.split()
)

ADDRESS_KEYS = frozenset(
    """
    address addr shipping_address billing_address home_address street street_address delivery_address
    mailing_address postal_address address_line address_line1 address_line2 地址 收货地址 住址 家庭住址 通讯地址
    """.split()
)
