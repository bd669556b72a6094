/**
 * TypeScript lines for a CPU profile of the agent run from source. V8 profiles the JavaScript
 * Deno transpiled, whose lines drop every type-only declaration: `parseMountInfo` at line 37 of
 * _mounter.ts is at line 7 of what runs. Deno hands the inspector each script's source map
 * (inline, as a data: URL); DevTools applies it when it opens a profile, and so does this.
 */
import type { CallFrame, CdpSession, CpuProfile } from "./_cdp.ts";

/** Per generated line, its segments as [generated column, source line], by column. */
export type LineMap = [number, number][][];

/**
 * The source maps of every script the inspected isolate has loaded, by url. Enabling the
 * debugger makes V8 report each loaded script before it answers; it is disabled again at once.
 */
export async function scriptSourceMaps(cdp: CdpSession): Promise<Map<string, LineMap>> {
  const raw = new Map<string, string>();
  const off = cdp.on("Debugger.scriptParsed", (p) => {
    const { url, sourceMapURL } = p as { url: string; sourceMapURL?: string };
    if (sourceMapURL?.startsWith("data:application/json;base64,")) raw.set(url, sourceMapURL);
  });
  try {
    await cdp.send("Debugger.enable");
    await cdp.send("Debugger.disable");
  } finally {
    off();
  }
  const maps = new Map<string, LineMap>();
  for (const [url, data] of raw) {
    const json = new TextDecoder().decode(
      Uint8Array.from(atob(data.slice(data.indexOf(",") + 1)), (c) => c.charCodeAt(0)),
    );
    maps.set(url, decodeMappings((JSON.parse(json) as { mappings: string }).mappings));
  }
  return maps;
}

/** A copy of `profile` whose call frames point at source lines where a map says where. */
export function remapProfile(profile: CpuProfile, maps: Map<string, LineMap>): CpuProfile {
  const frame = (f: CallFrame): CallFrame => {
    const map = maps.get(f.url);
    const line = map && sourceLine(map, f.lineNumber, f.columnNumber);
    return line === undefined ? f : { ...f, lineNumber: line };
  };
  return { ...profile, nodes: profile.nodes.map((n) => ({ ...n, callFrame: frame(n.callFrame) })) };
}

/** The source line (0-based) of generated `line`:`column`: the last segment at or before it. */
export function sourceLine(map: LineMap, line: number, column: number): number | undefined {
  let found: number | undefined;
  for (const [col, src] of map[line] ?? []) {
    if (col > column) break;
    found = src;
  }
  return found ?? map[line]?.[0]?.[1];
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Source map v3 `mappings` (base64 VLQ): the source line of each segment that has one. */
export function decodeMappings(mappings: string): LineMap {
  const out: LineMap = [];
  let srcLine = 0;
  for (const group of mappings.split(";")) {
    const segments: [number, number][] = [];
    let col = 0;
    for (const seg of group.split(",")) {
      if (!seg) continue;
      const v = vlq(seg);
      col += v[0];
      // Fields 2-4 are deltas over the whole map: source index, source line, source column.
      if (v.length >= 4) {
        srcLine += v[2];
        segments.push([col, srcLine]);
      }
    }
    out.push(segments);
  }
  return out;
}

function vlq(seg: string): number[] {
  const out: number[] = [];
  let value = 0;
  let shift = 0;
  for (const ch of seg) {
    const digit = BASE64.indexOf(ch);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
      continue;
    }
    out.push(value & 1 ? -(value >>> 1) : value >>> 1);
    value = 0;
    shift = 0;
  }
  return out;
}
