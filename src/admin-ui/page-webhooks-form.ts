// The webhook form of Settings → Webhooks, for a new webhook and for an existing one: the URL, the events (each, or
// all of them), the models whose record events are sent (all when none is ticked), a description and whether it is
// active. The server checks the URL (a public address only); its errors land next to the field they name.
import type { Webhook, WebhookSettings } from '../shared/webhooks.js';
import { h, uid } from './dom.js';
import { checkedSubmit } from './form-submit.js';
import type { ModelDefinition } from './types.js';
import { ALL_EVENTS, checkWebhookForm, fieldOfMessage } from './webhook-form-state.js';
import { group, input, labelled, type ErrorArea, type FieldRow } from './ui.js';

export const WEBHOOK_FIELDS = 'id url events modelIds description active createdAt updatedAt';

/** What a webhook may subscribe to (the contract's events), in the order the form shows them. */
export const EVENT_TYPES: readonly { type: string; label: string }[] = [
  { type: 'record.created', label: 'Record created' },
  { type: 'record.updated', label: 'Record updated (patch and update)' },
  { type: 'record.deleted', label: 'Record deleted' },
  { type: 'records.imported', label: 'Records imported (one event per import call)' },
  { type: 'model.created', label: 'Model created' },
  { type: 'model.updated', label: 'Model updated' },
  { type: 'model.deleted', label: 'Model deleted' },
];
export { ALL_EVENTS } from './webhook-form-state.js';

export interface WebhookForm {
  element: HTMLFormElement;
  focus(): void;
  reset(): void;
}

/** The events as a short text: "All events", or the event names. */
export function eventsText(events: readonly string[]): string {
  return events.includes(ALL_EVENTS) ? 'All events' : events.join(', ');
}

/** The events' checkboxes: "all events" (which ticks and locks the others) and one per event type. */
function eventsGroup() {
  const allEvents = h('input', { type: 'checkbox', id: uid('event'), name: 'events', value: ALL_EVENTS });
  const eventBoxes = EVENT_TYPES.map(({ type }) =>
    h('input', { type: 'checkbox', id: uid('event'), name: 'events', value: type }),
  );
  const syncAll = () => {
    for (const box of eventBoxes) {
      box.disabled = allEvents.checked;
      if (allEvents.checked) box.checked = true;
    }
  };
  allEvents.addEventListener('change', () => {
    if (!allEvents.checked) for (const box of eventBoxes) box.checked = false;
    syncAll();
  });
  const eventsRow: FieldRow = group(
    'Events',
    [
      h(
        'div',
        { class: 'form-row form-row-check' },
        allEvents,
        h('label', { for: allEvents.id }, 'All events, including ones added later'),
      ),
      ...EVENT_TYPES.map(({ type, label }, index) =>
        h(
          'div',
          { class: 'form-row form-row-check' },
          eventBoxes[index],
          h('label', { for: eventBoxes[index]!.id }, label, ' ', h('code', { class: 'small' }, type)),
        ),
      ),
    ],
    { required: true, className: 'plain webhook-events' },
  );
  return { allEvents, eventBoxes, syncAll, eventsRow };
}

/** The models' checkboxes: record events of the ticked models only. */
function modelsGroup(models: readonly ModelDefinition[]) {
  const modelBoxes = models.map((model) => h('input', { type: 'checkbox', id: uid('model'), name: 'modelIds', value: model.id }));
  const modelsRow: FieldRow = group(
    'Models (optional)',
    models.length === 0
      ? h('p', { class: 'muted' }, 'This workspace has no models yet.')
      : models.map((model, index) =>
          h(
            'div',
            { class: 'form-row form-row-check' },
            modelBoxes[index],
            h('label', { for: modelBoxes[index]!.id }, model.name),
          ),
        ),
    { hint: 'Record events of the ticked models only. None ticked: records of every model.', className: 'plain webhook-models' },
  );
  return { modelBoxes, modelsRow };
}

export function webhookForm(options: {
  webhook?: Webhook;
  models: readonly ModelDefinition[];
  submitLabel: string;
  titleId: string;
  /** Sends the values; what it throws is shown next to the field it names, or else in `errors` under `failedTitle`. */
  onSubmit(values: WebhookSettings, submit: HTMLButtonElement): Promise<void>;
  errors: ErrorArea;
  failedTitle: string;
}): WebhookForm {
  const existing = options.webhook;
  const url = input({
    type: 'url',
    name: 'url',
    autocomplete: 'off',
    spellcheck: false,
    required: true,
    value: existing?.url ?? '',
  });
  const urlRow = labelled('Endpoint URL', url, {
    required: true,
    hint: 'https:// (or http://) to a public address. Each event is POSTed there as JSON, signed (Standard Webhooks).',
  });

  const { allEvents, eventBoxes, syncAll, eventsRow } = eventsGroup();

  const { modelBoxes, modelsRow } = modelsGroup(options.models);

  const description = input({ name: 'description', autocomplete: 'off', value: existing?.description ?? '' });
  const descriptionRow = labelled('Description (optional)', description, {
    hint: 'What the endpoint is, such as “site rebuild”.',
  });
  const active = h('input', { type: 'checkbox', name: 'active' });
  const activeRow = labelled('Active', active, { hint: 'A paused webhook keeps its settings and gets no deliveries.' });

  const fill = () => {
    url.value = existing?.url ?? '';
    const events = existing?.events ?? [];
    allEvents.checked = events.includes(ALL_EVENTS);
    for (const box of eventBoxes) box.checked = events.includes(box.value);
    syncAll();
    const modelIds = existing?.modelIds ?? [];
    for (const box of modelBoxes) box.checked = modelIds.includes(box.value);
    description.value = existing?.description ?? '';
    active.checked = existing?.active ?? true;
  };
  fill();

  const rows: Record<string, FieldRow> = {
    url: urlRow,
    events: eventsRow,
    modelIds: modelsRow,
    description: descriptionRow,
    active: activeRow,
  };
  const clearErrors = () => {
    for (const row of Object.values(rows)) row.setError(null);
  };
  /** Puts a server error next to the field it names (`url: …`); false when it names none of them. */
  const showFieldError = (message: string) => {
    const named = fieldOfMessage(message);
    const row = named ? rows[named.field] : undefined;
    if (!named || !row) return false;
    row.setError(named.text);
    row.focusTarget.focus();
    return true;
  };
  const submit = h('button', { type: 'submit', class: 'button button-primary' }, options.submitLabel);
  const check = () => {
    clearErrors();
    const checked = checkWebhookForm({
      url: url.value,
      allEvents: allEvents.checked,
      events: eventBoxes.filter((box) => box.checked).map((box) => box.value),
      modelIds: modelBoxes.filter((box) => box.checked).map((box) => box.value),
      description: description.value,
      active: active.checked,
    });
    if (checked.ok) return checked.values;
    const row = checked.field === 'url' ? urlRow : eventsRow;
    row.setError(checked.message);
    if (checked.field === 'url') url.focus();
    else eventsRow.focusTarget.focus();
    return false;
  };
  const send = async (values: WebhookSettings) => {
    options.errors.clear();
    try {
      await options.onSubmit(values, submit);
    } catch (error) {
      if (!showFieldError((error as Error).message)) options.errors.show(error, options.failedTitle);
    }
  };
  const form = h(
    'form',
    {
      class: 'webhook-form',
      novalidate: true,
      'aria-labelledby': options.titleId,
      onsubmit: checkedSubmit(submit, check, send),
    },
    urlRow.element,
    eventsRow.element,
    modelsRow.element,
    h('div', { class: 'form-columns' }, descriptionRow.element, activeRow.element),
    h('div', { class: 'form-actions' }, submit),
  );

  return {
    element: form,
    focus: () => url.focus(),
    reset() {
      clearErrors();
      fill();
    },
  };
}
