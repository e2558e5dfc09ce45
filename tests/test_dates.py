import pytest

from news_crawler.extraction import extract_article
from news_crawler.extraction.dates import dates_in, han_date, parse_datetime, year_month


@pytest.mark.parametrize(
    "text,expected",
    [
        ("2022-02-13 07:48", "2022-02-13T07:48:00+08:00"),
        ("发布时间：2022年02月13日 07:48:09 来源：新华网", "2022-02-13T07:48:09+08:00"),
        ("2004-7-16 8:19", "2004-07-16T08:19:00+08:00"),
        ("2005/03/21 11:21", "2005-03-21T11:21:00+08:00"),
        ("2022年2月13日07时48分", "2022-02-13T07:48:00+08:00"),
        ("【发布时间：2019年3月1日 12时6分】", "2019-03-01T12:06:00+08:00"),
        ("2019年3月1日 10点08分", "2019-03-01T10:08:00+08:00"),
        ("2019年3月1日 9时5分7秒", "2019-03-01T09:05:07+08:00"),
        ("2019-03-01 10:8", "2019-03-01"),
        ("2019年3月1日 10点钟", "2019-03-01"),
        ("2019.11.25 星期一 10:30", "2019-11-25T10:30:00+08:00"),
        ("2022年02月13日", "2022-02-13"),
        ("2022-02-06T12:48:06+00:00", "2022-02-06T12:48:06+00:00"),
        ("2022-02-06T12:48:06Z", "2022-02-06T12:48:06+00:00"),
        ("2022-02-06T12:48:06", "2022-02-06T12:48:06+08:00"),
        ("发布日期：9/17/2004 5:54:13 AM", "2004-09-17T05:54:13+08:00"),
        ("7/5/2005 9:23:57 PM", "2005-07-05T21:23:57+08:00"),
        ("12/1/2005 12:05 am", "2005-12-01T00:05:00+08:00"),
        ("2019-03-01 下午3:05", "2019-03-01T15:05:00+08:00"),
        ("2019年3月1日 晚上9:30", "2019-03-01T21:30:00+08:00"),
        ("2019-03-01 上午10:23", "2019-03-01T10:23:00+08:00"),
        ("2019-03-01 中午12:10", "2019-03-01T12:10:00+08:00"),
        ("2019-03-01 中午1:10", "2019-03-01T13:10:00+08:00"),
        ("2019-03-01 下午15:05", "2019-03-01T15:05:00+08:00"),
        ("2019-03-01 凌晨2:05", "2019-03-01T02:05:00+08:00"),
        ("17/9/2004 5:54 AM", ""),
        ("9/17/2004", ""),
        ("2月30日", ""),
        ("2022-02-30 10:00", ""),
        ("no date here", ""),
        ("", ""),
    ],
)
def test_chinese_and_iso_dates(text, expected):
    assert parse_datetime(text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("发布于 2024-10-15T02:20:00Z 来源：新华网", "2024-10-15T02:20:00+00:00"),
        ("2024-10-15T02:20:00.000+00:00", "2024-10-15T02:20:00+00:00"),
        ("2024-10-15T10:20+0800", "2024-10-15T10:20:00+08:00"),
        ("Posted 2024-10-15 10:20 UTC", "2024-10-15T10:20:00+00:00"),
        ("2024-10-15 10:20 GMT+8", "2024-10-15T10:20:00+08:00"),
        ("2024-10-15 10:20:00 GMT-0500", "2024-10-15T10:20:00-05:00"),
        ("时间：2024-10-15 10:00-11:00", "2024-10-15T10:00:00+08:00"),  # a range's end is no offset
    ],
)
def test_a_time_in_the_text_keeps_the_zone_it_states(text, expected):
    assert [iso for _, iso, _ in dates_in(text)] == [expected]


@pytest.mark.parametrize(
    "text,expected",
    [
        ("——《北京之春》1998年3月号", "1998-03"),
        ("课题组\n2003年5月\n为了", "2003-05"),
        ("2003年5月12日", ""),
        ("3月", ""),
    ],
)
def test_year_and_month(text, expected):
    assert year_month(text) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("某县人民政府办公室\n二〇一九年三月一日", "2019-03-01"),
        ("二〇二〇年十二月三十一日印发", "2020-12-31"),
        ("二○一九年十月十日", "2019-10-10"),  # ○ (a circle) for the zero, as often typed
        ("二〇一九年二十月一日", ""),  # no such month
        ("三月一日", ""),
    ],
)
def test_a_date_in_chinese_numerals(text, expected):
    assert han_date(text) == expected


def test_an_official_notice_dated_only_in_chinese_numerals_gives_that_day():
    from news_crawler.extraction import extract_article

    notice = "各乡镇人民政府，县直各单位：现将有关事项通知如下，请认真贯彻执行，确保各项工作落到实处。" * 4
    page = (
        f"<html><head><title>关于某某的通知_某县政府网</title></head><body><h1>关于某某的通知</h1><p>{notice}</p>"
        f"<p>某县人民政府办公室</p><p>二〇一九年三月一日</p></body></html>"
    )
    assert extract_article(page).published_at == "2019-03-01"


def test_a_byline_date_labelled_as_an_update_gives_way_to_the_publication_date():
    from news_crawler.extraction import extract_article

    story = "县里召开秋粮收购工作会议，部署今年秋粮收购各项工作，要求各乡镇切实做好收购服务。" * 4
    for byline, expected in (
        ("更新时间：2019-03-02 08:00 发布时间：2019-03-01 10:23", "2019-03-01T10:23:00+08:00"),
        ("2019-03-01 10:23 来源：某县日报 最后更新于 2019-03-02 08:00", "2019-03-01T10:23:00+08:00"),
        ("更新时间：2019-03-02 08:00", "2019-03-02T08:00:00+08:00"),
    ):  # the only one given
        page = (
            f"<html><head><title>县里召开秋粮收购工作会议</title></head><body><h1>县里召开秋粮收购工作会议</h1>"
            f"<div>{byline}</div><div><p>{story}</p><p>{story}</p></div></body></html>"
        )
        assert extract_article(page).published_at == expected, byline


def test_a_labelled_byline_under_the_story_beats_a_date_the_story_tells_of():
    from news_crawler.extraction import extract_article

    lead = (
        "2019年2月27日下午，佛山顺德区大良街道党工委委员一行八人到众创金融街进行实地考察调研，市金"
        "融局副局长等陪同调研。"
    )
    story = "调研组一行走访了多家企业，观看了宣传片，参观了服务中心，实地考察进驻企业情况，并围绕发展工作展开座谈。" * 3
    page = (
        "<html><head><title>潘卓辉一行到众创金融街开展调研工作</title></head><body><h1>潘卓辉一行到众创金融街开展调研工作</h1>"
        f"<div>来源于：东区办事处</div><div class='text'><p>{lead}</p><p>{story}</p></div>"
        "<div>发布日期：2019-03-06</div><div>责任编辑：龙慧</div></body></html>"
    )
    assert extract_article(page).published_at == "2019-03-06"
    # Where the byline gives no label and stands by the headline, it still wins.
    page = page.replace("<div>来源于：东区办事处</div>", "<div>2019-03-05 10:20 来源：东区办事处</div>")
    assert extract_article(page).published_at == "2019-03-05T10:20:00+08:00"


def test_a_disclosure_table_above_the_headline_gives_the_publication_date_not_the_storys_dates():
    from news_crawler.extraction import extract_article

    story = "1924年3月10日，他生于浙江海宁。2016年1月1日起，图书馆统计借阅量，这一数字逐年上升，读者遍及全省。" * 3
    table = (
        "<table><tr><th>索引号：</th><td>113301000025/2019-01234</td><th>发布机构：</th><td>市政府办公室</td></tr>"
        "<tr><th>成文日期：</th><td>2019-02-26</td><th>发布日期：</th><td>2019-03-01</td></tr>"
        "<tr><th>名称：</th><td>关于某某工作的通知</td></tr></table>"
    )
    page = (
        f"<html><head><title>关于某某工作的通知_政府信息公开</title></head><body>{table}"
        f"<h1>关于某某工作的通知</h1><div class='zw'><p>{story}</p><p>{story}</p></div></body></html>"
    )
    assert extract_article(page).published_at == "2019-03-01"


def test_a_date_that_runs_past_the_end_of_the_region_read_is_read_whole():
    text = "标题\n来源：澎湃新闻 作者：赵培 发布时间：2019-04-17 17:56\n责任编辑：赵培 2020-01-01"
    at = text.index("2019")
    for end in (at + 1, at + 9, at + 12):  # cut inside the day or the time
        assert dates_in(text, 0, end) == [(at, "2019-04-17T17:56:00+08:00", True)]
    assert dates_in(text, 0, at) == []  # a date starting at the end is not in the region


def test_a_byline_without_a_year_is_this_years_as_platforms_mean_it():
    from datetime import datetime

    from news_crawler.extraction import extract_article
    from news_crawler.extraction.dates import SHANGHAI
    from news_crawler.extraction.published import _without_year

    now = datetime(2026, 11, 23, 23, 0, tzinfo=SHANGHAI)
    assert _without_year("加拿大必读\n发布时间：10-08 12:00 优质原创作者", now) == "2026-10-08T12:00:00+08:00"
    assert _without_year("发布时间：12-25 08:00", now) == "2025-12-25T08:00:00+08:00"  # not yet this year
    assert _without_year("比分 10-08 12:00", now) == "" and _without_year("时间：2019-10-08 12:00", now) == ""
    story = "前段时间，在某平台上，一位90后姑娘身穿汉服弹奏古筝的视频走红，她在异国他乡传播中华文化。" * 3
    page = (
        "<html><head><title>90后彭静旋异国他乡只为传播中华文化</title></head><body><h1>90后彭静旋异国他乡只为传播中华文化</h1>"
        f"<div>八卦大相公</div><div>发布时间：01-14 17:58</div><div><p>{story}</p><p>{story}</p></div>"
        "<div class='comments'>网友评论 2020-05-05 18:22:10 说得好</div></body></html>"
    )
    got = extract_article(page).published_at
    assert got[4:] == "-01-14T17:58:00+08:00" and int(got[:4]) in (
        datetime.now(SHANGHAI).year,
        datetime.now(SHANGHAI).year - 1,
    )


def test_a_time_ahead_of_now_is_no_publication_time():
    from datetime import datetime, timedelta

    from news_crawler.extraction import extract_article
    from news_crawler.extraction.dates import SHANGHAI
    from news_crawler.extraction.published import _ahead

    now = datetime(2026, 11, 23, 23, 0, tzinfo=SHANGHAI)
    assert _ahead("2026-11-25T10:00:00+08:00", now) and _ahead("2027-01", now) and _ahead("2031-10-15", now)
    assert not _ahead("2026-11-24T10:00:00+08:00", now) and not _ahead("2026-11", now)  # within a day: clocks differ
    story = "市教育局日前发布通知，明年全市中小学将统一实行课后服务，家长可根据需要自愿选择参加。" * 3
    ahead = (datetime.now(SHANGHAI) + timedelta(days=400)).strftime("%Y-%m-%d %H:%M")
    page = (
        "<html><head><title>课后服务全覆盖</title></head><body><h1>课后服务全覆盖</h1><div>{}</div>"
        f"<p>{story}</p></body></html>"
    )
    assert extract_article(page.format(ahead)).published_at == ""
    assert extract_article(page.format(f"2019-03-01 10:20 更新时间：{ahead}")).updated_at == ""
    assert extract_article(page.format("2019-03-01 10:20")).published_at == "2019-03-01T10:20:00+08:00"


def test_a_byline_with_a_two_digit_year_gives_its_date_not_a_comments():
    from datetime import datetime

    from news_crawler.extraction import extract_article
    from news_crawler.extraction.dates import SHANGHAI, short_year_dates

    now = datetime(2026, 11, 23, 23, 0, tzinfo=SHANGHAI)
    assert short_year_dates("发布时间：19-03-01 10:23 作者：张三", now=now) == [(5, "2019-03-01T10:23:00+08:00", True)]
    assert short_year_dates("19/03/01 10:23:11", now=now) == [(0, "2019-03-01T10:23:11+08:00", True)]
    assert (
        short_year_dates("2019-03-01 10:23", now=now) == [] and short_year_dates("电话 0571-88-12 10:00", now=now) == []
    )
    assert short_year_dates("27-03-01 10:00", now=now) == []  # not yet
    story = "县里召开秋粮收购工作会议，部署今年秋粮收购工作，要求各乡镇做好准备，确保农民卖粮方便。" * 3
    page = (
        "<html><head><title>县里召开秋粮收购工作会议</title></head><body><h1>县里召开秋粮收购工作会议</h1>"
        f"<div>时间：19-03-01 10:23　来源：县农业局</div><div><p>{story}</p><p>{story}</p></div>"
        "<div class='comments'>网友 2019-03-02 18:22:10 说得好</div></body></html>"
    )
    assert extract_article(page).published_at == "2019-03-01T10:23:00+08:00"


def test_a_time_before_its_date_and_an_am_pm_after_a_chinese_style_date():
    assert dates_in("发布：10:08 2019-03-01")[0][1:] == ("2019-03-01T10:08:00+08:00", True)
    assert dates_in("2019-03-01 10:08 PM")[0][1] == "2019-03-01T22:08:00+08:00"
    assert dates_in("2019-03-01 12:30 a.m.")[0][1] == "2019-03-01T00:30:00+08:00"
    assert dates_in("2019-03-01 10:08 AMD")[0][1] == "2019-03-01T10:08:00+08:00"  # a word, not a half of the day
    assert [d[1] for d in dates_in("比分 12:00\n2019-03-01 发布")] == ["2019-03-01"]  # another line's time is not its


@pytest.mark.parametrize(
    "byline,expected",
    [
        ("时间：19-03-01　来源：县农业局", "2019-03-01"),  # a labelled two-digit year with no time
        ("发布日期：19/03/01", "2019-03-01"),
        ("二〇一九年三月一日　来源：县农业局", "2019-03-01"),  # in Chinese numerals, under the headline
    ],
)
def test_a_date_only_byline_in_a_short_or_chinese_form_beats_a_comment_s_full_time(byline, expected):
    from news_crawler.extraction import extract_article

    story = "县里召开秋粮收购工作会议，部署今年秋粮收购工作，要求各乡镇做好准备，确保农民卖粮方便。" * 3
    page = (
        "<html><head><title>县里召开秋粮收购工作会议</title></head><body><h1>县里召开秋粮收购工作会议</h1>"
        f"<div>{byline}</div><div><p>{story}</p><p>{story}</p></div>"
        "<div class='comments'>网友 2019-03-02 18:22:10 说得好</div></body></html>"
    )
    assert extract_article(page).published_at == expected
    from news_crawler.extraction.dates import short_year_dates

    assert short_year_dates("电话：88-12-10") == [] and short_year_dates("编号 19-03-01") == []  # no label, no time


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Saturday, September 10th, 2005 10:56 am", "2005-09-10T10:56:00+08:00"),
        ("Posted on Sep 10, 2005 at 22:56", "2005-09-10T22:56:00+08:00"),
        ("Dec. 1, 1999, 3:05 PM", "1999-12-01T15:05:00+08:00"),
        ("March 31st, 2020", "2020-03-31"),
        ("The Mayor 3 2019 visit", None),  # a word that starts like a month
    ],
)
def test_dates_in_english_as_blog_software_prints_them(text, expected):
    assert [d[1] for d in dates_in(text)] == ([expected] if expected else [])


def test_a_post_s_time_over_its_headline_beats_a_comment_s_far_below():
    from news_crawler.extraction import extract_article

    story = "县里召开秋粮收购工作会议，部署今年秋粮收购工作，要求各乡镇做好准备，确保农民卖粮方便。" * 3
    page = (
        "<html><head><title>县里召开秋粮收购工作会议</title></head><body>"
        "<div>2006年12月27日（京港台时间）</div><div>Saturday, September 10th, 2005 10:56 am</div>"
        f"<h2>县里召开秋粮收购工作会议</h2><div><p>{story}</p><p>{story}</p></div>"
        + "<p>相关文章一篇</p>" * 20
        + "<div class='comments'>网友 回复 (2006-12-24 03:45:27)</div></body></html>"
    )
    assert extract_article(page).published_at == "2005-09-10T10:56:00+08:00"


def _page(meta: str, byline: str) -> str:
    story = "。".join(["法国总统马克龙下星期访问莫斯科和基辅，与俄罗斯总统会面"] * 6) + "。"
    return (
        f"<html><head><title>马克龙星期一在莫斯科与普京会面</title>"
        f"<meta property='article:published_time' content='{meta}'></head><body>"
        f"<h1>马克龙星期一在莫斯科与普京会面</h1><p>{byline}</p><div><p>{story}</p></div></body></html>"
    )


@pytest.mark.parametrize(
    "meta,byline,expected",
    [
        # Markup in UTC, the page showing Paris's time (a day-first date) or Beijing's.
        ("2022-02-06T12:48:06+00:00", "发表时间： 06/02/2022 - 13:48", "2022-02-06T13:48:06+01:00"),
        ("2022-02-06T12:48:06Z", "发布时间：2022年2月6日 20:48", "2022-02-06T20:48:06+08:00"),
        ("2022-02-06T20:48:06+08:00", "2022-02-06 20:48", "2022-02-06T20:48:06+08:00"),  # as stated already
        ("2022-02-06T22:48:06-05:00", "2022年2月7日 11:48", "2022-02-07T11:48:06+08:00"),  # the next day there
        # Another clock on the line (an audio's length), no date beside it, or an offset that is
        # no zone's: the stated time as it is.
        ("2022-02-06T12:48:06+00:00", "音频 04:29", "2022-02-06T12:48:06+00:00"),
        ("2022-02-06T12:48:06+00:00", "更新 13:48", "2022-02-06T12:48:06+00:00"),
        ("2022-02-06T12:48:06+00:00", "2022-02-06 13:55", "2022-02-06T12:48:06+00:00"),
    ],
)
def test_a_time_stated_in_markup_is_given_in_the_zone_the_page_shows_it_in(meta, byline, expected):
    assert extract_article(_page(meta, byline)).published_at == expected


def test_the_modification_time_is_given_in_the_zone_of_the_publication_time():
    page = _page("2022-02-06T12:48:06+00:00", "发表时间： 06/02/2022 - 13:48").replace(
        "</head>", "<meta property='article:modified_time' content='2022-02-06T15:00:00Z'></head>"
    )
    article = extract_article(page)
    assert (article.published_at, article.updated_at) == ("2022-02-06T13:48:06+01:00", "2022-02-06T16:00:00+01:00")
    dated = _page("2022-02-06", "").replace(
        "</head>", "<meta property='article:modified_time' content='2022-02-06T15:00:00Z'></head>"
    )
    assert extract_article(dated).updated_at == "2022-02-06T15:00:00+00:00"  # a date alone has no zone to give
