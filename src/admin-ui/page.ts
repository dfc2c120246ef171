import type { Session, SessionWorkspace } from './types.js';

/** What a page gets from the router. */
export interface PageContext {
  /** The element the page renders into (inside <main>). */
  main: HTMLElement;
  session: Session;
  workspace: SessionWorkspace;
  /** Path parameters (`:modelId`, `:recordId`). */
  params: Record<string, string>;
  /** The query part of the hash (`#/models/x/records?offset=50`). */
  query: URLSearchParams;
  navigate(hash: string): void;
  /** Shows another address instead of this one: no new history entry. */
  redirect(hash: string): void;
  /** A message shown at the top of the next page. */
  flash(message: string): void;
  /** False once the user went to another page: late answers are dropped. */
  isCurrent(): boolean;
  setTitle(title: string): void;
}
