/**
 * RFC 9457 problem details (SPEC §4) as a thrown, typed error.
 *
 * The shape is written by hand from the contract rather than taken from the
 * generated schema: SPEC.md fixes these names, and every client code path that
 * catches an error needs them whatever the OpenAPI document says this week.
 */

/** One violation of a ruling (`code`, `message`, and code-specific fields such as `turn`, `play`). */
export interface ProblemViolation {
  code: string;
  message: string;
  [field: string]: unknown;
}

/** An `application/problem+json` body as the service sends it. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  /** Stable kebab-case code (`invalid-card`, `precondition-failed`, …). */
  code: string;
  detail?: string;
  instance?: string;
  /** Schema failures: field path → messages. */
  errors?: Record<string, string[]>;
  /** `illegal-record`: the violations of the refused hand record. */
  violations?: ProblemViolation[];
  [extension: string]: unknown;
}

export const PROBLEM_MEDIA_TYPE = "application/problem+json";

/**
 * Thrown for every answer with status ≥ 400. `code` is the problem's stable code;
 * an answer that is not a problem (a proxy's HTML 502, say) gets `code` `http-<status>`
 * and `type` `about:blank`, so a `catch` needs only one branch.
 */
export class ProblemError extends Error {
  override readonly name = "ProblemError";
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly type: string;
  readonly detail: string | undefined;
  readonly errors: Record<string, string[]> | undefined;
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
    this.errors = problem.errors;
    this.violations = problem.violations;
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
  if (isRecord(body) && (declared || typeof body.code === "string")) {
    const title = typeof body.title === "string" ? body.title : statusText || `HTTP ${status}`;
    return {
      ...body,
      type: typeof body.type === "string" ? body.type : "about:blank",
      title,
      status: typeof body.status === "number" ? body.status : status,
      code: typeof body.code === "string" ? body.code : `http-${status}`,
    };
  }
  const problem: Problem = { type: "about:blank", title: statusText || `HTTP ${status}`, status,
                             code: `http-${status}` };
  if (text) problem.detail = text.slice(0, 500);
  return problem;
}
