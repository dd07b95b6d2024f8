/**
 * The few Mocha globals the widget tests use. web-test-runner provides Mocha in the browser; the project has
 * no @types/mocha, and these signatures are all the tests need.
 */
type MochaDone = (error?: unknown) => void;
/** `this.skip()` marks the test (or, in a hook, the suite) as skipped; `this.timeout(ms)` sets its limit. */
interface MochaContext {
  skip(): never;
  timeout(ms: number): void;
}
type MochaFn = (this: MochaContext, done: MochaDone) => void | Promise<unknown>;

declare function describe(title: string, fn: () => void): void;
declare function it(title: string, fn?: MochaFn): void;
declare function before(fn: MochaFn): void;
declare function after(fn: MochaFn): void;
declare function beforeEach(fn: MochaFn): void;
declare function afterEach(fn: MochaFn): void;
