import autocannon from 'autocannon';
const [port, keyfile, query, seconds = '5', conns = '16'] = process.argv.slice(2);
const fs = await import('node:fs');
const key = fs.readFileSync(keyfile, 'utf8').trim();
const r = await autocannon({ url: `http://127.0.0.1:${port}/v3/payments?${query}`, connections: Number(conns), duration: Number(seconds), headers: { authorization: `Bearer ${key}` } });
console.log(`${port} p50=${r.latency.p50}ms p99=${r.latency.p99}ms req/s=${r.requests.average} non2xx=${r.non2xx} ${query}`);
