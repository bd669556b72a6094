/**
 * Reads the JUnit report the e2e suite writes (`--report-dir`, `junit_01.xml`: Ginkgo's JUnit
 * with the failure message left out of the attribute and kept at the top of the body). Pure.
 */

/** What became of one spec in one run. */
export type Outcome = "passed" | "failed" | "skipped";

export interface SpecResult {
  outcome: Outcome;
  /** Ginkgo's state: passed, failed, timedout, panicked, interrupted, aborted, skipped. */
  state: string;
  /** The failure message, or why the spec skipped itself. */
  message?: string;
  /**
   * A failed spec's node events that say what went wrong (FailedMount, Failed, BackOff, ...),
   * `Reason: message`, from the timeline: a pod that never started fails with a timeout.
   */
  events?: string[];
  seconds: number;
}

export interface JUnitRun {
  /** The `It` specs that ran or skipped themselves, by full text; specs the filters left out are not here. */
  specs: Map<string, SpecResult>;
  /** Suite-level nodes (BeforeSuite, ReportAfterSuite, ...) that failed, with their message. */
  suiteFailures: { node: string; message: string }[];
}

const FAILED_STATES = new Set(["failed", "timedout", "panicked", "interrupted", "aborted"]);

/** Parses `xml`; a test case without a Ginkgo status is read from its child elements. */
export function parseJUnit(xml: string): JUnitRun {
  const specs = new Map<string, SpecResult>();
  const suiteFailures: JUnitRun["suiteFailures"] = [];
  const re = /<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g;
  for (const m of xml.matchAll(re)) {
    const attrs = parseAttributes(m[1]);
    const body = m[2] ?? "";
    const fullName = attrs.get("name") ?? "";
    const leaf = /^\[(\w+)\]\s*/.exec(fullName);
    const nodeType = leaf?.[1] ?? "It";
    const name = leaf ? fullName.slice(leaf[0].length) : fullName;
    const child = /<(failure|error|skipped)\b([^>]*?)(?:\/>|>([\s\S]*?)<\/\1>)/.exec(body);
    const childAttrs = child ? parseAttributes(child[2]) : new Map<string, string>();
    const state = attrs.get("status") ??
      (child?.[1] === "skipped"
        ? "skipped"
        : child
        ? (childAttrs.get("type") ?? "failed")
        : "passed");
    const outcome: Outcome = FAILED_STATES.has(state)
      ? "failed"
      : state === "passed"
      ? "passed"
      : "skipped";
    const message = child
      ? messageOf(childAttrs.get("message"), unescapeXml(child[3] ?? ""))
      : undefined;
    if (nodeType !== "It") {
      if (outcome === "failed") suiteFailures.push({ node: fullName, message: message ?? "" });
      continue;
    }
    // Left out by --focus/--skip: Ginkgo reports them as skipped with no reason.
    if (outcome === "skipped" && (message === undefined || message === "skipped")) continue;
    if (outcome === "skipped" && message?.startsWith("skipped - ")) {
      specs.set(name, { outcome, state, message: message.slice(10), seconds: seconds(attrs) });
      continue;
    }
    const events = outcome === "failed" ? nodeEvents(systemErr(body)) : [];
    specs.set(name, {
      outcome,
      state,
      ...(outcome === "passed" ? {} : { message }),
      ...(events.length ? { events } : {}),
      seconds: seconds(attrs),
    });
  }
  return { specs, suiteFailures };
}

/**
 * The message attribute when there is one; else the body's first block, which Ginkgo writes as
 * `[FAILED] <message>` up to the `In [It] at: <file:line>` line.
 */
export function messageOf(attr: string | undefined, body: string): string | undefined {
  if (attr) return attr.trim();
  const m = /^\s*\[(?:[A-Z]+)\] ([\s\S]*?)\n\s*In \[/.exec(body);
  if (m) return m[1].trim();
  const trimmed = body.trim();
  return trimmed === "" ? undefined : trimmed.split("\n").slice(0, 20).join("\n");
}

/** Events of the normal course of a pod, left out of `SpecResult.events`. */
const ROUTINE_EVENTS = new Set([
  "Scheduled",
  "Pulling",
  "Pulled",
  "Created",
  "Started",
  "Killing",
  "SandboxChanged",
]);
const MAX_EVENTS = 5;

/**
 * `Reason: message` of the events a node (kubelet or denolet) posted, from the namespace dump
 * the suite writes after a failure: `event for <pod>: {kubelet <node>} <Reason>: <message>`.
 */
export function nodeEvents(timeline: string): string[] {
  const out = new Set<string>();
  for (const m of timeline.matchAll(/event for [^:\n]+: \{kubelet [^}\n]*\} (\w+): (.*)$/gm)) {
    if (ROUTINE_EVENTS.has(m[1])) continue;
    out.add(`${m[1]}: ${m[2].trim()}`);
    if (out.size >= MAX_EVENTS) break;
  }
  return [...out];
}

function systemErr(body: string): string {
  const m = /<system-err>([\s\S]*?)<\/system-err>/.exec(body);
  return m ? unescapeXml(m[1]) : "";
}

function seconds(attrs: Map<string, string>): number {
  const t = Number(attrs.get("time"));
  return Number.isFinite(t) ? t : 0;
}

function parseAttributes(s: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of s.matchAll(/([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    out.set(m[1], unescapeXml(m[2] ?? m[3] ?? ""));
  }
  return out;
}

const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/** XML's five named entities and numeric character references (Go writes `&#xA;`, `&#34;`). */
export function unescapeXml(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|\w+);/g, (whole, ref: string) => {
    if (ref.startsWith("#x")) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith("#")) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    return NAMED[ref] ?? whole;
  });
}
