export {
  createKalukiClient,
  unwrap,
  type AppendHandBody,
  type AppendHandResult,
  type Appended,
  type AppendOptions,
  type BuyInBody,
  type BuyInResult,
  type KalukiClient,
  type KalukiClientOptions,
  type KalukiExtras,
  type RequestBody,
  type ResponseBody,
} from "./client.js";
export { isProblem, PROBLEM_MEDIA_TYPE, ProblemError, toProblem, type Problem,
         type ProblemViolation } from "./problem.js";
export { parseRetryAfter, type RetryInfo, type RetryOptions } from "./retry.js";
export { MatchMemory, Transport, type CallSettings, type Fetch } from "./transport.js";
export { ROUTES, type RouteFacts } from "./routes.js";
export type { components, operations, paths } from "./schema.js";
export { correctHand, getSettlement, getSheet, getSheetCsv, matchEvents, type CorrectionBody,
         type CorrectionResult, type EventsOptions, type MatchEvent, type MatchView,
         type Settlement, type Sheet } from "./scorekeeping.js";
