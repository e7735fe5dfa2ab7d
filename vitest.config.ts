import { defineConfig } from 'vitest/config';

// Pure tests (`unit`: no service, no process; `npm run test:unit`) run once, in seconds; tests
// that start servers, browsers or a throwaway PostgreSQL (`*.system.test.ts`) run once; everything
// that goes through a database runs once per dialect. Each project `extends` the root options:
// without it a project silently drops the timeouts below.
const e2e = ['test/**/*.e2e.test.ts'];
const system = ['test/**/*.system.test.ts'];
export default defineConfig({
  // Inside the repository '@payments/client' is its TypeScript source (the `payments-source`
  // export condition); the packed client is the built JavaScript (test/client/package.system.test.ts).
  resolve: { conditions: ['payments-source'] },
  ssr: { resolve: { conditions: ['payments-source'] } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...e2e, ...system] } },
      { extends: true, test: { name: 'system', include: system } },
      { extends: true, test: { name: 'sqlite', include: e2e, env: { TEST_DB: 'sqlite' } } },
      { extends: true, test: { name: 'postgres', include: e2e, env: { TEST_DB: 'postgres' } } },
    ],
  },
});
