/**
 * Image references as github.com/distribution/reference reads them: the grammar (domain with
 * optional port, lowercase path components, tag, digest) and Docker's normalisation
 * (`busybox` is `docker.io/library/busybox`). The keyring matches credentials against the
 * normalised repository; the pulled-image records key on the name as the pod wrote it, without
 * tag or digest.
 */
import { DenoletError } from "./errors.ts";

/** A reference that does not parse; the message is distribution/reference's. */
export class ImageNameError extends DenoletError {}

export interface ImageName {
  /** Registry host with optional port, e.g. `docker.io`, `127.0.0.1:5000`. */
  domain: string;
  /** Repository path inside the registry, e.g. `library/busybox`. */
  path: string;
  tag?: string;
  digest?: string;
}

const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const IPV6 = "\\[(?:[a-fA-F0-9:]+)\\]";
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|${IPV6})(?::[0-9]+)?`;
const PATH_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
const TAG = "[\\w][\\w.-]{0,127}";
const DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const HEX64 = /^[a-f0-9]{64}$/;
const NAME_TOTAL_LENGTH_MAX = 255;

/** `reference.Parse`: the name as written (not normalised), its tag and digest. */
export function parseReference(image: string): { name: string; tag?: string; digest?: string } {
  if (image === "") throw new ImageNameError("repository name must have at least one component");
  const m = REFERENCE.exec(image);
  if (!m) {
    const lower = image.toLowerCase();
    if (lower !== image && REFERENCE.test(lower)) {
      throw new ImageNameError("repository name must be lowercase");
    }
    throw new ImageNameError("invalid reference format");
  }
  if (m[1].length > NAME_TOTAL_LENGTH_MAX) {
    throw new ImageNameError(
      `repository name must not be more than ${NAME_TOTAL_LENGTH_MAX} characters`,
    );
  }
  return { name: m[1], tag: m[2], digest: m[3] };
}

/**
 * `reference.ParseNormalizedNamed`: a short name gets Docker Hub's domain (and `library/` when
 * it has no path), `index.docker.io` becomes `docker.io`.
 */
export function parseNormalizedImage(image: string): ImageName {
  if (HEX64.test(image)) {
    throw new ImageNameError(
      `invalid repository name (${image}), cannot specify 64-byte hexadecimal strings`,
    );
  }
  const { domain, remainder } = splitDockerDomain(image);
  const tagSep = remainder.indexOf(":");
  const remoteName = tagSep < 0 ? remainder : remainder.slice(0, tagSep);
  if (remoteName.toLowerCase() !== remoteName) {
    throw new ImageNameError(
      "invalid reference format: repository name (" + remoteName + ") must be lowercase",
    );
  }
  const ref = parseReference(`${domain}/${remainder}`);
  const path = ref.name.slice(domain.length + 1);
  return { domain, path, tag: ref.tag, digest: ref.digest };
}

function splitDockerDomain(name: string): { domain: string; remainder: string } {
  const i = name.indexOf("/");
  const first = i < 0 ? "" : name.slice(0, i);
  let domain: string;
  let remainder: string;
  if (
    i < 0 ||
    (!/[.:]/.test(first) && first !== "localhost" && first.toLowerCase() === first)
  ) {
    domain = "docker.io";
    remainder = name;
  } else {
    domain = first;
    remainder = name.slice(i + 1);
  }
  if (domain === "index.docker.io") domain = "docker.io";
  if (domain === "docker.io" && !remainder.includes("/")) remainder = `library/${remainder}`;
  return { domain, remainder };
}

/** The normalised repository (`Named.Name()`), e.g. `docker.io/library/busybox`. */
export function repositoryOf(image: string): string {
  const n = parseNormalizedImage(image);
  return `${n.domain}/${n.path}`;
}

/** The name as written without its tag and digest (upstream pullmanager trimImageTagDigest). */
export function trimTagDigest(image: string): string {
  return parseReference(image).name;
}
