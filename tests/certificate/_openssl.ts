/**
 * A certificate request as openssl reads it: an independent parser, so a test of the requests
 * denolet writes does not check them with the library that wrote them.
 */

/** `openssl req -noout -text -verify` of `csrPem`: its text, then "verify OK" (or the failure). */
export async function opensslText(csrPem: string): Promise<string> {
  const p = new Deno.Command("openssl", {
    args: ["req", "-noout", "-text", "-verify"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = p.stdin.getWriter();
  await w.write(new TextEncoder().encode(csrPem));
  await w.close();
  const out = await p.output();
  return new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
}
