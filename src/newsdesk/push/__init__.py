"""Push: the newsroom's events and editions sent to subscribers' channels.

A subscription is an Apprise URL (email, Telegram, Slack, Discord, Feishu, DingTalk, WeCom
and the rest Apprise knows), filters (tab, minimum importance, keywords, coverage
languages) and a schedule: `instant` sends each featured event once it is ranked,
`daily` the day's edition at a local time, `weekly` the weekly report.

- subscriptions.py  add, list, change and remove subscriptions (checked like a form)
- messages.py       what is due for a subscription, and the message for it (markdown)
- send.py           one delivery through Apprise with retries, and the `push` stage

Apprise renders markdown in each channel's own format and splits what is longer than
the channel allows; each message also links to its page on the site.
"""
