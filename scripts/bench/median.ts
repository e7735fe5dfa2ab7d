/**
 * The middle value of `xs` (the upper one of the two middles for an even count): always one of
 * the values measured, so a report can show the run it came from. Rounds are odd by default.
 */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
