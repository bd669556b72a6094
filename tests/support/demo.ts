/**
 * `deno task demo`: provisions the dev containerd if needed, seeds sample static pods, and runs
 * the agent from source in the foreground. Extra command-line arguments go to the agent.
 */
import { runAgentInForeground } from "./_foreground_agent.ts";
import { ensureContainerd } from "./containerd.ts";

const SAMPLES = new URL("./samples/", import.meta.url).pathname;
const READ_ONLY_PORT = 10255;

async function isEmptyOrMissing(dir: string): Promise<boolean> {
  try {
    for await (const _ of Deno.readDir(dir)) return false;
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return true;
    throw err;
  }
}

/** Copies the samples only into an empty directory, so a user's own manifests are never touched. */
async function seedManifests(dir: string): Promise<void> {
  if (!(await isEmptyOrMissing(dir))) return;
  await Deno.mkdir(dir, { recursive: true });
  for await (const e of Deno.readDir(SAMPLES)) {
    if (e.isFile && e.name.endsWith(".yaml")) {
      await Deno.copyFile(`${SAMPLES}${e.name}`, `${dir}/${e.name}`);
    }
  }
  console.error(`[demo] copied sample pods into ${dir}`);
}

async function main(): Promise<number> {
  const rt = await ensureContainerd({ log: (s) => console.error(`[demo] ${s}`) });
  const manifests = `${rt.dir}/manifests`;
  const rootDir = `${rt.dir}/kubelet`;
  await seedManifests(manifests);
  await Deno.mkdir(rootDir, { recursive: true });
  console.error(
    `[demo] containerd: ${rt.endpoint}\n` +
      `[demo] static pods: ${manifests} (add, edit or remove YAML files there)\n` +
      `[demo] try: curl -s http://127.0.0.1:${READ_ONLY_PORT}/pods ; ` +
      `curl -s http://127.0.0.1:18080/`,
  );
  return await runAgentInForeground(
    [
      "--container-runtime-endpoint",
      rt.endpoint,
      "--pod-manifest-path",
      manifests,
      "--root-dir",
      rootDir,
      "--read-only-port",
      String(READ_ONLY_PORT),
      `--pod-infra-container-image=${rt.sandboxImage}`,
      ...Deno.args,
    ],
    (s) => console.error(`[demo] ${s}`),
  );
}

if (import.meta.main) Deno.exit(await main());
