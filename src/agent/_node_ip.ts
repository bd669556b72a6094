/** The first non-loopback, non-link-local IPv4 address (then IPv6), as the kubelet picks a node IP. */
export function detectNodeIP(): string | undefined {
  let v6: string | undefined;
  for (const ni of Deno.networkInterfaces()) {
    if (ni.name === "lo" || ni.name.startsWith("cni") || ni.name.startsWith("veth")) continue;
    if (
      ni.family === "IPv4" && !ni.address.startsWith("127.") && !ni.address.startsWith("169.254.")
    ) {
      return ni.address;
    }
    if (ni.family === "IPv6" && !v6 && ni.address !== "::1" && !ni.address.startsWith("fe80")) {
      v6 = ni.address;
    }
  }
  return v6;
}
