import {
  BackOffError,
  ConfigError,
  DenoletError,
  findCause,
  InvalidManifestError,
  NotFoundError,
  RuntimeUnavailableError,
} from "../util/errors.ts";

/** The request used a method the route does not serve; `allow` lists the ones it does. */
export class MethodNotAllowedError extends DenoletError {
  constructor(readonly allow: string[], message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** The request is malformed: a missing parameter, a bad value, an upgrade that is not one. */
export class BadRequestError extends DenoletError {}

/** The request is well-formed but cannot be served as asked (a log query that fails upstream's
 * validation): upstream answers 406 Not Acceptable. */
export class NotAcceptableError extends DenoletError {}

/** The request is well-formed but asks for something that cannot be done now (a container
 * that is not running, no previous instance): upstream answers these with 400 as well. */
export class UnavailableStateError extends DenoletError {}

/** The one place that maps error kinds to HTTP status codes. */
export function statusForError(err: unknown): number {
  if (findCause(err, MethodNotAllowedError)) return 405;
  if (findCause(err, BadRequestError) || findCause(err, UnavailableStateError)) return 400;
  if (findCause(err, NotAcceptableError)) return 406;
  if (findCause(err, NotFoundError)) return 404;
  if (findCause(err, InvalidManifestError) || findCause(err, ConfigError)) return 400;
  if (findCause(err, RuntimeUnavailableError) || findCause(err, BackOffError)) return 503;
  if (isAbort(err)) return 503;
  return 500;
}

function isAbort(err: unknown): boolean {
  return err instanceof DOMException && (err.name === "AbortError" || err.name === "TimeoutError");
}
