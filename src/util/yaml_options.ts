/**
 * How Kubernetes reads YAML (sigs.k8s.io/yaml over go-yaml v2), as options for the npm `yaml`
 * parser: YAML 1.1, so `on`, `off`, `yes` and `no` are booleans and `0755` is octal; but no
 * timestamps (Kubernetes makes a time only of a field typed so: an unquoted `2024-01-01` stays
 * text) and no base-60 numbers (go-yaml has none: `10:30` stays text).
 */
import type { DocumentOptions, ParseOptions, SchemaOptions } from "yaml";

const TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp";

export const KUBERNETES_YAML: ParseOptions & DocumentOptions & SchemaOptions = {
  version: "1.1",
  customTags: (tags) =>
    tags.filter((t) => {
      const tag = t as { tag?: string; format?: string };
      return tag.tag !== TIMESTAMP_TAG && tag.format !== "TIME";
    }),
};
