/**
 * The node log query's parameters against upstream's own cases (kubelet_server_journal_test.go:
 * Test_newNodeLogQuery, Test_validateServices, Test_nodeLogQuery_validate, Test_getLoggingCmd).
 * The expected messages are what upstream's code (v1.37.2) printed for the same input.
 */
import assert from "node:assert/strict";
import {
  aggregate,
  journalctlArgs,
  type NodeLogQuery,
  parseNodeLogQuery,
  parseRFC3339,
  validateNodeLogQuery,
  validateServices,
} from "../../src/server/logs/_query.ts";
import { goRegexpProblem } from "../../src/server/logs/_regexp.ts";

function parse(qs: string) {
  const { query, errors } = parseNodeLogQuery(new URLSearchParams(qs));
  return { query, error: errors.length > 0 ? aggregate(errors) : undefined };
}

function checked(qs: string): string | string[] {
  const { query, error } = parse(qs);
  if (error !== undefined) return `400 ${error}`;
  assert.ok(query, qs);
  const errors = validateNodeLogQuery(query);
  return errors.length > 0 ? `406 ${aggregate(errors)}` : journalctlArgs(query, query.services);
}

const BASE = ["--utc", "--no-pager", "--output=short-precise"];

Deno.test("log query: parameters that ask nothing are no query", () => {
  for (const qs of ["", "unknown=true", "sinceTime=", "untilTime=", "boot="]) {
    assert.deepEqual(parse(qs), { query: undefined, error: undefined }, qs);
  }
});

Deno.test("log query: times are RFC 3339 only, with upstream's message", () => {
  for (
    const bad of [
      "2019-12-04 02:00:00",
      "2019-12-04 02:00:00.000",
      "2019-12-04 02",
      "2019-12-04 02:00",
    ]
  ) {
    for (const key of ["sinceTime", "untilTime"]) {
      assert.equal(
        parse(`${key}=${encodeURIComponent(bad)}`).error,
        `${key}: Invalid value: "${bad}": invalid time format`,
      );
    }
  }
  assert.equal(parse("sinceTime=2019-02-29T00:00:00Z").error?.includes("invalid time"), true);
  const t = parseRFC3339("2019-12-04T02:00:00Z")!;
  assert.equal(t.seconds, Date.UTC(2019, 11, 4, 2) / 1000);
  assert.equal(parseRFC3339("2019-12-04T03:00:00+01:00")!.seconds, t.seconds);
});

Deno.test("log query: tailLines and boot are Go integers", () => {
  assert.equal(parse("tailLines=100").query?.tailLines, 100n);
  assert.equal(parse("tailLines=%2B5").query?.tailLines, 5n);
  assert.equal(parse("boot=0").query?.boot, 0n);
  assert.equal(parse("boot=-23").query?.boot, -23n);
  assert.equal(
    parse("tailLines=foo").error,
    'tailLines: Invalid value: "foo": strconv.Atoi: parsing "foo": invalid syntax',
  );
  assert.equal(
    parse("tailLines=+").error,
    'tailLines: Invalid value: " ": strconv.Atoi: parsing " ": invalid syntax',
  );
  assert.equal(
    parse("boot=foo").error,
    'boot: Invalid value: "foo": strconv.Atoi: parsing "foo": invalid syntax',
  );
  assert.match(parse("tailLines=99999999999999999999").error!, /value out of range/);
  assert.equal(
    parse("query=a&sinceTime=x&untilTime=y&boot=z").error,
    '[sinceTime: Invalid value: "x": invalid time format, untilTime: Invalid value: "y": ' +
      'invalid time format, boot: Invalid value: "z": strconv.Atoi: parsing "z": invalid syntax]',
  );
});

Deno.test("log query: queries split into services and files; blank ones are refused", () => {
  assert.equal(parse("query=").error, 'query: Invalid value: [""]: may not be empty');
  assert.equal(
    parse("query=+++&query=+").error,
    'query: Invalid value: ["   "," "]: may not be empty',
  );
  const q = (qs: string) => {
    const { query } = parse(qs);
    return { services: query?.services, files: query?.files };
  };
  assert.deepEqual(q("query=foo"), { services: ["foo"], files: [] });
  assert.deepEqual(q("query=foo&query=bar"), { services: ["foo", "bar"], files: [] });
  assert.deepEqual(q("query=foo&query=/bar"), { services: ["foo"], files: ["/bar"] });
  assert.deepEqual(q("query=/foo&query=%5Cbar"), { services: [], files: ["/foo", "\\bar"] });
  assert.equal(parse("pattern=foo").query?.pattern, "foo");
});

Deno.test("log query: service names as upstream's validateServices", () => {
  for (
    const ok of [["svc1"], ["svc1", "svc2"], ["svc.foo"], ["svc_foo"], ["svc@foo"], ["svc:foo"]]
  ) {
    assert.deepEqual(validateServices(ok), [], ok.join());
  }
  assert.deepEqual(validateServices(["svc\n"]), [
    'query: Invalid value: "svc\\n": input contains unsupported characters',
  ]);
  assert.equal(validateServices(["svc.foo\n"]).length, 1);
  assert.equal(validateServices(["svc/foo"]).length, 1);
  assert.match(validateServices(["svc1".repeat(100)])[0], /: length must be less than 256$/);
  assert.deepEqual(validateServices(["a", "b", "c", "d", "e"]), [
    "query: Too many: 5: must have at most 4 items",
  ]);
});

Deno.test("log query: validation as upstream's nodeLogQuery.validate, with its messages", () => {
  const cases: Array<[string, string | string[]]> = [
    ["sinceTime=2019-12-04T02:00:00Z", "406 query: Required value: cannot be empty with options"],
    ["boot=0", "406 query: Required value: cannot be empty with options"],
    [
      "tailLines=-1",
      "406 [query: Required value: cannot be empty with options, tailLines: Invalid value: -1: " +
      "must be between 0 and 100000, inclusive]",
    ],
    [
      "query=foo&query=/bar",
      '406 query: Invalid value: "[/bar], [foo]": cannot specify a file and service',
    ],
    [
      "query=a&query=b/c",
      '406 query: Invalid value: "[b/c], [a]": cannot specify a file and service',
    ],
    [
      "query=/foo&query=%5Cbar",
      '406 query: Invalid value: ["/foo","\\\\bar"]: cannot specify more than one file',
    ],
    [
      "query=apt/history.log&tailLines=3",
      '406 query: Invalid value: ["apt/history.log"]: cannot specify file with options',
    ],
    ["boot=1&query=a", "406 boot: Invalid value: 1: must be less than 1"],
    [
      "query=a&sinceTime=2023-02-04T02:00:00Z&untilTime=2023-01-04T02:00:00Z",
      '406 untilTime: Invalid value: "2023-01-04T02:00:00Z": must be after `sinceTime`',
    ],
    [
      "pattern=foo%5C&query=a",
      '406 pattern: Invalid value: "foo\\\\": error parsing regexp: trailing backslash at end of ' +
      "expression: ``",
    ],
    [
      "query=a&pattern=(a",
      '406 pattern: Invalid value: "(a": error parsing regexp: missing closing ): `(a`',
    ],
    ["query=svc1", [...BASE, "--unit=svc1"]],
    ["query=svc1&query=svc2", [...BASE, "--unit=svc1", "--unit=svc2"]],
    ["query=svc1&boot=-1", [...BASE, "--unit=svc1", "--boot", "-1"]],
    // 100000 is the top of the range, inclusive.
    ["tailLines=100000&query=a", [...BASE, "--pager-end", "--lines=100000", "--unit=a"]],
    ["query=a&sinceTime=2023-01-04T02:00:00Z", [...BASE, "--since=2023-1-4 02:0:0", "--unit=a"]],
  ];
  for (const [qs, want] of cases) assert.deepEqual(checked(qs), want, qs);
});

Deno.test("log query: journalctl's arguments in upstream's order and time layout", () => {
  assert.deepEqual(
    checked(
      "query=a&sinceTime=2023-02-04T02:00:00.123456789Z&untilTime=2023-03-04T02:00:00-05:00" +
        "&tailLines=10&pattern=err&boot=-1",
    ),
    [
      ...BASE,
      "--since=2023-2-4 02:0:0",
      // Upstream formats the time in the zone it was given in.
      "--until=2023-3-4 02:0:0",
      "--pager-end",
      "--lines=10",
      "--unit=a",
      "--grep=err",
      "--boot",
      "-1",
    ],
  );
  const none: NodeLogQuery = { services: [], files: [], pattern: "" };
  assert.deepEqual(journalctlArgs(none, []), BASE);
  assert.deepEqual(journalctlArgs(none, ["p1", "", "p2"]), [...BASE, "--unit=p1", "--unit=p2"]);
});

Deno.test("log query: patterns are checked as Go's regexp syntax", () => {
  for (const ok of ["foo", "(?i)error", "^a.*b$", "(?P<n>x)", "(?s:a.b)", "[[:alpha:]]+"]) {
    assert.equal(goRegexpProblem(ok), undefined, ok);
  }
  assert.equal(
    goRegexpProblem("a(?=b)"),
    "error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
  );
  assert.equal(goRegexpProblem("(a)\\1"), "error parsing regexp: invalid escape sequence: `\\1`");
  assert.equal(goRegexpProblem("a)"), "error parsing regexp: unexpected ): `a)`");
  assert.equal(goRegexpProblem("a[b"), "error parsing regexp: missing closing ]: `[b`");
});
