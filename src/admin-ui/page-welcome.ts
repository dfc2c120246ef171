// The page a one-time sign-in link opens (#/welcome?token=…): the new member chooses a password and is signed in.
import { ApiError, checkSignInLink, useSignInLink } from './api.js';
import { h } from './dom.js';
import { checkedSubmit } from './form-submit.js';
import type { Session } from './types.js';
import { alertBox, errorArea, input, labelled } from './ui.js';

const MIN_PASSWORD_LENGTH = 8;

export async function renderWelcome(
  container: HTMLElement,
  token: string,
  onSignedIn: (session: Session) => void | Promise<void>,
): Promise<void> {
  const wrap = h('div', { class: 'sign-in-wrap' });
  container.append(wrap);
  let email: string;
  try {
    email = (await checkSignInLink(token)).email;
  } catch (error) {
    const message = error instanceof ApiError ? error.message : 'The sign-in link could not be checked.';
    wrap.append(
      h('h1', { tabindex: '-1' }, 'Sign-in link'),
      alertBox(message),
      h('p', null, h('a', { href: '#/sign-in' }, 'Go to the sign-in page')),
    );
    return;
  }
  const password = input({ type: 'password', name: 'new-password', autocomplete: 'new-password', required: true });
  const repeat = input({ type: 'password', name: 'repeat-password', autocomplete: 'new-password', required: true });
  const passwordRow = labelled('New password', password, { required: true, hint: `At least ${MIN_PASSWORD_LENGTH} characters.` });
  const repeatRow = labelled('Repeat the password', repeat, { required: true });
  const errors = errorArea();
  const submit = h('button', { type: 'submit', class: 'button button-primary' }, 'Set password and sign in');
  const check = () => {
    errors.clear();
    passwordRow.setError(null);
    repeatRow.setError(null);
    if ([...password.value].length < MIN_PASSWORD_LENGTH) {
      passwordRow.setError(`At least ${MIN_PASSWORD_LENGTH} characters.`);
      password.focus();
      return false;
    }
    if (repeat.value !== password.value) {
      repeatRow.setError('The two passwords differ.');
      repeat.focus();
      return false;
    }
    return true;
  };
  const send = async () => {
    try {
      const session = await useSignInLink(token, password.value);
      password.value = '';
      repeat.value = '';
      await onSignedIn(session);
    } catch (error) {
      errors.show(error);
    }
  };
  const form = h(
    'form',
    {
      class: 'sign-in',
      novalidate: true,
      'aria-labelledby': 'welcome-title',
      onsubmit: checkedSubmit(submit, check, send),
    },
    h('h1', { id: 'welcome-title', tabindex: '-1' }, 'Welcome to Content Service'),
    h('p', null, 'Choose the password you will sign in with as ', h('strong', null, email), '. This link works once.'),
    errors.element,
    passwordRow.element,
    repeatRow.element,
    h('div', { class: 'form-actions' }, submit),
  );
  wrap.append(form);
  password.focus();
}
