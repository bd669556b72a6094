/**
 * Kubernetes `$(VAR)` expansion (third_party/forked/golang/expansion), shared by the runtime's
 * env and command set-up and by exec probes: `$(NAME)` is replaced by `lookup(NAME)` or left as written when
 * unknown; `$$` is an escaped `$`; an unterminated `$(` and a lone or trailing `$` are kept.
 */
export function expandVars(input: string, lookup: (name: string) => string | undefined): string {
  let out = "";
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== "$" || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const next = input[cursor + 1];
    let advance = 1;
    if (next === "$") {
      out += "$";
    } else if (next === "(") {
      const close = input.indexOf(")", cursor + 2);
      if (close === -1) {
        out += "$(";
      } else {
        const name = input.slice(cursor + 2, close);
        out += lookup(name) ?? `$(${name})`;
        advance = close - cursor;
      }
    } else {
      // Not an expression: keep the operator and the next character (a whole code point).
      const ch = String.fromCodePoint(input.codePointAt(cursor + 1)!);
      out += "$" + ch;
      advance = ch.length;
    }
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}
