/**
 * How Kubernetes reads YAML (sigs.k8s.io/yaml over go-yaml v2), as options for the npm `yaml`
 * parser: YAML 1.1, so `on`, `off`, `yes` and `no` are booleans; and no timestamps, since
 * Kubernetes makes a time only of a field typed so (an unquoted `2024-01-01` stays text).
 */
import type { DocumentOptions, ParseOptions, SchemaOptions } from "yaml";

const TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp";

export const KUBERNETES_YAML: ParseOptions & DocumentOptions & SchemaOptions = {
  version: "1.1",
  customTags: (tags) => tags.filter((t) => (t as { tag?: string }).tag !== TIMESTAMP_TAG),
};
