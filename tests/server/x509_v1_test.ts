/**
 * Why X.509 v1 client certificates stay refused (src/server/_peer.ts), proved against the TLS
 * stack itself: a Go client presents a trusted v1 certificate but signs the handshake with a key
 * of its own, which only the holder of the certificate's key should be able to do. Deno 2.9's
 * node:tls accepts that handshake (it cannot parse a v1 certificate to check the signature and
 * lets it pass), so the certificate proves nothing and the node API must answer 401.
 *
 * The test also trips when a Deno upgrade starts refusing such handshakes (deno PR #36248): then
 * v1 certificates that pass the chain check can be accepted, as the upstream kubelet does.
 */
import assert from "node:assert/strict";
import { opensslCA } from "./_certs.ts";
import { startCertOnlyNodeApi } from "./_x509_server.ts";

/** Presents the certificate it is given, signs with a fresh key, prints the answer or the error. */
const IMPOSTOR_GO = `package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"encoding/pem"
	"fmt"
	"io"
	"os"
)

func main() {
	certPEM, _ := os.ReadFile(os.Args[2])
	block, _ := pem.Decode(certPEM)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	cert := tls.Certificate{Certificate: [][]byte{block.Bytes}, PrivateKey: key}
	version := uint16(tls.VersionTLS13)
	if os.Args[3] == "1.2" {
		version = tls.VersionTLS12
	}
	conf := &tls.Config{InsecureSkipVerify: true, MinVersion: version, MaxVersion: version,
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }}
	c, err := tls.Dial("tcp", os.Args[1], conf)
	if err != nil {
		fmt.Println("HANDSHAKE FAILED:", err)
		return
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /pods HTTP/1.1\\r\\nHost: n\\r\\nConnection: close\\r\\n\\r\\n")
	body, err := io.ReadAll(c)
	if len(body) == 0 {
		fmt.Println("HANDSHAKE FAILED:", err)
		return
	}
	fmt.Println(string(body))
}
`;

async function buildImpostor(dir: string): Promise<string> {
  await Deno.writeTextFile(`${dir}/main.go`, IMPOSTOR_GO);
  const out = await new Deno.Command("go", {
    args: ["build", "-o", "impostor", "main.go"],
    cwd: dir,
    env: { CGO_ENABLED: "0" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return `${dir}/impostor`;
}

Deno.test("TLS: a v1 client certificate presented without its key is refused; the TLS stack alone would let it in", async () => {
  const dir = await Deno.makeTempDir({ prefix: "denolet-x509v1-" });
  const ca = await opensslCA();
  const v1 = await ca.issue("/O=system:masters/CN=kube-apiserver");
  await Deno.writeTextFile(`${dir}/v1.pem`, v1.certPem);
  const impostor = await buildImpostor(dir);
  const server = await startCertOnlyNodeApi(ca.certPem);
  try {
    for (const version of ["1.3", "1.2"]) {
      const out = await new Deno.Command(impostor, {
        args: [`127.0.0.1:${server.port}`, `${dir}/v1.pem`, version],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const answer = new TextDecoder().decode(out.stdout);
      // The property that matters: the impostor never becomes kube-apiserver.
      assert.doesNotMatch(answer, /HTTP\/1\.1 200/, `TLS ${version}: ${answer}`);
      // The tripwire: once this fails, Deno checks a v1 certificate's handshake signature and
      // _peer.ts may accept v1 certificates whose chain verifies (issue 25, point 12).
      assert.match(
        answer,
        /HTTP\/1\.1 401/,
        `TLS ${version}: the TLS stack now refuses a v1 certificate signed with the wrong key; ` +
          `v1 client certificates can be accepted. Got: ${answer}`,
      );
    }
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
