/** The image pull fields of a default AgentConfig, for whole-config tests. */
export const IMAGE_DEFAULTS = {
  imagePullCredentialsVerificationPolicy: "NeverVerifyPreloadedImages",
  preloadedImagesVerificationAllowlist: [],
  serializeImagePulls: true,
  maxParallelImagePulls: 0,
  registryPullQPS: 5,
  registryBurst: 10,
  imageMaximumGCAgeMs: 0,
  imageCredentialProviderConfig: "",
  imageCredentialProviderBinDir: "",
} as const;
