/**
 * `/containerLogs` query parameters: a v1 PodLogOptions decoded from the query as upstream's
 * parameter codec does (booleans as strconv.ParseBool, integers as int64, sinceTime RFC 3339,
 * the legacy `tail` parameter), then ValidatePodLogOptions.
 */
import { DenoletError } from "../../util/errors.ts";
import type { StreamSelector } from "./reader.ts";

export interface PodLogOptions {
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines?: number;
  limitBytes?: number;
  sinceSeconds?: number;
  /** ms since the epoch. */
  sinceTime?: number;
  stream: StreamSelector;
}

/** The query could not be decoded (upstream: 400 `{"message": "Unable to decode query."}`). */
export class LogQueryDecodeError extends DenoletError {}
/** The options are invalid (upstream: 422 `{"message": "Invalid request."}`). */
export class LogOptionsInvalidError extends DenoletError {}

const TRUE = ["1", "t", "T", "true", "TRUE", "True"];
const FALSE = ["0", "f", "F", "false", "FALSE", "False"];

function bool(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  if (v === null || v === "") return false;
  if (TRUE.includes(v)) return true;
  if (FALSE.includes(v)) return false;
  throw new LogQueryDecodeError(`${name}=${v} is not a boolean`);
}

function int(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === "") return undefined;
  if (!/^[+-]?\d+$/.test(v) || !Number.isSafeInteger(Number(v))) {
    throw new LogQueryDecodeError(`${name}=${v} is not an integer`);
  }
  return Number(v);
}

export function parsePodLogOptions(query: URLSearchParams): PodLogOptions {
  const q = new URLSearchParams(query);
  // Backwards compatibility: `tail` sets tailLines; "all" means no limit.
  const tail = q.get("tail");
  if (tail !== null && tail !== "") {
    if (tail === "all") q.delete("tailLines");
    else q.set("tailLines", tail);
  }
  const sinceTimeRaw = q.get("sinceTime");
  let sinceTime: number | undefined;
  if (sinceTimeRaw !== null && sinceTimeRaw !== "") {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(sinceTimeRaw)) {
      throw new LogQueryDecodeError(`sinceTime=${sinceTimeRaw} is not an RFC 3339 time`);
    }
    sinceTime = Date.parse(sinceTimeRaw);
  }
  const stream = q.get("stream") ?? "All";
  const opts: PodLogOptions = {
    follow: bool(q, "follow"),
    previous: bool(q, "previous"),
    timestamps: bool(q, "timestamps"),
    tailLines: int(q, "tailLines"),
    limitBytes: int(q, "limitBytes"),
    sinceSeconds: int(q, "sinceSeconds"),
    sinceTime,
    stream: stream === "" ? "All" : stream as StreamSelector,
  };
  validate(opts);
  return opts;
}

function validate(o: PodLogOptions): void {
  const bad = (msg: string): never => {
    throw new LogOptionsInvalidError(msg);
  };
  if (o.tailLines !== undefined && o.tailLines < 0) bad("tailLines: must be >= 0");
  if (o.limitBytes !== undefined && o.limitBytes < 1) bad("limitBytes: must be greater than 0");
  if (o.sinceSeconds !== undefined && o.sinceTime !== undefined) {
    bad("at most one of `sinceTime` or `sinceSeconds` may be specified");
  }
  if (o.sinceSeconds !== undefined && o.sinceSeconds < 1) {
    bad("sinceSeconds: must be greater than 0");
  }
  if (!["All", "Stdout", "Stderr"].includes(o.stream)) {
    bad(`stream: ${JSON.stringify(o.stream)} must be one of All, Stdout, Stderr`);
  }
  if (o.stream !== "All" && o.tailLines !== undefined) {
    bad("tailLines: must not be specified when stream is not All");
  }
}
