/**
 * Error kinds. Code branches on the kind (walking the `cause` chain), never on message text.
 */
export class DenoletError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A manifest or config file that does not parse or validate. `path` names the file. */
export class InvalidManifestError extends DenoletError {
  constructor(readonly path: string, message: string, options?: ErrorOptions) {
    super(`${path}: ${message}`, options);
  }
}

/** A flag or configuration field with a bad value; `field` is the flag or field path. */
export class ConfigError extends DenoletError {
  constructor(readonly field: string, message: string, options?: ErrorOptions) {
    super(`${field}: ${message}`, options);
  }
}

/** Something looked up by id or name does not exist (CRI NOT_FOUND and friends). */
export class NotFoundError extends DenoletError {}

/**
 * A step needs an API cache that has not completed its first list (RuntimeClasses, say): the
 * pod is retried once it has, and no event is worth recording meanwhile.
 */
export class NotSyncedError extends DenoletError {}

/** The container runtime cannot be reached (socket missing, connection refused, UNAVAILABLE). */
export class RuntimeUnavailableError extends DenoletError {}

/** An image pull failed. `reason` is the status reason to show (ErrImagePull, ErrImageNeverPull, ...). */
export class ImagePullError extends DenoletError {
  constructor(readonly reason: string, message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** Work refused because a back-off window is still open; `reason` e.g. CrashLoopBackOff. */
export class BackOffError extends DenoletError {
  constructor(readonly reason: string, message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** Returns the first error in the cause chain that is an instance of `kind`. */
export function findCause<T extends Error>(
  err: unknown,
  kind: abstract new (...args: never[]) => T,
): T | undefined {
  let cur: unknown = err;
  for (let i = 0; cur !== undefined && cur !== null && i < 16; i++) {
    if (cur instanceof kind) return cur as T;
    cur = cur instanceof Error ? cur.cause : undefined;
  }
  return undefined;
}

export function isKind(err: unknown, kind: abstract new (...args: never[]) => Error): boolean {
  return findCause(err, kind) !== undefined;
}
