// The route facts the transport acts on, generated from the OpenAPI document (part of
// `npm run generate`): node scripts/routes.mjs ../../openapi/openapi.json src/routes.ts
//
// Per operation ("METHOD /path/{template}", the schemaPath openapi-fetch hands its
// middleware): whether it needs the match's token (its `security`), whether it is safe to
// send twice (`x-idempotent: true`), which of the headers Idempotency-Key and If-Match it
// takes (its header parameters), and where the match it is about is named (the
// `match_id` path parameter, or the request body's `id` for an operation with a token and
// no such parameter: an import). Nothing here is written by hand: an operation the
// service adds is picked up by regenerating.
import { readFileSync, writeFileSync } from "node:fs";

const [source, target] = process.argv.slice(2);
if (!source || !target) {
  console.error("usage: node scripts/routes.mjs OPENAPI.json OUT.ts");
  process.exit(2);
}
const doc = JSON.parse(readFileSync(source, "utf8"));
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

function deref(node) {
  let n = node;
  while (n && n.$ref) {
    n = n.$ref.split("/").slice(1).reduce((o, k) => o[k.replaceAll("~1", "/").replaceAll("~0", "~")], doc);
  }
  return n;
}

function tokenOf(op) {
  const security = op.security ?? doc.security ?? [];
  const bearer = security.some((s) => Object.keys(s).length > 0);
  if (!bearer) return "none";
  return security.some((s) => Object.keys(s).length === 0) ? "optional" : "required";
}

function headerOf(params, name) {
  const p = params.find((x) => x.in === "header" && x.name.toLowerCase() === name.toLowerCase());
  return p === undefined ? "none" : p.required ? "required" : "optional";
}

function bodyHas(op, field) {
  const schema = deref(deref(op.requestBody)?.content?.["application/json"]?.schema);
  return Boolean(schema?.properties && field in schema.properties);
}

const routes = {};
for (const [path, item] of Object.entries(doc.paths)) {
  for (const method of METHODS) {
    const op = item[method];
    if (!op) continue;
    const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(deref);
    const token = tokenOf(op);
    let match = null;
    if (params.some((p) => p.in === "path" && p.name === "match_id")) match = { in: "path", name: "match_id" };
    else if (token !== "none" && bodyHas(op, "id")) match = { in: "body", name: "id" };
    routes[`${method.toUpperCase()} ${path}`] = {
      operationId: op.operationId ?? null,
      token,
      idempotent: op["x-idempotent"] === true,
      idempotencyKey: headerOf(params, "Idempotency-Key"),
      ifMatch: headerOf(params, "If-Match") !== "none",
      match,
    };
  }
}

const keys = Object.keys(routes).sort();
const body = keys.map((k) => `  ${JSON.stringify(k)}: ${JSON.stringify(routes[k]).replaceAll('":', '": ').replaceAll(",\"", ", \"")},`).join("\n");
writeFileSync(target, `/**
 * Generated from ${source.split("/").slice(-2).join("/")} by scripts/routes.mjs (\`npm run generate\`,
 * \`make sdk\`): do not edit. What the transport needs to know of each operation, keyed by
 * "METHOD schemaPath" (the path template openapi-fetch hands its middleware).
 */

export interface RouteFacts {
  operationId: string | null;
  /** Its \`security\`: the match's bearer token is required, optional, or not asked for. */
  token: "required" | "optional" | "none";
  /** \`x-idempotent: true\`: safe to send twice, so safe to retry. */
  idempotent: boolean;
  /** Its \`Idempotency-Key\` header parameter: with a key, a repeat is answered, not redone. */
  idempotencyKey: "required" | "optional" | "none";
  /** It takes \`If-Match\` (the match's ETag). */
  ifMatch: boolean;
  /** Where the match it is about is named: a path parameter, or a field of the JSON body. */
  match: { in: "path" | "body"; name: string } | null;
}

export const ROUTES: Readonly<Record<string, RouteFacts>> = {
${body}
};
`);
