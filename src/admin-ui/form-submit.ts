// The submit handler of a form that is checked in the page before it is sent.

/**
 * `check` runs first: it shows what is wrong and returns false (nothing is sent), or returns what `send` needs.
 * `send` runs with the submit button disabled until it settles, so that a second press does not send the form twice.
 */
export function checkedSubmit<T>(
  submit: HTMLButtonElement,
  check: () => T | false,
  send: (checked: T) => Promise<void>,
): (event: Event) => Promise<void> {
  return async (event) => {
    event.preventDefault();
    const checked = check();
    if (checked === false) return;
    submit.disabled = true;
    try {
      await send(checked);
    } finally {
      submit.disabled = false;
    }
  };
}
