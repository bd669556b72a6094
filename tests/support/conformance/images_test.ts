import assert from "node:assert/strict";
import { countProgress } from "./_ginkgo.ts";
import { E2E_IMAGES, parseLdd } from "./_images.ts";

Deno.test("parseLdd lists every library path, the loader included, and no vdso", () => {
  const out = [
    "\tlinux-vdso.so.1 (0x00007ffd5a7f1000)",
    "\tlibcurl.so.4 => /lib/x86_64-linux-gnu/libcurl.so.4 (0x00007f6b1c000000)",
    "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f6b1be00000)",
    "\t/lib64/ld-linux-x86-64.so.2 (0x00007f6b1c1c3000)",
  ].join("\n");
  assert.deepEqual(parseLdd(out), [
    "/lib/x86_64-linux-gnu/libcurl.so.4",
    "/lib/x86_64-linux-gnu/libc.so.6",
    "/lib64/ld-linux-x86-64.so.2",
  ]);
});

Deno.test("the e2e images carry their exact upstream names (manifest.go at v1.37.2)", () => {
  assert.equal(E2E_IMAGES.busybox, "registry.k8s.io/e2e-test-images/busybox:1.37.0-2");
  assert.equal(E2E_IMAGES.agnhost, "registry.k8s.io/e2e-test-images/agnhost:2.66.1");
  assert.equal(E2E_IMAGES.pause, "registry.k8s.io/pause:3.10.2");
  assert.equal(new Set(Object.values(E2E_IMAGES)).size, Object.keys(E2E_IMAGES).length);
});

Deno.test("countProgress counts finished specs and failures in Ginkgo's parallel output", () => {
  const log = "••S•\n------------------------------\n• [FAILED] [301.2 seconds]\n" +
    "[sig-node] x\n------------------------------\n••\n  • [TIMEDOUT] [600 seconds]\n";
  assert.deepEqual(countProgress(log), { done: 7, failed: 2 });
});
