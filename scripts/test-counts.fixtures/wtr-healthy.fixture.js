// A widget test file that runs: one pass, one failure, one skipped on purpose.
it('passes', () => {});
it('fails', () => {
  throw new Error('expected 1 to be 2');
});
it.skip('needs the shared data', () => {});
