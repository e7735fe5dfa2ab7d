/**
 * Loaded into the soak's server process (`--expose-gc --import`): every few seconds, a full GC
 * and then one line with what is still alive. Live heap after a full GC is what a leak grows;
 * RSS and heap-used between collections also move with garbage not yet collected.
 */
const every = Number(process.env.SOAK_GC_PROBE_MS ?? 10_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc) {
  setInterval(() => {
    gc();
    const { heapUsed, rss, external, arrayBuffers } = process.memoryUsage();
    process.stderr.write(`[gc-probe] ${JSON.stringify({ heapUsed, rss, external, arrayBuffers })}\n`);
  }, every).unref();
}
