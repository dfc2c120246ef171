import { readFileSync } from 'node:fs';

export interface MemoryStatus {
  /** Resident set size now, MiB. */
  rssMiB: number;
  /** Peak resident set size since the process started (VmHWM), MiB. */
  hwmMiB: number;
}

/** VmRSS and VmHWM of a process from /proc/<pid>/status (Linux). */
export function memoryStatus(pid: number): MemoryStatus {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: kib('VmRSS') / 1024, hwmMiB: kib('VmHWM') / 1024 };
}

/** Samples a process's RSS every `intervalMs` until stopped; the peak is the larger of the samples and VmHWM. */
export class RssSampler {
  private readonly timer: NodeJS.Timeout;
  private peakSampled = 0;
  private samples = 0;

  constructor(
    private readonly pid: number,
    intervalMs = 50,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  private sample(): void {
    try {
      const { rssMiB } = memoryStatus(this.pid);
      this.peakSampled = Math.max(this.peakSampled, rssMiB);
      this.samples++;
    } catch {
      // the process has ended
    }
  }

  stop(): { peakSampledMiB: number; hwmMiB: number; samples: number } {
    clearInterval(this.timer);
    this.sample();
    let hwmMiB = NaN;
    try {
      hwmMiB = memoryStatus(this.pid).hwmMiB;
    } catch {
      // the process has ended
    }
    return { peakSampledMiB: this.peakSampled, hwmMiB, samples: this.samples };
  }
}
