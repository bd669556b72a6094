import assert from "node:assert/strict";
import { qosClass as kubeletQOS } from "../../src/kubelet/mod.ts";
import { podQOS } from "../../src/runtime/mod.ts";
import { qosClass } from "../../src/util/qos.ts";

Deno.test("the pod status, QoS cgroups and oom_score_adj share one QoS computation", () => {
  assert.equal(kubeletQOS, qosClass);
  assert.equal(podQOS, qosClass);
});

Deno.test("qosClass ignores quantities that do not parse instead of throwing", () => {
  const pod = {
    spec: { containers: [{ name: "c", resources: { limits: { cpu: "lots", memory: "1Gi" } } }] },
  };
  assert.equal(qosClass(pod), "Burstable");
});
