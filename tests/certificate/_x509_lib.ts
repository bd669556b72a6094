/**
 * @peculiar/x509, the X.509 and PKCS#10 library on WebCrypto that writes denolet's certificate
 * requests. Loaded on the first request, not with the module: once loaded it stays, and costs
 * +6–7 MB of idle RSS in the single file (+9 MB from source; tests/bench/join_footprint.ts,
 * README), so a node with a ready-made kubeconfig never pays it, one that joins or rotates does.
 * Its dependency tsyringe needs the Reflect metadata polyfill installed first (a global, as the
 * library documents).
 */
type X509 = typeof import("@peculiar/x509");

let loading: Promise<X509> | undefined;

/** The library, set to use the runtime's WebCrypto. Loads it once. */
export function x509Library(): Promise<X509> {
  loading ??= (async () => {
    await import("reflect-metadata");
    const lib = await import("@peculiar/x509");
    lib.cryptoProvider.set(crypto);
    return lib;
  })();
  return loading;
}
