"""What a headline says of itself (text/headlines.py): its column label, whether it is a rumour."""

import pytest

from newsdesk.text.headlines import is_rumour, shown_headline


@pytest.mark.parametrize(
    "headline",
    [
        "OpenAI reportedly in talks to raise $40 billion",
        "Apple's Gemini deal leaked ahead of WWDC",
        "据称 OpenAI 将发新图像模型",
        "消息人士：字节跳动或将推出新一代豆包大模型",
    ],
)
def test_a_rumour_leak_or_report_of_plans_is_read_as_one(headline):
    assert is_rumour(headline)


@pytest.mark.parametrize(
    "headline",
    ["Introducing GPT-5.4", "Anthropic 发布 Claude Opus 4.6", "Talks at the AI Engineer Summit", "Leaky abstractions"],
)
def test_a_launch_or_a_word_that_only_looks_like_one_is_not(headline):
    assert not is_rumour(headline)


def test_a_column_label_is_taken_off():
    assert shown_headline("[AINews] Nano Banana 2 aka Gemini 3.1 Flash Image Preview") == (
        "Nano Banana 2 aka Gemini 3.1 Flash Image Preview"
    )
    assert shown_headline("【GPT-5.4发布】三大亮点一览") == "【GPT-5.4发布】三大亮点一览"
