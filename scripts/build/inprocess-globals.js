/**
 * Host objects for the in-process bundle (scripts/build/inprocess.mjs injects them: every free
 * reference to these names in the bundle uses this module's export). An embedded engine such as
 * SpiderMonkey has the language but not the web's or Node's globals.
 */

/** UTF-8 encoding as the WHATWG TextEncoder does it (a lone surrogate becomes U+FFFD). */
class Utf8Encoder {
  encode(text = "") {
    const out = [];
    for (let i = 0; i < text.length; i++) {
      let c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        c = 0x10000 + ((c - 0xd800) << 10) + (text.charCodeAt(++i) - 0xdc00);
      } else if (c >= 0xd800 && c <= 0xdfff) {
        c = 0xfffd;
      }
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return new Uint8Array(out);
  }
}

/** Decoding is reached only by the onnx model reader, which in-process sessions never run. */
class NoDecoder {
  decode() {
    throw new Error("TextDecoder is not available in process");
  }
}

const host = globalThis;
export const TextEncoder = host.TextEncoder ?? Utf8Encoder;
export const TextDecoder = host.TextDecoder ?? NoDecoder;
/** Agents time their own thinking with it; Date's millisecond clock where the host has no performance. */
export const performance = host.performance ?? { now: () => Date.now() };
