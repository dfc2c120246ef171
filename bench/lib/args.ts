/**
 * Command-line flags shared by the benchmark programs: `--name value`, `--name=value` or a bare `--flag`.
 * Every numeric flag may also come from an environment variable (BENCH_<NAME>), and accepts `200k`, `1m`, `200_000`.
 */
export class Args {
  private readonly values = new Map<string, string | true>();

  constructor(argv: string[] = process.argv.slice(2)) {
    for (let index = 0; index < argv.length; index++) {
      const arg = argv[index]!;
      if (!arg.startsWith('--')) throw new Error(`Unexpected argument "${arg}" (flags look like --rows 200000)`);
      const eq = arg.indexOf('=');
      if (eq > 0) {
        this.values.set(arg.slice(2, eq), arg.slice(eq + 1));
      } else {
        const next = argv[index + 1];
        if (next !== undefined && !next.startsWith('--')) {
          this.values.set(arg.slice(2), next);
          index++;
        } else {
          this.values.set(arg.slice(2), true);
        }
      }
    }
  }

  private raw(name: string): string | true | undefined {
    const envName = `BENCH_${name.toUpperCase().replace(/-/g, '_')}`;
    return this.values.get(name) ?? process.env[envName];
  }

  flag(name: string): boolean {
    const value = this.raw(name);
    return value === true || value === '1' || value === 'true' || value === 'yes';
  }

  int(name: string, fallback: number): number {
    const value = this.raw(name);
    if (value === undefined || value === true) return fallback;
    return parseCount(value, name);
  }

  ints(name: string, fallback: number[]): number[] {
    const value = this.raw(name);
    if (value === undefined || value === true) return fallback;
    return value.split(',').map((part) => parseCount(part, name));
  }

  string(name: string, fallback: string): string {
    const value = this.raw(name);
    return value === undefined || value === true ? fallback : value;
  }
}

export function parseCount(text: string, name: string): number {
  const match = /^\s*([0-9_.]+)\s*([kKmM]?)\s*$/.exec(text);
  const factor = match?.[2]?.toLowerCase() === 'k' ? 1_000 : match?.[2]?.toLowerCase() === 'm' ? 1_000_000 : 1;
  const value = match ? Math.round(Number(match[1]!.replace(/_/g, '')) * factor) : NaN;
  if (!Number.isFinite(value) || value < 0) throw new Error(`--${name}: "${text}" is not a count (e.g. 200000, 200k, 1m)`);
  return value;
}
