#!/usr/bin/env node
// The package's command: the same entry as `npm run cli` (Node 24 runs the TypeScript directly).
import '../src/cli/main.ts';
