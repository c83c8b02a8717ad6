"""What every request passes through, whatever resource answers it: bounded body reads,
the body's media type, request ids, rate limits, metrics, security headers and CORS, the
language it is answered in, the fast parser and JSON in and out."""
