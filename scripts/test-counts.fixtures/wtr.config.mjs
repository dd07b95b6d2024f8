// Only for scripts/test-counts.test.ts: runs wtr-before-fails.fixture.js in Chromium and writes the sessions
// as web-test-runner hands them to a reporter, so the counting is fed its real shape.
import { writeFileSync } from 'node:fs';
import { chromeLauncher } from '@web/test-runner-chrome';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../lib/chromium.mjs';

const out = process.env.KB_WTR_SESSIONS;
export default {
  files: ['scripts/test-counts.fixtures/wtr-*.fixture.js'],
  rootDir: '.',
  nodeResolve: true,
  watch: false,
  browsers: [chromeLauncher({ launchOptions: { executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS } })],
  reporters: [
    {
      onTestRunFinished({ sessions }) {
        const pick = ({ testFile, passed, errors, testResults }) => ({ testFile, passed, errors, testResults });
        writeFileSync(out, JSON.stringify(sessions.map(pick)));
      },
    },
  ],
};
