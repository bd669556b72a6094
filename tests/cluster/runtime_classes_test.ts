import assert from "node:assert/strict";
import type { V1RuntimeClass } from "@kubernetes/client-node";
import type { ReflectorOptions } from "../../src/apiclient/mod.ts";
import {
  createRuntimeClasses,
  RuntimeClassesNotSyncedError,
} from "../../src/cluster/runtime_classes.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { isKind, NotFoundError } from "../../src/util/errors.ts";
import { nullLogger } from "../../src/util/log.ts";
import { ScriptedApi } from "./_fakes.ts";

const rc = (name: string, handler: string): V1RuntimeClass => ({ metadata: { name }, handler });

/** RuntimeClasses whose reflector the test drives by hand; `started` tells whether it ran. */
function driven() {
  let opts: ReflectorOptions<V1RuntimeClass> | undefined;
  let syncs = 0;
  const classes = createRuntimeClasses({
    client: new ScriptedApi(),
    clock: new FakeClock(0),
    logger: nullLogger,
    onSynced: () => syncs++,
    reflector: (o, run) => {
      opts = o;
      return new Promise((resolve) => run.signal.addEventListener("abort", () => resolve()));
    },
  });
  const ac = new AbortController();
  const done = classes.run({ signal: ac.signal });
  return {
    classes,
    reflector: () => opts,
    syncs: () => syncs,
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

Deno.test("runtime classes: no class is the default handler, and starts no watch", async () => {
  const d = driven();
  assert.equal(d.classes.handler(undefined), "");
  assert.equal(d.classes.handler(""), "");
  await Promise.resolve();
  assert.equal(d.reflector(), undefined, "no pod named a class: nothing watched");
  await d.stop();
});

Deno.test("runtime classes: the first lookup starts the watch; a retry after the list resolves", async () => {
  const d = driven();
  assert.throws(() => d.classes.handler("kata"), (e) => isKind(e, RuntimeClassesNotSyncedError));
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(d.reflector()?.path, "/apis/node.k8s.io/v1/runtimeclasses");
  d.reflector()!.onList([rc("kata", "kata-qemu"), rc("gvisor", "runsc")], "1");
  assert.equal(d.syncs(), 1);
  assert.equal(d.classes.handler("kata"), "kata-qemu");
  d.reflector()!.onEvent("MODIFIED", rc("kata", "kata-fc"));
  assert.equal(d.classes.handler("kata"), "kata-fc");
  d.reflector()!.onEvent("DELETED", rc("gvisor", "runsc"));
  await d.stop();
  assert.throws(
    () => d.classes.handler("gvisor"),
    (e) =>
      isKind(e, NotFoundError) &&
      (e as Error).message === 'runtimeclass.node.k8s.io "gvisor" not found',
  );
});
