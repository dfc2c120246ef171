import { v7 } from 'uuid';

/** Time-ordered ids (UUIDv7, monotonic within a process), so id order is creation order. */
export function newId(): string {
  return v7();
}
