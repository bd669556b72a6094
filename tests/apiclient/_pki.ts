/** A throwaway CA and a 127.0.0.1 server certificate (openssl), and kubeconfig text, for the client tests. */

async function openssl(args: string[], cwd: string) {
  const out = await new Deno.Command("openssl", { args, cwd, stdout: "null", stderr: "piped" })
    .output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
}

/** A CA and a server certificate for 127.0.0.1, in a temp dir. */
export async function makePki(): Promise<{ dir: string; ca: string; cert: string; key: string }> {
  const dir = await Deno.makeTempDir({ prefix: "denolet-apiclient-" });
  await openssl(
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      "ca.key",
      "-out",
      "ca.crt",
      "-days",
      "1",
      "-subj",
      "/CN=test-ca",
    ],
    dir,
  );
  await openssl(
    [
      "req",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      "server.key",
      "-out",
      "server.csr",
      "-subj",
      "/CN=127.0.0.1",
    ],
    dir,
  );
  await Deno.writeTextFile(`${dir}/ext`, "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  await openssl(
    [
      "x509",
      "-req",
      "-in",
      "server.csr",
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "server.crt",
      "-days",
      "1",
      "-extfile",
      "ext",
    ],
    dir,
  );
  return {
    dir,
    ca: await Deno.readTextFile(`${dir}/ca.crt`),
    cert: await Deno.readTextFile(`${dir}/server.crt`),
    key: await Deno.readTextFile(`${dir}/server.key`),
  };
}

export function kubeconfig(server: string, ca: string, user: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    "current-context": "c",
    contexts: [{ name: "c", context: { cluster: "k", user: "u", namespace: "ns1" } }],
    clusters: [{
      name: "k",
      cluster: { server, "certificate-authority-data": btoa(ca) },
    }],
    users: [{ name: "u", user }],
  });
}
