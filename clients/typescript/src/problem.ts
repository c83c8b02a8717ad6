/**
 * RFC 9457 problem details as a thrown, typed error: the client's one error channel.
 *
 * `Problem` is the generated schema of the OpenAPI document (`components.schemas.Problem`:
 * `type`, `title`, `status`, `detail`, `code`, `request_id`, `errors`, and any extension
 * the service adds, such as `violations` on `illegal-record`).
 */

import type { components } from "./schema.js";

/** An `application/problem+json` body as the service sends it (generated from openapi.json). */
export type Problem = components["schemas"]["Problem"];

/** One violation of a ruling (generated: `code`, `message`, and fields such as `turn`, `play`). */
export type ProblemViolation = components["schemas"]["Violation"];

export const PROBLEM_MEDIA_TYPE = "application/problem+json";

/**
 * Thrown for every answer with status >= 400 (by the client's middleware, for path calls
 * and helpers alike: openapi-fetch's `error` is therefore never set). `code` is the
 * problem's stable code; an answer that is not a problem (a proxy's HTML 502, say) gets
 * `code` `http-<status>` and `type` `about:blank`, so a `catch` needs only one branch.
 */
export class ProblemError extends Error {
  override readonly name = "ProblemError";
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly type: string;
  readonly detail: string;
  /** The id the service logged this request under (`X-Request-ID`), when it answered one. */
  readonly requestId: string | undefined;
  readonly errors: Record<string, string[]> | undefined;
  /** `illegal-record`: the violations of the refused hand record. */
  readonly violations: ProblemViolation[] | undefined;
  /** The problem as received (or as synthesised for a non-problem answer). */
  readonly problem: Problem;
  /** `Retry-After` in milliseconds, when the answer carried one. */
  readonly retryAfterMs: number | undefined;
  /** The `Idempotency-Key` the request carried: resend with it to continue the same append. */
  readonly idempotencyKey: string | undefined;
  readonly method: string;
  readonly url: string;

  constructor(problem: Problem, init: { method: string; url: string; retryAfterMs?: number;
                                        idempotencyKey?: string }) {
    super(problem.detail ? `${problem.title}: ${problem.detail}` : problem.title);
    this.problem = problem;
    this.status = problem.status;
    this.code = problem.code;
    this.title = problem.title;
    this.type = problem.type;
    this.detail = problem.detail;
    this.requestId = problem.request_id;
    this.errors = problem.errors;
    this.violations = Array.isArray(problem.violations) ? problem.violations as ProblemViolation[] : undefined;
    this.retryAfterMs = init.retryAfterMs;
    this.idempotencyKey = init.idempotencyKey;
    this.method = init.method;
    this.url = init.url;
  }
}

/** Narrow an unknown error to a ProblemError, optionally with a given `code`. */
export function isProblem(error: unknown, code?: string): error is ProblemError {
  return error instanceof ProblemError && (code === undefined || error.code === code);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The problem in an error answer's body (read as text), or a synthesised one. */
export function toProblem(status: number, statusText: string, contentType: string | null,
                          text: string): Problem {
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const declared = (contentType ?? "").toLowerCase().includes(PROBLEM_MEDIA_TYPE);
  const title = statusText || `HTTP ${status}`;
  if (isRecord(body) && (declared || typeof body.code === "string")) {
    const problem: Problem = {
      ...body,
      type: typeof body.type === "string" ? body.type : "about:blank",
      title: typeof body.title === "string" ? body.title : title,
      status: typeof body.status === "number" ? body.status : status,
      code: typeof body.code === "string" ? body.code : `http-${status}`,
      detail: typeof body.detail === "string" ? body.detail : "",
    };
    if (typeof body.request_id === "string") problem.request_id = body.request_id;
    return problem;
  }
  return { type: "about:blank", title, status, code: `http-${status}`, detail: text.slice(0, 500) };
}
