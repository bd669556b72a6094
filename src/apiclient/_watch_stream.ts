/**
 * The API server's watch body: one JSON event object after another, each ended by a newline
 * (the JSON stream framer). Events are decoded as they arrive, never the whole body at once.
 */
import type { WatchEvent } from "./types.ts";

/** Largest single event accepted; a bigger one means a broken stream, not a big object. */
const MAX_EVENT_BYTES = 64 * 1024 * 1024;

export async function* decodeWatchStream<T>(
  body: ReadableStream<Uint8Array>,
  opts: { onChunk?: (bytes: number) => void } = {},
): AsyncIterable<WatchEvent<T>> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of body) {
    opts.onChunk?.(chunk.byteLength);
    buffered += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line !== "") yield JSON.parse(line) as WatchEvent<T>;
    }
    if (buffered.length > MAX_EVENT_BYTES) {
      throw new Error(`watch event larger than ${MAX_EVENT_BYTES} bytes`);
    }
  }
  buffered += decoder.decode();
  if (buffered.trim() !== "") yield JSON.parse(buffered) as WatchEvent<T>;
}
