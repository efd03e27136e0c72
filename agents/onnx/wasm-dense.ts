/**
 * The JS executor's one hot loop, y[r] = sum over non-zero x[r][i] of x[r][i] * W[i], as a tiny
 * WebAssembly module with 128-bit SIMD (four float32 lanes per instruction). Plain JS does this
 * at 1-3 ns per multiply-add on the development machine; the module does four at a time without
 * bounds checks. The bytes are assembled here (no toolchain, no binary blob in the repository);
 * when the host lacks WebAssembly SIMD, wasmDense() returns null and the executor keeps its
 * JavaScript loop.
 *
 * dense(a, rows, k, n, w, out): byte offsets into the module's memory; a is [rows, k], w is
 * [k, n] (input-major), out is [rows, n]; float32 everywhere. Accumulation is in float32, as
 * onnxruntime's own kernels do.
 */
export type DenseFn = (a: number, rows: number, k: number, n: number, w: number, out: number) => void;

export interface WasmDense {
  readonly memory: WebAssembly.Memory;
  readonly dense: DenseFn;
}

// Opcodes (WebAssembly core 2.0 + fixed-width SIMD).
const I32 = 0x7f;
const F32 = 0x7d;
const V128 = 0x7b;
const VOID = 0x40;
const op = {
  block: 0x02, loop: 0x03, if: 0x04, end: 0x0b, br: 0x0c, brIf: 0x0d,
  get: 0x20, set: 0x21, tee: 0x22,
  f32Load: 0x2a, f32Store: 0x38,
  i32Const: 0x41, f32Const: 0x43,
  i32GeU: 0x4f, f32Ne: 0x5c,
  i32Add: 0x6a, i32Mul: 0x6c, i32And: 0x71, i32Shl: 0x74,
  f32Add: 0x92, f32Mul: 0x94,
  simd: 0xfd,
} as const;
// SIMD sub-opcodes (LEB128 after 0xfd).
const V128_LOAD = [0x00];
const V128_STORE = [0x0b];
const F32X4_SPLAT = [0x13];
const F32X4_ADD = [0xe4, 0x01];
const F32X4_MUL = [0xe6, 0x01];

// Parameters 0..5, then locals.
const A = 0, ROWS = 1, K = 2, N = 3, W = 4, OUT = 5;
const R = 6, I = 7, J = 8, N4 = 9, AP = 10, OP = 11; // i32 (local 12 is spare)
const V = 13; // f32
const VV = 14; // v128
const PO = 15, PW = 16, N16 = 17; // i32: moving output and weight pointers, n rounded down to 16

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

const get = (l: number) => [op.get, l];
const set = (l: number) => [op.set, l];
const i32 = (c: number) => (c < 64 ? [op.i32Const, c] : [op.i32Const, c & 0x7f | 0x80, c >> 7]); // 0..8191, signed LEB128
const memarg = [0x02, 0x00]; // align 2^2, offset 0
/** address = base + (index << 2) */
const addr = (base: number, index: number) => [...get(base), ...get(index), ...i32(2), op.i32Shl, op.i32Add];
/** for (; index < limit; index += step) body, as block/loop with the test at the top. */
const forLoop = (index: number, limit: number, step: number, body: number[]) => [
  op.block, VOID, op.loop, VOID,
  ...get(index), ...get(limit), op.i32GeU, op.brIf, 1,
  ...body,
  ...get(index), ...i32(step), op.i32Add, ...set(index),
  op.br, 0,
  op.end, op.end,
];

const memargAt = (offset: number) => [0x02, ...uleb(offset)];
const add = (local: number, c: number) => [...get(local), ...i32(c), op.i32Add, ...set(local)];

function body(): number[] {
  const zeroRow = [...get(OP), ...get(J), ...i32(2), op.i32Shl, op.i32Add, op.f32Const, 0, 0, 0, 0, op.f32Store, ...memarg];
  /** out[po + offset] += vv * w[pw + offset], four lanes. */
  const lanes = (offset: number) => [
    ...get(PO),
    ...get(PO), op.simd, ...V128_LOAD, ...memargAt(offset),
    ...get(VV), ...get(PW), op.simd, ...V128_LOAD, ...memargAt(offset),
    op.simd, ...F32X4_MUL,
    op.simd, ...F32X4_ADD,
    op.simd, ...V128_STORE, ...memargAt(offset),
  ];
  const step16 = [...lanes(0), ...lanes(16), ...lanes(32), ...lanes(48), ...add(PO, 64), ...add(PW, 64)];
  const step4 = [...lanes(0), ...add(PO, 16), ...add(PW, 16)];
  const tailStep = [
    ...get(PO),
    ...get(PO), op.f32Load, ...memarg,
    ...get(V), ...get(PW), op.f32Load, ...memarg,
    op.f32Mul, op.f32Add,
    op.f32Store, ...memarg,
    ...add(PO, 4), ...add(PW, 4),
  ];
  const perInput = [
    ...addr(AP, I), op.f32Load, ...memarg, op.tee, V,
    op.f32Const, 0, 0, 0, 0, op.f32Ne,
    op.if, VOID,
    ...get(V), op.simd, ...F32X4_SPLAT, ...set(VV),
    ...get(W), ...get(I), ...get(N), op.i32Mul, ...i32(2), op.i32Shl, op.i32Add, ...set(PW),
    ...get(OP), ...set(PO),
    ...i32(0), ...set(J),
    ...forLoop(J, N16, 16, step16),
    ...forLoop(J, N4, 4, step4),
    ...forLoop(J, N, 1, tailStep),
    op.end,
  ];
  const perRow = [
    ...get(OUT), ...get(R), ...get(N), op.i32Mul, ...i32(2), op.i32Shl, op.i32Add, ...set(OP),
    ...get(A), ...get(R), ...get(K), op.i32Mul, ...i32(2), op.i32Shl, op.i32Add, ...set(AP),
    ...i32(0), ...set(J),
    ...forLoop(J, N, 1, zeroRow),
    ...i32(0), ...set(I),
    ...forLoop(I, K, 1, perInput),
  ];
  const code = [
    ...get(N), op.i32Const, 0x7c /* -4 */, op.i32And, ...set(N4),
    ...get(N), op.i32Const, 0x70 /* -16 */, op.i32And, ...set(N16),
    ...i32(0), ...set(R),
    ...forLoop(R, ROWS, 1, perRow),
    op.end,
  ];
  const locals = [4, 7, I32, 1, F32, 1, V128, 3, I32];
  return [...uleb(locals.length + code.length), ...locals, ...code];
}

function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

const name = (s: string) => [s.length, ...[...s].map((c) => c.charCodeAt(0))];

function moduleBytes(): Uint8Array<ArrayBuffer> {
  const type = section(1, [1, 0x60, 6, I32, I32, I32, I32, I32, I32, 0]);
  const imports = section(2, [1, ...name("e"), ...name("m"), 0x02, 0x00, 0x00]); // memory, min 0 pages
  const functions = section(3, [1, 0]);
  const exports = section(7, [1, ...name("dense"), 0x00, 0]);
  const code = section(10, [1, ...body()]);
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...type, ...imports, ...functions, ...exports, ...code]);
}

let compiled: WebAssembly.Module | null | undefined;

/** A fresh instance over a memory of `bytes` bytes, or null without WebAssembly SIMD. */
export function wasmDense(bytes: number): WasmDense | null {
  if (compiled === undefined) {
    try {
      const b = moduleBytes();
      compiled = typeof WebAssembly === "object" && WebAssembly.validate(b) ? new WebAssembly.Module(b) : null;
    } catch {
      compiled = null;
    }
  }
  if (compiled === null) return null;
  try {
    const memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / 65536)) });
    const instance = new WebAssembly.Instance(compiled, { e: { m: memory } });
    return { memory, dense: instance.exports.dense as DenseFn };
  } catch {
    return null; // no memory to spare: the plain JavaScript loop
  }
}
