/**
 * The wire format against bytes worked out by hand from the D-Bus specification ("Marshaling
 * (Wire Format)", "Message Format"), not produced by the encoder under test.
 */
import assert from "node:assert/strict";
import {
  authExternalLine,
  DBusProtocolError,
  decodeMessage,
  encodeMessage,
  marshal,
  messageLength,
  MessageType,
  parseSignature,
  unmarshal,
  Variant,
} from "../../src/dbus/mod.ts";

/** Bytes from numbers and ASCII strings, as a fixture reads best. */
function bytes(...parts: (number | string | number[])[]): Uint8Array {
  const out: number[] = [];
  for (const p of parts) {
    if (typeof p === "number") out.push(p);
    else if (typeof p === "string") { for (const ch of p) out.push(ch.charCodeAt(0)); }
    else out.push(...p);
  }
  return new Uint8Array(out);
}

Deno.test("marshal writes basic types at their alignment, little-endian", () => {
  assert.deepStrictEqual(marshal("s", ["foo"]), bytes(3, 0, 0, 0, "foo", 0));
  // y at 0, then the string's length aligned to 4.
  assert.deepStrictEqual(marshal("ys", [1, "a"]), bytes(1, 0, 0, 0, 1, 0, 0, 0, "a", 0));
  assert.deepStrictEqual(marshal("b", [true]), bytes(1, 0, 0, 0));
  assert.deepStrictEqual(marshal("n", [-2]), bytes(0xfe, 0xff));
  assert.deepStrictEqual(marshal("q", [0x1234]), bytes(0x34, 0x12));
  assert.deepStrictEqual(marshal("i", [-1]), bytes(0xff, 0xff, 0xff, 0xff));
  assert.deepStrictEqual(marshal("d", [1]), bytes(0, 0, 0, 0, 0, 0, 0xf0, 0x3f));
  assert.deepStrictEqual(
    marshal("x", [-2n]),
    bytes(0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff),
  );
  // USEC_INFINITY, systemd's "no limit".
  assert.deepStrictEqual(marshal("t", [2n ** 64n - 1n]), bytes([...Array(8)].map(() => 0xff)));
  assert.deepStrictEqual(marshal("o", ["/a"]), bytes(2, 0, 0, 0, "/a", 0));
  // A signature's length is one byte.
  assert.deepStrictEqual(marshal("g", ["a{sv}"]), bytes(5, "a{sv}", 0));
  assert.deepStrictEqual(marshal("h", [0]), bytes(0, 0, 0, 0));
  // A struct starts on 8; its fields align within.
  assert.deepStrictEqual(
    marshal("y(yu)", [1, [7, 9]]),
    bytes(1, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 9, 0, 0, 0),
  );
});

Deno.test("marshal pads an array to its elements' alignment, even an empty one", () => {
  // Length 8 counts the element only, not the 4 bytes of padding after the length.
  assert.deepStrictEqual(
    marshal("at", [[1n]]),
    bytes(8, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0),
  );
  assert.deepStrictEqual(marshal("at", [[]]), bytes(0, 0, 0, 0, 0, 0, 0, 0));
  assert.deepStrictEqual(
    marshal("as", [["a", "bc"]]),
    bytes(15, 0, 0, 0, 1, 0, 0, 0, "a", 0, 0, 0, 2, 0, 0, 0, "bc", 0),
  );
});

Deno.test("marshal writes a{sv} unit properties as systemd reads them", () => {
  const want = bytes(
    26,
    0,
    0,
    0, // array length: the entry from offset 8 to 34
    0,
    0,
    0,
    0, // padding to the dict entry's 8
    11,
    0,
    0,
    0,
    "Description",
    0, // key
    1,
    "s",
    0, // the variant's signature
    0, // padding to the string's 4
    1,
    0,
    0,
    0,
    "x",
    0,
  );
  assert.deepStrictEqual(marshal("a{sv}", [[["Description", new Variant("s", "x")]]]), want);
  assert.deepStrictEqual(unmarshal("a{sv}", want), [[["Description", new Variant("s", "x")]]]);
  // StartTransientUnit's a(sv) has the same layout as a{sv}.
  assert.deepStrictEqual(marshal("a(sv)", [[["Description", new Variant("s", "x")]]]), want);
});

Deno.test("unmarshal reads what marshal wrote for nested types", () => {
  const sig = "ssa(sv)a(sa(sv))";
  const values = [
    "kubepods.slice",
    "replace",
    [
      ["Wants", new Variant("as", ["-.slice"])],
      ["MemoryMax", new Variant("t", 1073741824n)],
      ["DefaultDependencies", new Variant("b", false)],
    ],
    [],
  ];
  assert.deepStrictEqual(unmarshal(sig, marshal(sig, values)), values);
});

Deno.test("marshal refuses values that do not fit the signature", () => {
  assert.throws(() => marshal("y", [256]), DBusProtocolError);
  assert.throws(() => marshal("u", [-1]), DBusProtocolError);
  assert.throws(() => marshal("s", [1]), DBusProtocolError);
  assert.throws(() => marshal("s", ["a\0b"]), DBusProtocolError);
  assert.throws(() => marshal("v", ["x"]), DBusProtocolError);
  assert.throws(() => marshal("(su)", [["a"]]), DBusProtocolError);
  assert.throws(() => marshal("ss", ["a"]), DBusProtocolError);
});

Deno.test("parseSignature refuses malformed signatures", () => {
  for (const bad of ["a", "(", "()", "a{vs}", "a{s}", "z", "(ss"]) {
    assert.throws(() => parseSignature(bad), DBusProtocolError, bad);
  }
  assert.deepStrictEqual(parseSignature("a{sv}s").length, 2);
});

Deno.test("unmarshal refuses truncated and inconsistent bodies", () => {
  assert.throws(() => unmarshal("s", bytes(3, 0, 0, 0, "fo")), DBusProtocolError);
  assert.throws(() => unmarshal("s", bytes(3, 0, 0, 0, "foo", 1)), DBusProtocolError);
  assert.throws(() => unmarshal("b", bytes(2, 0, 0, 0)), DBusProtocolError);
  assert.throws(() => unmarshal("u", bytes(1, 0, 0, 0, 0)), DBusProtocolError);
});

/**
 * The Hello call every client sends first, as it appears in the specification's and libdbus's
 * traces: path, interface, member, destination; 109 bytes of header fields, padded to 128.
 */
const HELLO = bytes(
  "l",
  1,
  0,
  1,
  [0, 0, 0, 0],
  [1, 0, 0, 0],
  [109, 0, 0, 0],
  1,
  1,
  "o",
  0,
  [21, 0, 0, 0],
  "/org/freedesktop/DBus",
  0,
  [0, 0],
  2,
  1,
  "s",
  0,
  [20, 0, 0, 0],
  "org.freedesktop.DBus",
  0,
  [0, 0, 0],
  3,
  1,
  "s",
  0,
  [5, 0, 0, 0],
  "Hello",
  0,
  [0, 0],
  6,
  1,
  "s",
  0,
  [20, 0, 0, 0],
  "org.freedesktop.DBus",
  0,
  [0, 0, 0],
);

Deno.test("encodeMessage writes the Hello call byte for byte", () => {
  assert.deepStrictEqual(HELLO.length, 128);
  const m = encodeMessage({
    type: MessageType.METHOD_CALL,
    serial: 1,
    path: "/org/freedesktop/DBus",
    interface: "org.freedesktop.DBus",
    member: "Hello",
    destination: "org.freedesktop.DBus",
    signature: "",
    body: [],
  });
  assert.deepStrictEqual(m, HELLO);
  assert.deepStrictEqual(messageLength(m), 128);
  assert.deepStrictEqual(decodeMessage(m).member, "Hello");
});

Deno.test("decodeMessage reads a big-endian signal (the bus forwards the sender's byte order)", () => {
  // logind's PrepareForShutdown(true) as a big-endian sender would write it.
  const m = bytes(
    "B",
    4,
    0,
    1,
    [0, 0, 0, 4],
    [0, 0, 0, 7],
    [0, 0, 0, 125],
    1,
    1,
    "o",
    0,
    [0, 0, 0, 23],
    "/org/freedesktop/login1",
    0,
    2,
    1,
    "s",
    0,
    [0, 0, 0, 30],
    "org.freedesktop.login1.Manager",
    0,
    [0],
    3,
    1,
    "s",
    0,
    [0, 0, 0, 18],
    "PrepareForShutdown",
    0,
    [0, 0, 0, 0, 0],
    8,
    1,
    "g",
    0,
    1,
    "b",
    0,
    [0],
    7,
    1,
    "s",
    0,
    [0, 0, 0, 4],
    ":1.5",
    0,
    [0, 0, 0],
    [0, 0, 0, 1],
  );
  assert.deepStrictEqual(messageLength(m.subarray(0, 16)), 148);
  assert.deepStrictEqual(m.length, 148);
  const d = decodeMessage(m);
  assert.deepStrictEqual(d.type, MessageType.SIGNAL);
  assert.deepStrictEqual(d.serial, 7);
  assert.deepStrictEqual(d.path, "/org/freedesktop/login1");
  assert.deepStrictEqual(d.interface, "org.freedesktop.login1.Manager");
  assert.deepStrictEqual(d.member, "PrepareForShutdown");
  assert.deepStrictEqual(d.sender, ":1.5");
  assert.deepStrictEqual(d.body, [true]);
});

Deno.test("decodeMessage refuses a message without its required header fields", () => {
  // A method return with no REPLY_SERIAL.
  const m = bytes("l", 2, 0, 1, [0, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]);
  assert.throws(() => decodeMessage(m), /replySerial/);
  assert.throws(
    () => decodeMessage(bytes("X", 2, 0, 1, [0, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0])),
    DBusProtocolError,
  );
});

Deno.test("authExternalLine hex-encodes the uid's decimal digits", () => {
  // The specification's example: uid 1000 is "31303030".
  assert.deepStrictEqual(authExternalLine(1000), "AUTH EXTERNAL 31303030\r\n");
  assert.deepStrictEqual(authExternalLine(0), "AUTH EXTERNAL 30\r\n");
});
