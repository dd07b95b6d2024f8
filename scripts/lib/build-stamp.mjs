/**
 * Whether a build's outputs are still those of its sources, as make decides it: every file the last build
 * read (esbuild's metafile inputs, the build script, the lockfile) and every file it wrote has the size and
 * modification time it had then. `npm start` runs the widget build with `--if-changed`, so a restart with
 * nothing changed skips the bundling and the Brotli compression (≈ 15 s) and starts the server at once.
 *
 * Size and mtime, not content hashes: reading the ≈ 900 input files (Lit, transformers.js, ONNX Runtime)
 * would cost most of what skipping saves, and an editor's save changes the mtime even when the size stays.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';

/** `size:mtime` of each path; a missing file is `null`. */
async function fingerprints(paths) {
  const entries = await Promise.all(
    [...new Set(paths)].sort().map(async (path) => {
      const info = await stat(path).catch(() => null);
      return [path, info ? `${info.size}:${Math.round(info.mtimeMs)}` : null];
    }),
  );
  return Object.fromEntries(entries);
}

/** Records what a build read (`inputs`) and wrote (`outputs`) in `stampFile`. */
export async function writeStamp(stampFile, { inputs, outputs }) {
  const stamp = { inputs: await fingerprints(inputs), outputs: await fingerprints(outputs) };
  await writeFile(stampFile, `${JSON.stringify(stamp, null, 1)}\n`);
}

/**
 * Whether the outputs recorded in `stampFile` are current: no stamp, a changed or missing input, or a changed
 * or missing output means the build must run. `extraInputs` are files whose change must rebuild even if the
 * last build did not record them (a build script edited since).
 */
export async function upToDate(stampFile, extraInputs = []) {
  const stamp = await readFile(stampFile, 'utf8').then(JSON.parse, () => null);
  if (!stamp?.inputs || !stamp?.outputs) return false;
  if (extraInputs.some((path) => !(path in stamp.inputs))) return false;
  for (const recorded of [stamp.inputs, stamp.outputs]) {
    const now = await fingerprints(Object.keys(recorded));
    for (const [path, print] of Object.entries(recorded)) if (print === null || now[path] !== print) return false;
  }
  return true;
}
