/**
 * A stand-in for main.ts used by agent_test.ts: serves /healthz and /pods on --read-only-port,
 * echoes its arguments and DENO_DIR, and exits 0 on SIGTERM (or ignores it with --ignore-sigterm).
 */
const args = Deno.args;
const flag = (name: string) => args[args.indexOf(name) + 1];
const port = Number(flag("--read-only-port"));
console.log(`stub agent args: ${args.join(" ")}`);
console.log(`stub agent DENO_DIR=${Deno.env.get("DENO_DIR") ?? ""}`);
if (args.includes("--exit-now")) Deno.exit(3);

const ac = new AbortController();
const server = Deno.serve(
  { port, hostname: "127.0.0.1", signal: ac.signal, onListen() {} },
  (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/healthz") return new Response("ok");
    if (path === "/pods") {
      return Response.json({ kind: "PodList", apiVersion: "v1", metadata: {}, items: [] });
    }
    return new Response("not found", { status: 404 });
  },
);
Deno.addSignalListener("SIGTERM", () => {
  if (args.includes("--ignore-sigterm")) {
    console.log("ignoring SIGTERM");
    return;
  }
  console.log("stub agent: SIGTERM, shutting down");
  ac.abort();
});
await server.finished;
