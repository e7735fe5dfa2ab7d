import { describe, expect, it } from 'vitest';
import { RowsInFlight } from '../../src/lists/rowsInFlight.ts';

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('RowsInFlight', () => {
  it('lets pages run at once while their rows fit, and holds the next until enough are released', async () => {
    const budget = new RowsInFlight(10_000);
    const first = await budget.take(5000);
    const second = await budget.take(5000);
    let thirdStarted = false;
    const third = budget.take(5000).then((release) => {
      thirdStarted = true;
      return release;
    });
    await settled();
    expect(thirdStarted).toBe(false);
    first();
    await settled();
    expect(thirdStarted).toBe(true);
    second();
    (await third)();
  });

  it('runs a page larger than the limit alone rather than never', async () => {
    const budget = new RowsInFlight(10_000);
    const huge = await budget.take(20_000);
    let smallStarted = false;
    const small = budget.take(1000).then((release) => {
      smallStarted = true;
      return release;
    });
    await settled();
    expect(smallStarted).toBe(false);
    huge();
    (await small)();
    expect(smallStarted).toBe(true);
  });

  it('serves waiting pages first come, first served, and a release counts once', async () => {
    const budget = new RowsInFlight(5000);
    const running = await budget.take(5000);
    const order: string[] = [];
    const a = budget.take(5000).then((release) => {
      order.push('a');
      return release;
    });
    const b = budget.take(1000).then((release) => {
      order.push('b');
      return release;
    });
    running();
    running();
    const releaseA = await a;
    await settled();
    expect(order).toEqual(['a']);
    releaseA();
    (await b)();
    expect(order).toEqual(['a', 'b']);
  });
});
