#!/usr/bin/env node
// Run after `npm install <package>`: node scripts/complete-lockfile.cjs (then commit package-lock.json).
// Adds lock entries for rollup's native packages of other platforms, which the npm registry reachable here
// does not serve (so npm leaves them out of the lock, and `npm ci` then refuses the lock).
const fs = require('node:fs');
const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8'));
const cpuOf = {
  arm: 'arm',
  arm64: 'arm64',
  x64: 'x64',
  ia32: 'ia32',
  loong64: 'loong64',
  ppc64: 'ppc64',
  riscv64: 'riscv64',
  s390x: 's390x',
};
let added = 0;
for (const [key, pkg] of Object.entries(lock.packages)) {
  if (!/node_modules\/rollup$/.test(key)) continue;
  const base = key.slice(0, -'rollup'.length);
  for (const [name, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const entryKey = `${base}${name}`;
    if (lock.packages[entryKey] || lock.packages[`node_modules/${name}`]) continue;
    const [os, cpu, abi] = name.replace('@rollup/rollup-', '').split('-');
    const entry = { version, cpu: [cpuOf[cpu] ?? cpu], dev: true, license: 'MIT', optional: true, os: [os] };
    if (abi && /gnu/.test(abi) && os === 'linux') entry.libc = ['glibc'];
    if (abi && /musl/.test(abi)) entry.libc = ['musl'];
    lock.packages[`node_modules/${name}`] = entry;
    added++;
  }
}
const sorted = {};
for (const k of Object.keys(lock.packages).sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)))
  sorted[k] = lock.packages[k];
lock.packages = sorted;
fs.writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} lock entries`);
