/** Errors: every API error carries the API's stable `code`, as the Python client's do. */

export class HandoverError extends Error {
  override name = "HandoverError";
}

/**
 * The request got no HTTP answer: connection refused or reset, or a timeout. For a turn append,
 * `seq` is the number the client gave it: the turn may or may not be stored, so append the same
 * turn again with `{ seq: error.seq }` (stored exactly once).
 */
export class TransportError extends HandoverError {
  override name = "TransportError";
  seq: number | undefined;
}

/** No answer within the client's timeout. */
export class RequestTimeoutError extends TransportError {
  override name = "RequestTimeoutError";
}

/** The API answered with an error: `status`, `code`, `detail`, `fields`, `requestId`. */
export class APIError extends HandoverError {
  override name = "APIError";
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly fields: Record<string, string[]> = {},
    readonly requestId: string | null = null,
    readonly body: unknown = undefined,
  ) {
    super(`${status} ${code}: ${detail}`);
  }
}

/** 400, 405, 413, 415: bad input; nothing was written. */
export class InvalidRequestError extends APIError {
  override name = "InvalidRequestError";
}
/** 401: missing, malformed, unknown or revoked API key. */
export class AuthenticationError extends APIError {
  override name = "AuthenticationError";
}
/** 403: the key's role cannot do this. */
export class PermissionDeniedError extends APIError {
  override name = "PermissionDeniedError";
}
/** 404: no such object, or another tenant's (they look the same). */
export class NotFoundError extends APIError {
  override name = "NotFoundError";
}
/** 409: `turn_conflict` (that seq holds other content), `run_open`, `turn_extracted`. */
export class ConflictError extends APIError {
  override name = "ConflictError";
}
/** 429 after the retries; `retryAfter` in seconds when the API said. */
export class RateLimitedError extends APIError {
  override name = "RateLimitedError";
  retryAfter: number | null = null;
}
/** 5xx after the retries (or a 500, which is never retried). */
export class ServerError extends APIError {
  override name = "ServerError";
}

const BY_STATUS: Record<number, typeof APIError> = {
  400: InvalidRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  405: InvalidRequestError,
  409: ConflictError,
  413: InvalidRequestError,
  415: InvalidRequestError,
  429: RateLimitedError,
};

export function errorFor(status: number, body: unknown, requestId: string | null): APIError {
  let code = `http_${status}`;
  let detail = (typeof body === "string" ? body : JSON.stringify(body ?? "")).slice(0, 500);
  let fields: Record<string, string[]> = {};
  if (body && typeof body === "object" && typeof (body as { code?: unknown }).code === "string") {
    const envelope = body as { code: string; detail?: unknown; fields?: Record<string, string[]> };
    code = envelope.code;
    detail = String(envelope.detail ?? "");
    fields = envelope.fields ?? {};
  }
  const Class = BY_STATUS[status] ?? (status >= 500 ? ServerError : APIError);
  return new Class(status, code, detail, fields, requestId, body);
}
