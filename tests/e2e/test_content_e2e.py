"""Content through Hosting: administrators publish, apps read by key, keys, id and category in three
languages, the public page /ct/{contentId} and the retired /legal/{slug}, and one client's admin cannot touch
another client's item. Every /api answer is checked against the served OpenAPI document (the api fixture).
"""

import re
import uuid

import requests

from tests.conftest import BASE_URL

ADMIN = "/api/content"
PAGE_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; base-uri 'none'; "
            "form-action 'none'; frame-ancestors 'none'")


def test_admins_publish_and_apps_read_in_their_language(api, tenant, operator_tenant):
    shared_key = f"e2e-terms-{uuid.uuid4().hex[:8]}"
    shared = api("POST", ADMIN, headers=operator_tenant.admin.headers, json={
        "key": shared_key, "categoryKey": "legal", "visibility": "shared",
        "title": {"en": "Terms of service", "zh-Hant": "服務條款", "zh-Hans": "服务条款"},
        "body": {"en": "Be **kind**.", "zh-Hant": "請**友善**。", "zh-Hans": "请**友善**。"}})
    assert shared.status_code == 201, shared.text
    assert shared.json()["content"]["visibility"] == "shared" and shared.json()["content"]["active"] is True
    shared_id = shared.json()["content"]["contentId"]

    created = api("POST", ADMIN, headers=tenant.admin.headers, json={
        "key": "welcome", "categoryKey": "announcements",
        "title": {"en": "Welcome", "zh-Hant": "歡迎"}, "body": {"en": "Classes start **Monday**.",
                                                                "zh-Hant": "課程於**星期一**開始。"},
        "metadata": {"actionUrl": "https://gym.example/classes", "actionLabel": "See classes"}})
    assert created.status_code == 201, created.text
    item = created.json()["content"]
    assert item["ownerClientId"] == tenant.client_id and item["version"] == 1
    own_copy = api("POST", ADMIN, headers=tenant.admin.headers, json={
        "key": shared_key, "categoryKey": "legal", "title": {"en": "House rules"}, "body": {"en": "No shoes."}})
    assert own_copy.status_code == 201, own_copy.text

    base = f"/api/client/{tenant.client_id}"
    # By key, with lang.
    by_key = api("GET", f"{base}/content/public/welcome?lang=zh-Hant")
    assert by_key.status_code == 200 and by_key.json()["locale"] == "zh-Hant"
    (found,) = by_key.json()["data"]
    assert found["contentId"] == item["contentId"] and found["clientId"] == tenant.client_id
    assert (found["title"], found["body"], found["locale"]) == ("歡迎", "課程於**星期一**開始。", "zh-Hant")
    assert found["metadata"] == {"actionUrl": "https://gym.example/classes", "actionLabel": "See classes"}
    assert by_key.headers["Cache-Control"] == "public, max-age=60"
    assert "Accept-Language" in by_key.headers.get("Vary", "")
    # The client's own item with the key first, then the operator's shared one.
    both = api("GET", f"{base}/content/public/{shared_key}", headers={"Accept-Language": "zh-CN,zh;q=0.9"})
    assert both.json()["locale"] == "zh-Hans"
    assert [(i["contentId"], i["title"], i["locale"]) for i in both.json()["data"]] == [
        (own_copy.json()["content"]["contentId"], "House rules", "en"), (shared_id, "服务条款", "zh-Hans")]

    # By several keys, with Accept-Language; an unknown key maps to nothing.
    keys = api("GET", f"{base}/content/public?keys=welcome,nothing-here", headers={"Accept-Language": "zh-TW"})
    assert keys.status_code == 200 and keys.json()["locale"] == "zh-Hant"
    assert set(keys.json()["data"]) == {"welcome", "nothing-here"} and keys.json()["data"]["nothing-here"] == []
    assert keys.json()["data"]["welcome"][0]["title"] == "歡迎"
    assert keys.headers["Cache-Control"] == "public, max-age=60"

    # By id: zh-Hans is missing, so English.
    by_id = api("GET", f"/api/content/{item['contentId']}/public?lang=zh-Hans")
    assert by_id.status_code == 200 and by_id.json()["locale"] == "zh-Hans"
    assert by_id.json()["data"]["locale"] == "en" and by_id.json()["data"]["title"] == "Welcome"
    assert "clientId" not in by_id.json()["data"]
    assert by_id.headers["Cache-Control"] == "public, max-age=60"

    # Categories, named in the reader's language.
    categories = api("GET", f"{base}/content-categories?lang=zh-Hant")
    assert categories.status_code == 200
    names = {c["key"]: c["name"] for c in categories.json()["data"]}
    assert names["legal"] == "法律條款" and names["announcements"] == "公告"

    # Errors: unknown lang, unknown client, unknown id; admin reads are never cached.
    assert api("GET", f"{base}/content/public/welcome?lang=fr").status_code == 400
    assert api("GET", "/api/client/no-such-client/content/public/welcome").status_code == 404
    assert api("GET", "/api/content/no-such-item/public").status_code == 404
    listed = api("GET", ADMIN, headers=tenant.admin.headers)
    assert listed.status_code == 200 and listed.headers["Cache-Control"] == "no-store"
    assert {i["key"] for i in listed.json()["data"]} == {"welcome", shared_key}


def test_the_public_page_and_the_retired_legal_urls(api, tenant):
    created = api("POST", ADMIN, headers=tenant.admin.headers, json={
        "key": "page", "categoryKey": "help", "title": {"en": "How to book", "zh-Hant": "如何預約"},
        "body": {"en": "## Steps\n\n1. Open the app\n2. Tap *Book*\n\n<script>alert(1)</script>",
                 "zh-Hant": "## 步驟\n\n1. 開啟應用程式"}})
    assert created.status_code == 201, created.text
    content_id = created.json()["content"]["contentId"]

    page = requests.get(f"{BASE_URL}/ct/{content_id}", timeout=60)
    assert page.status_code == 200
    assert page.headers["Content-Type"] == "text/html; charset=utf-8"
    assert page.headers["Content-Security-Policy"] == PAGE_CSP
    assert page.headers["X-Content-Type-Options"] == "nosniff" and page.headers["Referrer-Policy"] == "no-referrer"
    assert page.headers["Cache-Control"] == "public, max-age=300"
    assert "Accept-Language" in page.headers.get("Vary", "")
    assert '<html lang="en">' in page.text and "<h1>How to book</h1>" in page.text
    assert "<h2>Steps</h2>" in page.text and "<em>Book</em>" in page.text
    assert "<script" not in page.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text

    zh = requests.get(f"{BASE_URL}/ct/{content_id}", headers={"Accept-Language": "zh-HK"}, timeout=60)
    assert '<html lang="zh-Hant">' in zh.text and "<h1>如何預約</h1>" in zh.text
    switch = requests.get(f"{BASE_URL}/ct/{content_id}?lang=zh-Hant", timeout=60).text
    assert re.search(r'<a href="\?lang=zh-Hant" hreflang="zh-Hant" lang="zh-Hant" aria-current="page">', switch)
    assert requests.get(f"{BASE_URL}/ct/{content_id}?lang=xx", timeout=60).status_code == 200

    missing = requests.get(f"{BASE_URL}/ct/no-such-item", timeout=60)
    assert missing.status_code == 404 and missing.headers["Content-Type"] == "text/html; charset=utf-8"
    assert missing.headers["Cache-Control"] == "no-store" and "Page not found" in missing.text
    # Unpublished: its page goes at once (the 404 is not cached).
    assert api("POST", f"{ADMIN}/{content_id}/unpublish", headers=tenant.admin.headers).status_code == 200
    assert requests.get(f"{BASE_URL}/ct/{content_id}", timeout=60).status_code == 404

    gone = requests.get(f"{BASE_URL}/legal/terms", timeout=60)
    assert gone.status_code == 410 and gone.headers["Content-Type"] == "text/html; charset=utf-8"
    assert gone.headers["Content-Security-Policy"] == PAGE_CSP
    assert "This page has moved" in gone.text and "/ct/" in gone.text
    assert requests.get(f"{BASE_URL}/legal/privacy/v2", timeout=60).status_code == 410


def test_an_admin_cannot_change_another_clients_item(api, tenant, other_tenant):
    created = api("POST", ADMIN, headers=tenant.admin.headers, json={
        "key": "mine", "categoryKey": "announcements", "title": {"en": "Mine"}, "body": {"en": "Ours."}})
    content_id = created.json()["content"]["contentId"]
    foreign = other_tenant.admin.headers
    patched = api("PATCH", f"{ADMIN}/{content_id}", headers=foreign, json={"title": {"en": "Theirs"}})
    assert patched.status_code == 404 and patched.json() == {"error": "Content not found."}
    assert api("GET", f"{ADMIN}/{content_id}", headers=foreign).status_code == 404
    assert api("POST", f"{ADMIN}/{content_id}/unpublish", headers=foreign).status_code == 404
    assert api("DELETE", f"{ADMIN}/{content_id}", headers=foreign).status_code == 404
    # A player is no admin; nobody without a token manages anything.
    assert api("PATCH", f"{ADMIN}/{content_id}", headers=tenant.player.headers,
               json={"title": {"en": "x"}}).status_code == 403
    assert api("PATCH", f"{ADMIN}/{content_id}", json={"title": {"en": "x"}}).status_code == 401
    # The item is untouched.
    mine = api("GET", f"/api/content/{content_id}/public")
    assert mine.json()["data"]["title"] == "Mine" and mine.json()["data"]["version"] == 1
