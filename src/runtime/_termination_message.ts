/**
 * The termination message of an exited container (upstream kuberuntime getTerminationMessage
 * and readLastStringFromContainerLogs): the tail of the file the container wrote at its
 * terminationMessagePath, or with FallbackToLogsOnError after a failure and an empty file, the
 * tail of its log. An exited container never changes, so each one is read once and remembered
 * by container id for as long as the runtime still lists it.
 */
import type { ContainerStatus } from "../cri/types.ts";
import { concatBytes } from "../util/bytes.ts";
import { errorMessage } from "../util/log.ts";
import {
  ANNOTATION_TERMINATION_MESSAGE_PATH,
  ANNOTATION_TERMINATION_MESSAGE_POLICY,
} from "./_labels.ts";

/** Upstream MaxContainerTerminationMessageLength. */
export const MAX_MESSAGE_BYTES = 4096;
/** Upstream MaxContainerTerminationMessageLogLines and ...LogLength. */
export const MAX_LOG_LINES = 80;
export const MAX_LOG_BYTES = 2048;
/** Records are split at 16 KiB by containerd, so 80 of them fit well within this. */
const LOG_READ_CAP = 2 * 1024 * 1024;
const BLOCK = 8192;
const NL = 0x0a;
const SPACE = 0x20;

/** What `TerminationMessages.message` needs to know of an exited container. */
export interface ExitedContainer {
  status: ContainerStatus;
  /** Labels and annotations as listed and as inspected, merged. */
  annotations: Record<string, string>;
  exitCode: number;
  reason: string | undefined;
  /** The runtime's own message, if any. */
  message: string | undefined;
}

export class TerminationMessages {
  /** Per pod UID, the status message of each exited container, by container id. */
  readonly #byPod = new Map<string, Map<string, string | undefined>>();

  /**
   * The status message of an exited container: the runtime's message, then ": " and the
   * termination message when there is one. Reads files only the first time.
   */
  async message(podUid: string, c: ExitedContainer): Promise<string | undefined> {
    let pod = this.#byPod.get(podUid);
    if (pod?.has(c.status.id)) return pod.get(c.status.id);
    const found = await terminationMessage(c);
    const combined = found ? (c.message ? `${c.message}: ${found}` : found) : c.message;
    pod = this.#byPod.get(podUid) ?? new Map();
    this.#byPod.set(podUid, pod);
    pod.set(c.status.id, combined);
    return combined;
  }

  /** Forgets the containers of the pod the runtime no longer lists. */
  retain(podUid: string, ids: ReadonlySet<string>): void {
    const pod = this.#byPod.get(podUid);
    if (!pod) return;
    for (const id of pod.keys()) if (!ids.has(id)) pod.delete(id);
    if (pod.size === 0) this.#byPod.delete(podUid);
  }

  forgetPod(podUid: string): void {
    this.#byPod.delete(podUid);
  }
}

async function terminationMessage(c: ExitedContainer): Promise<string> {
  const path = c.annotations[ANNOTATION_TERMINATION_MESSAGE_PATH];
  // A container that never ran has no logs worth reading.
  const fallback = c.annotations[ANNOTATION_TERMINATION_MESSAGE_POLICY] ===
      "FallbackToLogsOnError" && c.exitCode !== 0 && c.reason !== "ContainerCannotRun";
  const mount = path ? c.status.mounts?.find((m) => m.containerPath === path) : undefined;
  if (mount) {
    try {
      const data = await readTail(mount.hostPath, MAX_MESSAGE_BYTES);
      if (data.length > 0 || !fallback) return new TextDecoder().decode(data);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) {
        return `Error on reading termination log ${mount.hostPath}: ${errorMessage(err)}`;
      }
    }
  }
  if (!fallback || !c.status.logPath) return "";
  try {
    return await readLogTail(c.status.logPath);
  } catch (err) {
    return `Error on reading termination message from logs: ${errorMessage(err)}`;
  }
}

/** Up to the last `max` bytes of a file. */
async function readTail(path: string, max: number): Promise<Uint8Array> {
  using f = await Deno.open(path, { read: true });
  const size = (await f.stat()).size;
  return await readAt(f, Math.max(0, size - max), Math.min(size, max));
}

async function readAt(f: Deno.FsFile, offset: number, length: number): Promise<Uint8Array> {
  await f.seek(offset, Deno.SeekMode.Start);
  const buf = new Uint8Array(length);
  let got = 0;
  while (got < length) {
    const n = await f.read(buf.subarray(got));
    if (n === null) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/**
 * The content of the last MAX_LOG_LINES records of a CRI log (`<time> <stream> <P|F> <text>`),
 * without time, stream and tag, keeping the last MAX_LOG_BYTES; a full record ends a line.
 */
async function readLogTail(path: string): Promise<string> {
  using f = await Deno.open(path, { read: true });
  let start = (await f.stat()).size;
  const blocks: Uint8Array[] = [];
  let newlines = 0;
  let read = 0;
  // The record before the last MAX_LOG_LINES ends in the newline that bounds them.
  while (start > 0 && newlines <= MAX_LOG_LINES && read < LOG_READ_CAP) {
    const len = Math.min(BLOCK, start);
    start -= len;
    const block = await readAt(f, start, len);
    blocks.unshift(block);
    read += block.length;
    for (const b of block) if (b === NL) newlines++;
  }
  const all = concatBytes(blocks);
  const records: Uint8Array[] = [];
  let from = 0;
  for (let i = all.indexOf(NL); i >= 0; i = all.indexOf(NL, from)) {
    records.push(all.subarray(from, i));
    from = i + 1;
  }
  if (from < all.length) records.push(all.subarray(from));
  if (start > 0) records.shift(); // may begin mid-record
  const parts: Uint8Array[] = [];
  for (const r of records.slice(-MAX_LOG_LINES)) {
    const text = recordText(r);
    if (text) parts.push(text);
  }
  const out = concatBytes(parts);
  return new TextDecoder().decode(out.subarray(Math.max(0, out.length - MAX_LOG_BYTES)));
}

/** A record's text with its line end restored for full records; undefined when malformed. */
function recordText(r: Uint8Array): Uint8Array | undefined {
  const s1 = r.indexOf(SPACE);
  const s2 = s1 < 0 ? -1 : r.indexOf(SPACE, s1 + 1);
  if (s2 < 0) return undefined;
  let s3 = r.indexOf(SPACE, s2 + 1);
  if (s3 < 0) s3 = r.length;
  // The tag may carry more after ':'; only its first part says partial or full.
  const tag = new TextDecoder().decode(r.subarray(s2 + 1, s3)).split(":")[0];
  if (tag !== "P" && tag !== "F") return undefined;
  const text = r.subarray(Math.min(s3 + 1, r.length));
  return tag === "F" ? concatBytes([text, Uint8Array.of(NL)]) : text;
}
