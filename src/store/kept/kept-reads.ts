import { BoundedMap } from '../../shared/bounded-map.js';
import type { WritersMembership } from './sole-server.js';
import type { WriteTracker } from './write-tracker.js';

/** When a read was sent: what must not have moved by the time its answer is kept, and by the time it is used. */
export interface ReadMoment {
  generation: number;
  epoch: number;
  at: number;
}

/** How long a sole server keeps what it read: a bound on staleness should a process be uncounted. */
const KEPT_MS = 1_000;

interface Kept<T> extends ReadMoment {
  value: T;
}

/**
 * Answers read from the database (content versions, tokens, model definitions and lists, the records populate
 * reads), kept while this server is the only process on the schema (sole-server.ts) and none of its own statements
 * that may write has started or ended since the read was sent (write-tracker.ts): then no statement anywhere can
 * have changed them, and a kept answer is the one a read would return. At most KEPT_MS old, 1000 keys.
 */
export class KeptReads<T> {
  private readonly entries = new BoundedMap<string, Kept<T>>(1000);

  constructor(
    private readonly tracker: WriteTracker,
    private readonly membership: WritersMembership,
  ) {}

  /** The moment a read starts; null when what it reads could not be kept. */
  moment(): ReadMoment | null {
    if (!this.membership.isSole || !this.tracker.quiet) return null;
    return { generation: this.tracker.generation, epoch: this.membership.epoch, at: Date.now() };
  }

  remember(key: string, value: T, moment: ReadMoment | null): void {
    if (moment === null || !this.unchangedSince(moment)) return;
    this.entries.set(key, { ...moment, value });
  }

  /** The kept answer, when it is still current; undefined when only a read can tell. */
  current(key: string): T | undefined {
    const kept = this.entries.get(key);
    if (kept === undefined) return undefined;
    if (!this.unchangedSince(kept) || Date.now() - kept.at >= KEPT_MS) {
      this.entries.delete(key);
      return undefined;
    }
    return kept.value;
  }

  /**
   * The kept answer for `key`, else `read`'s, kept when it can be. A copy each way (a caller may change what it
   * gets, and the kept answer must stay as it was read); a null answer is not kept.
   */
  async copied(key: string, read: () => Promise<T | null>): Promise<T | null> {
    const kept = this.current(key);
    if (kept !== undefined) return structuredClone(kept);
    const moment = this.moment();
    const value = await read();
    if (value !== null) this.remember(key, structuredClone(value), moment);
    return value;
  }

  private unchangedSince(moment: ReadMoment): boolean {
    return (
      this.membership.isSole &&
      this.tracker.quiet &&
      moment.generation === this.tracker.generation &&
      moment.epoch === this.membership.epoch
    );
  }
}
