import { fileURLToPath } from "node:url";

/**
 * The folder that holds the shipped resources (models/, cards/): the repository checkout when run
 * from source, the package root of the npm package, or the server folder inside the Python wheel.
 * This module sits one folder below that root in every layout we build (agents/paths.ts in the
 * source tree and the npm package; the single bundled file dist/serve.mjs in the wheel), so ".."
 * from here is the root in all of them. Every resource path is derived from this one place.
 */
export const PACKAGE_ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Trained policies shipped with cardgym (`onnx:builtin/<name>`). */
export const BUILTIN_MODEL_DIR = fileURLToPath(new URL("../models/builtin/", import.meta.url));

/** Where `onnx:path=` models are looked up unless the host names another folder. */
export const DEFAULT_MODEL_DIR = fileURLToPath(new URL("../models", import.meta.url));

/** Where `cardSetFile` card sets are looked up unless the host names another folder. */
export const DEFAULT_CARD_SET_DIR = fileURLToPath(new URL("../cards", import.meta.url));
