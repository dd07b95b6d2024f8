// A widget test file whose setup fails (mocha's `before`, as web-test-runner runs it).
before(() => {
  throw new Error('the fake API did not start');
});
it('renders', () => {});
describe('history', () => {
  it('restores', () => {});
});
