import { BoundedMap } from '../../shared/bounded-map.js';
import type { VersionedWorkspace } from '../store.js';
import type { WritersMembership } from './sole-server.js';
import type { WriteTracker } from './write-tracker.js';

/** When a version read was sent: what must not have moved by the time it is kept, and by the time it is used. */
export interface ReadMoment {
  generation: number;
  epoch: number;
  at: number;
}

/** How long a sole server keeps a content version it read: a bound on staleness should a process be uncounted. */
const KEPT_MS = 1_000;

interface Kept extends ReadMoment {
  versioned: VersionedWorkspace;
}

/**
 * Content versions read from the database, kept while this server is the only process on the schema (sole-server.ts)
 * and none of its own statements that may write has started or ended since the read was sent (write-tracker.ts):
 * then no statement anywhere can have moved them, and a kept version is the one a read would return. At most
 * KEPT_MS old, 1000 workspaces.
 */
export class KeptVersions {
  private readonly entries = new BoundedMap<string, Kept>(1000);

  constructor(
    private readonly tracker: WriteTracker,
    private readonly membership: WritersMembership,
  ) {}

  /** The moment a read starts; null when what it reads could not be kept. */
  moment(): ReadMoment | null {
    if (!this.membership.isSole || !this.tracker.quiet) return null;
    return { generation: this.tracker.generation, epoch: this.membership.epoch, at: Date.now() };
  }

  remember(key: string, versioned: VersionedWorkspace, moment: ReadMoment | null): void {
    if (moment === null || !this.unchangedSince(moment)) return;
    this.entries.set(key, { ...moment, versioned });
  }

  /** The kept version, when it is still current; undefined when only a read can tell. */
  current(key: string): VersionedWorkspace | undefined {
    const kept = this.entries.get(key);
    if (kept === undefined) return undefined;
    if (!this.unchangedSince(kept) || Date.now() - kept.at >= KEPT_MS) {
      this.entries.delete(key);
      return undefined;
    }
    return kept.versioned;
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
