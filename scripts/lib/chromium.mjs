/**
 * Debian's Chromium, as every browser test here launches it (@web/test-runner and the end-to-end tests).
 * Test tools never download a browser. The flags let it run as root in a container, and keep it from
 * reaching for Google's services, which this machine's closed network refuses.
 */
export const CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
];
