/**
 * Generated from openapi/openapi.json by scripts/routes.mjs (`npm run generate`,
 * `make sdk`): do not edit. What the transport needs to know of each operation, keyed by
 * "METHOD schemaPath" (the path template openapi-fetch hands its middleware).
 */

export interface RouteFacts {
  operationId: string | null;
  /** Its `security`: the match's bearer token is required, optional, or not asked for. */
  token: "required" | "optional" | "none";
  /** `x-idempotent: true`: safe to send twice, so safe to retry. */
  idempotent: boolean;
  /** Its `Idempotency-Key` header parameter: with a key, a repeat is answered, not redone. */
  idempotencyKey: "required" | "optional" | "none";
  /** It takes `If-Match` (the match's ETag). */
  ifMatch: boolean;
  /** Where the match it is about is named: a path parameter, or a field of the JSON body. */
  match: { in: "path" | "body"; name: string } | null;
}

export const ROUTES: Readonly<Record<string, RouteFacts>> = {
  "DELETE /v1/matches/{match_id}": {"operationId": "deleteMatch", "token": "required", "idempotent": false, "idempotencyKey": "none", "ifMatch": true, "match": {"in": "path", "name": "match_id"}},
  "GET /healthz": {"operationId": "getHealth", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": null},
  "GET /problems/{code}": {"operationId": "getProblem", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": null},
  "GET /readyz": {"operationId": "getReadiness", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": null},
  "GET /v1/matches/{match_id}": {"operationId": "getMatch", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": {"in": "path", "name": "match_id"}},
  "GET /v1/matches/{match_id}/events": {"operationId": "streamEvents", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": {"in": "path", "name": "match_id"}},
  "GET /v1/matches/{match_id}/export": {"operationId": "exportMatch", "token": "required", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": {"in": "path", "name": "match_id"}},
  "GET /v1/matches/{match_id}/hands": {"operationId": "listHands", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": {"in": "path", "name": "match_id"}},
  "GET /v1/matches/{match_id}/hands/{seq}": {"operationId": "getHand", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": {"in": "path", "name": "match_id"}},
  "GET /v1/matches/{match_id}/settlement": {"operationId": "getSettlement", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": {"in": "path", "name": "match_id"}},
  "GET /v1/matches/{match_id}/sheet": {"operationId": "getSheet", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": {"in": "path", "name": "match_id"}},
  "GET /v1/rulesets": {"operationId": "listRuleSets", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": null},
  "GET /v1/rulesets/{name}": {"operationId": "getRuleSet", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": null},
  "GET /v1/violations": {"operationId": "listViolations", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": null},
  "POST /v1/hands/adjudicate": {"operationId": "adjudicateHand", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": null},
  "POST /v1/hands/analyze": {"operationId": "analyzeHand", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": null},
  "POST /v1/hands/score": {"operationId": "scoreHand", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": null},
  "POST /v1/jokers/release": {"operationId": "releaseJoker", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": null},
  "POST /v1/matches": {"operationId": "createMatch", "token": "none", "idempotent": false, "idempotencyKey": "none", "ifMatch": false, "match": null},
  "POST /v1/matches/import": {"operationId": "importMatch", "token": "optional", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": {"in": "body", "name": "id"}},
  "POST /v1/matches/{match_id}/buy-ins": {"operationId": "buyIn", "token": "required", "idempotent": false, "idempotencyKey": "optional", "ifMatch": true, "match": {"in": "path", "name": "match_id"}},
  "POST /v1/matches/{match_id}/hands": {"operationId": "appendHand", "token": "required", "idempotent": false, "idempotencyKey": "required", "ifMatch": true, "match": {"in": "path", "name": "match_id"}},
  "POST /v1/matches/{match_id}/hands/{seq}/corrections": {"operationId": "correctHand", "token": "required", "idempotent": false, "idempotencyKey": "required", "ifMatch": true, "match": {"in": "path", "name": "match_id"}},
  "POST /v1/melds/build": {"operationId": "buildOnMeld", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": null},
  "POST /v1/melds/opening": {"operationId": "checkOpening", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": null},
  "POST /v1/melds/validate": {"operationId": "validateMeld", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": null},
  "POST /v1/turns/check": {"operationId": "checkTurn", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": null},
  "POST /v1/turns/options": {"operationId": "listTurnOptions", "token": "none", "idempotent": true, "idempotencyKey": "none", "ifMatch": false, "match": null},
};
