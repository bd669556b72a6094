/**
 * When the last graceful shutdown started and ended (upstream storage.go), kept across reboots
 * in <root-dir>/graceful_node_shutdown_state for the kubelet_graceful_shutdown_* gauges. JSON as
 * upstream writes it: `{"startTime":"<RFC 3339>","endTime":"<RFC 3339>"}`.
 */

/** Epoch ms; absent when unknown (Go's zero time). */
export interface ShutdownState {
  startTime?: number;
  endTime?: number;
}

export const STATE_FILE = "graceful_node_shutdown_state";
const GO_ZERO_TIME = "0001-01-01T00:00:00Z";

export function shutdownStateStore(path: string) {
  return {
    /** The state, or {} when there is none yet. Throws on an unreadable or malformed file. */
    async load(): Promise<ShutdownState> {
      let text: string;
      try {
        text = await Deno.readTextFile(path);
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return {};
        throw err;
      }
      const raw = JSON.parse(text) as { startTime?: string; endTime?: string };
      return { startTime: parseTime(raw.startTime), endTime: parseTime(raw.endTime) };
    },
    /** Replaces the file (a temp file renamed over it). */
    async save(state: ShutdownState): Promise<void> {
      const text = JSON.stringify({
        startTime: formatTime(state.startTime),
        endTime: formatTime(state.endTime),
      });
      const tmp = `${path}.tmp-${crypto.randomUUID().slice(0, 8)}`;
      await Deno.writeTextFile(tmp, text, { mode: 0o644 });
      await Deno.rename(tmp, path);
    },
  };
}

function parseTime(s: string | undefined): number | undefined {
  if (!s || s === GO_ZERO_TIME) return undefined;
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? undefined : ms;
}

function formatTime(ms: number | undefined): string {
  return ms === undefined ? GO_ZERO_TIME : new Date(ms).toISOString();
}
