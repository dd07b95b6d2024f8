/**
 * Headers every response carries, on every runtime: a response is only ever what its Content-Type says
 * (`nosniff`: no JSON run as a script), and a link followed from an answer tells the other site our origin,
 * not the path. The API sets them (server/app.ts); the Node entry sets them on its files too, with a CSP for
 * its pages (server/runtime/node/security-headers.ts); Workers' static assets get them from `_headers`.
 */
export const BASE_SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'strict-origin-when-cross-origin',
} as const;

export function setBaseSecurityHeaders(headers: Headers): void {
  for (const [name, value] of Object.entries(BASE_SECURITY_HEADERS)) headers.set(name, value);
}
