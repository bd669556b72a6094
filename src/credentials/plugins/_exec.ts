/**
 * The exec protocol of credential provider plugins (upstream execPlugin): the kubelet runs
 * `<bin dir>/<name> <args>` with the provider's env added to its own, writes a
 * CredentialProviderRequest to its stdin and reads a CredentialProviderResponse of the same
 * apiVersion from its stdout; one minute at most.
 */
import { parseDuration } from "../../config/duration.ts";
import { DenoletError } from "../../util/errors.ts";
import { errorMessage } from "../../util/log.ts";
import type { CredentialProvider } from "./_config.ts";

const PLUGIN_TIMEOUT_MS = 60_000;

/** A plugin run that failed, or an answer that does not decode; upstream's message. */
export class PluginExecError extends DenoletError {}

export interface PluginRequest {
  image: string;
  serviceAccountToken?: string;
  serviceAccountAnnotations?: Record<string, string>;
}

export interface PluginResponse {
  cacheKeyType: string;
  /** undefined: the provider's default. */
  cacheDurationMs?: number;
  auth: Record<string, { username: string; password: string }>;
}

/** Runs one plugin; `run` replaces the process spawn in tests. */
export type PluginRunner = (
  provider: CredentialProvider,
  request: PluginRequest,
  opts: { binDir: string; signal?: AbortSignal },
) => Promise<PluginResponse>;

export const execPlugin: PluginRunner = async (provider, request, opts) => {
  const body = JSON.stringify({
    kind: "CredentialProviderRequest",
    apiVersion: provider.apiVersion,
    image: request.image,
    ...(request.serviceAccountToken ? { serviceAccountToken: request.serviceAccountToken } : {}),
    ...(request.serviceAccountAnnotations && Object.keys(request.serviceAccountAnnotations).length
      ? { serviceAccountAnnotations: request.serviceAccountAnnotations }
      : {}),
  });
  const deadline = AbortSignal.timeout(PLUGIN_TIMEOUT_MS);
  const signal = opts.signal ? AbortSignal.any([deadline, opts.signal]) : deadline;
  const failed = (why: string, stderr = "", cause?: unknown) =>
    new PluginExecError(
      `error execing credential provider plugin ${provider.name} for image ${request.image}: ` +
        `${why}: ${stderr}`,
      { cause },
    );
  let out: Deno.CommandOutput;
  try {
    const child = new Deno.Command(`${opts.binDir}/${provider.name}`, {
      args: provider.args,
      env: Object.fromEntries(provider.env.map((e) => [e.name, e.value])),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      signal,
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(body));
    await writer.close();
    out = await child.output();
  } catch (err) {
    opts.signal?.throwIfAborted();
    throw failed(deadline.aborted ? "context deadline exceeded" : errorMessage(err), "", err);
  }
  const stderr = new TextDecoder().decode(out.stderr);
  if (deadline.aborted) throw failed("context deadline exceeded", stderr);
  opts.signal?.throwIfAborted();
  if (!out.success) {
    throw failed(out.signal ? `signal: ${out.signal}` : `exit status ${out.code}`, stderr);
  }
  return decodeResponse(provider, new TextDecoder().decode(out.stdout));
};

function decodeResponse(provider: CredentialProvider, text: string): PluginResponse {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new PluginExecError(`error reading GVK from response: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  const apiVersion = String(doc?.apiVersion ?? "");
  if (apiVersion !== provider.apiVersion) {
    throw new PluginExecError(
      `apiVersion from credential plugin response did not match expected apiVersion:` +
        `${provider.apiVersion}, actual apiVersion:${apiVersion}`,
    );
  }
  const bad = () =>
    new PluginExecError("error decoding credential provider plugin response from stdout");
  if (doc.kind !== "CredentialProviderResponse") throw bad();
  const auth: PluginResponse["auth"] = {};
  const rawAuth = doc.auth ?? {};
  if (typeof rawAuth !== "object" || rawAuth === null || Array.isArray(rawAuth)) throw bad();
  for (const [k, v] of Object.entries(rawAuth as Record<string, unknown>)) {
    const a = v as { username?: unknown; password?: unknown } | null;
    if (a !== null && (typeof a !== "object" || Array.isArray(a))) throw bad();
    auth[k] = { username: String(a?.username ?? ""), password: String(a?.password ?? "") };
  }
  let cacheDurationMs: number | undefined;
  if (doc.cacheDuration !== undefined && doc.cacheDuration !== null) {
    try {
      cacheDurationMs = parseDuration(String(doc.cacheDuration));
    } catch {
      throw bad();
    }
  }
  return { cacheKeyType: String(doc.cacheKeyType ?? ""), cacheDurationMs, auth };
}
