// Tests run as native ES modules on Node 24. TypeScript is stripped with Node's own
// `stripTypeScriptTypes`, the same transform the runtime applies, so tests execute exactly the
// code production runs (type checking is `tsc`, run before jest by `npm test`).
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '\\.ts$': '<rootDir>/test/support/strip-types-transform.cjs' },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60_000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/support/summary-reporter.cjs'],
};
