/**
 * The wall clock stepping back (NTP at boot on a box without an RTC) must not stretch any
 * interval the agent measures itself: the API rate limiter, the review caches, credential file
 * refresh, back-offs, the PLEG cache's freshness, CPU rates. Each test steps the fake wall clock
 * back an hour and checks the interval still lasts what it should on the monotonic clock.
 */
import assert from "node:assert/strict";
import { RateLimiter } from "../../src/apiclient/_rate_limiter.ts";
import { CredentialSource } from "../../src/apiclient/_credentials.ts";
import { TtlCache } from "../../src/server/auth/_ttl_cache.ts";
import { Backoff } from "../../src/util/backoff.ts";
import { RepeatedFailures } from "../../src/util/repeated_failures.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { createPleg, createPodStatusCache } from "../../src/pleg/mod.ts";
import { FakePodRuntime, runningPod } from "../pleg/_fake_runtime.ts";

const HOUR = 3_600_000;

Deno.test("FakeClock.stepWall moves the wall reading only; timers keep monotonic time", async () => {
  const clock = new FakeClock();
  const wall0 = clock.now();
  const mono0 = clock.monotonic();
  let fired = false;
  clock.sleep(1_000).then(() => fired = true);
  clock.stepWall(-HOUR);
  assert.equal(clock.now(), wall0 - HOUR);
  assert.equal(clock.monotonic(), mono0);
  await clock.advance(1_000);
  assert.equal(fired, true);
  assert.equal(clock.now(), wall0 - HOUR + 1_000);
  assert.equal(clock.monotonic(), mono0 + 1_000);
});

Deno.test("the API rate limiter paces at qps after the wall clock steps back an hour", async () => {
  const clock = new FakeClock();
  const limiter = new RateLimiter({ qps: 2, burst: 1, clock });
  await limiter.acquire(); // the burst
  clock.stepWall(-HOUR);
  let granted = false;
  const next = limiter.acquire().then(() => granted = true);
  await clock.advance(500);
  assert.equal(granted, true, "the next request waits 1/qps, not an hour");
  await next;
});

Deno.test("a cached review answer expires after its TTL though the wall clock stepped back", async () => {
  const clock = new FakeClock();
  const cache = new TtlCache<string>(clock);
  cache.set("token", "allowed", 5 * 60_000);
  clock.stepWall(-HOUR);
  await clock.advance(5 * 60_000 - 1);
  assert.equal(cache.get("token"), "allowed");
  await clock.advance(1);
  assert.equal(cache.get("token"), undefined, "the TTL is counted on the monotonic clock");
});

Deno.test("token files are re-read every minute after the wall clock steps back", async () => {
  const clock = new FakeClock();
  let token = "first";
  const files = new CredentialSource({ server: "https://x", namespace: "d", tokenFile: "/t" }, {
    clock,
    readFile: () => Promise.resolve(token),
  });
  assert.equal((await files.get()).authorization, "Bearer first");
  token = "second";
  clock.stepWall(-HOUR);
  await clock.advance(60_000);
  assert.equal((await files.get()).authorization, "Bearer second");
});

Deno.test("an exec credential's expiry stays a wall time: a step forward past it asks again", async () => {
  const clock = new FakeClock();
  let runs = 0;
  const source = new CredentialSource({
    server: "https://x",
    namespace: "default",
    exec: { apiVersion: "client.authentication.k8s.io/v1", command: "p", args: [], env: {} },
  }, {
    clock,
    runPlugin: () => {
      runs++;
      const expirationTimestamp = new Date(clock.now() + 60_000).toISOString();
      return Promise.resolve(
        JSON.stringify({ status: { token: `t${runs}`, expirationTimestamp } }),
      );
    },
  });
  assert.equal((await source.get()).authorization, "Bearer t1");
  clock.stepWall(HOUR);
  assert.equal((await source.get()).authorization, "Bearer t2");
});

Deno.test("a monotonic back-off ends on time after the wall clock steps back", async () => {
  const clock = new FakeClock();
  const backoff = new Backoff({ initialMs: 10_000, maxMs: 300_000, clock, monotonic: true });
  const failedAt = clock.monotonic();
  backoff.next("image", failedAt);
  clock.stepWall(-HOUR);
  await clock.advance(9_999);
  assert.equal(backoff.inBackOffSince("image", failedAt), true);
  await clock.advance(1);
  assert.equal(backoff.inBackOffSince("image", failedAt), false);
});

Deno.test("repeated failures are logged again after the interval though the wall clock stepped back", async () => {
  const clock = new FakeClock();
  const lines: string[] = [];
  const logger = {
    ...nullLogger,
    warn: (msg: string) => lines.push(msg),
    child: () => logger,
  };
  const failures = new RepeatedFailures(logger, { clock, everyMs: 60_000 });
  failures.warn("k", "Cannot list");
  clock.stepWall(-HOUR);
  await clock.advance(60_000);
  failures.warn("k", "Cannot list");
  assert.equal(lines.length, 2);
});

Deno.test("a pod worker's wait for a fresh status is not held an hour by a wall clock step back", async () => {
  const clock = new FakeClock();
  const runtime = new FakePodRuntime(clock);
  const cache = createPodStatusCache({ clock });
  const pleg = createPleg({ runtime, cache, clock, logger: nullLogger });
  runtime.pods = [runningPod("u1", { sandboxes: [["s1", "ready"]] })];
  await pleg.relist(() => {});
  // What the pod worker records when its sync ends, then waits past on its next sync.
  const lastSyncTime = clock.monotonic();
  clock.stepWall(-HOUR);
  await clock.advance(1_000);
  let fresh = false;
  const wait = cache.getNewerThan("u1", lastSyncTime + 1).then(() => fresh = true);
  await pleg.relist(() => {});
  await clock.advance(0);
  assert.equal(fresh, true, "the next relist satisfies the worker");
  await wait;
});
