/** Types of scripts/build-package.mjs, for the tests that build the npm package. */
export interface PackageManifest {
  name: string;
  version: string;
  exports: Record<string, string | Record<string, string>>;
  dependencies: Record<string, string>;
  [key: string]: unknown;
}
export function buildPackage(options?: { outdir?: string; types?: boolean }): Promise<PackageManifest>;
export function listFiles(dir: string): Promise<string[]>;
