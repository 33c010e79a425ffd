"""Push end to end: the demo pack ingested, clustered, ranked and published as daily editions,
then pushed through Apprise's own channel plugins to receivers on this machine.

Email goes to a local SMTP server (aiosmtpd). The chat channels' plugins post to their
services' fixed HTTPS hosts (api.telegram.org, hooks.slack.com, ...): the test resolves
those names to one loopback HTTPS server with a self-signed certificate (the URLs say
verify=no), like an /etc/hosts entry would, so every request is the plugin's real one.
"""

from __future__ import annotations

import datetime as dt
import email
import email.header
import json
import re
import shutil
import socket
import ssl
import threading
import warnings
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest
from aiosmtpd.controller import Controller
from conftest import PACK
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from loopback import free_port
from sqlalchemy import select
from typer.testing import CliRunner

from newsdesk.cluster import cluster_new_items
from newsdesk.core.config import PushSettings, Settings
from newsdesk.editions.daily import build_dailies
from newsdesk.ingest.run import ingest
from newsdesk.push.send import push_due
from newsdesk.push.subscriptions import SubscriptionError, add_subscription, list_subscriptions
from newsdesk.rank.score import rank_events
from newsdesk.store import open_store
from newsdesk.store.schema import deliveries, subscriptions

HOSTS = (
    "api.telegram.org",
    "hooks.slack.com",
    "discord.com",
    "open.feishu.cn",
    "oapi.dingtalk.com",
    "qyapi.weixin.qq.com",
)
FAILING_DISCORD = "/api/webhooks/500500/broken"
DEMO_NOW = dt.datetime(2025, 2, 26, 12, 0, tzinfo=dt.UTC)  # the day after the demo's Claude 3.7 Sonnet release


def _certificate(folder):
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "loopback")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(hours=1))
        .sign(key, hashes.SHA256())
    )
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return folder / "cert.pem", folder / "key.pem"


@pytest.fixture
def webhooks(tmp_path, monkeypatch):
    """One HTTPS server standing in for every chat service; records (host, path, JSON body)."""
    received: dict[str, list] = defaultdict(list)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            host = self.headers["host"].split(":")[0]
            received[host].append((self.path, body))
            if self.path == FAILING_DISCORD:
                self.send_response(500)
                self.end_headers()
                return
            self.send_response(200)
            if host == "hooks.slack.com":  # a Slack webhook answers a bare "ok"
                self.end_headers()
                self.wfile.write(b"ok")
                return
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(json.dumps({"ok": True, "result": {"message_id": 1}, "errcode": 0, "code": 0}).encode())

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*_certificate(tmp_path))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    real = socket.getaddrinfo

    def resolve(host, service, *args, **kwargs):
        return real("127.0.0.1", port, *args, **kwargs) if host in HOSTS else real(host, service, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    warnings.filterwarnings("ignore", message="Unverified HTTPS request")
    yield received
    server.shutdown()


@pytest.fixture
def smtp():
    mails: list = []

    class Handler:
        async def handle_DATA(self, server, session, envelope):
            mails.append(email.message_from_bytes(envelope.content))
            return "250 OK"

    port = free_port()
    controller = Controller(Handler(), hostname="127.0.0.1", port=port)
    controller.start()
    yield port, mails
    controller.stop()


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    """ingest → cluster → rank → daily editions, on the demo pack, no model; built once, copied per test."""
    folder = tmp_path_factory.mktemp("published")
    s = Settings(data_dir=str(folder))
    engine = open_store(s.database)
    ingest(engine, s, PACK)
    cluster_new_items(engine, s)
    rank_events(engine, s)
    build_dailies(engine, s)
    engine.dispose()
    return folder / "newsdesk.db"


@pytest.fixture
def store(published, tmp_path):
    shutil.copy(published, tmp_path / "newsdesk.db")
    s = Settings(
        data_dir=str(tmp_path), site_url="https://news.example.com/", push=PushSettings(retries=2, backoff_base=0.01)
    )
    engine = open_store(s.database)
    yield s, engine
    engine.dispose()


def _subject(mail) -> str:
    return str(email.header.make_header(email.header.decode_header(mail["Subject"])))


def test_featured_event_reaches_every_channel_once_and_a_failing_one_is_retried_then_recorded(store, webhooks, smtp):
    s, engine = store
    port, mails = smtp
    instant = {"schedule": "instant", "since": "2025-02-01", "keywords": "Claude", "language": "en"}
    targets = {
        "mail": f"mailto://127.0.0.1:{port}?from=newsdesk@example.com&to=reader@example.com&mode=insecure",
        "telegram": "tgram://123456:ABCdefGHI/987654?verify=no",
        "slack": "slack://T1ABCDEFG/B1ABCDEFG/abcdefghijklmnopqrstuvwx/#news?verify=no",
        "discord": "discord://1234567890/abcdefghijklmnop?verify=no",
        "feishu": "feishu://feishutoken?verify=no",
        "dingtalk": "dingtalk://dingtoken?verify=no",
        "wecom": "wecombot://wecomkey?verify=no",
        "broken": "discord://500500/broken?verify=no",
    }
    with engine.begin() as conn:
        for name, target in targets.items():
            add_subscription(conn, {"name": name, "target": target, **instant})

    report = push_due(engine, s, now=DEMO_NOW)

    assert report.sent == 7 and report.failed == 1
    assert "broken (discord)" in report.problems[0] and "500" in report.problems[0]
    # The featured Claude event, once per channel (only featured events go out at once).
    assert len(mails) == 1 and "Claude 3.7 Sonnet" in _subject(mails[0])
    html = next(p for p in mails[0].walk() if p.get_content_type() == "text/html").get_payload(decode=True).decode()
    assert "https://news.example.com/events/" in html
    for host in HOSTS:
        posts = [(path, body) for path, body in webhooks[host] if path != FAILING_DISCORD]
        assert len(posts) == 1, (host, posts)
    telegram = webhooks["api.telegram.org"][0]
    assert telegram[0] == "/bot123456:ABCdefGHI/sendMessage" and telegram[1]["chat_id"] == 987654
    assert "Claude 3.7 Sonnet" in telegram[1]["text"]
    slack = webhooks["hooks.slack.com"][0][1]
    assert (
        "Claude 3.7 Sonnet" in slack["attachments"][0]["title"] and "|Read in full>" in slack["attachments"][0]["text"]
    )
    discord = next(body for path, body in webhooks["discord.com"] if path != FAILING_DISCORD)
    assert "Claude 3.7 Sonnet" in json.dumps(discord)
    feishu = webhooks["open.feishu.cn"][0]
    assert feishu[0] == "/open-apis/bot/v2/hook/feishutoken/" and feishu[1]["msg_type"] == "interactive"
    assert "Claude 3.7 Sonnet" in feishu[1]["card"]["header"]["title"]["content"]
    dingtalk = webhooks["oapi.dingtalk.com"][0]
    assert parse_qs(urlsplit(dingtalk[0]).query)["access_token"] == ["dingtoken"]
    assert dingtalk[1]["msgtype"] == "markdown" and "Claude 3.7 Sonnet" in dingtalk[1]["markdown"]["title"]
    wecom = webhooks["qyapi.weixin.qq.com"][0]
    assert (
        parse_qs(urlsplit(wecom[0]).query)["key"] == ["wecomkey"] and "Claude 3.7 Sonnet" in wecom[1]["text"]["content"]
    )
    # Retried, then recorded: 1 try + 2 retries, on the delivery and on the subscription; the others are clean.
    assert sum(path == FAILING_DISCORD for path, _ in webhooks["discord.com"]) == 3
    with engine.connect() as conn:
        rows = {r.name: r for r in conn.execute(select(subscriptions))}
        failed = conn.execute(select(deliveries).where(deliveries.c.subscription_id == rows["broken"].id)).one()
        assert len(conn.execute(select(deliveries).where(deliveries.c.status == "sent")).all()) == 7
    assert failed.status == "failed" and failed.attempts == 3 and "500" in failed.error
    assert rows["broken"].consecutive_failures == 1 and "500" in rows["broken"].last_error
    assert all(r.consecutive_failures == 0 and r.last_success_at for n, r in rows.items() if n != "broken")

    # A second run sends nothing new; the failed delivery is tried again (and fails again).
    def delivered():
        return len(mails), {host: sum(path != FAILING_DISCORD for path, _ in posts) for host, posts in webhooks.items()}

    before = delivered()
    again = push_due(engine, s, now=DEMO_NOW)
    assert again.sent == 0 and again.failed == 1
    assert delivered() == before
    assert sum(path == FAILING_DISCORD for path, _ in webhooks["discord.com"]) == 6
    with engine.connect() as conn:
        assert (
            conn.execute(select(subscriptions.c.consecutive_failures).where(subscriptions.c.name == "broken")).scalar()
            == 2
        )
        shown = {r["name"]: r for r in list_subscriptions(conn)}
    assert "abcdefghijklmnop" not in shown["discord"]["target"]  # secrets stay masked when shown


def test_daily_digest_at_its_local_time_split_to_each_channels_limit(store, webhooks):
    s, engine = store
    limits = {"discord.com": 2000, "qyapi.weixin.qq.com": 2048, "api.telegram.org": 4096}  # characters a message holds
    with engine.begin() as conn:
        for name, target in (
            ("discord", "discord://42/digest?verify=no"),
            ("wecom", "wecombot://digest?verify=no"),
            ("telegram", "tgram://1:digest/42?verify=no"),
        ):
            add_subscription(
                conn,
                {
                    "name": name,
                    "target": target,
                    "schedule": "daily",
                    "send_at": "09:00",
                    "since": "2025-02-01",
                    "language": "zh",
                },
            )
    zone = dt.timezone(dt.timedelta(hours=8))  # settings.timezone is Asia/Shanghai
    early = dt.datetime(2026, 12, 1, 8, 59, tzinfo=zone)
    assert push_due(engine, s, now=early).sent == 0 and not webhooks
    assert push_due(engine, s, now=early + dt.timedelta(minutes=2)).sent == 3
    text = {
        "discord.com": [b.get("content", "") for _, b in webhooks["discord.com"]],
        "qyapi.weixin.qq.com": [b["text"]["content"] for _, b in webhooks["qyapi.weixin.qq.com"]],
        "api.telegram.org": [b["text"] for _, b in webhooks["api.telegram.org"]],
    }
    for host, parts in text.items():
        whole = "".join(parts)
        assert "2025-03-02" in whole and "news.example.com/events/" in whole, host
        assert all(len(part) <= limits[host] for part in parts), (host, [len(p) for p in parts])
    assert push_due(engine, s, now=early + dt.timedelta(hours=3)).sent == 0


def test_a_message_longer_than_the_channel_allows_is_split_not_cut(webhooks):
    from newsdesk.push.messages import Message
    from newsdesk.push.send import send_once

    lines = [
        f"{n}. [第 {n} 条事件的标题，足够长以便测试拆分](https://news.example.com/events/{n}) — 3 个来源（2 个独立）"
        for n in range(1, 61)
    ]
    message = Message("daily", "2025-03-02", "全部 · 2025-03-02", "\n".join(lines), "https://news.example.com/")
    for target, host, limit, text in (
        ("discord://42/long?verify=no", "discord.com", 2000, lambda b: b["content"]),
        ("wecombot://long?verify=no", "qyapi.weixin.qq.com", 2048, lambda b: b["text"]["content"]),
        ("tgram://1:long/42?verify=no", "api.telegram.org", 4096, lambda b: b["text"]),
    ):
        assert send_once(target, message) is None
        parts = [text(body) for _, body in webhooks[host]]
        assert len(parts) > 1 and all(len(p) <= limit for p in parts), (host, [len(p) for p in parts])
        assert "第 1 条" in parts[0] and "events/60" in parts[-1]  # nothing cut off the end


def test_bad_subscription_fields_name_the_fix(store):
    _, engine = store
    with engine.begin() as conn:
        for fields, fix in (
            ({"name": "x", "target": "telegram://nope"}, "tgram://BOT_TOKEN/CHAT_ID"),
            ({"name": "Bad Name!", "target": "tgram://1:a/2"}, "lowercase letters"),
            ({"name": "x", "target": "tgram://1:a/2", "schedule": "hourly"}, "instant"),
            ({"name": "x", "target": "tgram://1:a/2", "send_at": "25:00"}, "HH:MM"),
            ({"name": "x", "target": "tgram://1:a/2", "languages": "fr"}, "zh, en"),
            ({"name": "x", "target": "tgram://1:a/2", "min_importance": "high"}, "a number"),
        ):
            with pytest.raises(SubscriptionError, match=fix):
                add_subscription(conn, fields)


def test_push_commands(store, smtp, monkeypatch, tmp_path):
    from newsdesk import cli

    s, engine = store
    port, mails = smtp
    monkeypatch.setattr(cli, "_state", {"settings": s, "engine": engine})
    runner = CliRunner()
    target = f"mailto://127.0.0.1:{port}?from=newsdesk@example.com&to=ops@example.com&mode=insecure"
    added = runner.invoke(
        cli.app,
        [
            "push",
            "add",
            "ops",
            target,
            "--schedule",
            "daily",
            "--at",
            "00:00",
            "--since",
            "2025-02-01",
            "--language",
            "en",
        ],
    )
    assert added.exit_code == 0, added.output
    listed = runner.invoke(cli.app, ["push", "list"])
    assert "ops" in listed.output and "email" in listed.output
    tested = runner.invoke(cli.app, ["push", "test", "ops"])
    assert tested.exit_code == 0, tested.output
    assert len(mails) == 1
    sent = runner.invoke(cli.app, ["push"])
    assert sent.exit_code == 0 and "1 sent" in sent.output and len(mails) == 2
    assert "1 sent" not in runner.invoke(cli.app, ["push"]).output and len(mails) == 2
    missing = runner.invoke(cli.app, ["push", "test", "nobody"])
    assert missing.exit_code == 2 and "newsdesk push list" in missing.output


def test_web_app_lists_subscriptions_with_a_failing_channel_and_sends_a_test(store, smtp, webhooks):
    from fastapi.testclient import TestClient

    from newsdesk.serve.app import create_app

    s, engine = store
    port, mails = smtp
    s.web_token = "push-token"
    with engine.begin() as conn:
        add_subscription(conn, {"name": "broken", "target": "discord://500500/broken?verify=no", "since": "2025-02-01"})
    push_due(engine, s, now=DEMO_NOW)
    with TestClient(
        create_app(engine, s), base_url="https://testserver"
    ) as client:  # site_url is https: secure cookies
        assert client.get("/subscriptions", follow_redirects=False).status_code == 303  # to the login page
        csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/login").text).group(1)
        client.post("/login", data={"token": "push-token", "csrf": csrf, "next": "/subscriptions"})
        page = client.get("/subscriptions").text
        assert 'id="subscription-broken" class="enabled failing"' in page and "500" in page
        assert "500500/broken" not in page  # the webhook token is masked
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        bad = client.post("/subscriptions", data={"csrf": csrf, "name": "ops", "target": "email-me-please"})
        assert bad.status_code == 400 and "mailtos://" in bad.text
        target = f"mailto://127.0.0.1:{port}?from=newsdesk@example.com&to=ops@example.com&mode=insecure"
        added = client.post(
            "/subscriptions",
            data={
                "csrf": csrf,
                "name": "ops",
                "target": target,
                "schedule": "daily",
                "send_at": "07:30",
                "keywords": "Claude, GPT",
                "language": "en",
            },
        )
        assert added.status_code == 200 and 'id="subscription-ops"' in added.text and "Claude, GPT" in added.text
        with engine.connect() as conn:
            ops = conn.execute(select(subscriptions).where(subscriptions.c.name == "ops")).one()
        assert ops.keywords == ["Claude", "GPT"] and ops.send_at == "07:30" and ops.channel == "email"
        client.post(f"/subscriptions/{ops.id}/test", data={"csrf": csrf})
        assert len(mails) == 1
        client.post(f"/subscriptions/{ops.id}/enabled", data={"csrf": csrf, "enabled": "0"})
        client.post(f"/subscriptions/{ops.id}/remove", data={"csrf": csrf})
        assert 'id="subscription-ops"' not in client.get("/subscriptions").text


def test_json_api_lists_adds_and_removes_subscriptions_behind_the_token(store, webhooks):
    from fastapi.testclient import TestClient

    from newsdesk.serve.app import create_app

    s, engine = store
    s.web_token = "push-token"
    auth = {"Authorization": "Bearer push-token"}
    with engine.begin() as conn:
        add_subscription(conn, {"name": "broken", "target": "discord://500500/broken?verify=no", "since": "2025-02-01"})
    push_due(engine, s, now=DEMO_NOW)  # its channel answers 500: recorded on the subscription
    with TestClient(create_app(engine, s)) as client:
        assert client.get("/api/subscriptions").status_code == 401  # targets hold credentials: the list too
        assert client.post("/api/subscriptions", json={"name": "x", "target": "tgram://1:a/2"}).status_code == 401
        assert client.delete("/api/subscriptions/broken").status_code == 401
        listed = client.get("/api/subscriptions", headers=auth).json()
        assert [r["name"] for r in listed] == ["broken"] and "500500/broken" not in json.dumps(listed)
        assert (
            listed[0]["channel"] == "discord"
            and listed[0]["consecutive_failures"] >= 1
            and "500" in listed[0]["last_error"]
        )

        bad = client.post("/api/subscriptions", headers=auth, json={"name": "ops", "target": "email-me-please"})
        assert bad.status_code == 400 and "mailtos://" in bad.json()["detail"]
        added = client.post(
            "/api/subscriptions",
            headers=auth,
            json={
                "name": "ops",
                "target": "tgram://123456789:abcdefg_hijklmnop/987654",
                "schedule": "daily",
                "send_at": "07:30",
                "keywords": ["Claude", "GPT"],
                "languages": ["en"],
                "language": "en",
                "since": "2025-02-20",
            },
        )
        assert added.status_code == 201, added.text
        again = client.post("/api/subscriptions", headers=auth, json={"name": "ops", "target": "tgram://1:a/2"})
        assert again.status_code == 400 and "already exists" in again.json()["detail"]
        ops = next(r for r in client.get("/api/subscriptions", headers=auth).json() if r["name"] == "ops")
        assert ops["id"] == added.json()["id"] and ops["channel"] == "telegram" and ops["keywords"] == ["Claude", "GPT"]
        assert ops["send_at"] == "07:30" and ops["since"].startswith("2025-02-20") and "abcdefg" not in ops["target"]

        assert client.delete(f"/api/subscriptions/{ops['id']}", headers=auth).status_code == 204
        assert client.delete("/api/subscriptions/broken", headers=auth).status_code == 204  # by name, deliveries too
        assert client.delete("/api/subscriptions/broken", headers=auth).status_code == 404
        assert client.delete(f"/api/subscriptions/{2**70}", headers=auth).status_code == 404  # past 64 bits: a name
        assert client.get("/api/subscriptions", headers=auth).json() == []
    with engine.connect() as conn:
        assert conn.execute(select(deliveries)).all() == []
    paths = create_app(engine, s).openapi()["paths"]
    assert {"get", "post"} <= set(paths["/api/subscriptions"]) and "delete" in paths["/api/subscriptions/{name_or_id}"]


def test_a_delivery_is_claimed_once_on_both_backends(engine):
    from newsdesk.push.messages import Message
    from newsdesk.push.send import _claim

    now = dt.datetime.now(dt.UTC)
    with engine.begin() as conn:
        sub_id = add_subscription(conn, {"name": "one", "target": "tgram://1:a/2"})
    message = Message("event", "7", "t", "b", "u")
    assert _claim(engine, sub_id, message, now)
    assert not _claim(engine, sub_id, message, now)  # being sent elsewhere
    with engine.begin() as conn:
        conn.execute(deliveries.update().values(status="failed"))
    assert _claim(engine, sub_id, message, now)  # a failed one is tried again, by one taker
    assert not _claim(engine, sub_id, message, now)
