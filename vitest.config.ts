import { defineConfig } from 'vitest/config';

// Pure tests run once; everything that touches a database runs once per dialect. Each project
// `extends` the root options: without it a project silently drops the timeouts below.
const e2e = ['test/**/*.e2e.test.ts'];
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: e2e } },
      { extends: true, test: { name: 'sqlite', include: e2e, env: { TEST_DB: 'sqlite' } } },
      { extends: true, test: { name: 'postgres', include: e2e, env: { TEST_DB: 'postgres' } } },
    ],
  },
});
