// Entry of a pool worker: loads the TypeScript worker through tsx, since worker threads do not inherit
// tsx's loader on Node 20 (under tsx and under vitest alike).
import { tsImport } from 'tsx/esm/api';

await tsImport('./prepare-worker.ts', import.meta.url);
