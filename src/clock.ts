/**
 * The current time in milliseconds since the epoch. Passed to the parts that decide expiry (API tokens,
 * admin sessions), so that tests can set the time instead of waiting for it.
 */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
