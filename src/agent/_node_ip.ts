/**
 * The node's IPs (primary first), as upstream reads --node-ip: one address, a dual-stack pair
 * ("10.0.0.5,fd00::5"), or none / "0.0.0.0" / "::" to detect one (IPv6 first with "::").
 */
export function nodeIPsFrom(flag: string, detect = detectNodeIP): string[] {
  const given = flag.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (given.length === 1 && (given[0] === "::" || given[0] === "0.0.0.0")) {
    const found = detect({ preferIPv6: given[0] === "::" });
    return found ? [found] : [];
  }
  if (given.length > 0) return given;
  const found = detect();
  return found ? [found] : [];
}

/** The first non-loopback, non-link-local IPv4 address (then IPv6), as the kubelet picks a node IP. */
export function detectNodeIP(opts: { preferIPv6?: boolean } = {}): string | undefined {
  let v4: string | undefined;
  let v6: string | undefined;
  for (const ni of Deno.networkInterfaces()) {
    if (ni.name === "lo" || ni.name.startsWith("cni") || ni.name.startsWith("veth")) continue;
    if (
      ni.family === "IPv4" && !v4 && !ni.address.startsWith("127.") &&
      !ni.address.startsWith("169.254.")
    ) {
      v4 = ni.address;
    }
    if (ni.family === "IPv6" && !v6 && ni.address !== "::1" && !ni.address.startsWith("fe80")) {
      v6 = ni.address;
    }
  }
  return opts.preferIPv6 ? v6 ?? v4 : v4 ?? v6;
}
