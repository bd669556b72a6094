/**
 * Env values from a file in a volume (`valueFrom.fileKeyRef`, the EnvFiles feature, beta and on
 * upstream since 1.35): an init container writes `KEY='value'` lines into an emptyDir and the
 * containers after it read them (upstream pkg/kubelet/util/env ParseEnv, the same grammar).
 */
import { posix } from "node:path";
import { DenoletError } from "../util/errors.ts";

/** The file does not follow the env-file grammar; the message says where. */
export class EnvFileSyntaxError extends DenoletError {}

/**
 * The value of `key` in an env file's text, or undefined when the file does not set it. Lines
 * are `KEY='value'` (the value may span lines), blank or `#` comments; `KEY= ...` (a space after
 * `=`) sets the key to "" as bash would.
 */
export function envFileValue(text: string, key: string): string | undefined {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const at = i + 1;
    const line = lines[i].replace(/^[ \t]+/, "");
    if (line === "" || line.startsWith("#")) continue;
    const eq = line.indexOf("=");
    if (eq < 0) throw new EnvFileSyntaxError(`line ${at}: missing '='`);
    const namePart = line.slice(0, eq);
    const name = namePart.replace(/[ \t]+$/, "");
    if (name === "") throw new EnvFileSyntaxError(`line ${at}: empty variable name`);
    if (name !== namePart) throw new EnvFileSyntaxError(`line ${at}: whitespace before '='`);
    const valuePart = line.slice(eq + 1);
    const trimmed = valuePart.replace(/^[ \t]+/, "");
    if (trimmed !== valuePart) {
      if (name === key) return "";
      continue;
    }
    if (!trimmed.startsWith("'")) {
      throw new EnvFileSyntaxError(`line ${at}: value must be enclosed in single quotes`);
    }
    let rest = trimmed.slice(1);
    let value = "";
    const start = at;
    for (;;) {
      const close = rest.indexOf("'");
      if (close >= 0) {
        value += rest.slice(0, close);
        const after = rest.slice(close + 1).replace(/^[ \t]+/, "");
        if (after !== "" && !after.startsWith("#")) {
          throw new EnvFileSyntaxError(`line ${i + 1}: unexpected content after closing quote`);
        }
        if (name === key) return value;
        break;
      }
      value += rest + "\n";
      i++;
      if (i >= lines.length) throw new EnvFileSyntaxError(`line ${start}: unclosed single quote`);
      rest = lines[i];
    }
  }
  return undefined;
}

/**
 * Reads `path` inside the volume at `root`. Symlinks are followed only while they stay inside
 * the volume (upstream's SecureJoin): a file written by a container cannot point the agent at
 * the node's files.
 */
export async function readVolumeFile(root: string, path: string): Promise<string> {
  const base = await Deno.realPath(root);
  const target = await Deno.realPath(posix.join(base, posix.normalize(`/${path}`)));
  if (target !== base && !target.startsWith(`${base}/`)) {
    throw new DenoletError(`${JSON.stringify(path)} leads out of the volume`);
  }
  return await Deno.readTextFile(target);
}
