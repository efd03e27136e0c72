import type { ModelInfo, TensorSignature } from "./model-info.ts";

/**
 * The model contract (docs/agents.md): one float32 input `obs` [batch, obsSize], one float32
 * output `logits` [batch, actionSize] (batch dynamic or 1), optionally a float32 output `value`
 * [batch, 1] (a policy-value network's estimate for the seat to act), and metadata_props naming the game,
 * the observation encoder version and the action-spec hash the model was trained against.
 */
export const INPUT_NAME = "obs";
export const OUTPUT_NAME = "logits";
/** Optional second output: the network's value of the observation for the seat to act, [batch, 1]. */
export const VALUE_NAME = "value";
export const META = { game: "game", obsVersion: "obs_version", actionSpecHash: "action_spec_hash" } as const;
const FLOAT = 1;

export interface ModelExpectation {
  readonly game: string;
  readonly obsVersion: string;
  readonly obsSize: number;
  readonly actionSize: number;
  readonly actionSpecHash: string;
}

/** Every way the model breaks the contract, as readable sentences (empty = acceptable). */
export function contractViolations(info: ModelInfo, want: ModelExpectation): string[] {
  const problems: string[] = [];
  const m = info.metadata;
  const meta = (key: string, expected: string, what: string) => {
    const got = m[key];
    if (got === undefined) problems.push(`metadata_props has no "${key}" (${what}; expected ${JSON.stringify(expected)})`);
    else if (got !== expected) problems.push(`wrong ${what}: the model says ${key}=${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
  };
  meta(META.game, want.game, "game");
  meta(META.obsVersion, want.obsVersion, "observation encoder version");
  meta(META.actionSpecHash, want.actionSpecHash, "action-spec hash (the action codec or observation layout differs from the one the model was exported for)");

  const realInputs = info.inputs.filter((i) => !info.initializers.has(i.name));
  const obs = realInputs.find((i) => i.name === INPUT_NAME);
  if (!obs) problems.push(`the model has no input named "${INPUT_NAME}" (inputs: ${realInputs.map((i) => i.name).join(", ") || "none"})`);
  else checkMatrix(obs, want.obsSize, "input", "input size", "observation floats", problems);
  const extra = realInputs.filter((i) => i.name !== INPUT_NAME);
  if (extra.length > 0) problems.push(`the model has inputs other than "${INPUT_NAME}": ${extra.map((i) => i.name).join(", ")}`);
  const logits = info.outputs.find((o) => o.name === OUTPUT_NAME);
  if (!logits) problems.push(`the model has no output named "${OUTPUT_NAME}" (outputs: ${info.outputs.map((o) => o.name).join(", ") || "none"})`);
  else checkMatrix(logits, want.actionSize, "output", "action count", "actions", problems);
  const value = info.outputs.find((o) => o.name === VALUE_NAME);
  if (value) checkMatrix(value, 1, "output", "value width", "values per observation", problems);
  return problems;
}

function checkMatrix(t: TensorSignature, size: number, role: string, what: string, unit: string, problems: string[]): void {
  if (t.elemType !== FLOAT) {
    problems.push(`${role} "${t.name}" must be float32 (ONNX type 1), it is type ${t.elemType}`);
    return;
  }
  if (t.dims === null) return; // no declared shape: onnxruntime checks at run time
  if (t.dims.length !== 2) {
    problems.push(`${role} "${t.name}" must have shape [batch, ${size}], it has rank ${t.dims.length}`);
    return;
  }
  const [batch, width] = t.dims;
  if (typeof width === "number" && width !== size) problems.push(`wrong ${what}: ${role} "${t.name}" has ${width} ${unit}, the game's spec has ${size}`);
  if (typeof batch === "number" && batch !== 1 && batch !== 0)
    problems.push(`${role} "${t.name}" has a fixed batch of ${batch}; export it with a dynamic batch dimension`);
}
