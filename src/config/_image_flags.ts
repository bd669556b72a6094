/**
 * Image pull settings (kept apart from the main table to keep it short): pull parallelism and
 * rate, the credential verification of images already on the node, credential provider
 * plugins, and the checks upstream's validation makes of them.
 */
import { ConfigError } from "../util/errors.ts";
import { allowlistPattern, VERIFICATION_POLICIES } from "../images/mod.ts";
import { errorMessage } from "../util/log.ts";
import { formatDuration } from "./duration.ts";
import { featureEnabled } from "./_feature_gates.ts";
import { type FlagDef, scalar } from "./_flag_kit.ts";
import { parseBool, parseInt32 } from "./_values.ts";
import type { AgentConfig } from "./types.ts";

type Key = keyof AgentConfig;

/** Pull parallelism and rate. */
export const IMAGE_PULL_FLAGS: readonly FlagDef[] = [
  scalar(
    "serialize-image-pulls",
    "serializeImagePulls",
    undefined,
    "Pull images one at a time (the default); false pulls up to maxParallelImagePulls at once.",
    parseBool,
  ),
  scalar(
    "registry-qps",
    "registryPullQPS",
    "int32",
    "Image pulls started per second at most (0: no limit).",
    parseInt32,
  ),
  scalar(
    "registry-burst",
    "registryBurst",
    "int32",
    "Image pulls that may start at once above --registry-qps.",
    parseInt32,
  ),
];

/** Credential provider plugins (the plugin code loads only when these are set). */
export const CREDENTIAL_PROVIDER_FLAGS: readonly FlagDef[] = [
  scalar(
    "image-credential-provider-config",
    "imageCredentialProviderConfig",
    "string",
    "A CredentialProviderConfig file (YAML or JSON): the plugins that supply registry " +
      "credentials and the images they serve.",
    (raw) => raw,
  ),
  scalar(
    "image-credential-provider-bin-dir",
    "imageCredentialProviderBinDir",
    "string",
    "The directory of the credential provider plugins' executables.",
    (raw) => raw,
  ),
];

/**
 * Upstream's v1beta1 defaulting of a config file: without serializeImagePulls, a
 * maxParallelImagePulls of 2 or more turns serial pulls off.
 */
export function defaultImageFileFields(cfg: AgentConfig, set: ReadonlySet<Key>): void {
  if (!set.has("serializeImagePulls") && set.has("maxParallelImagePulls")) {
    cfg.serializeImagePulls = cfg.maxParallelImagePulls < 2;
  }
}

/** Checks the values upstream rejects at startup; `where` names the flag or field. */
export function validateImages(
  cfg: AgentConfig,
  opts: { where: (key: Key) => string; isSet: (key: Key) => boolean },
): void {
  const bad = (key: Key, msg: string): never => {
    throw new ConfigError(opts.where(key), msg);
  };
  if (cfg.registryBurst < 0) {
    bad("registryBurst", `${cfg.registryBurst} must not be a negative number`);
  }
  if (cfg.registryPullQPS < 0) {
    bad("registryPullQPS", `${cfg.registryPullQPS} must not be a negative number`);
  }
  if (opts.isSet("maxParallelImagePulls")) {
    if (cfg.maxParallelImagePulls < 1) {
      bad("maxParallelImagePulls", `${cfg.maxParallelImagePulls} must be a positive number`);
    }
    if (cfg.serializeImagePulls && cfg.maxParallelImagePulls > 1) {
      bad(
        "maxParallelImagePulls",
        "cannot be larger than 1 unless SerializeImagePulls (--serialize-image-pulls) is set to false",
      );
    }
  }
  if (cfg.imageMaximumGCAgeMs < 0) bad("imageMaximumGCAgeMs", "must not be negative");
  if (cfg.imageMaximumGCAgeMs > 0 && cfg.imageMaximumGCAgeMs <= cfg.imageMinimumGCAgeMs) {
    bad(
      "imageMaximumGCAgeMs",
      `${formatDuration(cfg.imageMaximumGCAgeMs)} must be greater than imageMinimumGCAge ` +
        formatDuration(cfg.imageMinimumGCAgeMs),
    );
  }
  validateVerification(cfg, opts, bad);
}

function validateVerification(
  cfg: AgentConfig,
  opts: { isSet: (key: Key) => boolean },
  bad: (key: Key, msg: string) => never,
): void {
  const policy = cfg.imagePullCredentialsVerificationPolicy;
  const allowlist = cfg.preloadedImagesVerificationAllowlist;
  if (!featureEnabled(cfg, "KubeletEnsureSecretPulledImages")) {
    if (opts.isSet("imagePullCredentialsVerificationPolicy")) {
      bad(
        "imagePullCredentialsVerificationPolicy",
        "must not be set if KubeletEnsureSecretPulledImages feature gate is not enabled",
      );
    }
    if (allowlist.length > 0) {
      bad(
        "preloadedImagesVerificationAllowlist",
        "must not be set if KubeletEnsureSecretPulledImages feature gate is not enabled",
      );
    }
    return;
  }
  if (!(VERIFICATION_POLICIES as readonly string[]).includes(policy)) {
    bad(
      "imagePullCredentialsVerificationPolicy",
      `option ${JSON.stringify(policy)} is not valid; valid options are ` +
        VERIFICATION_POLICIES.map((p) => JSON.stringify(p)).join(", "),
    );
  }
  if (allowlist.length > 0 && policy !== "NeverVerifyAllowlistedImages") {
    bad(
      "preloadedImagesVerificationAllowlist",
      `can't be set if imagePullCredentialsVerificationPolicy is not "NeverVerifyAllowlistedImages"`,
    );
  }
  for (const p of allowlist) {
    try {
      allowlistPattern(p);
    } catch (err) {
      bad("preloadedImagesVerificationAllowlist", `invalid image pattern: ${errorMessage(err)}`);
    }
  }
}
