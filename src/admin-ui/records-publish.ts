// Publish and Unpublish of the records selected in the records table of a model with drafts (one call each, all or
// nothing: a page has at most 100 rows), and the note after a publish whose records link to records that are not
// published, which offers to publish those too. The page is rendered again after either, showing the statuses.
// Beside them Schedule publish… and Schedule unpublish… (schedule-form.ts) make a schedule of the selected rows, all
// of them: a schedule acts on the records as they are at its time, whatever their status now.
import type { PageContext } from './page.js';
import { publishCall } from './record-publish-api.js';
import { bulkAvailability, bulkDoneText, bulkTargets, type PublishAction } from './record-status-state.js';
import { rememberTargets, takeTargets, targetsNote } from './record-status.js';
import { scheduleTools, type ScheduleTools } from './schedule-form.js';
import type { ModelRecord } from './types.js';
import { button, type ErrorArea } from './ui.js';

export interface BulkPublishOptions {
  ctx: PageContext;
  modelId: string;
  /** The address the page shows after an action (the same view). */
  hereHref: () => string;
  errors: ErrorArea;
  /** The selection's status line, which says what is under way. */
  status: HTMLElement;
  selected: () => ModelRecord[];
  /** After a refusal: the selection's controls show the selection again. */
  restore: () => void;
}

const FAILED: Record<PublishAction, string> = {
  publish: 'The records were not published.',
  unpublish: 'The records were not unpublished.',
};

/** The Publish selected and Unpublish selected buttons; `update` follows the selection. */
export function bulkPublishButtons(options: BulkPublishOptions): { buttons: HTMLButtonElement[]; update: () => void } {
  const { ctx, errors, status } = options;
  const run = async (action: PublishAction) => {
    const targets = bulkTargets(action, options.selected());
    if (targets.length === 0) return;
    errors.clear();
    publish.disabled = true;
    unpublish.disabled = true;
    status.textContent = action === 'publish' ? 'Publishing…' : 'Unpublishing…';
    try {
      const result = await publishCall(
        action,
        targets.map((record) => record.id),
      );
      if (!ctx.isCurrent()) return;
      rememberTargets(options.modelId, result.unpublishedTargets);
      ctx.flash(bulkDoneText(action, result.records.length));
      ctx.navigate(options.hereHref());
    } catch (error) {
      errors.show(error, FAILED[action]);
      options.restore();
    }
  };
  const publish = button('Publish selected', () => run('publish'), { class: 'button', disabled: true });
  const unpublish = button('Unpublish selected', () => run('unpublish'), { class: 'button', disabled: true });
  const update = () => {
    const available = bulkAvailability(options.selected());
    publish.disabled = !available.publish;
    unpublish.disabled = !available.unpublish;
  };
  return { buttons: [publish, unpublish], update };
}

/**
 * The note about the linked records a publish of this page's records left unpublished (remembered across the render
 * that showed the result); its button publishes them and renders the page again. Null when there are none.
 */
export function linkedRecordsNote(ctx: PageContext, key: string, hereHref: () => string): HTMLElement | null {
  return targetsNote(takeTargets(key), (published, next) => {
    if (!ctx.isCurrent()) return;
    rememberTargets(key, next);
    ctx.flash(bulkDoneText('publish', published));
    ctx.navigate(hereHref());
  });
}

/** Schedule publish… and Schedule unpublish… of the selected rows; off while none is selected. */
export function bulkScheduleTools(options: Pick<BulkPublishOptions, 'errors' | 'selected'>): ScheduleTools {
  return scheduleTools({ ids: () => options.selected().map((record) => record.id), errors: options.errors });
}
