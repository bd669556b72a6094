/** The pulled-image records (KubeletEnsureSecretPulledImages) the agent starts with. */
import type { AgentConfig } from "../config/types.ts";
import { featureEnabled } from "../config/mod.ts";
import type { Image } from "../cri/types.ts";
import { PullManager, type VerificationPolicy, verificationPolicy } from "../images/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";

/**
 * The pulled-image records under the root dir (KubeletEnsureSecretPulledImages, on by default),
 * with old intents settled; undefined when the gate is off.
 */
export async function startPullRecords(
  config: AgentConfig,
  deps: { cri: { image: { listImages(): Promise<Image[]> } }; clock: Clock; logger: Logger },
): Promise<PullManager | undefined> {
  if (!featureEnabled(config, "KubeletEnsureSecretPulledImages")) return undefined;
  const manager = new PullManager({
    rootDir: config.rootDir,
    clock: deps.clock,
    logger: deps.logger.child({ component: "image-pull-records" }),
    requireVerification: verificationPolicy(
      config.imagePullCredentialsVerificationPolicy as VerificationPolicy,
      config.preloadedImagesVerificationAllowlist,
    ),
    listImages: () => deps.cri.image.listImages(),
  });
  await manager.initialize();
  return manager;
}
