/** Types of scripts/widget-docs.mjs, for its staleness test. */
export interface DetailInterface {
  doc: string;
  fields: { name: string; optional: boolean; doc: string }[];
}
export const COMPONENT: string;
export const MANIFEST: string;
export const DOC: string;
export const BEGIN: string;
export const END: string;
export function manifestText(): Promise<string>;
export function detailInterfaces(): Promise<Map<string, DetailInterface>>;
export function renderReference(manifest: unknown, details: Map<string, DetailInterface>): string;
export function withReference(doc: string, block: string): string;
export const REACT: string;
export function renderReactBindings(manifest: unknown): string;
export function expected(): Promise<[manifest: string, doc: string, react: string]>;
