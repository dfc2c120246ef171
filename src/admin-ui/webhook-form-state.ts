// The webhook form's state, without a DOM: the check of what it holds before sending, and the field a message of
// the server is about. page-webhooks-form.ts renders the form.
import type { WebhookSettings } from '../shared/webhooks.js';

/** The event type that stands for every event, including ones added later. */
export const ALL_EVENTS = '*';

/** What the form's controls hold. */
export interface WebhookFormInput {
  url: string;
  allEvents: boolean;
  /** The ticked event types. */
  events: string[];
  /** The ticked models. */
  modelIds: string[];
  description: string;
  active: boolean;
}

/** The values to send, or the field in the wrong (a URL is needed, and an event) and why. */
export function checkWebhookForm(
  form: WebhookFormInput,
): { ok: true; values: WebhookSettings } | { ok: false; field: 'url' | 'events'; message: string } {
  const events = form.allEvents ? [ALL_EVENTS] : form.events;
  if (form.url.trim() === '') return { ok: false, field: 'url', message: 'Give the URL the events are sent to.' };
  if (events.length === 0) return { ok: false, field: 'events', message: 'Choose at least one event.' };
  return {
    ok: true,
    values: {
      url: form.url.trim(),
      events,
      modelIds: form.modelIds.length === 0 ? null : form.modelIds,
      description: form.description.trim() === '' ? null : form.description.trim(),
      active: form.active,
    },
  };
}

/** The field a server message names (`url: …`, `events[2]: …`) and the rest of it; null when it names none. */
export function fieldOfMessage(message: string): { field: string; text: string } | null {
  const field = /^(\w+)(?:\[\d+\])?: /.exec(message)?.[1];
  if (!field) return null;
  return { field, text: message.slice(message.indexOf(': ') + 2) };
}
