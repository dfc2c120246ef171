/** Percentile by linear interpolation between the closest ranks; p in 0..100. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low);
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

/** Median, min and max of the repetitions of one figure. */
export function spread(values: readonly number[]): Spread {
  return { median: percentile(values, 50), min: Math.min(...values), max: Math.max(...values) };
}

export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
}

/** Math.max of many values: spread into arguments, a long run's hundreds of thousands of them overflow the stack. */
export function largest(values: readonly number[]): number {
  return values.reduce((found, value) => (value > found ? value : found), -Infinity);
}

export function smallest(values: readonly number[]): number {
  return values.reduce((found, value) => (value < found ? value : found), Infinity);
}

export function latencySummary(values: readonly number[]): LatencySummary {
  const sum = values.reduce((total, value) => total + value, 0);
  return {
    count: values.length,
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    mean: values.length ? sum / values.length : NaN,
    max: values.length ? largest(values) : NaN,
  };
}
