/**
 * Writes `tests/config/_upstream_v1_37.json`: the names of the v1.37 KubeletConfiguration's
 * top-level fields and of the kubelet's command-line flags (Linux), read from the upstream
 * source the control plane build downloaded. The config tests check denolet's lists against it,
 * so that a setting upstream gains is never accepted without a decision.
 *
 *   deno run -A tests/support/upstream_config_names.ts
 */
import { devDir } from "./containerd.ts";
import { buildLayout, KUBERNETES_VERSION } from "./_control_plane_build.ts";

const OUT = new URL("../config/_upstream_v1_37.json", import.meta.url);

/** JSON names of the fields of `struct` in Go source `text`. */
export function structFields(text: string, struct: string): string[] {
  const start = text.indexOf(`type ${struct} struct {`);
  const body = text.slice(start, text.indexOf("\n}\n", start));
  return [...body.matchAll(/^\t[A-Z]\w*\s+[^\n`]+`json:"(\w+)/gm)].map((m) => m[1]);
}

/** Flag names registered with pflag's `Var`-style calls in Go source `text`. */
export function flagNames(text: string): string[] {
  return [...text.matchAll(/\.\w*Var\w*\([^"\n]*"([a-z0-9-]+)"/g)].map((m) => m[1]);
}

if (import.meta.main) {
  const mod = `${buildLayout(devDir()).root}/go/mod/k8s.io`;
  const staging = KUBERNETES_VERSION.replace(/^v1\./, "v0.");
  const read = (p: string) => Deno.readTextFile(p);
  const fields = structFields(
    await read(`${mod}/kubelet@${staging}/config/v1beta1/types.go`),
    "KubeletConfiguration",
  );
  const options = await read(
    `${mod}/kubernetes@${KUBERNETES_VERSION}/cmd/kubelet/app/options/options.go`,
  );
  const logs = await read(`${mod}/component-base@${staging}/logs/api/v1/options.go`);
  const flags = new Set([
    ...flagNames(options),
    ...flagNames(logs),
    // The log flush frequency's name is a constant; cAdvisor's housekeeping interval is
    // registered from Go's flag set (globalflags_linux.go); --version and --help are global.
    "log-flush-frequency",
    "housekeeping-interval",
    "version",
    "help",
  ]);
  const out = {
    version: KUBERNETES_VERSION,
    fields: fields.filter((f) => f !== "apiVersion" && f !== "kind").sort(),
    flags: [...flags].sort(),
  };
  await Deno.writeTextFile(OUT, JSON.stringify(out, null, 1) + "\n");
  console.log(`wrote ${out.fields.length} fields and ${out.flags.length} flags to ${OUT.pathname}`);
}
