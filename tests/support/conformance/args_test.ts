import assert from "node:assert/strict";
import {
  DEFAULT_FOCUS,
  DEFAULT_SKIP,
  ginkgoArgs,
  isFullRun,
  parseArgs,
  UsageError,
} from "./_args.ts";

Deno.test("conformance args default to the NodeConformance selection on denolet", () => {
  const a = parseArgs([]);
  assert.equal(a.kubelet, "denolet");
  assert.equal(a.focus, DEFAULT_FOCUS);
  assert.equal(a.skip, DEFAULT_SKIP);
  assert.ok(isFullRun(a));
  for (const tag of ["[Serial]", "[Slow]", "[Flaky]", "[Disruptive]", "[Feature:X]", "[Alpha]"]) {
    assert.match(`spec ${tag}`, new RegExp(DEFAULT_SKIP), tag);
  }
  assert.doesNotMatch("spec [FeatureGate:X] [Beta]", new RegExp(DEFAULT_SKIP));
  assert.match("Pods [NodeConformance] [Conformance]", new RegExp(DEFAULT_FOCUS));
});

Deno.test("conformance args: both spellings of a value, a subset focus, the upstream kubelet", () => {
  const a = parseArgs(["--kubelet", "upstream", "--focus=Downward API", "--procs", "6"]);
  assert.deepEqual([a.kubelet, a.focus, a.procs], ["upstream", "Downward API", 6]);
  assert.equal(isFullRun(a), false);
  assert.equal(parseArgs(["--skip="]).skip, "");
  assert.equal(parseArgs(["--report-only"]).reportOnly, true);
  assert.equal(parseArgs(["--containerd", "upstream"]).containerd, "upstream");
});

Deno.test("conformance args refuse what cannot be run", () => {
  for (
    const bad of [
      ["--kubelet", "crio"],
      ["--procs", "0"],
      ["--procs"],
      ["--timeout", "soon"],
      ["--focus="],
      ["--containerd", "docker"],
      ["--bogus"],
    ]
  ) {
    assert.throws(() => parseArgs(bad), UsageError, bad.join(" "));
  }
});

Deno.test("ginkgoArgs: Ginkgo's flags, then the binary, then the suite's flags after --", () => {
  const args = ginkgoArgs(parseArgs(["--procs", "3"]), {
    ginkgo: "/c/ginkgo",
    e2eTest: "/c/e2e.test",
    kubeconfig: "/cp/admin.kubeconfig",
    kubectl: "/cp/kubectl",
    reportDir: "/r/run",
  });
  const split = args.indexOf("--");
  assert.equal(args[split - 1], "/c/e2e.test");
  const own = args.slice(0, split - 1);
  const suite = args.slice(split + 1);
  assert.ok(own.includes("--procs=3"));
  assert.ok(own.includes(`--focus=${DEFAULT_FOCUS}`));
  assert.ok(own.includes(`--skip=${DEFAULT_SKIP}`));
  assert.ok(own.includes("--timeout=4h"));
  assert.deepEqual(
    suite.filter((a) => /^--(kubeconfig|provider|report-dir|kubectl-path)=/.test(a)),
    [
      "--kubeconfig=/cp/admin.kubeconfig",
      "--provider=skeleton",
      "--report-dir=/r/run",
      "--kubectl-path=/cp/kubectl",
    ],
  );
  // An empty skip is no --skip at all (Ginkgo would skip every spec with "").
  assert.ok(
    !ginkgoArgs(parseArgs(["--skip="]), {
      ginkgo: "g",
      e2eTest: "e",
      kubeconfig: "k",
      kubectl: "c",
      reportDir: "r",
    }).some((a) => a.startsWith("--skip")),
  );
});
