/**
 * The POSIX shell header of a packed denolet: the file is this script followed by the payload
 * (a gzip'd tar of the Deno runtime and the agent bundle: an entry file and the chunks it imports
 * when a feature is first used). The script unpacks the payload once into a directory named after
 * the build and checks every file by SHA-256 then; a later start checks that each file is still
 * the one it verified (inode, size, modification and change times, recorded beside them) rather
 * than hashing ~100 MB again, which cost a third of a second of every start on a fast machine and
 * more on a node's (issue 31). Then it `exec`s the runtime with the agent's V8 flags and
 * permission set, so the process (its pid, signals, exit code) is the agent's own. It needs only
 * what a Linux node has: sh, id, uname, ls, stat, cat, tail, sha256sum, gzip, tar, mkdir, mv
 * (coreutils or busybox).
 */

export interface HeaderInfo {
  /** deno.json version. */
  version: string;
  commit: string;
  /** Rust target triple, for the comment. */
  target: string;
  /** `uname -m` values the file runs on; the first one is named in messages. */
  machines: readonly string[];
  /** The file for the other architecture, named when this one is started on the wrong machine. */
  otherFile?: string;
  /** The runtime's dynamic loader (its ELF PT_INTERP); missing means no glibc. */
  interpreter?: string;
  /** npm package and version of the runtime, for the comment. */
  runtime: string;
  /** Default unpack directory when run as root. */
  rootUnpackDir: string;
  payloadSha256: string;
  runtimeSha256: string;
  /** The bundle's files, BUNDLE_FILE (the entry) first: names of `[A-Za-z0-9._-]` only. */
  bundleFiles: readonly string[];
  /** `bundleDigest` of the bundle's files. */
  bundleSha256: string;
  v8Flags: string;
  permissionFlags: readonly string[];
}

/** The fields `parseHeader` reads back (the structural checks use them). */
export interface ParsedHeader {
  build: string;
  payloadOffset: number;
  payloadSha256: string;
  runtimeSha256: string;
  bundleFiles: string[];
  bundleSha256: string;
  /** The `deno run` arguments before the bundle path: flags, V8 flags and permissions. */
  runArgs: string[];
}

/** Names of the files inside the payload (and the unpack directory). */
export const RUNTIME_FILE = "deno";
export const BUNDLE_FILE = "denolet.js";
/** Deno's caches, beside the two files (DENO_DIR); the bench runs its bundle the same way. */
export const DENO_DIR_NAME = "deno_dir";
/** Beside them: the two files' identity when their SHA-256 was last checked. */
export const STAMP_FILE = ".verified";

/**
 * The bundle's files' SHA-256 as the header checks them: the SHA-256 of what
 * `sha256sum <files>` prints for them, in the order given.
 */
export function bundleDigestInput(files: readonly { name: string; sha256: string }[]): string {
  return files.map((f) => `${f.sha256}  ${f.name}\n`).join("");
}

/** `<version>-<commit>-<first 12 of the payload's SHA-256>`: a new build never reuses a directory. */
export function buildId(info: Pick<HeaderInfo, "version" | "commit" | "payloadSha256">): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, "_");
  return `${safe(info.version)}-${safe(info.commit)}-${info.payloadSha256.slice(0, 12)}`;
}

/**
 * Flags of `deno run` besides V8's and the permissions: the bundle needs no configuration, lock
 * file, remote module or npm package (a deno.json in the working directory must not change how the
 * agent runs), and a missing permission must fail rather than prompt. No V8 code cache: with the
 * bundle split into chunks, compiling what a start runs costs less memory than reading and
 * writing the cache (idle standalone RSS 58.3–58.6 MB without it, 59.8–60.6 MB with it, measured
 * side by side), and it stays lazy.
 */
export const RUN_FLAGS = [
  "--no-config",
  "--no-lock",
  "--no-remote",
  "--no-npm",
  "--no-prompt",
  "--no-code-cache",
];

/** The header, with `payload_offset` equal to its own length in bytes. */
export function renderHeader(info: HeaderInfo): string {
  let offset = 0;
  for (;;) {
    const text = render(info, offset);
    const length = new TextEncoder().encode(text).length;
    if (length === offset) return text;
    offset = length;
  }
}

function render(info: HeaderInfo, offset: number): string {
  const build = buildId(info);
  if (info.bundleFiles[0] !== BUNDLE_FILE) {
    throw new Error(`the bundle's entry is not ${BUNDLE_FILE}`);
  }
  for (const f of info.bundleFiles) {
    if (!/^[A-Za-z0-9._-]+$/.test(f) || f === RUNTIME_FILE || f === DENO_DIR_NAME) {
      throw new Error(`the bundle file name ${JSON.stringify(f)} cannot be carried`);
    }
  }
  const runArgs = [
    ...RUN_FLAGS,
    `--v8-flags=${info.v8Flags}`,
    ...info.permissionFlags,
  ].map(quote).join(" ");
  const arch = info.machines[0];
  const wrongMachine = `this file is for ${arch} Linux; this machine is $(uname -m)` +
    (info.otherFile ? `: use ${info.otherFile}` : "");
  const interpreterCheck = info.interpreter
    ? [
      `  [ -e ${quote(info.interpreter)} ] ||`,
      `    die "the Deno runtime in this file needs glibc (${info.interpreter} is missing)"`,
    ]
    : [];
  return [
    "#!/bin/sh",
    `# denolet ${info.version} (commit ${info.commit}) for ${info.target}, made by`,
    "# `deno task package`: this POSIX shell header, then a gzip'd tar of the Deno runtime",
    `# (npm ${info.runtime}) and the agent bundled into JavaScript files (${BUNDLE_FILE} and the`,
    "# chunks it loads when a feature is first used).",
    "#",
    "# The first start checks the payload's SHA-256, unpacks it into a directory of its own build",
    `# (${info.rootUnpackDir}/<build> as root, else ~/.cache/denolet/<build>, or`,
    "# $DENOLET_UNPACK_DIR/<build>) and runs it once (--version) to fill Deno's caches. Every start",
    "# checks that directory's owner and that all files are those whose SHA-256 it checked (their",
    "# inode, size and times, recorded then), then execs the runtime with the agent's V8 flags and",
    "# permissions.",
    "# DENOLET_EMULATOR (e.g. qemu-aarch64-static) runs the runtime of another architecture.",
    "set -eu",
    "umask 022",
    `build=${quote(build)}`,
    `payload_offset=${offset}`,
    `payload_sha256=${info.payloadSha256}`,
    `runtime_sha256=${info.runtimeSha256}`,
    `bundle_sha256=${info.bundleSha256}`,
    `bundle_files=${quote(info.bundleFiles.join(" "))}`,
    "",
    "die() {",
    '  echo "denolet: $*" >&2',
    "  exit 1",
    "}",
    "",
    // $0 is the path the kernel was given (a PATH lookup yields the full path).
    "case $0 in",
    "/*) self=$0 ;;",
    "*) self=$(pwd)/${0#./} ;;",
    "esac",
    '[ -f "$self" ] && [ -r "$self" ] || die "cannot read $self; start this file by its path"',
    "",
    "emulator=${DENOLET_EMULATOR-}",
    'if [ -z "$emulator" ]; then',
    '  [ "$(uname -s)" = Linux ] || die "this file is for Linux, not $(uname -s)"',
    "  case $(uname -m) in",
    `  ${info.machines.join(" | ")}) ;;`,
    `  *) die "${wrongMachine}" ;;`,
    "  esac",
    ...interpreterCheck,
    "fi",
    "",
    "uid=$(id -u)",
    'if [ -n "${DENOLET_UNPACK_DIR-}" ]; then',
    "  base=$DENOLET_UNPACK_DIR",
    'elif [ "$uid" = 0 ]; then',
    `  base=${quote(info.rootUnpackDir)}`,
    'elif [ -n "${XDG_CACHE_HOME-}" ]; then',
    "  base=$XDG_CACHE_HOME/denolet",
    'elif [ -n "${HOME-}" ]; then',
    "  base=$HOME/.cache/denolet",
    "else",
    '  die "HOME is not set: set DENOLET_UNPACK_DIR to a directory to unpack into"',
    "fi",
    'case $base in /*) ;; *) die "the unpack directory must be an absolute path: $base" ;; esac',
    "dir=$base/$build",
    "",
    // Someone else's file or directory, or one others may write, could hold anything.
    "# True when $1 belongs to this user and no group or other user may write it.",
    "ours() {",
    '  [ -e "$1" ] && [ ! -L "$1" ] || return 1',
    '  set -- $(ls -ldn -- "$1")',
    '  [ "$3" = "$uid" ] || return 1',
    "  case $1 in",
    "  ?????w* | ????????w*) return 1 ;;",
    "  esac",
    "}",
    "",
    "# Each file's inode, size, modification and change times: a write or a replacement changes",
    "# them (the change time cannot be set back), so equal ones mean the file checked before.",
    "identity() {",
    `  (cd "$dir" && stat -c '%i %s %y %z' ${RUNTIME_FILE} $bundle_files) 2>/dev/null`,
    "}",
    "",
    "verified() {",
    `  ours "$dir/${RUNTIME_FILE}" || return 1`,
    '  for f in $bundle_files; do ours "$dir/$f" || return 1; done',
    `  sum=$(cd "$dir" && sha256sum ${RUNTIME_FILE}) || return 1`,
    `  [ "$sum" = "$runtime_sha256  ${RUNTIME_FILE}" ] || return 1`,
    // One line per file, as bundleDigestInput writes them, then their SHA-256.
    '  sum=$(cd "$dir" && sha256sum $bundle_files | sha256sum) || return 1',
    '  [ "${sum%% *}" = "$bundle_sha256" ]',
    "}",
    "",
    "# What a start after a verified unpack checks instead of hashing the files again.",
    "unchanged() {",
    `  ours "$dir/${RUNTIME_FILE}" && ours "$dir/${STAMP_FILE}" || return 1`,
    '  for f in $bundle_files; do ours "$dir/$f" || return 1; done',
    "  now=$(identity) || return 1",
    `  [ "$(cat "$dir/${STAMP_FILE}")" = "$now" ]`,
    "}",
    "",
    // Without a stamp the next start hashes the files again: slower, never wrong.
    "stamp() {",
    `  rm -f "$dir/${STAMP_FILE}"`,
    `  if identity >"$dir/${STAMP_FILE}.$$"; then`,
    `    mv -f "$dir/${STAMP_FILE}.$$" "$dir/${STAMP_FILE}"`,
    "  else",
    `    rm -f "$dir/${STAMP_FILE}.$$"`,
    "  fi",
    "}",
    "",
    "unpack() {",
    "  for tool in tail sha256sum gzip tar; do",
    '    command -v $tool >/dev/null 2>&1 || die "unpacking needs $tool, which is not on PATH"',
    "  done",
    "  stage=$dir/.unpack.$$",
    '  rm -rf "$stage"',
    '  mkdir -m 0700 "$stage"',
    `  trap 'rm -rf "$stage"' EXIT`,
    `  trap 'rm -rf "$stage"; exit 1' HUP INT TERM`,
    '  tail -c +$((payload_offset + 1)) "$self" >"$stage/payload"',
    '  sum=$(sha256sum <"$stage/payload")',
    '  [ "${sum%% *}" = "$payload_sha256" ] ||',
    '    die "$self is damaged: its payload does not match its SHA-256; download it again"',
    '  gzip -dc <"$stage/payload" | (cd "$stage" && tar -xf -) || die "cannot unpack $self"',
    `  chmod 0555 "$stage/${RUNTIME_FILE}"`,
    '  (cd "$stage" && chmod 0444 $bundle_files)',
    // A rename replaces a file atomically: a concurrent start sees the old file or the new one.
    `  (cd "$stage" && mv -f ${RUNTIME_FILE} $bundle_files "$dir/")`,
    '  rm -rf "$stage"',
    "  trap - EXIT HUP INT TERM",
    "}",
    "",
    // A node needs one build: an upgrade's unpack takes the older ones' ~100 MB back. Only
    // directories that hold both files of a build are touched.
    "prune() {",
    '  for old in "$base"/*-????????????; do',
    `    [ "$old" != "$dir" ] && [ -f "$old/${RUNTIME_FILE}" ] && [ -f "$old/${BUNDLE_FILE}" ] || continue`,
    '    ours "$old/." || continue',
    '    rm -rf "$old"',
    '    echo "denolet: removed the older build $old" >&2',
    "  done",
    "}",
    "",
    'mkdir -p "$dir"',
    'ours "$base/." || die "$base must belong to uid $uid and be writable by no one else"',
    'ours "$dir/." || die "$dir must belong to uid $uid and be writable by no one else"',
    "DENOLET_EXECUTABLE=$self",
    // Deno's own caches stay in the build's directory, removed with it; no update check.
    `DENO_DIR=$dir/${DENO_DIR_NAME}`,
    "DENO_NO_UPDATE_CHECK=1",
    "export DENOLET_EXECUTABLE DENO_DIR DENO_NO_UPDATE_CHECK",
    "",
    "if unchanged; then",
    "  :",
    "elif verified; then",
    "  stamp",
    "else",
    "  unpack",
    '  verified || die "the files unpacked into $dir do not match their SHA-256"',
    "  stamp",
    '  echo "denolet: unpacked into $dir" >&2',
    "  prune",
    "fi",
    // Deno analyses a module it has not seen (filling DENO_DIR's caches) and keeps what that
    // allocated, ~35 MB, for as long as it runs: a short first run spares the agent that. It also
    // shows now, not under systemd, when the runtime cannot start on this machine.
    'if [ ! -d "$DENO_DIR" ]; then',
    `  out=$($emulator "$dir/${RUNTIME_FILE}" run ${runArgs} "$dir/${BUNDLE_FILE}" --version 2>&1) ||`,
    '    die "the Deno runtime unpacked into $dir does not start here: $out"',
    "fi",
    "",
    `exec $emulator "$dir/${RUNTIME_FILE}" run ${runArgs} "$dir/${BUNDLE_FILE}" "$@"`,
    "",
  ].join("\n");
}

/** Single-quotes `s` for sh unless it is plainly safe. */
function quote(s: string): string {
  return /^[A-Za-z0-9_./=:,@+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

/** Reads a header's fields back; throws naming what is missing or malformed. */
export function parseHeader(file: Uint8Array): ParsedHeader {
  const shebang = new TextEncoder().encode("#!/bin/sh\n");
  if (!shebang.every((b, i) => file[i] === b)) throw new Error("no #!/bin/sh line");
  const head = new TextDecoder().decode(file.subarray(0, Math.min(file.length, 16384)));
  const value = (name: string) => {
    const m = head.match(new RegExp(`^${name}=(.*)$`, "m"));
    if (!m) throw new Error(`the header has no ${name}`);
    return m[1].replace(/^'(.*)'$/, "$1");
  };
  const payloadOffset = Number(value("payload_offset"));
  if (!Number.isInteger(payloadOffset) || payloadOffset <= 0 || payloadOffset >= file.length) {
    throw new Error(`payload_offset ${value("payload_offset")} is not inside the file`);
  }
  const sha = (name: string) => {
    const v = value(name);
    if (!/^[0-9a-f]{64}$/.test(v)) throw new Error(`${name} is not a SHA-256: ${v}`);
    return v;
  };
  const exec = head.match(/^exec \$emulator "\$dir\/deno" run (.*) "\$dir\/denolet\.js" "\$@"$/m);
  if (!exec) throw new Error("the header has no exec line");
  return {
    build: value("build"),
    payloadOffset,
    payloadSha256: sha("payload_sha256"),
    runtimeSha256: sha("runtime_sha256"),
    bundleFiles: value("bundle_files").split(" "),
    bundleSha256: sha("bundle_sha256"),
    runArgs: splitQuoted(exec[1]),
  };
}

/** Splits words as sh would for the plain and single-quoted words `quote` writes. */
function splitQuoted(text: string): string[] {
  const words: string[] = [];
  for (const m of text.matchAll(/(?:'[^']*'|\\'|[^\s'])+/g)) {
    words.push(m[0].replace(/'([^']*)'/g, "$1").replaceAll("\\'", "'"));
  }
  return words;
}
