import assert from "node:assert/strict";
import { kubeletIdRange, UsernsError } from "../../src/userns/mod.ts";

const PASSWD =
  "root:x:0:0:root:/root:/bin/bash\nkubelet:x:998:998::/var/lib/kubelet:/usr/sbin/nologin\n";

function files(map: Record<string, string>) {
  return (path: string) => Promise.resolve(map[path]);
}

Deno.test("without a kubelet user every ID from idsPerPod up is the range, as upstream", async () => {
  const read = files({ "/etc/passwd": "root:x:0:0:root:/root:/bin/bash\n" });
  assert.deepEqual(await kubeletIdRange(read, { idsPerPod: 65536 }), {
    firstId: 65536,
    length: 2 ** 32 - 65536,
    source: "default",
  });
  // No passwd at all reads the same.
  assert.equal((await kubeletIdRange(files({}), { idsPerPod: 131072 })).firstId, 131072);
});

Deno.test("the kubelet user's subordinate range, by name or by uid, is the range", async () => {
  const byName = files({
    "/etc/passwd": PASSWD,
    "/etc/subuid": "# ranges\nalice:100000:65536\nkubelet:65536:7208960\n",
    "/etc/subgid": "alice:100000:65536\nkubelet:65536:7208960\n",
  });
  assert.deepEqual(await kubeletIdRange(byName, { idsPerPod: 65536 }), {
    firstId: 65536,
    length: 7208960,
    source: "subid",
  });
  const byUid = files({
    "/etc/passwd": PASSWD,
    "/etc/subuid": "998:131072:655360\n",
    "/etc/subgid": "998:131072:655360\n",
  });
  assert.equal((await kubeletIdRange(byUid, { idsPerPod: 65536 })).firstId, 131072);
});

Deno.test("a kubelet user without one matching range stops the start, as upstream", async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [
      { "/etc/passwd": PASSWD, "/etc/subgid": "kubelet:65536:65536\n" },
      /error retrieving additional uids for user "kubelet"/,
    ],
    [
      {
        "/etc/passwd": PASSWD,
        "/etc/subuid": "kubelet:65536:65536\nkubelet:196608:65536\n",
        "/etc/subgid": "kubelet:65536:65536\n",
      },
      /it must contain only one/,
    ],
    [
      {
        "/etc/passwd": PASSWD,
        "/etc/subuid": "kubelet:65536:65536\n",
        "/etc/subgid": "kubelet:131072:65536\n",
      },
      /mismatched subuids and subgids for user "kubelet"/,
    ],
    [
      {
        "/etc/passwd": PASSWD,
        "/etc/subuid": "kubelet:x:65536\n",
        "/etc/subgid": "kubelet:65536:65536\n",
      },
      /invalid line "kubelet:x:65536"/,
    ],
  ];
  for (const [map, want] of cases) {
    await assert.rejects(
      kubeletIdRange(files(map), { idsPerPod: 65536 }),
      (e: Error) => e instanceof UsernsError && want.test(e.message),
    );
  }
});
