// The record as text: its permalink form (deflate-raw + base64url, kept in the URL
// fragment, which browsers never send to a server) and where in a JSON record a
// field path such as "deal.ann.10" is written (a problem names fields, people read lines).

const PREFIX_DEFLATE = "z";
const PREFIX_PLAIN = "p";

function toBase64Url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

async function pipe(bytes, transform) {
  const stream = new Blob([bytes]).stream().pipeThrough(transform);
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The fragment payload for a record's text. */
export async function encodeRecord(text) {
  const bytes = new TextEncoder().encode(text);
  if (typeof CompressionStream === "function") {
    return PREFIX_DEFLATE + toBase64Url(await pipe(bytes, new CompressionStream("deflate-raw")));
  }
  return PREFIX_PLAIN + toBase64Url(bytes);
}

/** The record's text from a fragment payload (throws when it is not one). */
export async function decodeRecord(payload) {
  const kind = payload[0];
  const bytes = fromBase64Url(payload.slice(1));
  if (kind === PREFIX_DEFLATE) {
    return new TextDecoder("utf-8", { fatal: true }).decode(
      await pipe(bytes, new DecompressionStream("deflate-raw")));
  }
  if (kind === PREFIX_PLAIN) return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  throw new Error("not a record link");
}

/** Is this record text JSON (else the text notation)? An object or an array is sent as JSON. */
export function isJson(text) {
  return /^\s*[{[]/.test(text);
}

/**
 * What a text is when it is JSON but not a hand record (an object): "array", "string",
 * "number", "boolean" or "null"; null for an object or for text that is not JSON at all
 * (the notation, or malformed JSON, which the service locates).
 */
export function notARecord(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (Array.isArray(value)) return "array";
  if (value === null) return "null";
  return typeof value === "object" ? null : typeof value;
}

/**
 * Map each value's field path ("deal.ann.10", "turns.0.plays.2") to the line (from 1)
 * where it starts, in a JSON text. Stops quietly at the first syntax error.
 */
export function jsonLines(text) {
  const lines = new Map();
  let i = 0;
  let line = 1;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) {
      if (text[i] === "\n") line++;
      i++;
    }
  };
  const fail = () => { throw new SyntaxError("json"); };
  const string = () => {
    if (text[i] !== '"') fail();
    let out = "";
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === "\\") { out += text[i + 1]; i += 2; } else { out += text[i++]; }
    }
    if (i >= text.length) fail();
    i++;
    return out;
  };
  const value = (path) => {
    ws();
    if (path) lines.set(path, line);
    const ch = text[i];
    const join = (k) => (path ? `${path}.${k}` : String(k));
    if (ch === "{") {
      i++; ws();
      if (text[i] === "}") { i++; return; }
      for (;;) {
        ws();
        const key = string();
        ws();
        if (text[i++] !== ":") fail();
        value(join(key));
        ws();
        if (text[i] === ",") { i++; continue; }
        if (text[i] === "}") { i++; return; }
        fail();
      }
    } else if (ch === "[") {
      i++; ws();
      if (text[i] === "]") { i++; return; }
      for (let k = 0; ; k++) {
        value(join(k));
        ws();
        if (text[i] === ",") { i++; continue; }
        if (text[i] === "]") { i++; return; }
        fail();
      }
    } else if (ch === '"') {
      string();
    } else {
      const m = /^[-+0-9.eEa-z]+/.exec(text.slice(i, i + 40));
      if (!m) fail();
      i += m[0].length;
    }
  };
  try { value(""); } catch { /* a partial map is still useful */ }
  return lines;
}

/** The line a field path names in a JSON text: the path itself or its nearest parent. */
export function jsonLineOf(text, field) {
  const lines = jsonLines(text);
  const parts = String(field).split(".");
  for (let k = parts.length; k > 0; k--) {
    const line = lines.get(parts.slice(0, k).join("."));
    if (line !== undefined) return line;
  }
  return null;
}

/** The line of a JSON syntax error, from the browser's JSON.parse (null if none). */
export function jsonErrorLine(text) {
  try {
    JSON.parse(text);
    return null;
  } catch (err) {
    const msg = String(err.message);
    const m = /line (\d+)/.exec(msg);
    if (m) return Number(m[1]);
    const p = /position (\d+)/.exec(msg);
    if (p) return text.slice(0, Number(p[1])).split("\n").length;
    return null;
  }
}

/**
 * The line (from 1) that writes turn ``turn``'s play ``play`` (or the turn's own line
 * when ``play`` is null) in a record's text, JSON or notation; null when not found.
 * Only the record's layout is read here: the rules are the service's.
 */
export function lineOfPlay(text, turn, play) {
  if (isJson(text)) {
    let line = jsonLineOf(text, play === null || play === undefined ? `turns.${turn}` : `turns.${turn}.plays.${play}`);
    const rows = text.split("\n");
    while (line !== null && line < rows.length && /^[[{]$/.test(rows[line - 1].trim())) line++; // a bare "{"
    return line;
  }
  let turns = -1;
  let plays = -1;
  const rows = text.split("\n");
  for (let n = 0; n < rows.length; n++) {
    const word = rows[n].split("#", 1)[0].trim().split(/\s+/, 1)[0].toLowerCase();
    if (word === "turn") {
      turns++;
      plays = -1;
      if (turns === turn && (play === null || play === undefined)) return n + 1;
    } else if (turns === turn && ["meld", "build", "release", "lay", "shift"].includes(word)) {
      plays++;
      if (plays === play) return n + 1;
    }
  }
  return null;
}
