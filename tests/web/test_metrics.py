"""/metrics: the batched latency histogram reports exactly what direct observation would."""

from __future__ import annotations

import threading

from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Histogram

from service.app import create_app
from service.web.metrics import BUCKETS, BatchedHistogram

LABELS = ["method", "route", "status"]
KEYS = [("POST", "/v1/melds/validate", "200"), ("POST", "/v1/melds/validate", "422"),
        ("GET", "unmatched", "404")]
seconds = st.one_of(st.sampled_from([0.0, *BUCKETS]),  # the bounds themselves: <= counts
                    st.floats(min_value=0, max_value=10, allow_nan=False))


def _pair() -> tuple[CollectorRegistry, Histogram, CollectorRegistry, BatchedHistogram]:
    direct_reg, batched_reg = CollectorRegistry(), CollectorRegistry()
    direct = Histogram("h", "latency", LABELS, buckets=BUCKETS, registry=direct_reg)
    batched = BatchedHistogram(Histogram("h", "latency", LABELS, buckets=BUCKETS,
                                         registry=batched_reg), BUCKETS, interval=3600)
    return direct_reg, direct, batched_reg, batched


def _samples(registry: CollectorRegistry) -> dict[tuple, float]:
    """Every sample but the creation timestamps (the two histograms are made apart)."""
    return {(s.name, tuple(sorted(s.labels.items()))): round(s.value, 9)
            for metric in registry.collect() for s in metric.samples
            if not s.name.endswith("_created")}


@settings(max_examples=60)
@given(st.lists(st.tuples(st.sampled_from(KEYS), seconds), max_size=40),
       st.integers(min_value=0, max_value=40))
def test_a_flush_equals_observing_one_by_one(observations, flush_at) -> None:
    direct_reg, direct, batched_reg, batched = _pair()
    for i, (key, s) in enumerate(observations):
        direct.labels(*key).observe(s)
        batched.observe(key, s)
        if i == flush_at:
            batched.flush()  # a flush in the middle must not lose or double anything
    batched.flush()
    assert _samples(batched_reg) == _samples(direct_reg)


def test_nothing_is_lost_between_threads() -> None:
    direct_reg, direct, batched_reg, batched = _pair()
    key = KEYS[0]

    def work() -> None:
        for i in range(2000):
            batched.observe(key, 0.001 * (i % 7))
            if i % 500 == 0:
                batched.flush()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    batched.flush()
    for _ in range(4):
        for i in range(2000):
            direct.labels(*key).observe(0.001 * (i % 7))
    assert _samples(batched_reg) == _samples(direct_reg)


def test_the_flusher_thread_flushes_without_a_scrape() -> None:
    _, _, batched_reg, batched = _pair()
    batched.interval = 0.05
    batched.observe(KEYS[0], 0.002)
    for _ in range(100):
        if any(s.value == 1 for m in batched_reg.collect() for s in m.samples
               if s.name == "h_count"):
            break
        threading.Event().wait(0.05)
    else:
        raise AssertionError("the flusher never flushed")


def test_requests_are_labelled_by_route_and_status() -> None:
    client = create_app().test_client()
    for _ in range(3):
        client.post("/v1/melds/validate", json={"ruleset": "kaluki-51", "cards": ["9c", "Tc", "JK"]})
    client.post("/v1/melds/validate", json={"ruleset": "kaluki-51", "cards": "9c"})
    client.get("/no/such/path")
    text = generate_latest_text(client)
    assert ('kaluki_http_request_duration_seconds_count{method="POST",'
            'route="/v1/melds/validate",status="200"} 3.0') in text
    assert ('kaluki_http_request_duration_seconds_count{method="POST",'
            'route="/v1/melds/validate",status="422"} 1.0') in text
    assert ('kaluki_http_request_duration_seconds_count{method="GET",'
            'route="unmatched",status="404"} 1.0') in text


def generate_latest_text(client) -> str:
    resp = client.get("/metrics")
    assert resp.status_code == 200
    return resp.data.decode()


def test_the_registry_is_the_apps_own() -> None:
    """Two apps in one process do not share counts (each test app starts at zero)."""
    a, b = create_app().test_client(), create_app().test_client()
    a.post("/v1/melds/validate", json={"ruleset": "kaluki-51", "cards": ["9c", "Tc", "JK"]})
    assert "/v1/melds/validate" not in generate_latest_text(b)


def test_flush_all_writes_out_every_tally() -> None:
    """gunicorn's worker_exit hook calls flush_all: nothing tallied is lost at exit."""
    from service.web.metrics import flush_all

    _, _, batched_reg, batched = _pair()
    batched.observe(KEYS[0], 0.002)
    batched.observe(KEYS[1], 0.3)
    flush_all()
    counts = {s.labels["status"]: s.value for m in batched_reg.collect() for s in m.samples
              if s.name == "h_count"}
    assert counts == {"200": 1.0, "422": 1.0}


def content_type_params(header: str) -> tuple[str, dict[str, list[str]]]:
    """A Content-Type header parsed: its media type and every parameter's values (a
    parameter given twice has two)."""
    kind, *rest = [part.strip() for part in header.split(";")]
    params: dict[str, list[str]] = {}
    for part in rest:
        name, _, value = part.partition("=")
        params.setdefault(name.strip().lower(), []).append(value.strip().strip('"'))
    return kind.lower(), params


def test_the_content_type_names_its_charset_once() -> None:
    """issue 21 item 15: prometheus_client's type already carries the charset; Flask must
    not add a second one."""
    app = create_app({"TESTING_NO_METRICS": False, "RATELIMIT_ENABLED": False})
    header = app.test_client().get("/metrics").headers["Content-Type"]
    kind, params = content_type_params(header)
    assert kind == "text/plain" and params["charset"] == ["utf-8"], header
    assert params["version"] == ["1.0.0"] or params["version"] == ["0.0.4"], header
