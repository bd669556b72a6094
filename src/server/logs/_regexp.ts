/**
 * Whether a log query's `pattern` is a regular expression Go's regexp/syntax accepts (upstream
 * checks it with syntax.Parse(pattern, syntax.Perl) before journalctl sees it). JavaScript's parser
 * stands in for Go's: Go's flag groups and `(?P<name>` are rewritten to forms JavaScript knows,
 * Perl constructs RE2 lacks are refused as Go refuses them, and the common errors carry Go's
 * wording. Rarer errors keep JavaScript's wording.
 */

const PREFIX = "error parsing regexp: ";

/** Go's error message for `pattern`, or undefined when it parses. */
export function goRegexpProblem(pattern: string): string | undefined {
  if (pattern === "") return undefined;
  const unsupported = /\(\?<?[=!]/.exec(pattern);
  if (unsupported) return `${PREFIX}invalid or unsupported Perl syntax: \`${unsupported[0]}\``;
  const backref = /(?<!\\)(?:\\\\)*(\\[1-9])/.exec(pattern);
  if (backref) return `${PREFIX}invalid escape sequence: \`${backref[1]}\``;
  const js = pattern
    .replace(/\(\?P</g, "(?<")
    // A flag group `(?i)` sets flags for the rest of the group; only the syntax matters here.
    .replace(/\(\?[imsU-]+\)/g, "")
    .replace(/\(\?[imsU-]+:/g, "(?:");
  try {
    new RegExp(js);
    return undefined;
  } catch (err) {
    return PREFIX + goWording(pattern, err instanceof Error ? err.message : String(err));
  }
}

function goWording(pattern: string, jsMessage: string): string {
  if (/\\ at end of pattern/.test(jsMessage)) return "trailing backslash at end of expression: ``";
  if (/Unterminated group/.test(jsMessage)) return `missing closing ): \`${pattern}\``;
  if (/Unmatched '\)'/.test(jsMessage)) return `unexpected ): \`${pattern}\``;
  if (/Unterminated character class/.test(jsMessage)) {
    return `missing closing ]: \`${pattern.slice(pattern.lastIndexOf("["))}\``;
  }
  if (/Nothing to repeat/.test(jsMessage)) {
    const op = /^[*+?]|(?<=[(|])[*+?]/.exec(pattern)?.[0] ?? "*";
    return `missing argument to repetition operator: \`${op}\``;
  }
  return jsMessage.replace(/^Invalid regular expression: /, "");
}
