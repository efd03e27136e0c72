/**
 * npm run onnx-logits -- --game <id> --model <file.onnx> [--obs file.json]   (or: tsx scripts/onnx-logits.ts ...)
 *
 * Loads a policy model exactly as the onnx agent does (size limit, ModelProto contract check
 * against the game's env spec: input/output names and sizes, metadata game / obs_version /
 * action_spec_hash), runs onnxruntime-node on the observations and prints
 * {"logits": [[...], ...], "spec": {...}} as JSON on stdout. The observations are a JSON array of
 * rows (each obsSize floats), or {"obs": rows}, read from --obs or from standard input.
 *
 * The Python side (cardgym.onnx.export, the parity test) uses it to compare PyTorch's logits with
 * what the Node agents will actually compute. A model that breaks the contract exits 1 with the
 * loader's one-line reason.
 */
import { readFileSync } from "node:fs";
import { checkPolicyModel, loadPolicyModel, ModelLoadError } from "../agents/onnx/policy-model.ts";
import { adapters } from "../env/games/index.ts";
import { specOf } from "../env/spec.ts";
import { main, parseCli, UsageError, printUsage } from "./cli.ts";

const USAGE = "tsx scripts/onnx-logits.ts --game <id> --model <file.onnx> [--obs rows.json]  (rows on stdin when --obs is absent)";

main(async () => {
  const { values, positionals } = parseCli(USAGE, { game: { type: "string" }, model: { type: "string" }, obs: { type: "string" } });
  if (values.help) return printUsage(USAGE);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"\nusage: ${USAGE}`);
  if (!values.game || !values.model) throw new UsageError(`--game and --model are required\nusage: ${USAGE}`);
  const adapter = adapters.get(values.game);
  if (!adapter) throw new UsageError(`no RL adapter for game "${values.game}" (games: ${[...adapters.keys()].join(", ")})`);
  const spec = specOf(adapter);

  const raw = readObservations(values.obs);
  const rows = Array.isArray(raw) ? raw : raw !== null && typeof raw === "object" && "obs" in raw ? (raw as { obs: unknown }).obs : null;
  if (!Array.isArray(rows)) throw new UsageError('the observations must be a JSON array of rows or {"obs": rows}');
  const obs = rows.map((row: unknown, i) => {
    if (!Array.isArray(row) || row.length !== spec.observation.size || !row.every((x) => typeof x === "number")) {
      throw new UsageError(`observation row ${i} must be ${spec.observation.size} numbers`);
    }
    return Float32Array.from(row as number[]);
  });

  try {
    const model = loadPolicyModel(values.model, { maxBytes: 4096 * 1024 * 1024 });
    checkPolicyModel(model, {
      game: values.game,
      obsVersion: adapter.observation.version,
      obsSize: adapter.observation.size,
      actionSize: adapter.actions.size,
      actionSpecHash: spec.actionSpecHash,
    });
    await model.ready();
    // Issued together so the model's micro-batcher runs them as one [batch, obsSize] tensor,
    // which is how the server's sessions use it.
    const logits = await Promise.all(obs.map((o) => model.infer(o)));
    process.stdout.write(
      JSON.stringify({
        logits: logits.map((l) => Array.from(l)),
        spec: {
          game: spec.game,
          obsVersion: spec.observation.version,
          obsSize: spec.observation.size,
          actionSize: spec.action.size,
          actionSpecHash: spec.actionSpecHash,
        },
        runs: model.stats.runs,
      }) + "\n",
    );
    await model.release();
    return 0;
  } catch (e) {
    if (e instanceof ModelLoadError) throw new Error(e.message, { cause: e });
    throw e;
  }
});

/** The observation rows' JSON from --obs FILE or standard input, or one line naming what could not be read. */
function readObservations(file: string | undefined): unknown {
  const [flag, from] = file === undefined ? ["", "standard input"] : ["--obs: ", file];
  let text: string;
  try {
    text = readFileSync(file ?? 0, "utf8");
  } catch (e) {
    throw new UsageError(`${flag}cannot read ${from} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${flag}${from} is not JSON (${(e as Error).message.split("\n")[0]})`);
  }
}
