import { DenoletError } from "../util/errors.ts";

/** A probe could not be run at all (bad port, no handler, runtime error); its result is discarded. */
export class ProbeError extends DenoletError {}
