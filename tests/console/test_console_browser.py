"""The referee console in a browser (Playwright on Debian's chromium) against gunicorn.

One gunicorn (embedded Redis in a temporary KALUKI_DATA_DIR, rate limits off, access
log on) and one browser per module. Every page runs in a context that records each
request and refuses any to a host other than 127.0.0.1; after each test none was tried
and no URL carried a record, and the rulings' tests check that no record reached
gunicorn's access log.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from service.docs.console import STATIC
from tests.ledger.servers import Gunicorn
from tests.support import chromium

HUNT = (STATIC / "examples" / "hunt.hand").read_text(encoding="utf-8")
BROKEN = HUNT.replace("meld 2c 3c 4c", "meld 2c 3c 5c")
TIMEOUT_MS = 10_000



@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gunicorn]:
    data = tmp_path_factory.mktemp("console-data")
    g = Gunicorn(None, workers=1, threads=4,
                 extra_env={"KALUKI_DATA_DIR": str(data), "RATELIMIT_ENABLED": "false",
                            "ACCESS_LOG": "-", "LOG_LEVEL": "INFO"})
    try:
        yield g.wait()
    finally:
        g.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture()
def new_page(browser, server):
    """Open pages in fresh contexts (no shared storage: a permalink opened 'alone')."""
    contexts = []
    requests: list[str] = []  # every URL the test's pages asked for
    pages: list[Any] = []

    def open_page(path: str = "/console", locale: str = "en-GB", width: int = 1280) -> Any:
        ctx = browser.new_context(locale=locale, viewport={"width": width, "height": 900})
        ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.base)
        ctx.set_default_timeout(TIMEOUT_MS)
        contexts.append(ctx)

        def guard(route: Any) -> None:
            url = route.request.url
            requests.append(url)
            if urlsplit(url).hostname != "127.0.0.1":
                route.abort()
            else:
                route.continue_()

        ctx.route("**/*", guard)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if re.search(
            "Content.Security.Policy|Refused to", m.text) else None)  # the CSP blocked something
        page.errors = errors
        pages.append(page)
        page.goto(server.base + path)
        page.wait_for_selector("body[data-ready=true]")
        return page

    yield open_page
    for ctx in contexts:
        ctx.close()
    assert [p.errors for p in pages] == [[] for _ in pages], "a script failed or the CSP refused"
    assert requests, "the pages asked for nothing"
    for url in requests:
        parts = urlsplit(url)
        assert parts.hostname == "127.0.0.1", f"a request left 127.0.0.1: {url}"
        # a record never rides in a URL: only the steps flag and whose view (a player id)
        assert re.fullmatch(r"(steps=true(&spectator=true|&view=[\w%.-]+)?)?", parts.query), url


def _log_holds_no_record(server: Gunicorn) -> None:
    log = Path(server.log.name).read_text(encoding="utf-8", errors="replace")
    # the access log is on (JSON lines: route and status, never a body or a query) ...
    assert '"route":"/v1/hands/adjudicate"' in log.replace(" ", ""), log[-2000:]
    assert "kaluki-hunt" not in log and "r=z" not in log and "4h" not in log  # ... and has no record


# WCAG 2 contrast of every visible text on its nearest opaque background (AA: 4.5:1,
# 3:1 for large text), and of every card face's ink on the white card.
CONTRAST_JS = r"""
() => {
  const rgb = (text) => {
    const m = /rgba?\(([^)]+)\)/.exec(text);
    if (!m) return null;
    const [r, g, b, a = 1] = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return { r, g, b, a };
  };
  const lum = ({ r, g, b }) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (x, y) => {
    const [hi, lo] = [lum(x), lum(y)].sort((p, q) => q - p);
    return (hi + 0.05) / (lo + 0.05);
  };
  const white = { r: 255, g: 255, b: 255, a: 1 };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0.5) return c;
    }
    return white;
  };
  const bad = [];
  let checked = 0;
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || el.closest("svg, [hidden], .visually-hidden, noscript, option")) continue;
    if (!el.getClientRects().length) continue;
    const cs = getComputedStyle(el);
    const size = parseFloat(cs.fontSize);
    const need = size >= 24 || (Number(cs.fontWeight) >= 700 && size >= 18.66) ? 3 : 4.5;
    const r = ratio(rgb(cs.color), background(el));
    checked++;
    if (r < need) bad.push(`${n.textContent.trim().slice(0, 30)}: ${r.toFixed(2)}`);
  }
  for (const t of document.querySelectorAll("svg.card text")) {
    const r = ratio(rgb(getComputedStyle(t).fill), white);
    checked++;
    if (r < 4.5) bad.push(`card ${t.textContent}: ${r.toFixed(2)}`);
  }
  return { checked, bad };
}
"""


def _rule(page: Any, text: str) -> None:
    page.fill("textarea[name=record]", text)
    page.click("button[type=submit]")
    page.wait_for_selector("#ruling:not([hidden]) #verdict[data-legal]")


def _scores(page: Any) -> dict[str, tuple[int, int, int]]:
    rows = {}
    for row in page.locator("table.scores tbody tr").all():
        cells = [int(row.locator(f"td.{c}").inner_text()) for c in ("hand_value", "points", "penalty")]
        rows[row.get_attribute("data-player")] = tuple(cells)
    return rows


def _cards(page: Any, where: str) -> list[str]:
    return [c.get_attribute("aria-label") for c in page.locator(f"{where} svg.card").all()]


def test_the_hunt_is_legal_and_its_permalink_shows_the_same(new_page, server) -> None:
    from playwright.sync_api import expect

    page = new_page()
    _rule(page, HUNT)
    expect(page.locator("#verdict")).to_have_text(re.compile(r"^✓\s*Legal"))
    assert page.locator("#verdict").get_attribute("data-legal") == "true"
    assert page.locator("#result .winner").inner_text() == "ann"
    assert page.locator("#result .finish").get_attribute("data-finish") == "special"
    assert _scores(page) == {"ann": (0, 40, 0), "bob": (109, 0, 218)}

    # the stepper opens on the last turn: every card drawn, each with its name
    assert "Turn 1 · ann (turns[0])" in page.inner_text("#step-label")  # counted from 1
    assert len(_cards(page, "#step-table")) == 13  # 7 + 3 + 3 on the table
    assert len(_cards(page, "#step-hands")) == 13  # bob's hand; ann is out
    assert _cards(page, "#step-discard") == ["ace of hearts"]
    assert len(_cards(page, "#step-turn")) == 1 + 13 + 1  # the draw, three melds, the discard
    assert "joker" in _cards(page, "#step-hands") and "10 of clubs" in _cards(page, "#step-hands")
    assert page.locator("#step-stock [data-stock]").get_attribute("data-stock") == "79"
    assert page.locator("svg.card:not([aria-label])").count() == 0

    # keyboard: Home goes to the deal (26 cards in hands), the arrow comes back
    page.locator("h1").click()
    page.keyboard.press("Home")
    expect(page.locator("#step-label")).to_contain_text("The deal")
    assert len(_cards(page, "#step-hands")) == 26 and len(_cards(page, "#step-table")) == 0
    page.keyboard.press("ArrowRight")
    expect(page.locator("#step-label")).to_contain_text("Turn 1")

    # the permalink: the record compressed in the fragment, nowhere else in the URL
    link = page.locator("#permalink").input_value()
    parts = urlsplit(link)
    assert parts.path == "/console" and parts.query == "" and parts.fragment.startswith("r=z")
    assert link == page.url == page.locator("#permalink-open").get_attribute("href")
    page.click("#copy-link")
    expect(page.locator("#copy-status")).to_have_text("Link copied.")
    assert page.evaluate("() => navigator.clipboard.readText()") == link
    fresh = new_page(f"{parts.path}#{parts.fragment}")
    expect(fresh.locator("#verdict")).to_have_attribute("data-legal", "true")
    assert _scores(fresh) == {"ann": (0, 40, 0), "bob": (109, 0, 218)}
    assert fresh.locator("textarea[name=record]").input_value() == HUNT
    assert page.errors == [] and fresh.errors == []
    _log_holds_no_record(server)


def test_a_view_switch_and_what_could_be_played_here(new_page) -> None:
    """docs/api.md#views and docs/api.md#legal-next-plays: the stepper shows the hand as one player
    or a spectator sees it, and lists the next player's legal plays from /v1/turns/options."""
    from playwright.sync_api import expect

    page = new_page()
    _rule(page, HUNT)
    page.locator("h1").click()
    page.keyboard.press("Home")
    options = page.locator("#step-options")
    expect(options).to_contain_text("ann, before the draw")
    expect(options).to_contain_text("Draw from the stock")
    expect(options).to_contain_text("after drawing 4c")
    expect(options).to_contain_text("Lay 2c 3c 4c")
    expect(page.locator("#step-hands svg.card")).to_have_count(26)
    page.select_option("#view-as", "bob")  # bob's cards only; ann's are counted
    expect(page.locator("#step-hands svg.card")).to_have_count(13)
    expect(options).to_contain_text("The cards of ann are hidden in this view.")
    assert "13 cards" in page.inner_text("#step-hands .hand[data-player=ann]")
    page.select_option("#view-as", "spectator")
    expect(page.locator("#step-hands svg.card")).to_have_count(0)
    page.select_option("#view-as", "")
    expect(page.locator("#step-hands svg.card")).to_have_count(26)
    assert page.errors == []


def test_a_broken_card_is_ruled_at_its_play_and_highlighted(new_page) -> None:
    from playwright.sync_api import expect

    page = new_page()
    _rule(page, BROKEN)
    expect(page.locator("#verdict")).to_have_text(re.compile(r"^✗\s*Not legal"))
    at = page.locator("#violation .violation-at")
    assert page.locator("#violation code").inner_text() == "card-not-in-hand"
    assert (at.get_attribute("data-turn"), at.get_attribute("data-play")) == ("0", "2")
    # counted from 1 for people, with the API's 0-based index beside it (issue 21 item 2)
    assert "turn 1, play 3 (turns[0].plays[2])" in at.inner_text()
    assert page.locator("#violation .violation-message").inner_text() == "5c is not in ann's hand."
    assert page.locator("#violation a").get_attribute("href") == "/problems/card-not-in-hand"
    line = page.locator("#violation .violation-line")  # the record's own line for that play
    assert line.get_attribute("data-line") == "9" and "meld 2c 3c 5c" in line.inner_text()

    # the stepper opens on the violating turn with that play, and only it, highlighted
    assert "breaks a rule" in page.inner_text("#step-label")
    bad = page.locator("#step-turn .action.violating")
    assert bad.count() == 1 and bad.get_attribute("data-play") == "2"
    assert _cards(page, "#step-turn .action.violating") == [
        "2 of clubs", "3 of clubs", "5 of clubs (the card at fault)"]
    assert "Play 3" in bad.inner_text()
    # only the card at fault is framed, not the whole meld (issue 21 item 3)
    marked = page.locator("svg.card.card-violating")
    assert [c.get_attribute("aria-label") for c in marked.all()] == ["5 of clubs (the card at fault)"]
    assert "card-not-in-hand" in bad.inner_text()
    # the table just before the violation: the two melds laid before play 2
    assert len(page.locator("#step-table figure.meld").all()) == 2
    assert _cards(page, "#step-hands [data-player=ann]") == [
        "ace of hearts", "2 of clubs", "3 of clubs", "4 of clubs"]
    assert page.locator("#result").is_hidden()
    assert page.errors == []


def test_dutch_by_browser_preference_and_the_switch(new_page) -> None:
    from playwright.sync_api import expect

    page = new_page(locale="nl-NL")
    assert page.locator("h1").inner_text() == "Kaluki-scheidsrechterconsole"
    assert page.locator("html").get_attribute("lang") == "nl"
    _rule(page, BROKEN)
    message = page.locator("#violation .violation-message")
    expect(message).to_have_text("5c zit niet in de hand van ann.")
    assert "beurt 1, zet 3" in page.inner_text("#violation .violation-at")
    assert _cards(page, "#step-discard") == [] and "leeg" in page.inner_text("#step-discard")
    assert "harten aas" in _cards(page, "#step-hands")

    page.click(".lang-btn[data-lang=en]")
    expect(message).to_have_text("5c is not in ann's hand.")
    assert page.locator("h1").inner_text() == "Kaluki referee console"
    assert page.locator(".lang-btn[data-lang=en]").get_attribute("aria-pressed") == "true"
    page.click(".lang-btn[data-lang=nl]")
    expect(message).to_have_text("5c zit niet in de hand van ann.")
    assert page.errors == []


@pytest.mark.parametrize("edit,line,words", [
    (("draw stock 4c", "draw stok 4c"), 6, "draw stock [CARD]"),
    (("Kh Ah 2c", "Kh Az 2c"), 3, "'Az' is not a card"),
])
def test_bad_input_is_shown_beside_its_line(new_page, edit, line, words) -> None:
    page = new_page(width=360)
    page.fill("textarea[name=record]", HUNT.replace(*edit))
    page.click("button[type=submit]")
    bad = page.locator("#input-problem .bad-line")
    bad.wait_for()
    assert bad.get_attribute("data-line") == str(line)
    assert edit[1] in bad.locator("code").inner_text()
    assert words in bad.locator(".line-message").inner_text()
    assert page.locator("#ruling").is_hidden()
    assert page.errors == []


def test_a_json_record_and_its_bad_card_line(new_page) -> None:
    from playwright.sync_api import expect

    page = new_page()
    page.click(".example[data-example='joker-release.json']")
    expect(page.locator("textarea[name=record]")).to_have_value(re.compile("kaluki-51"))
    page.click("button[type=submit]")
    expect(page.locator("#verdict")).to_have_attribute("data-legal", "true")
    assert "joker as king of spades" in _cards(page, "#step-table")  # the joker built at once
    text = page.locator("textarea[name=record]").input_value()
    page.fill("textarea[name=record]", text.replace('"9c", "Th"', '"9x", "Th"'))
    page.click("button[type=submit]")
    bad = page.locator("#input-problem .bad-line")
    bad.wait_for()
    assert '"9x"' in bad.inner_text() and bad.get_attribute("data-line") == "5"
    # a ruling on a JSON record names the record's line too: bob's release is turn 1, play 2
    page.fill("textarea[name=record]", text.replace('"cards": ["7c"]', '"cards": ["7d"]'))
    page.click("button[type=submit]")
    expect(page.locator("#verdict")).to_have_attribute("data-legal", "false")
    at = page.locator("#violation .violation-at")
    assert (at.get_attribute("data-turn"), at.get_attribute("data-play")) == ("1", "2")
    line = page.locator("#violation .violation-line")
    assert line.get_attribute("data-line") == "35" and '"release": {' in line.inner_text()
    assert "turn 2, play 3 (turns[1].plays[2])" in at.inner_text()
    # table melds are counted from 1 too, with the record's own index beside: "meld": 1
    release = page.locator("#step-turn .action.violating .action-label")
    assert release.inner_text() == 'Releases from meld 2 ("meld": 1)'
    assert page.locator("#step-table figure.meld[data-meld='1'] figcaption").inner_text().startswith("Meld 2 ·")


def test_a_phone_screen_needs_no_sideways_scrolling(new_page) -> None:
    page = new_page(width=360)
    _rule(page, BROKEN)
    page.locator("#step-turn .action.violating").wait_for()
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 360
    assert page.locator("svg.card").first.bounding_box()["width"] >= 40  # still readable


def test_the_meld_checker_draws_the_reading(new_page) -> None:
    page = new_page(width=360)
    page.fill("#checker-cards", "Jd JK Kd")
    page.select_option("#checker-ruleset", "kaluki-hunt")
    page.click("#check-meld")
    page.locator("#checker-out svg.card").first.wait_for()
    assert _cards(page, "#checker-out") == [
        "jack of diamonds", "joker as queen of diamonds", "king of diamonds"]
    page.fill("#checker-cards", "9c Tc Jc Qc Kh Ks JK 2d 5s Ah 2h 3h 4h 8d")
    page.select_option("#checker-ruleset", "kaluki-51")
    page.click("#check-hand")
    page.locator("#checker-out .flags").wait_for()
    assert _cards(page, "#checker-out .deadwood") == [
        "2 of diamonds", "5 of spades", "8 of diamonds"]
    assert len(_cards(page, "#checker-out figure.meld")) == 11
    page.fill("#checker-cards", "Jd Qz")
    page.click("#check-meld")
    page.locator("#checker-out .checker-problem").wait_for()
    assert "Qz" in page.inner_text("#checker-out .checker-problem")


@pytest.mark.parametrize("record", [HUNT, BROKEN], ids=["legal", "illegal"])
def test_text_contrast_passes_wcag_aa(new_page, record) -> None:
    page = new_page()
    _rule(page, record)
    page.fill("#checker-cards", "Jd JK Kd")
    page.click("#check-meld")
    page.locator("#checker-out svg.card").first.wait_for()
    report = page.evaluate(CONTRAST_JS)
    assert report["checked"] > 200 and report["bad"] == []


# -- issue 21: a stale ruling, focus, input, 360 px -----------------------------------------

def _no_ruling(page: Any) -> None:
    """Nothing of an earlier ruling is on screen: verdict, stepper, result, permalink."""
    assert page.locator("#ruling").is_hidden() and page.locator("#stepper").is_hidden()
    assert page.locator("#verdict").get_attribute("data-legal") is None
    assert page.locator("#verdict").inner_text() == ""
    assert page.locator("#step-turn .action").count() == 0
    assert page.locator("#step-hands svg.card").count() == 0
    assert page.locator("#permalink").input_value() == ""
    assert urlsplit(page.url).fragment == ""  # the old record's link left the address bar too


@pytest.mark.parametrize("second,title,words", [
    (HUNT.replace("Kh Ah 2c", "Kh Az 2c"), "Invalid card", "'Az' is not a card"),
    ("[1, 2, 3]", "Not a hand record", "This is JSON, but an array, not a hand record"),
    ('"ruleset kaluki-hunt"', "Not a hand record", "but a string"),
    ("  \n ", "Nothing to rule on", "The box is empty"),
], ids=["unreadable", "json-array", "json-string", "empty"])
def test_a_failed_submission_leaves_no_ruling(new_page, second, title, words) -> None:
    """Issue 21 items 1 and 4: rule a legal hand, then submit something that is no record:
    the problem says why, and no verdict, stepper or permalink of the old record stays."""
    from playwright.sync_api import expect

    page = new_page()
    _rule(page, HUNT)
    assert page.locator("#verdict").get_attribute("data-legal") == "true"
    assert urlsplit(page.url).fragment.startswith("r=z")
    page.fill("textarea[name=record]", second)
    page.click("button[type=submit]")
    problem = page.locator("#input-problem")
    expect(problem).to_be_visible()
    assert title in problem.locator(".problem-head").inner_text()
    assert words in problem.inner_text()
    assert "unknown header" not in problem.inner_text()
    _no_ruling(page)


def test_a_new_ruling_replaces_the_old_one_and_a_late_answer_is_dropped(new_page) -> None:
    """Issue 21 item 1: a legal ruling, then an illegal one: only the second is shown; and
    when the first of two submissions answers last, its answer is not drawn."""
    from playwright.sync_api import expect

    page = new_page()
    _rule(page, HUNT)
    _rule(page, BROKEN)
    expect(page.locator("#verdict")).to_have_attribute("data-legal", "false")
    assert page.locator("#result").is_hidden()  # the legal hand's scores are gone
    assert page.locator("#violation code").inner_text() == "card-not-in-hand"

    broken_link = urlsplit(page.url).fragment
    held: list[Any] = []
    page.route("**/v1/hands/adjudicate*", lambda route: held.append(route) if not held
               else route.continue_())
    page.fill("textarea[name=record]", HUNT)
    page.click("button[type=submit]")  # held back
    page.wait_for_function("() => document.getElementById('ruling').hidden")
    _no_ruling(page)  # the illegal ruling went the moment the new record was submitted
    # while it waits, the referee opens the broken record's link: that ruling is shown ...
    page.evaluate("(f) => { window.location.hash = f; }", broken_link)
    expect(page.locator("#verdict")).to_have_attribute("data-legal", "false")
    held[0].continue_()  # ... and the first (legal) answer, arriving last, is not drawn
    page.wait_for_timeout(500)
    assert page.locator("#verdict").get_attribute("data-legal") == "false"
    assert page.locator("#result").is_hidden()
    assert page.locator("textarea[name=record]").input_value() == BROKEN


def test_a_keyboard_submit_moves_focus_to_the_ruling(new_page) -> None:
    """Issue 21 item 4: after Enter on the submit button, focus is on the verdict (a live
    region), not on <body>; after a refused record, on the problem (an alert)."""
    from playwright.sync_api import expect

    page = new_page()
    page.fill("textarea[name=record]", BROKEN)
    page.focus("button[type=submit]")
    page.keyboard.press("Enter")
    expect(page.locator("#verdict")).to_have_attribute("data-legal", "false")
    page.wait_for_function("() => document.activeElement.id === 'verdict'")
    assert page.locator("#verdict").get_attribute("aria-live") == "polite"
    assert page.evaluate("() => document.activeElement.textContent").startswith("✗")

    page.fill("textarea[name=record]", "")
    page.focus("button[type=submit]")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.id === 'input-problem'")
    assert page.locator("#input-problem").get_attribute("role") == "alert"
    assert "The box is empty" in page.evaluate("() => document.activeElement.textContent")


# Every visible element inside the viewport's width, and none whose content is wider than
# its box (cut off, or scrolled sideways). A text input scrolls its value by nature: it is
# checked for width instead.
CUT_JS = r"""
() => {
  const vw = document.documentElement.clientWidth;
  const bad = [];
  let checked = 0;
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest("[hidden], .visually-hidden, noscript, option, svg title")) continue;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    checked++;
    const name = `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}.${el.className.baseVal ?? el.className}`;
    if (r.left < -0.5 || r.right > vw + 0.5) bad.push(`${name} spans ${r.left}..${r.right} of ${vw}`);
    if (el instanceof SVGElement || (el.tagName === "INPUT" && el.type === "text")) continue;
    if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0)
      bad.push(`${name} holds ${el.scrollWidth}px in ${el.clientWidth}px`);
  }
  return { checked, bad, page: document.documentElement.scrollWidth, vw };
}
"""


def _nothing_cut_off(page: Any, what: str) -> None:
    report = page.evaluate(CUT_JS)
    assert report["checked"] > 20, what
    assert report["bad"] == [], (what, report["bad"])
    assert report["page"] <= report["vw"], what


def _same_line(page: Any, label: str, control: str) -> None:
    a = page.locator(label).bounding_box()
    b = page.locator(control).bounding_box()
    middle = a["y"] + a["height"] / 2
    assert b["y"] <= middle <= b["y"] + b["height"], (label, a, control, b)


def test_nothing_is_cut_off_at_360_px(new_page) -> None:
    """Issue 21 item 5: at 360 px the record's deal lines wrap, the checker's labels stay
    beside their selects, the permalink box is usable, and no element is cut off, in every
    state of the page."""
    from playwright.sync_api import expect

    page = new_page(width=360)
    _same_line(page, "label[for=checker-kind]", "#checker-kind")
    _same_line(page, "label[for=checker-ruleset]", "#checker-ruleset")
    _nothing_cut_off(page, "empty page")

    page.fill("textarea[name=record]", HUNT)
    area = page.locator("textarea[name=record]")
    assert area.evaluate("a => a.scrollWidth <= a.clientWidth")  # deal lines wrap, none cut
    _rule(page, HUNT)
    _nothing_cut_off(page, "legal ruling")
    link = page.locator("#permalink")
    assert link.bounding_box()["width"] >= 0.75 * 360  # a link box, not "http://loc"
    assert link.input_value() == page.url
    for button in ("#copy-link", "#permalink-open"):
        box = page.locator(button).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360, button

    _rule(page, BROKEN)
    page.locator("#step-turn .action.violating").wait_for()
    _nothing_cut_off(page, "illegal ruling")
    page.locator("h1").click()
    page.keyboard.press("Home")
    expect(page.locator("#step-label")).to_contain_text("The deal")
    _nothing_cut_off(page, "the deal, every card in hand")

    page.fill("textarea[name=record]", HUNT.replace("Kh Ah 2c", "Kh Az 2c"))
    page.click("button[type=submit]")
    page.locator("#input-problem .bad-line").wait_for()
    _nothing_cut_off(page, "a problem with its listing")

    page.click(".example[data-example='joker-release.json']")
    expect(page.locator("textarea[name=record]")).to_have_value(re.compile("kaluki-51"))
    page.click("button[type=submit]")
    expect(page.locator("#verdict")).to_have_attribute("data-legal", "true")
    _nothing_cut_off(page, "a JSON record's ruling")

    page.fill("#checker-cards", "9c Tc Jc Qc Kh Ks JK 2d 5s Ah 2h 3h 4h 8d")
    page.click("#check-hand")
    page.locator("#checker-out .flags").wait_for()
    _nothing_cut_off(page, "the meld checker's arrangement")


def test_an_unreadable_link_clears_the_ruling_too(new_page) -> None:
    """Issue 21 item 1: opening a link that holds no readable record, with a ruling on
    screen, leaves no ruling and says the link is unreadable."""
    from playwright.sync_api import expect

    page = new_page()
    _rule(page, HUNT)
    page.evaluate("() => { window.location.hash = 'r=z!!not-base64'; }")
    expect(page.locator("#input-problem")).to_contain_text("This link holds no readable record.")
    assert page.locator("#ruling").is_hidden() and page.locator("#stepper").is_hidden()
    assert page.locator("#verdict").get_attribute("data-legal") is None
