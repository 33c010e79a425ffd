"""The shapes of the JSON API's answers and requests (pydantic), which the MCP server's tools answer with too."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, Field


class CardMember(BaseModel):
    item_id: int
    outlet: str = Field(description="the outlet (source) that published it")
    title: str
    url: str | None
    published_at: str = Field(
        description="local time, YYYY-MM-DD HH:MM; YYYY-MM-DD alone when its source gave only a date"
    )
    material_level: str = Field(description="full | summary | title | paywalled | failed")
    language: str
    role: str = Field(description="lead | member | syndicated | duplicate")


class CardAnalysis(BaseModel):
    language: str
    headline: str
    body: str = Field(description="markdown")
    status: str = Field(description="clean: only an analysis that passed its checks is published")
    flags: list[str] = Field(description="the checker's warnings, as lines")
    extractive: bool = Field(description="chosen from the material by code, not written by a model")
    replaces_failed: bool = Field(description="stands in for a written draft that failed its checks")


class FollowUpOf(BaseModel):
    event_id: int
    headline: str


class StoryEvent(BaseModel):
    event_id: int
    headline: str = Field(description="its analysis's headline in the requested language, else its title")
    date: str = Field(description="local date it began, YYYY-MM-DD")
    follows_event_id: int | None = Field(description="the earlier event it follows up; none for the story's first")


class StoryThread(BaseModel):
    story_id: int
    title: str = Field(description="its first event's headline")
    events: list[StoryEvent] = Field(description="in time order")


class Story(StoryThread):
    """Events that follow one another: a launch, its benchmarks, a fix."""

    event_count: int
    first_published_at: str = Field(description="local time its first event began, YYYY-MM-DD HH:MM")
    last_published_at: str = Field(description="local time of its latest event's latest report")


class Badge(BaseModel):
    kind: str = Field(description="extract | level | outlets | check")
    text: str = Field(description="in the requested language")
    title: str = Field(description="the sentence it stands for, or empty")


class Headline(BaseModel):
    event_id: int
    headline: str
    outlets: int
    tab: str = Field(description="featured | p1")


class EventCard(BaseModel):
    """An event as every list shows it: the daily edition, the site and the feed page."""

    event_id: int
    headline: str
    title: str
    importance: float
    tab: str = Field(description="featured | p1 | all")
    category: str
    category_label: str = Field(description="the category in the requested language")
    outlets: int = Field(description="distinct outlets that covered it")
    independent_outlets: int
    first_published_at: str = Field(description="local time, YYYY-MM-DD HH:MM")
    last_published_at: str
    members: list[CardMember] = Field(description="member items, lead first; duplicates left out")
    analysis: CardAnalysis | None = Field(description="in the requested language, else in another")
    check: str = Field(description="clean | missing")
    summary: str = Field(description="with no analysis: the lead item's summary, plain text")
    notes: list[str] = Field(
        description="an extractive card's coverage and disclosure sentences (not in analysis.body)"
    )
    badges: list[Badge] = Field(description="the notes as one line: extract, material level, outlets, check")
    feedback: dict[str, int] = Field(description="counts by kind: up | down | star")
    follows: FollowUpOf | None = Field(description="the earlier event this one follows up, if any")
    story: StoryThread | None = Field(description="the story it is part of, if any")


class EventSummary(BaseModel):
    id: int
    title: str
    score: float
    tab: str = Field(description="featured | p1 | all")
    category: str | None
    outlets: int
    independent_outlets: int
    item_count: int
    languages: list[str]
    first_published_at: datetime
    last_published_at: datetime


class Member(CardMember):
    origin_item_id: int | None
    origin_outlet: str | None
    reason: str | None = Field(
        description="why it joined the event: the operator's (sent with the operator's token), else null"
    )
    summary: str | None
    source_id: str


class Analysis(BaseModel):
    id: int
    language: str
    headline: str
    body: str = Field(description="markdown")
    status: str = Field(description="clean: only an analysis that passed its checks is published")
    flags: list
    model: str | None = Field(description="the model that wrote it, or 'extractive' (chosen from the material by code)")
    created_at: datetime
    extractive: bool
    replaces_failed: bool = Field(description="stands in for a written draft that failed its checks")


class Check(BaseModel):
    subject_id: str
    language: str = Field(description="the language of the analysis checked (an event has one a language)")
    attempt: int
    passed: bool
    findings: list
    at: datetime


class FeedbackOut(BaseModel):
    kind: str
    note: str
    user: str
    at: datetime


class EventDetail(EventCard):
    members: list[Member] = Field(description="every member item, duplicates too")
    analyses: dict[str, Analysis] = Field(description="by language")
    score: float
    item_count: int
    languages: list[str]
    score_parts: list[tuple[str, float | int | str | None]] = Field(
        description="why it ranks: (part, value), largest first"
    )
    anchors: list
    checks: list[Check]
    feedback_list: list[FeedbackOut]


class Tab(BaseModel):
    id: str = Field(description="all | featured | p1 | category-<category>")
    label: str
    events: list[int] = Field(description="event ids, in page order")


class FeedPage(BaseModel):
    day: str
    tab: str
    label: str = Field(description="the tab's label, as the page's heading shows it")
    page: int
    pages: int
    total: int
    tabs: list[Tab]
    previous_day: date | None
    next_day: date | None
    events: list[EventCard]
    top: list[Headline] = Field(description="the day's headline list (all tab, first page): featured, then p1")


class EditionRef(BaseModel):
    key: str
    languages: list[str]
    titles: dict[str, str]
    updated_at: datetime


class Edition(BaseModel):
    kind: str
    key: str
    language: str
    languages: list[str]
    title: str
    body: str = Field(description="markdown")
    meta: dict
    status: str
    updated_at: datetime


class SourceRow(BaseModel):
    id: str
    name: str
    enabled: bool
    url: str
    kind: str
    language: str
    tier: int
    category: str
    origin: str
    last_success: datetime | None
    last_error: str | None
    last_error_at: datetime | None
    items_7d: int
    consecutive_failures: int
    latest_item: datetime | None
    stale: bool
    polled: bool = Field(
        description="false for an imported outlet: its items come from JSON Lines files, nothing fetches it"
    )


class SourceIn(BaseModel):
    id: str
    name: str
    url: str
    kind: str = "rss"
    language: str = "en"
    tier: int = 2
    category: str = "media"
    fulltext: bool = False


class SourceEnabled(BaseModel):
    enabled: bool


class UsageBucket(BaseModel):
    calls: int
    cache_hits: int
    errors: int
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    cached_share: float
    cost_usd: float


class UsageDay(UsageBucket):
    day: str


class UsageOutput(UsageBucket):
    output: str  # what the calls were for: analysis, weekly, episode, translation, arbitrate


class UsageDayOutput(UsageBucket):
    day: str
    output: str


class Usage(BaseModel):
    days: int
    since: datetime
    total: UsageBucket
    per_day: list[UsageDay]
    per_output: list[UsageOutput]
    per_day_output: list[UsageDayOutput]


class SearchItem(BaseModel):
    id: int
    title: str
    summary: str
    url: str | None
    published_at: datetime
    dated_by: str = Field(description="source | day (its source gave only a date: no time of day) | first_seen")
    language: str
    material_level: str
    source_id: str
    outlet: str = Field(description="the outlet (source) that published it")
    event_id: int | None


class SearchResults(BaseModel):
    query: str
    events: list[EventSummary]
    items: list[SearchItem]


class FeedbackIn(BaseModel):
    kind: Literal["up", "down", "star"]
    note: str = Field("", max_length=2000)
    user: str = Field("operator", max_length=80)


class Created(BaseModel):
    id: int | str


class SubscriptionIn(BaseModel):
    """A push subscription, checked as the web form and `newsdesk push add` check it."""

    name: str = Field(description="1-80 lowercase letters, digits, '-' or '_'", examples=["team-telegram"])
    target: str = Field(
        max_length=2000,
        description="an Apprise URL; it holds the channel's credentials and is only ever shown masked",
        examples=["tgram://BOT_TOKEN/CHAT_ID"],
    )
    schedule: Literal["instant", "daily", "weekly"] = Field("instant", description="instant: featured events at once")
    send_at: str = Field("08:00", max_length=8, description="local time (HH:MM) of the daily or weekly message")
    tab: str = Field("all", max_length=40, description="all | featured | a category")
    min_importance: float = Field(0.0, ge=0, le=1e6)
    keywords: list[str] = Field(default_factory=list, max_length=50, description="any of them, in headline or titles")
    languages: list[Literal["zh", "en"]] = Field(default_factory=list, description="coverage languages; empty = any")
    language: Literal["zh", "en"] = Field("zh", description="the messages' language")
    since: date | None = Field(None, description="nothing older is sent; default now")


class Delivery(BaseModel):
    kind: str = Field(description="event | daily | weekly")
    ref: str
    status: str = Field(description="sending | sent | failed")
    sent_at: datetime | None
    created_at: datetime


class Subscription(BaseModel):
    id: int
    name: str
    target: str = Field(description="masked: the channel's secrets hidden")
    channel: str = Field(description="email | telegram | slack | discord | feishu | dingtalk | wecom | other")
    schedule: str
    send_at: str
    tab: str
    min_importance: float
    keywords: list[str]
    languages: list[str]
    language: str
    since: datetime
    enabled: bool
    created_at: datetime
    last_success_at: datetime | None
    last_error: str | None = Field(description="the failing channel's last error, one line")
    last_error_at: datetime | None
    consecutive_failures: int
    last_delivery: Delivery | None


class StageRun(BaseModel):
    id: int
    stage: str
    unit: str | None = Field(
        description="the piece of the stage a worker ran (a source, an event); null = the whole stage"
    )
    run_id: str | None
    owner: str | None = Field(description="host:pid:tag of the process that ran it")
    status: str = Field(description="queued | running | ok | problems | failed | interrupted")
    queued_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None
    seconds: float | None
    facts: dict[str, int | float | str | bool | None] = Field(description="what it did, e.g. items_new")
    problems: list[str] = Field(description="one line each; the stage's other work is stored")
    error: str | None = Field(description="failed: the error; problems: the first problem")


class StageStatus(BaseModel):
    stage: str
    last: StageRun | None = Field(description="the last run that finished")
    last_problem: StageRun | None = Field(description="the last run that failed, had problems or was interrupted")
    running: StageRun | None
    queued: int
    running_count: int
    failed_24h: int = Field(description="runs failed or interrupted in the last 24 hours")
    runs_24h: int = Field(description="runs finished in the last 24 hours")
    next_due_at: datetime | None = Field(description="when the scheduler (run / serve --every) runs it next")
    held_by: str | None = Field(description="the process holding the stage's lease now")


class SourcePoll(BaseModel):
    id: str
    name: str
    next_poll_at: datetime | None = Field(description="null: due at once")
    poll_every: int | None = Field(description="seconds between polls now, backoff included")
    poll_basis: str | None = Field(description="why: the feed's ttl / sy:updatePeriod, its rhythm, backoff, bounds")
    poll_failures: int = Field(description="failed fetches in a row (each doubles the wait, up to poll_max)")


class UnitCounts(BaseModel):
    stage: str
    queued: int = Field(description="units waiting on the broker")
    running: int = Field(description="units a live worker holds now")
    failed: int = Field(description="units that kept failing: recorded, not retried until the next pass")
    done: int


class Unit(BaseModel):
    key: str = Field(description="the unit of work, e.g. fetch:openai-blog, analysis:12:zh, daily:2026-04-23")
    stage: str
    run_id: str | None = Field(description="the pass that asked for it")
    owner: str | None = Field(description="host:pid:tag of the worker running it")
    attempts: int
    error: str | None
    queued_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None


class WorkerUnits(BaseModel):
    stages: list[UnitCounts] = Field(
        description="per stage, in pipeline order: the workers' units queued, running, failed, done"
    )
    running: list[Unit]
    failed: list[Unit] = Field(description="newest first, each with its error")


class Status(BaseModel):
    stages: list[StageStatus] = Field(description="every pipeline stage, in pipeline order")
    sources: list[SourcePoll] = Field(description="enabled sources, those backing off first, then by next poll")
    units: WorkerUnits = Field(description="`newsdesk worker`: the task queue's units of work (empty on one machine)")
