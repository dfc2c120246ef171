import { ApiError, signIn } from './api.js';
import { h } from './dom.js';
import type { Session } from './types.js';
import { errorArea, input, labelled } from './ui.js';

export function renderSignIn(container: HTMLElement, onSignedIn: (session: Session) => void | Promise<void>): void {
  const email = input({ type: 'email', name: 'email', autocomplete: 'username', required: true });
  const password = input({ type: 'password', name: 'password', autocomplete: 'current-password', required: true });
  const errors = errorArea();
  const submit = h('button', { type: 'submit', class: 'button button-primary' }, 'Sign in');
  let countdown: ReturnType<typeof setInterval> | undefined;
  // The rate limit's message counts down and goes away when the wait is over; the button waits with it.
  const waitOut = (seconds: number) => {
    let left = seconds;
    const show = () => errors.show(`Too many sign-in attempts. Try again in ${left} second${left === 1 ? '' : 's'}.`);
    submit.disabled = true;
    show();
    countdown = setInterval(() => {
      left -= 1;
      if (!container.isConnected || left <= 0) {
        clearInterval(countdown);
        countdown = undefined;
        errors.clear();
        submit.disabled = false;
        return;
      }
      show();
    }, 1000);
  };
  const form = h(
    'form',
    {
      class: 'sign-in',
      'aria-labelledby': 'sign-in-title',
      onsubmit: async (event: Event) => {
        event.preventDefault();
        if (countdown !== undefined) return;
        errors.clear();
        submit.disabled = true;
        let waiting = false;
        try {
          const session = await signIn(email.value.trim(), password.value);
          password.value = '';
          await onSignedIn(session);
        } catch (error) {
          if (error instanceof ApiError && error.status === 401) {
            errors.show('The email or the password is not right.');
          } else if (error instanceof ApiError && error.status === 429) {
            if (error.retryAfter) {
              waiting = true;
              waitOut(error.retryAfter);
            } else {
              errors.show('Too many sign-in attempts. Try again later.');
            }
          } else {
            errors.show(error);
          }
          password.focus();
        } finally {
          if (!waiting) submit.disabled = false;
        }
      },
    },
    h('h1', { id: 'sign-in-title', tabindex: '-1' }, 'Sign in to Content Service'),
    errors.element,
    labelled('Email', email).element,
    labelled('Password', password).element,
    h('div', { class: 'form-actions' }, submit),
    h(
      'p',
      { class: 'hint' },
      'No password yet? An operator sets one with ',
      h('code', null, 'content-service user set-password --email you@example.com --password-stdin'),
      '.',
    ),
  );
  container.append(h('div', { class: 'sign-in-wrap' }, form));
  email.focus();
}
