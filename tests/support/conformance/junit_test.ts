import assert from "node:assert/strict";
import { messageOf, parseJUnit, unescapeXml } from "./_junit.ts";

/** What the e2e suite writes (Ginkgo's JUnit, message attribute omitted, sorted by name). */
const SAMPLE = `<?xml version="1.0" encoding="UTF-8"?>
  <testsuites tests="5" disabled="3" errors="0" failures="1" time="61.5">
      <testsuite name="Kubernetes e2e suite" package="/tmp" tests="5" disabled="0" skipped="3" errors="0" failures="1" time="61.5" timestamp="2026-11-28T05:00:00">
          <properties>
              <property name="SuiteSucceeded" value="false"></property>
          </properties>
          <testcase name="[SynchronizedBeforeSuite]" classname="Kubernetes e2e suite" status="passed" time="3.1"></testcase>
          <testcase name="[It] [sig-apps] Deployment should run [Conformance]" classname="Kubernetes e2e suite" status="skipped" time="0">
              <skipped message="skipped"></skipped>
          </testcase>
          <testcase name="[It] [sig-node] Downward API volume should provide container&#39;s cpu limit [NodeConformance] [Conformance]" classname="Kubernetes e2e suite" status="failed" time="301.2">
              <failure message="" type="failed">[FAILED] wait for pod &#34;downwardapi-volume-1&#34; to succeed:&#xA;expected pod status.phase Succeeded, got Pending&#xA;In [It] at: k8s.io/kubernetes/test/e2e/framework/pod/output/output.go:299 @ 11/28/26 05:05:00.1&#xA;</failure>
              <system-err>timeline</system-err>
          </testcase>
          <testcase name="[It] [sig-node] Pods should get a host IP [NodeConformance] [Conformance]" classname="Kubernetes e2e suite" status="passed" time="8.4"></testcase>
          <testcase name="[It] [sig-node] Sysctls should support sysctls [NodeConformance]" classname="Kubernetes e2e suite" status="skipped" time="0.1">
              <skipped message="skipped - Only supported for node OS distro [gci ubuntu] (not debian)"></skipped>
          </testcase>
          <testcase name="[It] [sig-node] Probing container should be restarted [NodeConformance]" classname="Kubernetes e2e suite" status="timedout" time="600">
              <failure message="" type="timedout">[TIMEDOUT] A suite timeout occurred&#xA;In [It] at: probe.go:10 @ 11/28/26 05:15:00.1&#xA;</failure>
          </testcase>
          <testcase name="[ReportAfterSuite] Kubernetes e2e JUnit report" classname="Kubernetes e2e suite" status="passed" time="0.01"></testcase>
      </testsuite>
  </testsuites>`;

Deno.test("parseJUnit keeps the It specs that ran, by full text without the node type", () => {
  const run = parseJUnit(SAMPLE);
  assert.deepEqual([...run.specs.keys()], [
    "[sig-node] Downward API volume should provide container's cpu limit [NodeConformance] [Conformance]",
    "[sig-node] Pods should get a host IP [NodeConformance] [Conformance]",
    "[sig-node] Sysctls should support sysctls [NodeConformance]",
    "[sig-node] Probing container should be restarted [NodeConformance]",
  ]);
  assert.deepEqual(run.suiteFailures, []);
});

Deno.test("parseJUnit reads the failure message from the body Ginkgo writes", () => {
  const run = parseJUnit(SAMPLE);
  const failed = [...run.specs.values()][0];
  assert.equal(failed.outcome, "failed");
  assert.equal(failed.state, "failed");
  assert.equal(failed.seconds, 301.2);
  assert.equal(
    failed.message,
    'wait for pod "downwardapi-volume-1" to succeed:\nexpected pod status.phase Succeeded, got Pending',
  );
  const timedOut = run.specs.get(
    "[sig-node] Probing container should be restarted [NodeConformance]",
  );
  assert.deepEqual([timedOut?.outcome, timedOut?.state], ["failed", "timedout"]);
  assert.equal(timedOut?.message, "A suite timeout occurred");
});

Deno.test("parseJUnit keeps a spec that skipped itself, with its reason", () => {
  const s = parseJUnit(SAMPLE).specs.get(
    "[sig-node] Sysctls should support sysctls [NodeConformance]",
  );
  assert.equal(s?.outcome, "skipped");
  assert.equal(s?.message, "Only supported for node OS distro [gci ubuntu] (not debian)");
});

Deno.test("parseJUnit reports a failed suite node apart from the specs", () => {
  const xml = `<testcase name="[SynchronizedBeforeSuite]" status="failed" time="1">
    <failure message="" type="failed">[FAILED] no nodes are Ready&#xA;In [SynchronizedBeforeSuite] at: e2e.go:1 @ x&#xA;</failure></testcase>`;
  const run = parseJUnit(xml);
  assert.equal(run.specs.size, 0);
  assert.deepEqual(run.suiteFailures, [
    { node: "[SynchronizedBeforeSuite]", message: "no nodes are Ready" },
  ]);
});

Deno.test("parseJUnit without Ginkgo's status reads the outcome from the children", () => {
  const xml = `<testcase name="a" time="1"/>
    <testcase name="b" time="2"><failure message="boom" type="failed">body</failure></testcase>`;
  const run = parseJUnit(xml);
  assert.equal(run.specs.get("a")?.outcome, "passed");
  assert.deepEqual(
    [run.specs.get("b")?.outcome, run.specs.get("b")?.message],
    ["failed", "boom"],
  );
});

Deno.test("messageOf falls back to the body's first lines when it has no Ginkgo header", () => {
  assert.equal(messageOf(undefined, "plain text\nsecond"), "plain text\nsecond");
  assert.equal(messageOf(undefined, "  "), undefined);
  assert.equal(messageOf("attr wins", "[FAILED] body\nIn [It] at: x"), "attr wins");
});

Deno.test("unescapeXml decodes named and numeric references", () => {
  assert.equal(unescapeXml("&lt;a&gt; &amp; &quot;&apos; &#34;&#39;&#xA;&#x9;"), `<a> & "' "'\n\t`);
  assert.equal(unescapeXml("&unknown;"), "&unknown;");
});

Deno.test("parseJUnit keeps a failed spec's node events that say what went wrong", () => {
  const xml = `<testcase name="[It] dapi" status="failed" time="300">
    <failure message="" type="failed">[FAILED] Timed out after 300s.&#xA;In [It] at: x:1 @ y&#xA;</failure>
    <system-err>  I1128 dump.go:53] At 2026 - event for p1: {kubelet conformance-denolet} Pulled: Container image &#34;busybox&#34; already present&#xA;  I1128 dump.go:53] At 2026 - event for p1: {kubelet conformance-denolet} FailedMount: MountVolume.SetUp failed for volume &#34;podinfo&#34; : divisor: must be positive&#xA;  I1128 dump.go:53] At 2026 - event for p1: {default-scheduler } Scheduled: assigned&#xA;</system-err></testcase>`;
  const s = parseJUnit(xml).specs.get("dapi");
  assert.deepEqual(s?.events, [
    'FailedMount: MountVolume.SetUp failed for volume "podinfo" : divisor: must be positive',
  ]);
});
