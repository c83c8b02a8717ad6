-- wrk script: POST a JSON body; optional bearer token and a fresh Idempotency-Key
-- per request; optional stop after a fixed number of responses; prints a
-- machine-readable result line from done().
--
-- Environment: BENCH_BODY_FILE (required), BENCH_TOKEN (optional),
-- BENCH_IDEMPOTENCY=1 (optional), BENCH_MAX_PER_THREAD (optional, 0 = no limit),
-- BENCH_ROTATE (optional, "path token;path token": spread over several matches).

local function read_file(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

local threads = {}
local counter = 0

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  wrk.method = "POST"
  wrk.body = read_file(os.getenv("BENCH_BODY_FILE"))
  wrk.headers["Content-Type"] = "application/json"
  local token = os.getenv("BENCH_TOKEN")
  if token and token ~= "" then
    wrk.headers["Authorization"] = "Bearer " .. token
  end
  idem = os.getenv("BENCH_IDEMPOTENCY") == "1"
  max_per_thread = tonumber(os.getenv("BENCH_MAX_PER_THREAD") or "0") or 0
  prefix = string.format("bench-%d-%d-%d-", os.time(), math.random(1, 1000000000), tid)
  -- BENCH_ROTATE="path token;path token;...": requests take these in turn
  rotate = {}
  for entry in string.gmatch(os.getenv("BENCH_ROTATE") or "", "[^;]+") do
    local p, t = string.match(entry, "^(%S+)%s+(%S+)$")
    if p then
      table.insert(rotate, {p, t})
    end
  end
  sent = 0
  responses = 0
  bad = 0
  if not idem then
    req = wrk.format()
  end
end

function request()
  sent = sent + 1
  if idem then
    -- wrk.format() replaces (not merges) wrk.headers when given a table: copy them
    local h = {}
    for k, v in pairs(wrk.headers) do
      h[k] = v
    end
    h["Idempotency-Key"] = prefix .. sent
    local path = nil
    if #rotate > 0 then
      local r = rotate[(sent + tid) % #rotate + 1]
      path = r[1]
      h["Authorization"] = "Bearer " .. r[2]
    end
    return wrk.format(nil, path, h)
  end
  return req
end

function response(status, headers, body)
  responses = responses + 1
  if status < 200 or status > 299 then
    bad = bad + 1
  end
  if max_per_thread > 0 and responses >= max_per_thread then
    wrk.thread:stop()
  end
end

function done(summary, latency, requests)
  local non2xx = 0
  for _, t in ipairs(threads) do
    non2xx = non2xx + (t:get("bad") or 0)
  end
  local e = summary.errors
  io.write(string.format(
    "BENCH_RESULT requests=%d duration_us=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d " ..
    "non2xx=%d connect=%d read=%d write=%d timeout=%d status=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max, non2xx, e.connect, e.read, e.write, e.timeout,
    e.status))
end
