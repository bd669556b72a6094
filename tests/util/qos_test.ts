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

Deno.test("pod-level resources decide the QoS class when the pod sets them", () => {
  const pod = (resources: object, containers: object[] = [{ name: "c" }]) => ({
    spec: { resources, containers } as never,
  });
  const whole = { cpu: "1", memory: "1Gi" };
  // Containers without resources: the pod's own requests equal to its limits make it Guaranteed.
  assert.equal(qosClass(pod({ requests: whole, limits: whole })), "Guaranteed");
  // Containers that would be Guaranteed do not matter once the pod level is set.
  const guaranteed = { name: "g", resources: { requests: whole, limits: whole } };
  assert.equal(qosClass(pod({ requests: { cpu: "1" } }, [guaranteed])), "Burstable");
  // The kubelet does not default pod-level requests from limits (the API server does).
  assert.equal(qosClass(pod({ limits: whole })), "Burstable");
  assert.equal(qosClass(pod({ limits: { "hugepages-2Mi": "2Mi" } })), "BestEffort");
  // Resources that cannot be pod-level leave the containers to decide.
  assert.equal(
    qosClass(pod({ requests: { "ephemeral-storage": "1Gi" } }, [guaranteed])),
    "Guaranteed",
  );
});
