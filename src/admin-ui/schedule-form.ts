// The Schedule action of a model with drafts (docs/lifecycle.md "Schedules"), on the record form (record-publish.ts)
// and for the selected rows of the records table (records-selection.ts): "Schedule publish…" and "Schedule
// unpublish…" open a small form with a datetime-local field, in the browser's local time, sent as the ISO time in
// UTC. The schedule made is shown with a link to the Schedules page; a refusal (a past time, a record gone) as the
// server words it, in the page's error area and, when it names the time, at the field.
import { ApiError } from './api.js';
import { h, uid } from './dom.js';
import { scheduleCall } from './schedules-api.js';
import {
  SCHEDULE_ACTIONS,
  defaultScheduleTime,
  localInputToIso,
  scheduleInputProblem,
  scheduleLabels,
  scheduledText,
  schedulesHref,
  timeZoneHint,
  toLocalInputValue,
  type ScheduleAction,
} from './schedules-state.js';
import { button, labelled, type ErrorArea } from './ui.js';
import { formatDateTime } from './values.js';

export interface ScheduleFormOptions {
  /** The records the schedule is for, read when it is sent. */
  ids: () => string[];
  /** How the message names them (a record's name); undefined: "2 records". */
  subject?: () => string | undefined;
  /** Where a refusal is shown. */
  errors: ErrorArea;
}

export interface ScheduleTools {
  /** "Schedule publish…" and "Schedule unpublish…". */
  buttons: HTMLButtonElement[];
  /** The form (hidden until a button opens it) and the message about the schedule made. */
  area: HTMLElement;
  /** Off while there is nothing to schedule (no row selected). */
  setEnabled(enabled: boolean): void;
}

function browserTimeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The message after a schedule is made, with the way to the Schedules page. */
function scheduledNotice(text: string): HTMLElement {
  return h(
    'div',
    { class: 'alert alert-ok schedule-made', role: 'status' },
    text,
    ' ',
    h('a', { href: schedulesHref({ status: 'pending', offset: 0 }) }, 'See it on the Schedules page'),
  );
}

export function scheduleTools(options: ScheduleFormOptions): ScheduleTools {
  const { errors } = options;
  let action: ScheduleAction = 'publish';
  const formId = uid('schedule-form');
  const field = h('input', { type: 'datetime-local', step: '1', class: 'schedule-at', required: true });
  const row = labelled('Publish at', field, { hint: timeZoneHint(browserTimeZone()) });
  const label = row.element.querySelector('label')!;
  const submit = h('button', { type: 'submit', class: 'button button-primary' }, 'Schedule publish');
  const result = h('div', { class: 'schedule-result' });
  const openers = new Map<ScheduleAction, HTMLButtonElement>();

  const close = () => {
    form.hidden = true;
    for (const opener of openers.values()) opener.setAttribute('aria-expanded', 'false');
  };
  const open = (chosen: ScheduleAction) => {
    action = chosen;
    const labels = scheduleLabels(chosen);
    label.textContent = labels.field;
    submit.textContent = labels.submit;
    row.setError(null);
    if (form.hidden || field.value === '') field.value = toLocalInputValue(defaultScheduleTime());
    form.hidden = false;
    for (const [key, opener] of openers) opener.setAttribute('aria-expanded', String(key === chosen));
    field.focus();
  };
  const send = async () => {
    errors.clear();
    result.replaceChildren();
    const problem = scheduleInputProblem(field.value);
    if (problem) {
      row.setError(problem);
      field.focus();
      return;
    }
    submit.disabled = true;
    try {
      const schedule = await scheduleCall(action, options.ids(), localInputToIso(field.value)!);
      close();
      result.replaceChildren(
        scheduledNotice(scheduledText(schedule, formatDateTime(schedule.at, { seconds: true }), options.subject?.())),
      );
    } catch (error) {
      errors.show(error, 'The schedule was not made.');
      if (error instanceof ApiError && error.message.startsWith('input.at: ')) {
        row.setError(error.message.slice('input.at: '.length));
        field.focus();
      }
    } finally {
      submit.disabled = false;
    }
  };
  const form: HTMLFormElement = h(
    'form',
    {
      id: formId,
      class: 'schedule-form',
      novalidate: true,
      hidden: true,
      'aria-label': 'Schedule',
      onsubmit: (event: Event) => {
        event.preventDefault();
        void send();
      },
    },
    row.element,
    h(
      'div',
      { class: 'form-actions' },
      submit,
      button('Cancel', () => close()),
    ),
  );
  for (const chosen of SCHEDULE_ACTIONS) {
    openers.set(
      chosen,
      button(scheduleLabels(chosen).open, () => open(chosen), { 'aria-expanded': 'false', 'aria-controls': formId }),
    );
  }
  return {
    buttons: [...openers.values()],
    area: h('div', { class: 'schedule-area' }, result, form),
    setEnabled(enabled: boolean) {
      for (const opener of openers.values()) opener.disabled = !enabled;
      submit.disabled = !enabled;
      if (!enabled) close();
    },
  };
}
