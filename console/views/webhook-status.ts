import type { Settings } from '../../protocol/index.ts';

/**
 * "Last changed …: old → new host", from the log the database keeps of webhook URL changes: shown on the
 * settings page and the overview, so a change nobody on the team made is seen.
 */
export function webhookChange(s: Pick<Settings, 'webhook_last_change'>): string {
  const c = s.webhook_last_change;
  if (!c) return '';
  return `Last changed ${new Date(c.changed_at).toLocaleString()} by ${c.changed_by ?? 'unknown'}: ${c.old_host ?? 'none'} → ${c.new_host ?? 'none'}.`;
}

/** What this server's webhook queue did since it started; the drops are what a flood of events cost. */
export function webhookDeliveries(s: Pick<Settings, 'webhook_deliveries'>): string {
  const d = s.webhook_deliveries;
  if (!d) return '';
  return `Since the server started: ${d.delivered} delivered, ${d.failed} failed, ${d.queued} waiting, ${d.dropped_queue_full} dropped (queue full), ${d.dropped_rate_limited} dropped (over the per-minute cap).`;
}
