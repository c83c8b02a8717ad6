// A sample of the conformance corpus (docs/corpus.md) through the SDK, against a running
// service (started by tests/clients/test_typescript_corpus.py):
//   node build/…/test/corpus.js BASE_URL CORPUS_DIR [EVERY]
// Every EVERY-th JSON case of each POST endpoint goes through createKalukiClient; the
// answer (data or problem) must equal the corpus's, free fields aside. Prints one JSON
// line {"ok", "sent", "failures"}; exits non-zero on a disagreement.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { createKalukiClient, ProblemError } from "../src/index.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface Case {
  id: string;
  request: { method: string; path: string; headers?: Record<string, string>; body?: Json;
             text?: string; raw?: string; raw_base64?: string };
  expected: { status: number; media_type: string | null; body: Json };
  compare: { free: string[] };
}

const [base, corpusDir, everyArg] = process.argv.slice(2);
if (!base || !corpusDir) throw new Error("usage: corpus.js BASE_URL CORPUS_DIR [EVERY]");
const every = Number(everyArg ?? "7");

function load(dir: string): Case[] {
  const files = readdirSync(join(dir, "cases")).filter((f) => /\.json(\.gz)?$/.test(f)).sort();
  return files.flatMap((f) => {
    const path = join(dir, "cases", f);
    const raw = f.endsWith(".gz") ? gunzipSync(readFileSync(path)) : readFileSync(path);
    return (JSON.parse(raw.toString("utf8")) as { cases: Case[] }).cases;
  });
}

function segments(pointer: string): string[] {
  return pointer === "" ? [] : pointer.split("/").slice(1);
}

function match(path: string[], pat: string[]): boolean {
  if (pat.length === 0) return path.length === 0;
  const [head, ...rest] = pat;
  if (head === "**") {
    for (let i = 0; i <= path.length; i++) if (match(path.slice(i), rest)) return true;
    return false;
  }
  if (path.length === 0) return false;
  return (head === "*" || head === path[0]) && match(path.slice(1), rest);
}

/** Where `actual` differs from `expected`, free pointers aside (docs/corpus.md). */
function diff(expected: Json | undefined, actual: Json | undefined, free: string[],
              at = ""): string[] {
  const isFree = (p: string) => free.some((f) => match(segments(p), segments(f)));
  if (at && isFree(at)) return [];
  if (expected && actual && typeof expected === "object" && typeof actual === "object" &&
      !Array.isArray(expected) && !Array.isArray(actual)) {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    return [...keys].flatMap((k) => {
      const where = `${at}/${k}`;
      if (!(k in actual) || !(k in expected)) return isFree(where) ? [] : [`${where}: one side lacks it`];
      return diff(expected[k], actual[k], free, where);
    });
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) return [`${at}: ${expected.length} items, got ${actual.length}`];
    return expected.flatMap((e, i) => diff(e, actual[i], free, `${at}/${i}`));
  }
  return JSON.stringify(expected) === JSON.stringify(actual) ? [] :
    [`${at || "/"}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

// the SDK sends JSON bodies to the document's paths; notation, raw bytes and queries stay
// with the Python runner
const sample = load(corpusDir).filter((c) => c.request.method === "POST" && "body" in c.request &&
                                          !c.request.path.includes("?") && !c.request.headers)
  .filter((_, i) => i % every === 0);
type Post = (path: string, init: { body: Json; headers?: Record<string, string> }) =>
  Promise<{ data?: unknown; error?: unknown; response: Response }>;
const kaluki = createKalukiClient({ baseUrl: base, retry: { baseDelayMs: 10 } });
const post = kaluki.POST as unknown as Post;

const failures: string[] = [];
for (const c of sample) {
  // a ruling comes back as data; a problem as the SDK's ProblemError, holding the problem
  let status: number, body: Json;
  try {
    const { data, error, response } = await post(c.request.path, { body: c.request.body ?? null });
    status = response.status;
    body = (response.ok ? data : error) as Json;
  } catch (e) {
    if (!(e instanceof ProblemError)) throw e;
    status = e.status;
    body = e.problem as unknown as Json;
  }
  const problems = status === c.expected.status ? diff(c.expected.body, body, c.compare.free)
    : [`status: expected ${c.expected.status}, got ${status}`];
  if (problems.length) failures.push(`${c.id}: ${c.request.method} ${c.request.path}: ${problems.slice(0, 3).join("; ")}`);
}
console.log(JSON.stringify({ ok: failures.length === 0 && sample.length > 0, sent: sample.length,
                             failures }));
process.exit(failures.length === 0 && sample.length > 0 ? 0 : 1);
